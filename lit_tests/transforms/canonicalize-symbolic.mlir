// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512"},canonicalize' | filecheck %s --check-prefixes=CHECK,EXT
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,x86-64-avx512"},canonicalize' | filecheck %s --check-prefixes=CHECK,STOCK

// canonicalize as a whole on symbolic sizes (issue 13), on conversion's output for torch
// exports with dynamic_shapes (cut down). A Conv1d -> ReLU -> per-channel scale -> zero
// pad -> Conv1d over T frames: the ReLU fuses, the scale folds into the second filter,
// the pad into its padding, and the layout transposes between the convolutions cancel;
// every type keeps T.
// CHECK-LABEL: func.func @conv_relu_scale_pad_conv
// CHECK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 1, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x1x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x1x?xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// CHECK:         %[[C1:.*]] = xnn.convolution_2d {{.*}}padding_right = 1 : i64, padding_left = 1 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x3x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"const_scaled"> : tensor<8x1x3x8xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"const_scaled"> : tensor<8xf32>
// CHECK-NEXT:    %[[C2:.*]] = xnn.convolution_2d %[[C1]], %[[W]], %[[B]] {{.*}}padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<8x1x3x8xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_reshape %[[C2]] {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
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

// ConvTranspose1d(4, 4, 4, stride=2, padding=1) -> ReLU over T frames. Extended: the
// single convolution over both phases (ReLU fused) and a crop ending one row before the
// symbolic end (sizes -1, XNNStaticSliceV3). Stock: its slice node cannot end before a
// symbolic end, so one convolution per output phase, interleaved by a reshape; both
// decisions say why.
// CHECK-LABEL: func.func @deconv_relu
// EXT:           %[[P:.*]] = xnn.convolution_2d {{.*}}xnn.decision = {form = "polyphase", choice = "polyphase", {{.*}}kernel_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_right = 1 : i64, padding_left = 1 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x2x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T + 1">>
// EXT-NEXT:      %[[I:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 1, 1, 0, 4>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T + 1">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"2*T + 2">>
// EXT-NEXT:      xnn.static_slice %[[I]] {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, -1, 4>} : (tensor<1x1x?x4xf32, #xnnc.dims<"2*T + 2">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"2*T">>
// STOCK:         %[[E:.*]] = xnn.convolution_2d {{.*}}kernel_width = 2 : i64, {{.*}}padding_left = 1 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<4x1x2x4xf32>, tensor<4xf32>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// STOCK:         %[[O:.*]] = xnn.convolution_2d {{.*}}kernel_width = 2 : i64, {{.*}}padding_right = 1 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<4x1x2x4xf32>, tensor<4xf32>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// STOCK-NEXT:    %[[J:.*]] = xnn.concatenate %[[E]], %[[O]] {xnn.decision = {form = "polyphase", choice = "per-phase", {{.*}}why = "{{.*}}symbolic size T: the single convolution's crop would end before the end of a symbolic dim; per-phase convolutions need none"}, axis = 3 : i64}
// STOCK-NEXT:    %[[R:.*]] = xnn.clamp %[[J]] {output_min = 0.000000e+00 : f32} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// STOCK-NEXT:    xnn.static_reshape %[[R]] {new_shape = array<i64: 1, 0, 4>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"2*T">>
// CHECK-NOT:     xnn.deconvolution_2d
// CHECK:         xnn.output %{{.*}} : tensor<1x4x?xf32, #xnnc.dims<"2*T">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @deconv_relu(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"2*T">> {
    %r = xnn.subgraph(%x) : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"2*T">> {
    ^bb0(%a: tensor<1x4x?xf32, #xnnc.dims<"T">>):
      %0 = xnn.static_transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">>
      %1 = xnn.static_reshape %0 {new_shape = array<i64: 1, 1, 0, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
      %2 = xnn.constant dense<0.1> : tensor<4xf32>
      %3 = xnn.constant dense<0.5> : tensor<4x1x4x4xf32>
      %4 = xnn.deconvolution_2d %1, %3, %2 {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<4x1x4x4xf32>, tensor<4xf32>) -> tensor<1x1x?x4xf32, #xnnc.dims<"2*T">>
      %5 = xnn.static_reshape %4 {new_shape = array<i64: 1, 0, 4>} : (tensor<1x1x?x4xf32, #xnnc.dims<"2*T">>) -> tensor<1x?x4xf32, #xnnc.dims<"2*T">>
      %c = xnn.static_transpose %5 {perm = array<i64: 0, 2, 1>} : (tensor<1x?x4xf32, #xnnc.dims<"2*T">>) -> tensor<1x4x?xf32, #xnnc.dims<"2*T">>
      %r1 = xnn.clamp %c {output_min = 0.000000e+00 : f32} : (tensor<1x4x?xf32, #xnnc.dims<"2*T">>) -> tensor<1x4x?xf32, #xnnc.dims<"2*T">>
      xnn.output %r1 : tensor<1x4x?xf32, #xnnc.dims<"2*T">>
    }
    func.return %r : tensor<1x4x?xf32, #xnnc.dims<"2*T">>
  }
}

