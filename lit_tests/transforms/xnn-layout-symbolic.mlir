// RUN: xnn-opt %s --split-input-file -p xnn-layout | filecheck %s

// xnn-layout on symbolic sizes (issue 13). Input: conversion's output for a Conv1d ->
// BatchNorm -> ReLU -> per-channel scale -> zero pad -> Conv1d over T frames (a torch
// export with dynamic_shapes, cut down). The transposes around the pad and the
// elementwise ops cancel; the reshapes left keep T as XNNPACK's inferred 0; the pad moves
// to NHWC's W axis and keeps its `T + 2`.
// CHECK-LABEL: func.func @conv_relu_scale_pad_conv
// CHECK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 1, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x1x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x1x?xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// CHECK:         xnn.convolution_2d {{.*}} -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.clamp {{.*}} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[S:.*]] = xnn.constant dense<2.000000e+00> : tensor<8xf32>
// CHECK-NEXT:    xnn.binary multiply %{{.*}}, %[[S]] : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_constant_pad %{{.*}} {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T + 2">>
// CHECK-NOT:     xnn.static_transpose
// CHECK:         xnn.convolution_2d {{.*}} : (tensor<1x1x?x8xf32, #xnnc.dims<"T + 2">>, tensor<8x1x3x8xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.output
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @conv_relu_scale_pad_conv(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x4x?xf32, #xnnc.dims<"T">>):
      %s = xnn.constant dense<2.0> : tensor<1x8x1xf32>
      %0 = xnn.static_transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">>
      %1 = xnn.static_reshape %0 {new_shape = array<i64: 1, 1, 0, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
      %b1 = xnn.constant dense<0.1> : tensor<8xf32>
      %w1 = xnn.constant dense<0.5> : tensor<8x1x3x4xf32>
      %2 = xnn.convolution_2d %1, %w1, %b1 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x3x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
      %3 = xnn.static_reshape %2 {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
      %4 = xnn.static_transpose %3 {perm = array<i64: 0, 2, 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
      %5 = xnn.clamp %4 {output_min = 0.000000e+00 : f32} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
      %6 = xnn.binary multiply %5, %s : (tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x8x1xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
      %7 = xnn.static_constant_pad %6 {pre_paddings = array<i64: 0, 0, 1>, post_paddings = array<i64: 0, 0, 1>} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T + 2">>
      %8 = xnn.static_transpose %7 {perm = array<i64: 0, 2, 1>} : (tensor<1x8x?xf32, #xnnc.dims<"T + 2">>) -> tensor<1x?x8xf32, #xnnc.dims<"T + 2">>
      %9 = xnn.static_reshape %8 {new_shape = array<i64: 1, 1, 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"T + 2">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T + 2">>
      %b2 = xnn.constant dense<0.1> : tensor<8xf32>
      %w2 = xnn.constant dense<0.25> : tensor<8x1x3x8xf32>
      %10 = xnn.convolution_2d %9, %w2, %b2 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 8 : i64, group_output_channels = 8 : i64} : (tensor<1x1x?x8xf32, #xnnc.dims<"T + 2">>, tensor<8x1x3x8xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
      %11 = xnn.static_reshape %10 {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
      %12 = xnn.static_transpose %11 {perm = array<i64: 0, 2, 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
      xnn.output %12 : tensor<1x8x?xf32, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// Two symbolic dims (a conv net's derived H = 16*h, W = 16*w): the NCHW round trip between
// the convolutions cancels, the tanh runs in NHWC.
// CHECK-LABEL: func.func @conv_tanh_conv_hw
// CHECK:         xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>
// CHECK:         xnn.convolution_2d
// CHECK-NEXT:    xnn.unary tanh %{{.*}} : (tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>
// CHECK-NEXT:    xnn.convolution_2d
// CHECK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>
// CHECK-NEXT:    xnn.output
builtin.module attributes {xnnc.symbols = #xnnc.symbols<h = [2, 8], w = [2, 8]>} {
  func.func @conv_tanh_conv_hw(%x: tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">> {
    %r = xnn.subgraph(%x) : (tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">> {
    ^bb0(%a: tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>):
      %0 = xnn.static_transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>
      %b = xnn.constant dense<0.1> : tensor<4xf32>
      %w1 = xnn.constant dense<0.5> : tensor<4x3x3x4xf32>
      %1 = xnn.convolution_2d %0, %w1, %b {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64, padding_top = 1 : i64, padding_bottom = 1 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>, tensor<4x3x3x4xf32>, tensor<4xf32>) -> tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>
      %2 = xnn.static_transpose %1 {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>
      %3 = xnn.unary tanh %2 : (tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>
      %4 = xnn.static_transpose %3 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>
      %5 = xnn.convolution_2d %4, %w1, %b {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64, padding_top = 1 : i64, padding_bottom = 1 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>, tensor<4x3x3x4xf32>, tensor<4xf32>) -> tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>
      %6 = xnn.static_transpose %5 {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x?x?x4xf32, #xnnc.dims<"16*h", "16*w">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>
      xnn.output %6 : tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>
    }
    func.return %r : tensor<1x4x?x?xf32, #xnnc.dims<"16*h", "16*w">>
  }
}
