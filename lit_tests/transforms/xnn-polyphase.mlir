// RUN: xnn-opt %s --split-input-file -p xnn-polyphase | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-polyphase{pad-kernels=false depthwise=false}' | filecheck %s --check-prefix=OFF
// RUN: xnn-opt %s --split-input-file -p 'xnn-polyphase{max-kernel-growth=2.0}' | filecheck %s --check-prefix=GROW
// RUN: xnn-opt %s --split-input-file -p xnn-polyphase --print-weights | filecheck %s --check-prefix=WEIGHTS

// 1-D (kernel_height 1): k4 s2 is a 2-tap convolution with 2 phase-major groups of 3 output
// channels; the interleave is a reshape and the padding of 1 a slice.
// CHECK-LABEL: func.func @dense_1d
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]] {{{.*}}kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 6 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x2xf32>, tensor<6x1x2x2xf32>) -> tensor<1x1x6x6xf32>
// CHECK-NEXT:    %[[I:.*]] = xnn.static_reshape %[[C]] {{.*}}new_shape = array<i64: 1, 1, 12, 3>}
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_slice %[[I]] {{.*}}offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 10, 3>}
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     xnn.deconvolution_2d
func.func @dense_1d(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x10x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x10x3xf32>
  func.return %y : tensor<1x1x10x3xf32>
}

// -----

// 2-D k4 s2: 2x2 taps, padding 1, 4 phases interleaved by depth_to_space; nothing to crop.
// The fused clamp moves to the convolution.
// CHECK-LABEL: func.func @dense_2d
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<12x2x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]] {{{.*}}kernel_height = 2 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 12 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x3x3x2xf32>, tensor<12x2x2x2xf32>) -> tensor<1x4x4x12xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.depth_to_space_2d %[[C]] {{.*}}block_size = 2 : i64} : (tensor<1x4x4x12xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @dense_2d(%x: tensor<1x3x3x2xf32>) -> tensor<1x8x8x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x4x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x3x3x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

// The bias is repeated per phase: 9 phases x 3 channels. k = s: a 1x1 convolution.
// CHECK-LABEL: func.func @bias
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<27x1x1x2xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<27xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]], %[[B]] {{{.*}}kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 27 : i64}
// CHECK-NEXT:    %[[Y:.*]] = xnn.depth_to_space_2d %[[C]] {{.*}}block_size = 3 : i64} : (tensor<1x3x3x27xf32>) -> tensor<1x9x9x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @bias(%x: tensor<1x3x3x2xf32>) -> tensor<1x9x9x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x3x3x2xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<3xf32>
  %y = xnn.deconvolution_2d %x, %w, %b {kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 3 : i64, upsampling_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x3x3x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>) -> tensor<1x9x9x3xf32>
  func.return %y : tensor<1x9x9x3xf32>
}

// -----

// Padding (top 3, left 1) and adjustment (height 1) become the slice. A top crop of 3 with
// stride 2 skips one convolution position (padding_top 0); the adjustment reaches one
// position past the input (padding_bottom 1).
// CHECK-LABEL: func.func @padding_and_adjustment
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %{{.*}} {{{.*}}kernel_height = 2 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 12 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<12x2x2x2xf32>) -> tensor<1x4x5x12xf32>
// CHECK-NEXT:    %[[I:.*]] = xnn.depth_to_space_2d %[[C]] {{.*}}block_size = 2 : i64} : (tensor<1x4x5x12xf32>) -> tensor<1x8x10x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_slice %[[I]] {{.*}}offsets = array<i64: 0, 1, 1, 0>, sizes = array<i64: 1, 7, 8, 3>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @padding_and_adjustment(%x: tensor<1x4x4x2xf32>) -> tensor<1x7x8x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x4x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {adjustment_height = 1 : i64, kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_top = 3 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x7x8x3xf32>
  func.return %y : tensor<1x7x8x3xf32>
}

// -----

// Unequal strides (2 x 3): depth_to_space needs one block size, so the phases interleave
// by reshape, transpose (the row phase in front of W) and reshape.
// CHECK-LABEL: func.func @unequal_strides
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %{{.*}} {{{.*}}kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 18 : i64} : (tensor<1x3x3x2xf32>, tensor<18x1x1x2xf32>) -> tensor<1x3x3x18xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.static_reshape %[[C]] {{.*}}new_shape = array<i64: 1, 3, 3, 2, 3, 3>}
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[S]] {perm = array<i64: 0, 1, 3, 2, 4, 5>}
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[T]] {{.*}}new_shape = array<i64: 1, 6, 9, 3>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @unequal_strides(%x: tensor<1x3x3x2xf32>) -> tensor<1x6x9x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x2x3x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 2 : i64, kernel_width = 3 : i64, upsampling_height = 2 : i64, upsampling_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x3x3x2xf32>, tensor<3x2x3x2xf32>) -> tensor<1x6x9x3xf32>
  func.return %y : tensor<1x6x9x3xf32>
}

// -----

// fp16: the deconvolution takes fp32 weights, the convolution takes them in fp16.
// CHECK-LABEL: func.func @fp16
// CHECK:         xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x1x2xf16>
// CHECK-NEXT:    xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6xf16>
// CHECK-NEXT:    xnn.convolution_2d {{.*}} : (tensor<1x1x5x2xf16>, tensor<6x1x1x2xf16>, tensor<6xf16>) -> tensor<1x1x5x6xf16>
func.func @fp16(%x: tensor<1x1x5x2xf16>) -> tensor<1x1x10x3xf16> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x2x2xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<3xf32>
  %y = xnn.deconvolution_2d %x, %w, %b {kernel_height = 1 : i64, kernel_width = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf16>, tensor<3x1x2x2xf32>, tensor<3xf32>) -> tensor<1x1x10x3xf16>
  func.return %y : tensor<1x1x10x3xf16>
}

// -----

// Depthwise 2-D k4 s2 p1 (MI-GAN): one depthwise convolution per output phase, each with its
// own padding so that it computes exactly its phase (output phase (0, 0) is kernel phase
// (1, 1)), concatenated phase-major and interleaved; nothing to slice.
// CHECK-LABEL: func.func @depthwise_2d
// CHECK:         %[[B:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<4xf32>
// CHECK-NEXT:    %[[W0:.*]] = xnn.constant #xnnc.weight<"const.polyphase3"> : tensor<1x2x2x4xf32>
// CHECK-NEXT:    %[[P0:.*]] = xnn.depthwise_convolution_2d %x, %[[W0]], %[[B]] {kernel_height = 2 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_top = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[W1:.*]] = xnn.constant #xnnc.weight<"const.polyphase2">
// CHECK-NEXT:    %[[P1:.*]] = xnn.depthwise_convolution_2d %x, %[[W1]], %[[B]] {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64}
// CHECK-NEXT:    %[[W2:.*]] = xnn.constant #xnnc.weight<"const.polyphase1">
// CHECK-NEXT:    %[[P2:.*]] = xnn.depthwise_convolution_2d %x, %[[W2]], %[[B]] {{{.*}}padding_bottom = 1 : i64, padding_left = 1 : i64}
// CHECK-NEXT:    %[[W3:.*]] = xnn.constant #xnnc.weight<"const.polyphase0">
// CHECK-NEXT:    %[[P3:.*]] = xnn.depthwise_convolution_2d %x, %[[W3]], %[[B]] {{{.*}}padding_right = 1 : i64, padding_bottom = 1 : i64}
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[P0]], %[[P1]], %[[P2]], %[[P3]] {xnn.decision = {form = "polyphase", choice = "polyphase", {{.*}}}, axis = 3 : i64} : {{.*}} -> tensor<1x4x4x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.depth_to_space_2d %[[J]] {{.*}}block_size = 2 : i64} : (tensor<1x4x4x16xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL:   func.func @depthwise_2d
// OFF:           xnn.deconvolution_2d
func.func @depthwise_2d(%x: tensor<1x4x4x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x4x4x1xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<4xf32>
  %y = xnn.deconvolution_2d %x, %w, %b {kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, groups = 4 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x4x4x1xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// Depthwise 1-D k4 s2 (Mimi's x2 upsample): two phases, interleaved by a reshape.
// CHECK-LABEL: func.func @depthwise_1d
// CHECK:         %[[P0:.*]] = xnn.depthwise_convolution_2d %x, %{{.*}} {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x6x4xf32>
// CHECK:         %[[P1:.*]] = xnn.depthwise_convolution_2d %x
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[P0]], %[[P1]] {xnn.decision = {form = "polyphase", choice = "polyphase", {{.*}}}, axis = 3 : i64} : {{.*}} -> tensor<1x1x6x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[J]] {{.*}}new_shape = array<i64: 1, 1, 12, 4>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @depthwise_1d(%x: tensor<1x1x5x4xf32>) -> tensor<1x1x12x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x1x4x1xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, groups = 4 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x1x5x4xf32>, tensor<4x1x4x1xf32>) -> tensor<1x1x12x4xf32>
  func.return %y : tensor<1x1x12x4xf32>
}

// -----

// Stride 3 in 2-D: 9 phases, concatenated 5 at a time.
// CHECK-LABEL: func.func @depthwise_nine_phases
// CHECK-COUNT-9: xnn.depthwise_convolution_2d
// CHECK:         %[[J:.*]] = xnn.concatenate {{.*}} -> tensor<1x2x2x20xf32>
// CHECK-NEXT:    %[[K:.*]] = xnn.concatenate %[[J]], {{.*}} -> tensor<1x2x2x36xf32>
// CHECK-NEXT:    xnn.depth_to_space_2d %[[K]] {{.*}}block_size = 3 : i64} : (tensor<1x2x2x36xf32>) -> tensor<1x6x6x4xf32>
func.func @depthwise_nine_phases(%x: tensor<1x2x2x4xf32>) -> tensor<1x6x6x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x3x3x1xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 3 : i64, upsampling_width = 3 : i64, groups = 4 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x2x2x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x6x6x4xf32>
  func.return %y : tensor<1x6x6x4xf32>
}

// -----

// Depthwise k3 s2 p1 output_padding 1: the kernel is zero-padded to 4 (depthwise kernels
// always are). 7 outputs do not split into 2 equal phases: common padding and a slice.
// CHECK-LABEL: func.func @depthwise_padded_kernel
// CHECK-COUNT-4: xnn.depthwise_convolution_2d %x, %{{.*}} {kernel_height = 2 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_top = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         %[[J:.*]] = xnn.concatenate
// CHECK-NEXT:    %[[I:.*]] = xnn.depth_to_space_2d %[[J]] {{.*}}block_size = 2 : i64} : (tensor<1x4x4x16xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_slice %[[I]] {{.*}}offsets = array<i64: 0, 1, 1, 0>, sizes = array<i64: 1, 7, 7, 4>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @depthwise_padded_kernel(%x: tensor<1x4x4x4xf32>) -> tensor<1x7x7x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x3x3x1xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, groups = 4 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x7x7x4xf32>
  func.return %y : tensor<1x7x7x4xf32>
}

// -----

// Dense 1-D k3 s2: the kernel zero-padded to 4 has 4/3 of the taps, within
// max-kernel-growth (1.4): rewritten, unless pad-kernels=false.
// CHECK-LABEL: func.func @padded_kernel
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]] {{{.*}}kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 6 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x2xf32>, tensor<6x1x2x2xf32>) -> tensor<1x1x6x6xf32>
// CHECK-NEXT:    %[[I:.*]] = xnn.static_reshape %[[C]] {{.*}}new_shape = array<i64: 1, 1, 12, 3>}
// CHECK-NEXT:    xnn.static_slice %[[I]] {{.*}}offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 10, 3>}
// OFF-LABEL:   func.func @padded_kernel
// OFF:           xnn.deconvolution_2d
func.func @padded_kernel(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x10x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x3x2xf32>
  %y = xnn.deconvolution_2d %x, %w {adjustment_width = 1 : i64, kernel_height = 1 : i64, kernel_width = 3 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x3x2xf32>) -> tensor<1x1x10x3xf32>
  func.return %y : tensor<1x1x10x3xf32>
}

// -----

// Dense 2-D k3 s2: padded to 4x4 it has 16/9 of the taps, slower than XNNPACK's
// deconvolution in fp32 (polyphase_bench): left alone unless max-kernel-growth allows it.
// CHECK-LABEL: func.func @padded_kernel_too_costly
// CHECK:         xnn.deconvolution_2d
// CHECK-NOT:     xnn.convolution_2d
// GROW-LABEL:  func.func @padded_kernel_too_costly
// GROW-NOT:      xnn.deconvolution_2d
// GROW:          xnn.convolution_2d %x, %{{.*}} {{{.*}}kernel_height = 2 : i64, kernel_width = 2 : i64
// GROW-NOT:      xnn.deconvolution_2d
// GROW:          func.return
func.func @padded_kernel_too_costly(%x: tensor<1x4x4x2xf32>) -> tensor<1x8x8x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x3x3x2xf32>
  %y = xnn.deconvolution_2d %x, %w {adjustment_height = 1 : i64, adjustment_width = 1 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

// Two deconvolutions reading one filter: each gets its own polyphase filter, and the shared
// one goes when the second is rewritten.
// CHECK-LABEL: func.func @shared_weights
// CHECK-NOT:     dense<
// CHECK:         %[[W1:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x2x2xf32>
// CHECK-NEXT:    xnn.convolution_2d %x, %[[W1]]
// CHECK:         %[[W2:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x2x2xf32>
// CHECK-NEXT:    xnn.convolution_2d %z, %[[W2]]
// CHECK-NOT:     xnn.deconvolution_2d
func.func @shared_weights(%x: tensor<1x1x5x2xf32>, %z: tensor<1x1x7x2xf32>) -> (tensor<1x1x12x3xf32>, tensor<1x1x16x3xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x12x3xf32>
  %v = xnn.deconvolution_2d %z, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x7x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x16x3xf32>
  func.return %y, %v : tensor<1x1x12x3xf32>, tensor<1x1x16x3xf32>
}

// -----

// deconvolution -> ELU -> deconvolution: both rewritten.
// CHECK-LABEL: func.func @chain
// CHECK:         xnn.convolution_2d %x, %{{.*}} : (tensor<1x1x5x4xf32>, tensor<6x1x2x4xf32>) -> tensor<1x1x6x6xf32>
// CHECK:         xnn.unary elu
// CHECK:         xnn.convolution_2d %{{.*}}, %{{.*}} : (tensor<1x1x12x3xf32>, tensor<4x1x2x3xf32>) -> tensor<1x1x13x4xf32>
// CHECK-NOT:     xnn.deconvolution_2d
func.func @chain(%x: tensor<1x1x5x4xf32>) -> tensor<1x1x26x2xf32> {
  %w1 = xnn.constant dense<5.000000e-01> : tensor<3x1x4x4xf32>
  %w2 = xnn.constant dense<2.500000e-01> : tensor<2x1x4x3xf32>
  %a = xnn.deconvolution_2d %x, %w1 {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x4xf32>, tensor<3x1x4x4xf32>) -> tensor<1x1x12x3xf32>
  %e = xnn.unary elu %a {alpha = 1.000000e+00 : f32} : (tensor<1x1x12x3xf32>) -> tensor<1x1x12x3xf32>
  %y = xnn.deconvolution_2d %e, %w2 {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 3 : i64, group_output_channels = 2 : i64} : (tensor<1x1x12x3xf32>, tensor<2x1x4x3xf32>) -> tensor<1x1x26x2xf32>
  func.return %y : tensor<1x1x26x2xf32>
}

// -----

// Left alone: dilation.
// CHECK-LABEL: func.func @dilation
// CHECK:         xnn.deconvolution_2d
// CHECK-NOT:     xnn.convolution_2d
func.func @dilation(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x15x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, dilation_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x15x3xf32>
  func.return %y : tensor<1x1x15x3xf32>
}

// -----

// Left alone: stride 1 (a single phase: nothing to gain).
// CHECK-LABEL: func.func @stride_one
// CHECK:         xnn.deconvolution_2d
// CHECK-NOT:     xnn.convolution_2d
func.func @stride_one(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x8x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x8x3xf32>
  func.return %y : tensor<1x1x8x3xf32>
}

// -----

// Left alone: quantized (integer) weights.
// CHECK-LABEL: func.func @quantized_filter
// CHECK:         xnn.deconvolution_2d
// CHECK-NOT:     xnn.convolution_2d
func.func @quantized_filter(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x12x3xf32> {
  %w = xnn.constant dense<1> : tensor<3x1x4x2xi8>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xi8>) -> tensor<1x1x12x3xf32>
  func.return %y : tensor<1x1x12x3xf32>
}

// -----

// Left alone: groups that are neither 1 nor depthwise.
// CHECK-LABEL: func.func @grouped
// CHECK:         xnn.deconvolution_2d
// CHECK-NOT:     xnn.convolution_2d
func.func @grouped(%x: tensor<1x1x5x4xf32>) -> tensor<1x1x12x6xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<6x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, groups = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x4xf32>, tensor<6x1x4x2xf32>) -> tensor<1x1x12x6xf32>
  func.return %y : tensor<1x1x12x6xf32>
}

// -----

// Left alone: a filter that is not a constant.
// CHECK-LABEL: func.func @filter_not_constant
// CHECK:         xnn.deconvolution_2d
// CHECK-NOT:     xnn.convolution_2d
func.func @filter_not_constant(%x: tensor<1x1x5x2xf32>, %w: tensor<3x1x4x2xf32>) -> tensor<1x1x12x3xf32> {
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x12x3xf32>
  func.return %y : tensor<1x1x12x3xf32>
}

// -----

// A symbolic width whose single convolution's crop would end one output before the symbolic
// end (DAC's k = 2s, padding s/2), which the stock slice node cannot express (a stock target):
// one convolution per run of output phases with the same window, each computing exactly its outputs (phase 0
// takes kernel phase 1 with padding (1, 0), phase 1 kernel phase 0 with (0, 1)), and the
// interleave; no slice, no deconvolution.
// CHECK-LABEL: func.func @symbolic_width
// CHECK:         %[[W0:.*]] = xnn.constant #xnnc.weight<"const.polyphase0"> : tensor<3x1x2x2xf32>
// CHECK-NEXT:    %[[P0:.*]] = xnn.convolution_2d %x, %[[W0]] {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_left = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x2x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[W1:.*]] = xnn.constant #xnnc.weight<"const.polyphase1"> : tensor<3x1x2x2xf32>
// CHECK-NEXT:    %[[P1:.*]] = xnn.convolution_2d %x, %[[W1]] {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x2x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[P0]], %[[P1]] {{.*}}xnn.decision = {form = "polyphase", choice = "per-phase", source = "rule", layer = {{.*}}, why = "dense, kernel growth 1.00x <= 1.4 (1.15-1.95x); symbolic size T: the single convolution's crop would end before the end of a symbolic dim; per-phase convolutions need none"}{{.*}} : {{.*}} -> tensor<1x1x?x6xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %y = xnn.static_reshape %[[J]] {new_shape = array<i64: 1, 1, 0, 3>} : (tensor<1x1x?x6xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     xnn.static_slice
// CHECK-NOT:     xnn.deconvolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_width(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x4x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
  func.return %y : tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
}
}

// -----

// The same upsampler on the extended runtime (the default target): its slice ends a fixed
// distance before the symbolic end (sizes -1: one output before it), which the extended
// runtime's from-end slice (XNNStaticSliceV3) writes: one convolution over all phases, the
// interleave and the crop.
// CHECK-LABEL: func.func @symbolic_width_from_end
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.polyphase"> : tensor<6x1x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]] {xnn.decision = {form = "polyphase", choice = "polyphase", {{.*}}}, {{.*}}group_output_channels = 6 : i64, padding_right = 1 : i64, padding_left = 1 : i64} {{.*}} -> tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[C]] {new_shape = array<i64: 1, 1, 0, 3>} {{.*}} -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
// CHECK-NEXT:    %y = xnn.static_slice %[[R]] {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, -1, 3>} {{.*}} -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
// CHECK-NOT:     xnn.deconvolution_2d
func.func @symbolic_width_from_end(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x4x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
  func.return %y : tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
}

// -----

// DAC's stride 8 (k16, padding 4): two runs of four phases, [0, 4) with padding (1, 0) taking
// kernel phases 4..7 and [4, 8) with (0, 1) taking 0..3; each run one convolution of 4*C
// channels.
// CHECK-LABEL: func.func @symbolic_width_stride_8
// CHECK:         xnn.constant #xnnc.weight<"const.polyphase0"> : tensor<8x1x2x2xf32>
// CHECK-NEXT:    xnn.convolution_2d {{.*}}group_output_channels = 8 : i64, padding_left = 1 : i64} {{.*}} -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.constant #xnnc.weight<"const.polyphase1"> : tensor<8x1x2x2xf32>
// CHECK-NEXT:    xnn.convolution_2d {{.*}}group_output_channels = 8 : i64, padding_right = 1 : i64} {{.*}} -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.concatenate {{.*}}choice = "per-phase"
// CHECK-NEXT:    xnn.static_reshape {{.*}}new_shape = array<i64: 1, 1, 0, 2>} : (tensor<1x1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x2xf32, #xnnc.dims<"8*T">>
// CHECK-NOT:     xnn.static_slice
// CHECK-NOT:     xnn.deconvolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_width_stride_8(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x2xf32, #xnnc.dims<"8*T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<2x1x16x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 16 : i64, upsampling_width = 8 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64, padding_right = 4 : i64, padding_left = 4 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<2x1x16x2xf32>) -> tensor<1x1x?x2xf32, #xnnc.dims<"8*T">>
  func.return %y : tensor<1x1x?x2xf32, #xnnc.dims<"8*T">>
}
}

// -----

// Left alone: k6 s3 with padding 1 on each side gives 3*T + 1 outputs, phases of T + 1, T
// and T; the single convolution's crop would end one output before the symbolic end. The
// deconvolution itself reshapes at run time; the reason is recorded on the op.
// CHECK-LABEL: func.func @symbolic_width_unequal_phases
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    %y = xnn.deconvolution_2d %x, %w {{.*}}xnn.declined = {"xnn-polyphase" = "symbolic size T: the phases' crop ends before the end of a symbolic dim, and the stock XNNStaticSlice node takes only absolute unsigned sizes (a slice to the end is the most it can follow); per-phase convolutions need output phases of one length"}{{.*}} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x6x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"3*T + 1">>
// CHECK-NEXT:    func.return %y
builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_width_unequal_phases(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"3*T + 1">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x6x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 6 : i64, upsampling_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x6x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"3*T + 1">>
  func.return %y : tensor<1x1x?x3xf32, #xnnc.dims<"3*T + 1">>
}
}

// -----

// A symbolic width whose phases cover the output exactly (no padding: 2*T + 2 outputs are
// T + 1 blocks of 2): one convolution and the interleave, no slice, at every size.
// CHECK-LABEL: func.func @symbolic_width_uncropped
// CHECK:         %{{.*}} = xnn.convolution_2d %x, %{{.*}} {xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", {{.*}}}, kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 6 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<6x1x2x2xf32>) -> tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>
// CHECK-NEXT:    %y = xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 0, 3>} : (tensor<1x1x?x6xf32, #xnnc.dims<"T + 1">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
// CHECK-NOT:     xnn.static_slice
// CHECK-NOT:     xnn.deconvolution_2d
func.func @symbolic_width_uncropped(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x4x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
  func.return %y : tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
}

// -----

// qs8: the phases are qs8 convolutions with the deconvolution's scales. Filter o0 = [1, 2,
// 3, 4], o1 = [5, 6, 7, 8] (k4 s2): phase j takes taps w[2(1-u) + j], channels phase-major
// (j, o): [3, 1], [7, 5], [4, 2], [8, 6]; per-channel scales and the int32 bias repeat per
// phase, the output keeps the deconvolution's type and its fused clamp.
// CHECK-LABEL: func.func @qs8_dense_1d
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"w.polyphase"> : tensor<4x1x2x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 0.5, 0.25}>>
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"b.polyphase"> : tensor<4x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025, 0.05, 0.025}>>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %x, %[[W]], %[[B]] {{{.*}}kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 4 : i64, padding_right = 1 : i64, padding_left = 1 : i64, output_min = 0.000000e+00 : f32} : ({{.*}}) -> tensor<1x1x4x4x!xnn.quant.uniform<i8:f32, 0.2:-1>>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[C]] {{.*}}new_shape = array<i64: 1, 1, 8, 2>} : (tensor<1x1x4x4x!xnn.quant.uniform<i8:f32, 0.2:-1>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
// CHECK-NEXT:    func.return %[[Y]]
// WEIGHTS-LABEL: func.func @qs8_dense_1d
// WEIGHTS:         xnn.constant #xnnc.weight<"w.polyphase", "0x0301070504020806">
// WEIGHTS-NEXT:    xnn.constant #xnnc.weight<"b.polyphase", "0x14000000500000001400000050000000">
func.func @qs8_dense_1d(%x: tensor<1x1x3x1x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>> {
  %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708"> : tensor<2x1x4x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = xnn.constant #xnnc.weight<"b", "0x1400000050000000"> : tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>
  %y = xnn.deconvolution_2d %x, %w, %b {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 2 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x1x3x1x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x1x4x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
  func.return %y : tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
}

// -----

// A causal trim (SEANet: the last k - s outputs) on a symbolic width folds into the
// deconvolution's right padding, which XNNPACK applies at every size; the phases then cover
// the output exactly.
// CHECK-LABEL: func.func @symbolic_causal_trim
// CHECK:         %{{.*}} = xnn.convolution_2d %x, %{{.*}} {{{.*}}kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 6 : i64, padding_left = 1 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<6x1x2x2xf32>) -> tensor<1x1x?x6xf32, #xnnc.dims<"T">>
// CHECK-NOT:     xnn.static_slice
// CHECK-NOT:     xnn.deconvolution_2d
func.func @symbolic_causal_trim(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %d = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<3x1x4x2xf32>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>
  %y = xnn.static_slice %d {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, -2, 3>} : (tensor<1x1x?x3xf32, #xnnc.dims<"2*T + 2">>) -> tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
  func.return %y : tensor<1x1x?x3xf32, #xnnc.dims<"2*T">>
}

// -----

// qs8 depthwise: one qs8 depthwise convolution per phase, the filter [1, MH, MW, C] with its
// per-channel scales along axis 3 (channel c of phase j: taps w_c[2(1-u) + j]).
// CHECK-LABEL: func.func @qs8_depthwise_1d
// CHECK:         %[[W0:.*]] = xnn.constant #xnnc.weight<"w.polyphase0"> : tensor<1x1x2x2x!xnn.quant.uniform<i8<-127:127>:f32:3, {0.5, 0.25}>>
// CHECK-NEXT:    %[[P0:.*]] = xnn.depthwise_convolution_2d %x, %[[W0]] {{.*}} -> tensor<1x1x4x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
// CHECK-NEXT:    %[[W1:.*]] = xnn.constant #xnnc.weight<"w.polyphase1"> : tensor<1x1x2x2x!xnn.quant.uniform<i8<-127:127>:f32:3, {0.5, 0.25}>>
// CHECK-NEXT:    %[[P1:.*]] = xnn.depthwise_convolution_2d %x, %[[W1]] {{.*}} -> tensor<1x1x4x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[P0]], %[[P1]] {{{.*}}axis = 3 : i64} : {{.*}} -> tensor<1x1x4x4x!xnn.quant.uniform<i8:f32, 0.2:-1>>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[J]] {{.*}}new_shape = array<i64: 1, 1, 8, 2>}
// CHECK-NEXT:    func.return %[[Y]]
// WEIGHTS-LABEL: func.func @qs8_depthwise_1d
// WEIGHTS:         xnn.constant #xnnc.weight<"w.polyphase0", "0x03070105">
// WEIGHTS:         xnn.constant #xnnc.weight<"w.polyphase1", "0x04080206">
func.func @qs8_depthwise_1d(%x: tensor<1x1x3x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>> {
  %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708"> : tensor<2x1x4x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, groups = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x1x3x2x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x1x4x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
  func.return %y : tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
}

// -----

// A symbolic depthwise deconvolution with a crop: one convolution per output phase, each
// with its own padding, so that nothing is left to slice.
// CHECK-LABEL: func.func @symbolic_depthwise_cropped
// CHECK-COUNT-2: xnn.depthwise_convolution_2d
// CHECK:         xnn.concatenate
// CHECK-NOT:     xnn.static_slice
// CHECK-NOT:     xnn.deconvolution_2d
func.func @symbolic_depthwise_cropped(%x: tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"2*T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x1x4x1xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, groups = 4 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<4x1x4x1xf32>) -> tensor<1x1x?x4xf32, #xnnc.dims<"2*T">>
  func.return %y : tensor<1x1x?x4xf32, #xnnc.dims<"2*T">>
}

// -----

// Left alone: an asymmetric filter (zero point 3): the padded taps would not be real 0, and
// XNNPACK's qs8 convolutions take symmetric filters only.
// CHECK-LABEL: func.func @qs8_asymmetric_filter
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    xnn.deconvolution_2d
func.func @qs8_asymmetric_filter(%x: tensor<1x1x3x1x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>> {
  %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708"> : tensor<2x1x4x1x!xnn.quant.uniform<i8:f32, 0.5:3>>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 2 : i64} : (tensor<1x1x3x1x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x1x4x1x!xnn.quant.uniform<i8:f32, 0.5:3>>) -> tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
  func.return %y : tensor<1x1x8x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
}

// -----

// A static causal trim folds into the deconvolution's padding as a symbolic one does, before
// the phases are built: the convolution computes the 4 kept positions, not 5, and no slice
// is left.
// CHECK-LABEL: func.func @static_causal_trim
// CHECK:         %{{.*}} = xnn.convolution_2d %x, %{{.*}} {{{.*}}kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 6 : i64, padding_left = 1 : i64} : (tensor<1x1x4x2xf32>, tensor<6x1x2x2xf32>) -> tensor<1x1x4x6xf32>
// CHECK-NOT:     xnn.static_slice
// CHECK-NOT:     xnn.deconvolution_2d
func.func @static_causal_trim(%x: tensor<1x1x4x2xf32>) -> tensor<1x1x8x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %d = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x4x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x10x3xf32>
  %y = xnn.static_slice %d {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 8, 3>} : (tensor<1x1x10x3xf32>) -> tensor<1x1x8x3xf32>
  func.return %y : tensor<1x1x8x3xf32>
}

// -----

// A trim the deconvolution cannot take (it cuts the channels) stays, and the phases are built.
// CHECK-LABEL: func.func @channel_slice_stays
// CHECK:         xnn.convolution_2d
// CHECK:         xnn.static_slice {{.*}}sizes = array<i64: 1, 1, 10, 2>}
func.func @channel_slice_stays(%x: tensor<1x1x4x2xf32>) -> tensor<1x1x10x2xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %d = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x4x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x10x3xf32>
  %y = xnn.static_slice %d {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 10, 2>} : (tensor<1x1x10x3xf32>) -> tensor<1x1x10x2xf32>
  func.return %y : tensor<1x1x10x2xf32>
}
