// RUN: xnn-opt %s --split-input-file -p xnn-fuse-activation | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-fuse-activation{through-layout=false}' | filecheck %s --check-prefix=DIRECT

// xnn-fuse-activation on symbolic sizes (issue 13). A Conv1d's ReLU over T frames (a torch
// export with dynamic_shapes, converted): the clamp fuses through the reshape and
// transpose back to NCL, which keep T.
// CHECK-LABEL: func.func @conv_relu_scale_pad_conv
// CHECK:         xnn.convolution_2d {{.*}}output_min = 0.000000e+00 : f32} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x3x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %{{.*}} -> tensor<1x8x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.binary multiply %[[T]], %{{.*}} : (tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x8x1xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
// CHECK-NOT:     xnn.clamp
// CHECK:         xnn.output
// DIRECT-LABEL: func.func @conv_relu_scale_pad_conv
// DIRECT:         xnn.clamp %{{.*}} {output_min = 0.000000e+00 : f32} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
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

// Polyphase's ending: the interleaving reshape and a crop that ends one row before the
// symbolic end (sizes -1). The clamp commutes with both and fuses into the convolution;
// the crop keeps its from-end size.
// CHECK-LABEL: func.func @deconv_crop_relu6
// CHECK:         xnn.convolution_2d {{.*}}output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32} {{.*}} -> tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 0, 3>} : (tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
// CHECK-NEXT:    %[[S:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, -1, 3>} : (tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
// CHECK-NEXT:    func.return %[[S]]
// DIRECT-LABEL: func.func @deconv_crop_relu6
// DIRECT:         xnn.clamp
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @deconv_crop_relu6(%x: tensor<1x1x?x3xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">> {
    %w = xnn.constant dense<0.5> : tensor<6x1x1x3xf32>
    %b = xnn.constant dense<0.0> : tensor<6xf32>
    %c = xnn.convolution_2d %x, %w, %b {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 3 : i64, group_output_channels = 6 : i64, padding_right = 1 : i64} : (tensor<1x1x?x3xf32, #xnnc.dims<"T">>, tensor<6x1x1x3xf32>, tensor<6xf32>) -> tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>
    %r = xnn.static_reshape %c {new_shape = array<i64: 1, 1, 0, 3>} : (tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
    %s = xnn.static_slice %r {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, -1, 3>} : (tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
    %y = xnn.clamp %s {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32} : (tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
    func.return %y : tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
  }
}
