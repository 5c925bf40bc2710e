// RUN: xnn-opt %s --split-input-file -p canonicalize | filecheck %s

// `canonicalize` runs the seed rewrite sets together (xnn-fold-pad, xnn-polyphase,
// xnn-upsample-nearest, xnn-fuse-activation, xnn-layout), with folding and dead code
// removal: one case per set, cases where sets meet, and the rewrites it leaves to their own
// passes. Each set's cases in full are in its pass's file (xnn-fold-pad.mlir, ...).

// xnn-fold-pad: a zero pad folds into the conv's padding.
// CHECK-LABEL: func.func @fold_pad
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    %[[Y:.*]] = xnn.convolution_2d %x, %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 2 : i64, padding_left = 3 : i64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @fold_pad(%x: tensor<1x6x6x4xf32>) -> tensor<1x7x8x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 3, 0>, post_paddings = array<i64: 0, 2, 1, 0>} : (tensor<1x6x6x4xf32>) -> tensor<1x9x10x4xf32>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x9x10x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x7x8x8xf32>
  func.return %y : tensor<1x7x8x8xf32>
}

// -----

// xnn-fold-pad and xnn-layout: an NCHW pad before the transpose to NHWC folds too; the
// transpose reads the unpadded input.
// CHECK-LABEL: func.func @fold_pad_through_transpose
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.convolution_2d %[[T]], %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 3 : i64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @fold_pad_through_transpose(%x: tensor<1x4x6x6xf32>) -> tensor<1x6x8x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 0, 2>, post_paddings = array<i64: 0, 0, 0, 0>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x8xf32>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x8xf32>) -> tensor<1x6x8x4xf32>
  %y = xnn.convolution_2d %t, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x6x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x8x8xf32>
  func.return %y : tensor<1x6x8x8xf32>
}

// -----

// xnn-polyphase: a k4 s2 transposed conv becomes a stride-1 conv, an interleave and a crop.
// CHECK-LABEL: func.func @polyphase
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]] {{{.*}}} : (tensor<1x1x5x2xf32>, tensor<6x1x2x2xf32>) -> tensor<1x1x6x6xf32>
// CHECK-NEXT:    %[[I:.*]] = xnn.static_reshape %[[C]] {{.*}}new_shape = array<i64: 1, 1, 12, 3>}
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_slice %[[I]] {{.*}}offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 10, 3>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @polyphase(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x10x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x10x3xf32>
  func.return %y : tensor<1x1x10x3xf32>
}

// -----

// xnn-polyphase and xnn-fuse-activation: the relu after the transposed conv moves onto the
// phases' convolution, through the interleave and the crop.
// CHECK-LABEL: func.func @polyphase_relu
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase">
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]] {{{.*}}output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[I:.*]] = xnn.static_reshape %[[C]]
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_slice %[[I]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @polyphase_relu(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x10x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x10x3xf32>
  %r = xnn.clamp %y {output_min = 0.000000e+00 : f32} : (tensor<1x1x10x3xf32>) -> tensor<1x1x10x3xf32>
  func.return %r : tensor<1x1x10x3xf32>
}

// -----

// xnn-upsample-nearest: a x2 block broadcast becomes 4 copies + depth_to_space_2d(2).
// CHECK-LABEL: func.func @upsample_nearest
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %x, %x, %x, %x {axis = 3 : i64}
// CHECK-NEXT:    %[[D:.*]] = xnn.depth_to_space_2d %[[C]] {{.*}}block_size = 2 : i64}
// CHECK-NEXT:    func.return %[[D]]
func.func @upsample_nearest(%x: tensor<1x4x5x3xf16>) -> tensor<1x8x10x3xf16> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 3>} : (tensor<1x4x5x3xf16>) -> tensor<1x4x1x5x1x3xf16>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 2, 3>} : (tensor<1x4x1x5x1x3xf16>) -> tensor<1x4x2x5x2x3xf16>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 3>} : (tensor<1x4x2x5x2x3xf16>) -> tensor<1x8x10x3xf16>
  func.return %y : tensor<1x8x10x3xf16>
}

// -----

// xnn-fuse-activation: the relu after the transpose back to NCHW becomes the conv's bound.
// CHECK-LABEL: func.func @fuse_activation
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %w {{{.*}}output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    func.return %[[T]]
func.func @fuse_activation(%x: tensor<1x6x6x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x4x4x8xf32>
  %t = xnn.static_transpose %y {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %r = xnn.clamp %t {output_min = 0.000000e+00 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %r : tensor<1x8x4x4xf32>
}

// -----

// xnn-layout: an NHWC -> NCHW -> NHWC pair cancels.
// CHECK-LABEL: func.func @layout
// CHECK-NEXT:    func.return %x
func.func @layout(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %b = xnn.static_transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %b : tensor<1x4x4x8xf32>
}

// -----

// Left alone: xnn-conv-as-gemm is an optimize pass, not a canonicalization.
// CHECK-LABEL: func.func @conv_as_gemm_left_alone
// CHECK-NOT:     xnn.fully_connected
// CHECK:         xnn.convolution_2d %x, %w, %b
// CHECK-NOT:     xnn.fully_connected
func.func @conv_as_gemm_left_alone(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x6x16xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %b = xnn.constant dense<1.000000e+00> : tensor<16xf32>
  %y = xnn.convolution_2d %x, %w, %b {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16, output_min = 0.0 : f32} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>, tensor<16xf32>) -> tensor<1x1x6x16xf32>
  func.return %y : tensor<1x1x6x16xf32>
}

// -----

// Left alone: xnn-hoist-input-projection is an optimize pass: the per-step projections stay.
// CHECK-LABEL: func.func @hoist_input_projection_left_alone
// CHECK-COUNT-3: xnn.fully_connected %{{.*}} : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-NOT:     xnn.fully_connected
func.func @hoist_input_projection_left_alone(%x: tensor<3x1x4xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x4xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<8xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %r0 = xnn.static_reshape %x0 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %g0 = xnn.fully_connected %r0, %w, %b : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %r1 = xnn.static_reshape %x1 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %g1 = xnn.fully_connected %r1, %w, %b : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %x2 = xnn.static_slice %x {offsets = array<i64: 2, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %r2 = xnn.static_reshape %x2 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %g2 = xnn.fully_connected %r2, %w, %b : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  func.return %g0, %g1, %g2 : tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// Left alone: xnn-legalize-casts is a legalization: a bf16 mean stays bf16, no converts.
// CHECK-LABEL: func.func @legalize_casts_left_alone
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.static_reduce mean %a {{{.*}}} : (tensor<2x8xbf16>) -> tensor<2x1xbf16>
// CHECK-NOT:     xnn.convert
func.func @legalize_casts_left_alone(%x: tensor<2x8xbf16>) -> tensor<2x1xbf16> {
  %r = xnn.subgraph(%x) : (tensor<2x8xbf16>) -> tensor<2x1xbf16> {
  ^bb0(%a: tensor<2x8xbf16>):
    %m = xnn.static_reduce mean %a {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x8xbf16>) -> tensor<2x1xbf16>
    xnn.output %m : tensor<2x1xbf16>
  }
  func.return %r : tensor<2x1xbf16>
}
