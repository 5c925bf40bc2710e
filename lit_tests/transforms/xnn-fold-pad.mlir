// RUN: xnn-opt %s --split-input-file -p xnn-fold-pad | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-fold-pad{depthwise=false}' | filecheck %s --check-prefix=NODW
// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn,xnn-fold-pad | filecheck %s --check-prefix=FOLD
// RUN: xnn-opt %s --split-input-file -p xnn-fold-pad | filecheck %s --check-prefix=DECIDED

// An NHWC pad on H and W folds into the conv's padding, each side on its own.
// CHECK-LABEL: func.func @nhwc_asymmetric
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 2 : i64, padding_left = 3 : i64} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x7x8x8xf32>
func.func @nhwc_asymmetric(%x: tensor<1x6x6x4xf32>) -> tensor<1x7x8x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 3, 0>, post_paddings = array<i64: 0, 2, 1, 0>} : (tensor<1x6x6x4xf32>) -> tensor<1x9x10x4xf32>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x9x10x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x7x8x8xf32>
  func.return %y : tensor<1x7x8x8xf32>
}

// -----

// Conversion's 2-D form: NCHW pad -> transpose -> conv. The pad on W becomes left/right;
// the conv's own padding adds up with it; the chain is rebuilt as it was.
// CHECK-LABEL: func.func @nchw_through_transpose
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
// CHECK:         xnn.convolution_2d %{{.*}}, %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 3 : i64} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x8x8xf32>
func.func @nchw_through_transpose(%x: tensor<1x4x6x6xf32>) -> tensor<1x6x8x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 0, 2>, post_paddings = array<i64: 0, 0, 0, 0>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x8xf32>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x8xf32>) -> tensor<1x6x8x4xf32>
  %y = xnn.convolution_2d %t, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x6x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x8x8xf32>
  func.return %y : tensor<1x6x8x8xf32>
}

// -----

// Conversion's 1-D form: a causal pad on L -> transpose [0, 2, 1] -> reshape [N, 1, L, C]
// -> conv. The pad becomes padding_left; the chain is rebuilt on the unpadded tensor.
// CHECK-LABEL: func.func @causal_conv1d
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x4x10xf32>) -> tensor<1x10x4xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 10, 4>} : (tensor<1x10x4xf32>) -> tensor<1x1x10x4xf32>
// CHECK:         xnn.convolution_2d %{{.*}}, %w {{{.*}}padding_left = 2 : i64} : (tensor<1x1x10x4xf32>, tensor<6x1x3x4xf32>) -> tensor<1x1x10x6xf32>
func.func @causal_conv1d(%x: tensor<1x4x10xf32>) -> tensor<1x1x10x6xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<6x1x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 2>, post_paddings = array<i64: 0, 0, 0>} : (tensor<1x4x10xf32>) -> tensor<1x4x12xf32>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 1>} : (tensor<1x4x12xf32>) -> tensor<1x12x4xf32>
  %r = xnn.static_reshape %t {new_shape = array<i64: 1, 1, 12, 4>} : (tensor<1x12x4xf32>) -> tensor<1x1x12x4xf32>
  %y = xnn.convolution_2d %r, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 6 : i64} : (tensor<1x1x12x4xf32>, tensor<6x1x3x4xf32>) -> tensor<1x1x10x6xf32>
  func.return %y : tensor<1x1x10x6xf32>
}

// -----

// A depthwise conv (MI-GAN's blur: pad 1, 4x4, stride 2) folds too, unless depthwise=false.
// CHECK-LABEL: func.func @depthwise_blur
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.depthwise_convolution_2d %{{.*}}, %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x8x8x4xf16>, tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
// NODW-LABEL:  func.func @depthwise_blur
// NODW:          xnn.static_constant_pad
// NODW:          xnn.depthwise_convolution_2d
func.func @depthwise_blur(%x: tensor<1x4x8x8xf16>) -> tensor<1x4x4x4xf16> {
  %w = xnn.constant dense<6.250000e-02> : tensor<1x4x4x4xf16>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 1>, post_paddings = array<i64: 0, 0, 1, 1>} : (tensor<1x4x8x8xf16>) -> tensor<1x4x10x10xf16>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x10x10xf16>) -> tensor<1x10x10x4xf16>
  %y = xnn.depthwise_convolution_2d %t, %w {kernel_height = 4 : i64, kernel_width = 4 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, input_channels = 4 : i64} : (tensor<1x10x10x4xf16>, tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  %o = xnn.static_transpose %y {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  func.return %o : tensor<1x4x4x4xf16>
}

// -----

// Left alone: a non-zero padding value.
// CHECK-LABEL: func.func @nonzero_value
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %{{.*}}, %w {kernel_height
func.func @nonzero_value(%x: tensor<1x6x6x4xf32>) -> tensor<1x6x6x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>, padding_value = 1.000000e+00 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x8x8x4xf32>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32>
  func.return %y : tensor<1x6x6x8xf32>
}

// -----

// Left alone: a transposed conv (its padding crops the output).
// CHECK-LABEL: func.func @deconvolution
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.deconvolution_2d %{{.*}}, %w {kernel_height
func.func @deconvolution(%x: tensor<1x4x4x4xf32>) -> tensor<1x17x17x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x4x4x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x4x4x4xf32>) -> tensor<1x6x6x4xf32>
  %y = xnn.deconvolution_2d %p, %w {kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, dilation_height = 2 : i64, dilation_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x6x6x4xf32>, tensor<8x4x4x4xf32>) -> tensor<1x17x17x8xf32>
  func.return %y : tensor<1x17x17x8xf32>
}

// -----

// Left alone: the pad has another user.
// CHECK-LABEL: func.func @pad_has_other_user
// CHECK:         %[[P:.*]] = xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %[[P]], %w {kernel_height
func.func @pad_has_other_user(%x: tensor<1x6x6x4xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x8x8x4xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x6x6x4xf32>) -> tensor<1x8x8x4xf32>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32>
  func.return %y, %p : tensor<1x6x6x8xf32>, tensor<1x8x8x4xf32>
}

// -----

// Left alone: an op of the chain has another user.
// CHECK-LABEL: func.func @chain_has_other_user
// CHECK:         xnn.static_constant_pad
// CHECK:         %[[T:.*]] = xnn.static_transpose
// CHECK:         xnn.convolution_2d %[[T]], %w {kernel_height
func.func @chain_has_other_user(%x: tensor<1x4x6x6xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x8x8x4xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 1>, post_paddings = array<i64: 0, 0, 1, 1>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x8x8xf32>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
  %y = xnn.convolution_2d %t, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32>
  func.return %y, %t : tensor<1x6x6x8xf32>, tensor<1x8x8x4xf32>
}

// -----

// Left alone: a pad on the channels (NCHW dim 1 is the conv's C).
// CHECK-LABEL: func.func @pad_on_channels
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %{{.*}}, %w {kernel_height
func.func @pad_on_channels(%x: tensor<1x2x6x6xf32>) -> tensor<1x4x4x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 0, 0>, post_paddings = array<i64: 0, 1, 0, 0>} : (tensor<1x2x6x6xf32>) -> tensor<1x4x6x6xf32>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
  %y = xnn.convolution_2d %t, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}

// -----

// Left alone: a pad on the batch.
// CHECK-LABEL: func.func @pad_on_batch
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %{{.*}}, %w {kernel_height
func.func @pad_on_batch(%x: tensor<1x6x6x4xf32>) -> tensor<2x4x4x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 1, 0, 0, 0>, post_paddings = array<i64: 0, 0, 0, 0>} : (tensor<1x6x6x4xf32>) -> tensor<2x6x6x4xf32>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<2x6x6x4xf32>, tensor<8x3x3x4xf32>) -> tensor<2x4x4x8xf32>
  func.return %y : tensor<2x4x4x8xf32>
}

// -----

// Left alone: a plain integer pad (no quantized type says what its zero stands for).
// CHECK-LABEL: func.func @quantized
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %{{.*}}, %w {kernel_height
func.func @quantized(%x: tensor<1x6x6x4xi8>) -> tensor<1x6x6x8xi8> {
  %w = xnn.constant dense<1> : tensor<8x3x3x4xi8>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x6x6x4xi8>) -> tensor<1x8x8x4xi8>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>) -> tensor<1x6x6x8xi8>
  func.return %y : tensor<1x6x6x8xi8>
}

// -----

// Left alone: a conv with TensorFlow SAME padding (it takes no explicit padding).
// CHECK-LABEL: func.func @tensorflow_same_padding
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %{{.*}}, %w {flags = 4 : i32
func.func @tensorflow_same_padding(%x: tensor<1x6x6x4xf32>) -> tensor<1x8x8x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x6x6x4xf32>) -> tensor<1x8x8x4xf32>
  %y = xnn.convolution_2d %p, %w {flags = 4 : i32, kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

// xnn-fold-pad folds zero constant pads only: the conv after a replicate pad keeps its
// own (zero) padding and reads the concatenated tensor.
// FOLD-LABEL: func.func @replicate_then_conv
// FOLD:         xnn.concatenate
// FOLD:         xnn.convolution_2d %{{.*}}, %{{.*}} {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x6x6x2xf32>
func.func @replicate_then_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = aten.constant dense<0.5> : tensor<2x2x3x3xf32>
  %p = aten.replication_pad2d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y = aten.convolution %p, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// A quantized pad folds when its value quantizes to the zero point, which is what a qs8
// conv pads with: 0.0, or 0.04 at scale 0.1 (round(0.4) = 0).
// CHECK-LABEL: func.func @qs8_zero_point_pad
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %x, %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64}
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %x, %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64}
func.func @qs8_zero_point_pad(%x: tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>) -> (tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>) {
  %w = xnn.constant #xnnc.weight<"w"> : tensor<2x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>) -> tensor<1x6x6x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x6x6x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>, tensor<2x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>
  %p2 = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>, padding_value = 4.0e-02 : f32} : (tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>) -> tensor<1x6x6x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>
  %y2 = xnn.convolution_2d %p2, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x6x6x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>, tensor<2x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %y, %y2 : tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>
}

// -----

// Left alone: 0.5 at scale 0.1 is 5 steps above the zero point, not the conv's padding.
// CHECK-LABEL: func.func @qs8_nonzero_pad
// CHECK:         xnn.static_constant_pad
// CHECK:         xnn.convolution_2d
func.func @qs8_nonzero_pad(%x: tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>) -> tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>> {
  %w = xnn.constant #xnnc.weight<"w"> : tensor<2x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>, padding_value = 5.0e-01 : f32} : (tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>) -> tensor<1x6x6x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x6x6x2x!xnn.quant.uniform<i8:f32, 0.1:-5>>, tensor<2x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %y : tensor<1x4x4x2x!xnn.quant.uniform<i8:f32, 0.2>>
}

// -----

// A symbolic width: a pad right before the conv folds (XNNPACK pads at every size).
// CHECK-LABEL: func.func @symbolic_width
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 2 : i64, padding_left = 3 : i64} : (tensor<1x6x?x4xf32, #xnnc.dims<"T">>, tensor<8x3x3x4xf32>) -> tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">>
func.func @symbolic_width(%x: tensor<1x6x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 3, 0>, post_paddings = array<i64: 0, 2, 1, 0>} : (tensor<1x6x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x9x?x4xf32, #xnnc.dims<"T + 4">>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x9x?x4xf32, #xnnc.dims<"T + 4">>, tensor<8x3x3x4xf32>) -> tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">>
  func.return %y : tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">>
}


// -----

// Left alone: a symbolic width behind a layout chain (rebuilt with fixed-size reshapes).
// The pad stays a static_constant_pad, which XNNPACK reshapes at run time.
// CHECK-LABEL: func.func @symbolic_width_through_transpose
// CHECK:         xnn.static_constant_pad %x
// CHECK:         xnn.convolution_2d %t, %w {xnn.declined = {"xnn-fold-pad" = "symbolic size T: the layout chain it rebuilds has fixed-size reshapes"}
func.func @symbolic_width_through_transpose(%x: tensor<1x4x6x?xf32, #xnnc.dims<"T">>) -> tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 3>, post_paddings = array<i64: 0, 0, 2, 1>} : (tensor<1x4x6x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x9x?xf32, #xnnc.dims<"T + 4">>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x9x?xf32, #xnnc.dims<"T + 4">>) -> tensor<1x9x?x4xf32, #xnnc.dims<"T + 4">>
  %y = xnn.convolution_2d %t, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x9x?x4xf32, #xnnc.dims<"T + 4">>, tensor<8x3x3x4xf32>) -> tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">>
  func.return %y : tensor<1x7x?x8xf32, #xnnc.dims<"T + 2">>
}

// -----

// Slices of a pad (xnn-conv-as-gemm's taps over a padded input). The window of %a covers x
// and one pad row before it: a pad of x by that row. %b covers x and one row after it. %c
// is x itself. %d lies inside x: a slice of x. The pad dies with its last slice.
// CHECK-LABEL: func.func @slices_of_a_pad
// CHECK-NOT:     pre_paddings = array<i64: 0, 0, 2, 0>
// CHECK:         %[[A:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 0, 0, 0>} : (tensor<1x1x8x4xf32>) -> tensor<1x1x9x4xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 0, 0>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x1x8x4xf32>) -> tensor<1x1x9x4xf32>
// CHECK-NEXT:    %[[D:.*]] = xnn.static_slice %x {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 6, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x1x6x4xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %x, %[[D]]
func.func @slices_of_a_pad(%x: tensor<1x1x8x4xf32>) -> (tensor<1x1x9x4xf32>, tensor<1x1x9x4xf32>, tensor<1x1x8x4xf32>, tensor<1x1x6x4xf32>) {
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 2, 0>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x1x8x4xf32>) -> tensor<1x1x11x4xf32>
  %a = xnn.static_slice %p {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 9, 4>} : (tensor<1x1x11x4xf32>) -> tensor<1x1x9x4xf32>
  %b = xnn.static_slice %p {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, 9, 4>} : (tensor<1x1x11x4xf32>) -> tensor<1x1x9x4xf32>
  %c = xnn.static_slice %p {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, 8, 4>} : (tensor<1x1x11x4xf32>) -> tensor<1x1x8x4xf32>
  %d = xnn.static_slice %p {offsets = array<i64: 0, 0, 3, 0>, sizes = array<i64: 1, 1, 6, 4>} : (tensor<1x1x11x4xf32>) -> tensor<1x1x6x4xf32>
  func.return %a, %b, %c, %d : tensor<1x1x9x4xf32>, tensor<1x1x9x4xf32>, tensor<1x1x8x4xf32>, tensor<1x1x6x4xf32>
}

// -----

// A window that cuts into x (the first taps of a causal layer) stays a slice of the pad, and
// the pad stays for it; a pad value other than zero is kept by the pad a slice becomes.
// CHECK-LABEL: func.func @cut_and_value
// CHECK:         %[[P:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 2, 0>, post_paddings = array<i64: 0, 0, 0, 0>, padding_value = 5.000000e-01 : f32}
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 8, 4>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 0, 0, 0>, padding_value = 5.000000e-01 : f32} : (tensor<1x1x8x4xf32>) -> tensor<1x1x9x4xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @cut_and_value(%x: tensor<1x1x8x4xf32>) -> (tensor<1x1x8x4xf32>, tensor<1x1x9x4xf32>) {
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 2, 0>, post_paddings = array<i64: 0, 0, 0, 0>, padding_value = 0.5 : f32} : (tensor<1x1x8x4xf32>) -> tensor<1x1x10x4xf32>
  %a = xnn.static_slice %p {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 8, 4>} : (tensor<1x1x10x4xf32>) -> tensor<1x1x8x4xf32>
  %b = xnn.static_slice %p {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 9, 4>} : (tensor<1x1x10x4xf32>) -> tensor<1x1x9x4xf32>
  func.return %a, %b : tensor<1x1x8x4xf32>, tensor<1x1x9x4xf32>
}

// -----

// A symbolic size is left alone.
// CHECK-LABEL: func.func @symbolic_slice_of_pad
// CHECK:         xnn.static_constant_pad %x
// CHECK-NEXT:    xnn.static_slice
func.func @symbolic_slice_of_pad(%x: tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T + 1">> {
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T + 2">>
  %a = xnn.static_slice %p {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, -1, 4>} : (tensor<1x1x?x4xf32, #xnnc.dims<"T + 2">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T + 1">>
  func.return %a : tensor<1x1x?x4xf32, #xnnc.dims<"T + 1">>
}

// -----

// A polyphase convolution's trim (whole positions of 4 phases through the interleaving
// reshape) folds into its padding: 26 positions, not 27, and no slice.
// CHECK-LABEL: func.func @slice_of_phases
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 8 : i64, group_output_channels = 16 : i64, padding_left = 1 : i64} : (tensor<1x1x26x8xf32>, tensor<16x1x2x8xf32>) -> tensor<1x1x26x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[C]] {{{.*}}new_shape = array<i64: 1, 1, 104, 4>} : (tensor<1x1x26x16xf32>) -> tensor<1x1x104x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @slice_of_phases(%x: tensor<1x1x26x8xf32>) -> tensor<1x1x104x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x2x8xf32>
  %c = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 8 : i64, group_output_channels = 16 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x26x8xf32>, tensor<16x1x2x8xf32>) -> tensor<1x1x27x16xf32>
  %d = xnn.static_reshape %c {new_shape = array<i64: 1, 1, 108, 4>} : (tensor<1x1x27x16xf32>) -> tensor<1x1x108x4xf32>
  %y = xnn.static_slice %d {xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", layer = "deconv", why = "test"}, offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 104, 4>} : (tensor<1x1x108x4xf32>) -> tensor<1x1x104x4xf32>
  func.return %y : tensor<1x1x104x4xf32>
}

// The slice's decision moves to the reshape now computing its result.
// DECIDED-LABEL: func.func @slice_of_phases
// DECIDED:         xnn.static_reshape %{{.*}} {xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", layer = "deconv", why = "test"}, new_shape = array<i64: 1, 1, 104, 4>}

// -----

// A depthwise upsample's phases, one convolution each joined by a concatenate: the trim of
// whole positions crops every phase in its own padding (14 positions -> 13), no slice. A
// trim through a position's phases (offset 1) stays a slice.
// CHECK-LABEL: func.func @slice_of_concatenated_phases
// CHECK:         %[[P0:.*]] = xnn.depthwise_convolution_2d %x, %w0 {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_left = 1 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x13x4xf32>
// CHECK-NEXT:    %[[P1:.*]] = xnn.depthwise_convolution_2d %x, %w1 {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_left = 1 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x13x4xf32>
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[P0]], %[[P1]] {axis = 3 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x13x4xf32>) -> tensor<1x1x13x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[J]] {{{.*}}new_shape = array<i64: 1, 1, 26, 4>} : (tensor<1x1x13x8xf32>) -> tensor<1x1x26x4xf32>
// CHECK:         %[[U:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 1, 0>
// CHECK-NEXT:    func.return %[[Y]], %[[U]]
func.func @slice_of_concatenated_phases(%x: tensor<1x1x13x4xf32>, %z: tensor<1x1x13x4xf32>) -> (tensor<1x1x26x4xf32>, tensor<1x1x26x4xf32>) {
  %w0 = xnn.constant dense<5.000000e-01> : tensor<1x1x2x4xf32>
  %w1 = xnn.constant dense<2.500000e-01> : tensor<1x1x2x4xf32>
  %p0 = xnn.depthwise_convolution_2d %x, %w0 {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x14x4xf32>
  %p1 = xnn.depthwise_convolution_2d %x, %w1 {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x14x4xf32>
  %j = xnn.concatenate %p0, %p1 {axis = 3 : i64} : (tensor<1x1x14x4xf32>, tensor<1x1x14x4xf32>) -> tensor<1x1x14x8xf32>
  %d = xnn.static_reshape %j {new_shape = array<i64: 1, 1, 28, 4>} : (tensor<1x1x14x8xf32>) -> tensor<1x1x28x4xf32>
  %y = xnn.static_slice %d {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 26, 4>} : (tensor<1x1x28x4xf32>) -> tensor<1x1x26x4xf32>
  %q0 = xnn.depthwise_convolution_2d %z, %w0 {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x14x4xf32>
  %q1 = xnn.depthwise_convolution_2d %z, %w1 {kernel_height = 1 : i64, kernel_width = 2 : i64, input_channels = 4 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x13x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x14x4xf32>
  %k = xnn.concatenate %q0, %q1 {axis = 3 : i64} : (tensor<1x1x14x4xf32>, tensor<1x1x14x4xf32>) -> tensor<1x1x14x8xf32>
  %e = xnn.static_reshape %k {new_shape = array<i64: 1, 1, 28, 4>} : (tensor<1x1x14x8xf32>) -> tensor<1x1x28x4xf32>
  %u = xnn.static_slice %e {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 26, 4>} : (tensor<1x1x28x4xf32>) -> tensor<1x1x26x4xf32>
  func.return %y, %u : tensor<1x1x26x4xf32>, tensor<1x1x26x4xf32>
}

// -----

// Rows and columns of a strided 2-D convolution, from the start and from the end: the
// padding computes only what is kept (top 3 -> 1 drops a row of stride 2; bottom 3 -> 1 and
// right 3 -> 1 the last row and column).
// CHECK-LABEL: func.func @slice_of_conv_2d
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x9x9x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x5x5x8xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @slice_of_conv_2d(%x: tensor<1x9x9x4xf32>) -> tensor<1x5x5x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %c = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_top = 3 : i64, padding_right = 3 : i64, padding_bottom = 3 : i64, padding_left = 1 : i64} : (tensor<1x9x9x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x7x6x8xf32>
  %y = xnn.static_slice %c {offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 5, 5, 8>} : (tensor<1x7x6x8xf32>) -> tensor<1x5x5x8xf32>
  func.return %y : tensor<1x5x5x8xf32>
}

// -----

// A depthwise convolution's output trimmed at both ends: its padding, here none left.
// CHECK-LABEL: func.func @slice_of_depthwise
// CHECK:         %[[C:.*]] = xnn.depthwise_convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, input_channels = 4 : i64} : (tensor<1x1x10x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @slice_of_depthwise(%x: tensor<1x1x10x4xf32>) -> tensor<1x1x8x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x3x4xf32>
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, padding_left = 2 : i64, padding_right = 2 : i64, input_channels = 4 : i64} : (tensor<1x1x10x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x12x4xf32>
  %s = xnn.static_slice %y {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, 8, 4>} : (tensor<1x1x12x4xf32>) -> tensor<1x1x8x4xf32>
  func.return %s : tensor<1x1x8x4xf32>
}

// -----

// A depth-to-space interleave (2x2 phases): rows and columns in whole blocks.
// CHECK-LABEL: func.func @slice_of_depth_to_space
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %w {{.*}}group_output_channels = 12 : i64, padding_top = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<12x2x2x2xf32>) -> tensor<1x4x4x12xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.depth_to_space_2d %[[C]] {block_size = 2 : i64} : (tensor<1x4x4x12xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @slice_of_depth_to_space(%x: tensor<1x4x4x2xf32>) -> tensor<1x8x8x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<12x2x2x2xf32>
  %c = xnn.convolution_2d %x, %w {kernel_height = 2 : i64, kernel_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 12 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<12x2x2x2xf32>) -> tensor<1x5x5x12xf32>
  %d = xnn.depth_to_space_2d %c {block_size = 2 : i64} : (tensor<1x5x5x12xf32>) -> tensor<1x10x10x3xf32>
  %y = xnn.static_slice %d {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 8, 8, 3>} : (tensor<1x10x10x3xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

// Slices that stay: through a phase block (DAC's crop of s/2), across the channels, of a
// convolution with another user, and one dropping an output the padding does not make (the
// window would need a negative padding: it starts inside the input).
// CHECK-LABEL: func.func @slices_that_stay
// CHECK-COUNT-4: xnn.static_slice
func.func @slices_that_stay(%x: tensor<1x1x26x8xf32>) -> (tensor<1x1x104x4xf32>, tensor<1x1x27x8xf32>, tensor<1x1x26x16xf32>, tensor<1x1x24x16xf32>, tensor<1x1x27x16xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x2x8xf32>
  %c = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 8 : i64, group_output_channels = 16 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x26x8xf32>, tensor<16x1x2x8xf32>) -> tensor<1x1x27x16xf32>
  %d = xnn.static_reshape %c {new_shape = array<i64: 1, 1, 108, 4>} : (tensor<1x1x27x16xf32>) -> tensor<1x1x108x4xf32>
  %a = xnn.static_slice %d {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, 104, 4>} : (tensor<1x1x108x4xf32>) -> tensor<1x1x104x4xf32>
  %c2 = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 8 : i64, group_output_channels = 16 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x26x8xf32>, tensor<16x1x2x8xf32>) -> tensor<1x1x27x16xf32>
  %b = xnn.static_slice %c2 {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 27, 8>} : (tensor<1x1x27x16xf32>) -> tensor<1x1x27x8xf32>
  %c3 = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 8 : i64, group_output_channels = 16 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x26x8xf32>, tensor<16x1x2x8xf32>) -> tensor<1x1x27x16xf32>
  %s = xnn.static_slice %c3 {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 26, 16>} : (tensor<1x1x27x16xf32>) -> tensor<1x1x26x16xf32>
  %c4 = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, group_input_channels = 8 : i64, group_output_channels = 16 : i64} : (tensor<1x1x26x8xf32>, tensor<16x1x2x8xf32>) -> tensor<1x1x25x16xf32>
  %t = xnn.static_slice %c4 {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 24, 16>} : (tensor<1x1x25x16xf32>) -> tensor<1x1x24x16xf32>
  func.return %a, %b, %s, %t, %c3 : tensor<1x1x104x4xf32>, tensor<1x1x27x8xf32>, tensor<1x1x26x16xf32>, tensor<1x1x24x16xf32>, tensor<1x1x27x16xf32>
}
