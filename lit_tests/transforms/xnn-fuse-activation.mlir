// RUN: xnn-opt %s --split-input-file -p xnn-fuse-activation | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-fuse-activation{through-layout=false}' | filecheck %s --check-prefix=DIRECT

// Conversion's 2-D form: conv -> transpose back to NCHW -> clamp (relu). The relu becomes
// the conv's output_min; the transpose stays.
// CHECK-LABEL: func.func @conv_relu_through_transpose
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %w {{{.*}}output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    func.return %[[T]]
// DIRECT-LABEL:  func.func @conv_relu_through_transpose
// DIRECT:          xnn.clamp
func.func @conv_relu_through_transpose(%x: tensor<1x6x6x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x4x4x8xf32>
  %t = xnn.static_transpose %y {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %r = xnn.clamp %t {output_min = 0.000000e+00 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %r : tensor<1x8x4x4xf32>
}

// -----

// Conversion's 1-D form: conv -> reshape [N, L, C] -> transpose [0, 2, 1] -> clamp.
// CHECK-LABEL: func.func @conv1d_hardtanh_through_reshape
// CHECK:         %[[C:.*]] = xnn.depthwise_convolution_2d %x, %w {{{.*}}output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32}
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[C]]
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[R]]
// CHECK-NEXT:    func.return %[[T]]
func.func @conv1d_hardtanh_through_reshape(%x: tensor<1x1x9x4xf32>) -> tensor<1x4x7xf32> {
  %w = xnn.constant dense<2.500000e-01> : tensor<1x1x3x4xf32>
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, input_channels = 4 : i64} : (tensor<1x1x9x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x7x4xf32>
  %r = xnn.static_reshape %y {new_shape = array<i64: 1, 7, 4>} : (tensor<1x1x7x4xf32>) -> tensor<1x7x4xf32>
  %t = xnn.static_transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<1x7x4xf32>) -> tensor<1x4x7xf32>
  %c = xnn.clamp %t {output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32} : (tensor<1x4x7xf32>) -> tensor<1x4x7xf32>
  func.return %c : tensor<1x4x7xf32>
}

// -----

// xnn-polyphase's deconv tail: conv -> depth_to_space -> slice -> clamp.
// CHECK-LABEL: func.func @polyphase_tail
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %w {{{.*}}output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[D:.*]] = xnn.depth_to_space_2d %[[C]]
// CHECK-NEXT:    %[[S:.*]] = xnn.static_slice %[[D]]
// CHECK-NEXT:    func.return %[[S]]
func.func @polyphase_tail(%x: tensor<1x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x1x4xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 4 : i64, group_output_channels = 16 : i64} : (tensor<1x3x3x4xf32>, tensor<16x1x1x4xf32>) -> tensor<1x3x3x16xf32>
  %d = xnn.depth_to_space_2d %y {block_size = 2 : i64} : (tensor<1x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  %s = xnn.static_slice %d {offsets = array<i64: 0, 1, 1, 0>, sizes = array<i64: 1, 4, 4, 4>} : (tensor<1x6x6x4xf32>) -> tensor<1x4x4x4xf32>
  %r = xnn.clamp %s {output_min = 0.000000e+00 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %r : tensor<1x4x4x4xf32>
}

// -----

// relu6 after fully_connected, directly.
// CHECK-LABEL: func.func @linear_relu6
// CHECK-NEXT:    %[[F:.*]] = xnn.fully_connected %x, %w {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[F]]
// DIRECT-LABEL:  func.func @linear_relu6
// DIRECT-NEXT:     xnn.fully_connected %x, %w {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32}
// DIRECT-NEXT:     func.return
func.func @linear_relu6(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %y = xnn.fully_connected %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %r = xnn.clamp %y {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// A binary op that already has bounds: the ranges intersect.
// CHECK-LABEL: func.func @add_clamp_intersect
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %x, %y {output_min = 0.000000e+00 : f32, output_max = 2.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[A]]
func.func @add_clamp_intersect(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = xnn.binary add %x, %y {output_min = -1.000000e+00 : f32, output_max = 2.000000e+00 : f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = xnn.clamp %a {output_min = 0.000000e+00 : f32, output_max = 3.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// A deconv takes the bounds too.
// CHECK-LABEL: func.func @deconv_relu
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    %[[D:.*]] = xnn.deconvolution_2d %x, %w {{{.*}}output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[D]]
func.func @deconv_relu(%x: tensor<1x4x4x4xf32>) -> tensor<1x13x13x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x4x4x4xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, dilation_height = 2 : i64, dilation_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x4x4x4xf32>, tensor<8x4x4x4xf32>) -> tensor<1x13x13x8xf32>
  %r = xnn.clamp %y {output_min = 0.000000e+00 : f32} : (tensor<1x13x13x8xf32>) -> tensor<1x13x13x8xf32>
  func.return %r : tensor<1x13x13x8xf32>
}

// -----

// Two clamps in a row merge.
// CHECK-LABEL: func.func @clamp_clamp
// CHECK-NEXT:    %[[C:.*]] = xnn.clamp %x {output_min = 0.000000e+00 : f32, output_max = 1.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[C]]
func.func @clamp_clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = xnn.clamp %x {output_min = 0.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %b = xnn.clamp %a {output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// Left alone: the producer has another user (its unclamped value is needed).
// CHECK-LABEL: func.func @producer_has_other_user
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.clamp %[[A]] {output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[C]], %[[A]]
func.func @producer_has_other_user(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = xnn.binary add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = xnn.clamp %a {output_min = 0.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// Left alone: an op of the chain has another user.
// CHECK-LABEL: func.func @chain_has_other_user
// CHECK:         xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} :
// CHECK:         xnn.clamp
func.func @chain_has_other_user(%x: tensor<1x6x6x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x4x4x8xf32>
  %t = xnn.static_transpose %y {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %r = xnn.clamp %t {output_min = 0.000000e+00 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %r, %t : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Left alone: ranges that do not overlap (the result is a constant).
// CHECK-LABEL: func.func @disjoint_ranges
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %x, %y {output_max = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[C:.*]] = xnn.clamp %[[A]] {output_min = 1.000000e+00 : f32}
func.func @disjoint_ranges(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = xnn.binary add %x, %y {output_max = 0.000000e+00 : f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = xnn.clamp %a {output_min = 1.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// Left alone: a producer without output bounds (a unary op).
// CHECK-LABEL: func.func @unary_producer
// CHECK-NEXT:    %[[E:.*]] = xnn.unary elu
// CHECK-NEXT:    xnn.clamp %[[E]]
func.func @unary_producer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = xnn.unary elu %x {alpha = 1.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %c = xnn.clamp %e {output_min = 0.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
