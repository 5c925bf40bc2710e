// RUN: xnn-opt %s -p canonicalize | filecheck %s
// RUN: xnn-opt %s -p 'canonicalize{disabled-patterns=xnn-fold-pad}' | filecheck %s --check-prefix=NOPAD
// RUN: xnn-opt %s -p 'canonicalize{disabled-patterns=FoldPadIntoConv}' | filecheck %s --check-prefix=NOPAD
// RUN: xnn-opt %s -p 'canonicalize{enabled-patterns=xnn-fold-pad}' | filecheck %s --check-prefix=ONLYPAD
// RUN: xnn-opt %s -p 'canonicalize{disabled-patterns=xnn-fold-pad,FuseClampIntoProducer}' | filecheck %s --check-prefix=NONE
// RUN: not xnn-opt %s -p 'canonicalize{disabled-patterns=FoldPad}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// canonicalize's options: `disabled-patterns` switches rewrite sets (by pass name) or single
// patterns (by class name) off; `enabled-patterns` runs only those named.

// A zero pad before a conv (xnn-fold-pad) and a relu after it (xnn-fuse-activation).
// CHECK-LABEL: func.func @pad_conv_relu
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    %[[Y:.*]] = xnn.convolution_2d %x, %w {{{.*}}padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[Y]]

// NOPAD-LABEL:   func.func @pad_conv_relu
// NOPAD:           %[[P:.*]] = xnn.static_constant_pad %x
// NOPAD-NEXT:      %[[Y:.*]] = xnn.convolution_2d %[[P]], %w {{{.*}}output_min = 0.000000e+00 : f32}
// NOPAD-NEXT:      func.return %[[Y]]

// ONLYPAD-LABEL: func.func @pad_conv_relu
// ONLYPAD-NOT:     xnn.static_constant_pad
// ONLYPAD:         %[[C:.*]] = xnn.convolution_2d %x, %w {{{.*}}padding_left = 1 : i64} :
// ONLYPAD-NEXT:    %[[Y:.*]] = xnn.clamp %[[C]] {output_min = 0.000000e+00 : f32}
// ONLYPAD-NEXT:    func.return %[[Y]]

// NONE-LABEL:    func.func @pad_conv_relu
// NONE:            xnn.static_constant_pad
// NONE-NEXT:       xnn.convolution_2d
// NONE-NEXT:       xnn.clamp

// UNKNOWN: canonicalize: unknown pattern 'FoldPad' in disabled-patterns; valid names: {{.*}}FoldPadIntoConv{{.*}}xnn-fold-pad
func.func @pad_conv_relu(%x: tensor<1x6x6x4xf32>) -> tensor<1x6x6x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
  %p = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x6x6x4xf32>) -> tensor<1x8x8x4xf32>
  %y = xnn.convolution_2d %p, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32>
  %r = xnn.clamp %y {output_min = 0.000000e+00 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  func.return %r : tensor<1x6x6x8xf32>
}
