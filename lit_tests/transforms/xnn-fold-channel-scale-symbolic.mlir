// RUN: xnn-opt %s --split-input-file -p xnn-fold-channel-scale --print-weights | filecheck %s

// xnn-fold-channel-scale on symbolic sizes (issue 13). A Conv1d -> ReLU -> per-channel
// scale -> zero pad -> Conv1d over T frames (a torch export with dynamic_shapes, converted,
// after xnn-layout and xnn-fold-pad): the scale (2.0) folds into the second filter (0.25 ->
// 0.5) and the sizes keep T.
// CHECK-LABEL: func.func @conv_relu_scale_pad_conv
// CHECK:         %[[C:.*]] = xnn.clamp {{.*}} -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"const_scaled", "0x0000003F0000003F0000003F{{(0000003F)*}}"> : tensor<8x1x3x8xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"const_scaled", "0xCDCCCC3DCDCCCC3DCDCCCC3DCDCCCC3DCDCCCC3DCDCCCC3DCDCCCC3DCDCCCC3D"> : tensor<8xf32>
// CHECK-NEXT:    xnn.convolution_2d %[[C]], %[[W]], %[[B]] {{.*}} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<8x1x3x8xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NOT:     xnn.binary multiply
// CHECK:         xnn.output
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @conv_relu_scale_pad_conv(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x4x?xf32, #xnnc.dims<"T">>):
      %0 = xnn.static_reshape %a {new_shape = array<i64: 1, 4, 1, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x1x?xf32, #xnnc.dims<"T">>
      %1 = xnn.static_transpose %0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x1x?xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
      %b1 = xnn.constant dense<1.000000e-01> : tensor<8xf32>
      %w1 = xnn.constant dense<5.000000e-01> : tensor<8x1x3x4xf32>
      %2 = xnn.convolution_2d %1, %w1, %b1 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x3x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
      %3 = xnn.clamp %2 {output_min = 0.000000e+00 : f32} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
      %4 = xnn.constant dense<2.000000e+00> : tensor<8xf32>
      %5 = xnn.binary multiply %3, %4 : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
      %b2 = xnn.constant dense<1.000000e-01> : tensor<8xf32>
      %w2 = xnn.constant dense<2.500000e-01> : tensor<8x1x3x8xf32>
      %6 = xnn.convolution_2d %5, %w2, %b2 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 8 : i64, group_output_channels = 8 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<8x1x3x8xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
      %7 = xnn.static_reshape %6 {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
      %8 = xnn.static_transpose %7 {perm = array<i64: 0, 2, 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
      xnn.output %8 : tensor<1x8x?xf32, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}


// -----

// The scale in PyTorch's layout (NCL, a [1, 8, 1] constant), reaching the convolution
// through conversion's transpose and reshape to N1LC (T on one side as the reshape's 0):
// the filter's input channels are scaled 1, 2, 1, 2, ...
// CHECK-LABEL: func.func @ncl_scale_into_conv
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"const_scaled", "0x{{(0000803F00000040)+}}"> : tensor<4x1x3x8xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.constant
// CHECK-NEXT:    xnn.convolution_2d %[[R]], %[[W]], %[[B]] {{.*}} -> tensor<1x1x?x4xf32, #xnnc.dims<"T - 2">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @ncl_scale_into_conv(%x: tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T - 2">> {
    %s = xnn.constant dense<[[[1.0], [2.0], [1.0], [2.0], [1.0], [2.0], [1.0], [2.0]]]> : tensor<1x8x1xf32>
    %m = xnn.binary multiply %x, %s : (tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x8x1xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    %t = xnn.static_transpose %m {perm = array<i64: 0, 2, 1>} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
    %r = xnn.static_reshape %t {new_shape = array<i64: 1, 1, 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
    %w = xnn.constant dense<1.0> : tensor<4x1x3x8xf32>
    %b = xnn.constant dense<0.0> : tensor<4xf32>
    %y = xnn.convolution_2d %r, %w, %b {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 8 : i64, group_output_channels = 4 : i64} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<4x1x3x8xf32>, tensor<4xf32>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T - 2">>
    func.return %y : tensor<1x1x?x4xf32, #xnnc.dims<"T - 2">>
  }
}
