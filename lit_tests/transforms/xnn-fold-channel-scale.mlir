// RUN: xnn-opt %s --split-input-file -p xnn-fold-channel-scale | filecheck %s
// RUN: xnn-opt %s --split-input-file -p canonicalize | filecheck %s --check-prefix=CANON

// A snake between two convolutions (DAC's residual unit, second half): x + b*sin(a*x)^2 with
// b = 1/a becomes b*(a*x + sin(a*x)^2); `a` folds into the first conv's filter and bias, `b`
// into the second conv's filter: sine, square and add remain.
// CHECK-LABEL: func.func @snake_between_convs
// CHECK:         %[[C:.*]] = xnn.convolution_2d %x, %{{.*}}, %{{.*}} {
// CHECK-NEXT:    %[[S:.*]] = xnn.unary sine %[[C]]
// CHECK-NEXT:    %[[Q:.*]] = xnn.unary square %[[S]]
// CHECK-NEXT:    %[[Z:.*]] = xnn.binary add %[[C]], %[[Q]]
// CHECK:         %[[D:.*]] = xnn.convolution_2d %[[Z]]
// CHECK-NEXT:    func.return %[[D]]
// CHECK-NOT:     multiply
// CANON-LABEL: func.func @snake_between_convs
// CANON-NOT:     xnn.binary multiply
func.func @snake_between_convs(%x: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x1x3x4xf32>
  %bias = xnn.constant dense<1.000000e-01> : tensor<4xf32>
  %a = xnn.constant dense<[2.000000e+00, 5.000000e-01, 4.000000e+00, 1.000000e+00]> : tensor<4xf32>
  %b = xnn.constant dense<[5.000000e-01, 2.000000e+00, 2.500000e-01, 1.000000e+00]> : tensor<4xf32>
  %w2 = xnn.constant dense<2.500000e-01> : tensor<4x1x3x4xf32>
  %c = xnn.convolution_2d %x, %w, %bias {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x8x4xf32>, tensor<4x1x3x4xf32>, tensor<4xf32>) -> tensor<1x1x8x4xf32>
  %u = xnn.binary multiply %a, %c : (tensor<4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %s = xnn.unary sine %u : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %q = xnn.unary square %s : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %t = xnn.binary multiply %b, %q : (tensor<4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %y = xnn.binary add %c, %t : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %d = xnn.convolution_2d %y, %w2 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x8x4xf32>, tensor<4x1x3x4xf32>) -> tensor<1x1x8x4xf32>
  func.return %d : tensor<1x1x8x4xf32>
}

// -----

// A snake on a residual stream (x read by the add after it too): `b` folds into the
// transposed convolution that reads the snake, `a` stays a multiply.
// CHECK-LABEL: func.func @snake_on_residual
// CANON-LABEL: func.func @snake_on_residual
// CHECK:         %[[U:.*]] = xnn.binary multiply %{{.*}}, %x
// CHECK-NEXT:    %[[S:.*]] = xnn.unary sine %[[U]]
// CHECK-NEXT:    %[[Q:.*]] = xnn.unary square %[[S]]
// CHECK-NEXT:    %[[Z:.*]] = xnn.binary add %[[U]], %[[Q]]
// CHECK:         xnn.deconvolution_2d %[[Z]]
// CHECK-NOT:     multiply
func.func @snake_on_residual(%x: tensor<1x1x8x4xf32>) -> (tensor<1x1x16x2xf32>, tensor<1x1x8x4xf32>) {
  %a = xnn.constant dense<[2.000000e+00, 5.000000e-01, 4.000000e+00, 1.000000e+00]> : tensor<4xf32>
  %b = xnn.constant dense<[5.000000e-01, 2.000000e+00, 2.500000e-01, 1.000000e+00]> : tensor<4xf32>
  %w = xnn.constant dense<2.500000e-01> : tensor<2x1x2x4xf32>
  %u = xnn.binary multiply %a, %x : (tensor<4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %s = xnn.unary sine %u : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %q = xnn.unary square %s : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %t = xnn.binary multiply %b, %q : (tensor<4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %y = xnn.binary add %x, %t : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %d = xnn.deconvolution_2d %y, %w {kernel_height = 1 : i64, kernel_width = 2 : i64, upsampling_height = 1 : i64, upsampling_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 2 : i64} : (tensor<1x1x8x4xf32>, tensor<2x1x2x4xf32>) -> tensor<1x1x16x2xf32>
  func.return %d, %x : tensor<1x1x16x2xf32>, tensor<1x1x8x4xf32>
}

// -----

// b is not the reciprocal of a (0.3 * 2 = 0.6): the snake is left as it is.
// CHECK-LABEL: func.func @not_reciprocal
// CHECK-COUNT-2: xnn.binary multiply
// CHECK:         xnn.binary add %x
func.func @not_reciprocal(%x: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %a = xnn.constant dense<2.000000e+00> : tensor<4xf32>
  %b = xnn.constant dense<3.000000e-01> : tensor<4xf32>
  %w = xnn.constant dense<2.500000e-01> : tensor<4x1x1x4xf32>
  %u = xnn.binary multiply %a, %x : (tensor<4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %s = xnn.unary sine %u : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %q = xnn.unary square %s : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %t = xnn.binary multiply %b, %q : (tensor<4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %y = xnn.binary add %x, %t : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %d = xnn.convolution_2d %y, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64} : (tensor<1x1x8x4xf32>, tensor<4x1x1x4xf32>) -> tensor<1x1x8x4xf32>
  func.return %d : tensor<1x1x8x4xf32>
}

// -----

// A per-channel scale before a fully-connected node folds into its filter's columns; one
// after a convolution with a fused clamp does not fold (clamp, then scale).
// CHECK-LABEL: func.func @scale_into_linear
// CHECK-NEXT:    %[[W:.*]] = xnn.constant
// CHECK-NEXT:    %[[F:.*]] = xnn.fully_connected %x, %[[W]]
// CHECK-NEXT:    func.return %[[F]]
func.func @scale_into_linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %s = xnn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
  %w = xnn.constant dense<1.000000e+00> : tensor<2x4xf32>
  %y = xnn.binary multiply %x, %s : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %f = xnn.fully_connected %y, %w : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  func.return %f : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @clamped_producer
// CHECK:         xnn.convolution_2d
// CHECK-NEXT:    xnn.binary multiply
func.func @clamped_producer(%x: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x1x1x4xf32>
  %s = xnn.constant dense<2.000000e+00> : tensor<4xf32>
  %c = xnn.convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 4 : i64, group_output_channels = 4 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x1x8x4xf32>, tensor<4x1x1x4xf32>) -> tensor<1x1x8x4xf32>
  %y = xnn.binary multiply %c, %s : (tensor<1x1x8x4xf32>, tensor<4xf32>) -> tensor<1x1x8x4xf32>
  func.return %y : tensor<1x1x8x4xf32>
}
