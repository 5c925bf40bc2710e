// RUN: xnn-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One case per verifier message of the xnn dialect (dialects/xnn.py). Each CHECK sits right
// above the op that fails: xnn-opt prints `file:line:col: error: 'op' op message` for the
// first failure of each split. (xDSL 0.74's --verify-diagnostics does not read MLIR's
// `expected-error` annotations.)

func.func @flags_not_accepted(%x: tensor<1x8x8x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x6x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op flags 0x40 set bits 0x40 that xnn.convolution_2d does not accept (accepted: XNN_FLAG_TENSORFLOW_SAME_PADDING = 0x4, XNN_FLAG_TRANSIENT_INDIRECTION_BUFFER = 0x20)
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8, flags = 64 : i32} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x6x6x8xf32>
  func.return %y : tensor<1x6x6x8xf32>
}

// -----

func.func @flags_none_accepted(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.softmax' op flags 0x1 set bits 0x1 that xnn.softmax does not accept (accepted: none)
  %y = xnn.softmax %x {flags = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @too_many_dims(%x: tensor<1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.copy' op XNNPACK tensors have at most 6 dims, got tensor<1x1x1x1x1x1x2xf32>
  %y = xnn.copy %x : (tensor<1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x2xf32>
  func.return %y : tensor<1x1x1x1x1x1x2xf32>
}

// -----

func.func @output_range(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.clamp' op output range [6.0, 0.0] is invalid: output_min must be <= output_max
  %y = xnn.clamp %x {output_min = 6.0 : f32, output_max = 0.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @element_types_differ(%x: tensor<2x8xf32>) -> tensor<2x8xf16> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.clamp' op element types differ: input f32, output f16
  %y = xnn.clamp %x : (tensor<2x8xf32>) -> tensor<2x8xf16>
  func.return %y : tensor<2x8xf16>
}

// -----

func.func @shape_differs(%x: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.clamp' op output shape [8, 2] differs from input shape [2, 8]
  %y = xnn.clamp %x : (tensor<2x8xf32>) -> tensor<8x2xf32>
  func.return %y : tensor<8x2xf32>
}

// -----

func.func @subgraph_block_args(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.subgraph' op block arguments (tensor<4xf16>) must match the inputs (tensor<4xf32>)
  %r = xnn.subgraph(%a) : (tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%x: tensor<4xf16>):
    %c = xnn.constant dense<1.0> : tensor<4xf32>
    xnn.output %c : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

func.func @subgraph_empty_body(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.subgraph' op body must end with xnn.output
  %r = xnn.subgraph(%a) : (tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
  }
  func.return %r : tensor<4xf32>
}

// -----

func.func @subgraph_output_types(%a: tensor<4xf32>) -> tensor<2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.subgraph' op xnn.output yields (tensor<4xf32>) but the subgraph returns (tensor<2xf32>)
  %r = xnn.subgraph(%a) : (tensor<4xf32>) -> (tensor<2xf32>) {
  ^bb0(%x: tensor<4xf32>):
    xnn.output %x : tensor<4xf32>
  }
  func.return %r : tensor<2xf32>
}

// -----

builtin.module {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.output' op 'xnn.output' expects parent op 'xnn.subgraph'
  xnn.output
}

// -----

func.func @constant_dense_type() -> tensor<3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.constant' op dense value of type tensor<2xf32> does not match output tensor<3xf32>
  %c = "xnn.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @constant_weight_bytes() -> tensor<2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.constant' op weight 'w' has 4 bytes but tensor<2xf32> needs 8
  %c = xnn.constant #xnnc.weight<"w", "0x0000803F"> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

func.func @conv_positive(%x: tensor<1x8x8x3xf32>, %w: tensor<8x0x3x3xf32>) -> tensor<1x8x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op kernel_height = 0 must be positive
  %y = xnn.convolution_2d %x, %w {kernel_height = 0, kernel_width = 3, group_input_channels = 3, group_output_channels = 8} : (tensor<1x8x8x3xf32>, tensor<8x0x3x3xf32>) -> tensor<1x8x6x8xf32>
  func.return %y : tensor<1x8x6x8xf32>
}

// -----

func.func @conv_not_4d(%x: tensor<8x8x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<6x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op input must be 4-D NHWC, got [8, 8, 3]
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8} : (tensor<8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<6x6x8xf32>
  func.return %y : tensor<6x6x8xf32>
}

// -----

func.func @conv_input_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x1x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op input has 8 channels (NHWC) but groups * group_input_channels = 1 * 3 = 3
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x1x6x8xf32>
  func.return %y : tensor<1x1x6x8xf32>
}

// -----

func.func @conv_filter(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op filter shape [8, 3, 3, 4] should be [8, 3, 3, 2]: [groups * group_output_channels, kernel_height, kernel_width, group_input_channels]
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, groups = 2, group_input_channels = 2, group_output_channels = 4} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32>
  func.return %y : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x6x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op bias shape [3] should be [8] (output channels)
  %y = xnn.convolution_2d %x, %w, %b {kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<3xf32>) -> tensor<1x6x6x8xf32>
  func.return %y : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_negative_padding(%x: tensor<1x8x8x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x5x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op padding (top, right, bottom, left) = (-1, 0, 0, 0) must be >= 0
  %y = xnn.convolution_2d %x, %w {padding_top = -1, kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x5x6x8xf32>
  func.return %y : tensor<1x5x6x8xf32>
}

// -----

func.func @conv_same_and_explicit_padding(%x: tensor<1x8x8x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op XNN_FLAG_TENSORFLOW_SAME_PADDING cannot be combined with explicit padding
  %y = xnn.convolution_2d %x, %w {padding_top = 1, kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8, flags = 4 : i32} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @conv_output(%x: tensor<1x8x8x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op output shape [1, 8, 8, 8] should be [1, 6, 6, 8] for input 8x8, window 3x3, stride 1x1, dilation 1x1 and padding (top, right, bottom, left) (0, 0, 0, 0)
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @conv_same_output(%x: tensor<1x7x7x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x3x3x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convolution_2d' op output shape [1, 3, 3, 8] should be [1, 4, 4, 8] for input 7x7, window 3x3, stride 2x2, dilation 1x1 and TensorFlow SAME padding
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, subsampling_height = 2, subsampling_width = 2, group_input_channels = 3, group_output_channels = 8, flags = 4 : i32} : (tensor<1x7x7x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x3x8xf32>
  func.return %y : tensor<1x3x3x8xf32>
}

// -----

func.func @depthwise_input_channels(%x: tensor<1x8x8x4xf32>, %w: tensor<1x3x3x6xf32>) -> tensor<1x6x6x6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.depthwise_convolution_2d' op input has 4 channels (NHWC) but input_channels = 3
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, depth_multiplier = 2, input_channels = 3} : (tensor<1x8x8x4xf32>, tensor<1x3x3x6xf32>) -> tensor<1x6x6x6xf32>
  func.return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @depthwise_filter(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x1xf32>) -> tensor<1x6x6x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.depthwise_convolution_2d' op filter shape [8, 3, 3, 1] should be [1, 3, 3, 8]: [1, kernel_height, kernel_width, input_channels * depth_multiplier]
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, depth_multiplier = 2, input_channels = 4} : (tensor<1x8x8x4xf32>, tensor<8x3x3x1xf32>) -> tensor<1x6x6x8xf32>
  func.return %y : tensor<1x6x6x8xf32>
}

// -----

func.func @depthwise_output(%x: tensor<1x8x8x4xf32>, %w: tensor<1x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.depthwise_convolution_2d' op output shape [1, 6, 6, 4] should be [1, 4, 4, 4] for input 8x8, window 3x3, stride 1x1, dilation 2x2 and padding (top, right, bottom, left) (0, 0, 0, 0)
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, dilation_height = 2, dilation_width = 2, input_channels = 4} : (tensor<1x8x8x4xf32>, tensor<1x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  func.return %y : tensor<1x6x6x4xf32>
}

// -----

func.func @deconv_adjustment(%x: tensor<1x4x4x2xf32>, %w: tensor<3x4x4x2xf32>) -> tensor<1x12x10x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.deconvolution_2d' op adjustment_height = 2 must be in [0, upsampling_height = 2)
  %y = xnn.deconvolution_2d %x, %w {adjustment_height = 2, kernel_height = 4, kernel_width = 4, upsampling_height = 2, upsampling_width = 2, group_input_channels = 2, group_output_channels = 3} : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x12x10x3xf32>
  func.return %y : tensor<1x12x10x3xf32>
}

// -----

func.func @deconv_output(%x: tensor<1x4x4x2xf32>, %w: tensor<3x4x4x2xf32>) -> tensor<1x8x8x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.deconvolution_2d' op output shape [1, 8, 8, 3] should be [1, 10, 10, 3] for input 4x4, kernel 4x4, upsampling 2x2, dilation 1x1, adjustment 0x0 and padding (top, right, bottom, left) (0, 0, 0, 0)
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 4, kernel_width = 4, upsampling_height = 2, upsampling_width = 2, group_input_channels = 2, group_output_channels = 3} : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

func.func @fully_connected_filter_rank(%x: tensor<2x16xf32>, %w: tensor<8x16x1xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.fully_connected' op filter must be 2-D [output_channels, input_channels], got [8, 16, 1]
  %y = xnn.fully_connected %x, %w : (tensor<2x16xf32>, tensor<8x16x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @fully_connected_input_channels(%x: tensor<2x16xf32>, %w: tensor<16x8xf32>) -> tensor<2x16xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.fully_connected' op input [2, 16] must end in the filter's 8 input channels (filter [16, 8] is [output_channels, input_channels])
  %y = xnn.fully_connected %x, %w : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

func.func @fully_connected_output(%x: tensor<2x16xf32>, %w: tensor<16x8xf32>) -> tensor<2x16xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.fully_connected' op output shape [2, 16] should be [2, 8]
  %y = xnn.fully_connected %x, %w {flags = 1 : i32} : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

func.func @bmm_rank(%a: tensor<4xf32>, %b: tensor<4x6xf32>) -> tensor<6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.batch_matrix_multiply' op inputs must be at least 2-D, got [4] and [4, 6]
  %y = xnn.batch_matrix_multiply %a, %b : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
  func.return %y : tensor<6xf32>
}

// -----

func.func @bmm_k(%a: tensor<2x3x4xf32>, %b: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.batch_matrix_multiply' op input1 [2, 3, 4] has K = 4 but input2 [2, 5, 6], read as [..., K, N], has 5
  %y = xnn.batch_matrix_multiply %a, %b : (tensor<2x3x4xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  func.return %y : tensor<2x3x6xf32>
}

// -----

func.func @bmm_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x6xf32>) -> tensor<2x3x6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.batch_matrix_multiply' op batch dims [2] and [3] do not broadcast
  %y = xnn.batch_matrix_multiply %a, %b : (tensor<2x3x4xf32>, tensor<3x4x6xf32>) -> tensor<2x3x6xf32>
  func.return %y : tensor<2x3x6xf32>
}

// -----

func.func @bmm_output(%a: tensor<2x3x4xf32>, %b: tensor<2x6x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.batch_matrix_multiply' op output shape [2, 3, 4] should be [2, 3, 6]
  %y = xnn.batch_matrix_multiply %a, %b {flags = 1 : i32} : (tensor<2x3x4xf32>, tensor<2x6x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.binary' op input shapes [2, 3] and [4, 3] do not broadcast
  %y = xnn.binary add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

func.func @binary_no_broadcast_flag(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.binary' op input shapes [2, 3] and [3] do not broadcast
  %y = xnn.binary add %a, %b {flags = 4096 : i32} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @binary_output(%a: tensor<4x1x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.binary' op output shape [2, 3] should be [4, 2, 3] (the broadcast of the inputs)
  %y = xnn.binary maximum %a, %b : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @unary_convert(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.unary' op a unary convert changes the element type: use xnn.convert
  %y = xnn.unary convert %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @unary_foreign_parameter(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.unary' op 'alpha' is not a parameter of tanh, which takes no parameters
  %y = xnn.unary tanh %x {alpha = 1.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @unary_missing_parameter(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.unary' op leaky_relu needs its 'negative_slope' parameter
  %y = xnn.unary leaky_relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @unary_clamp_range(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.unary' op clamp range [6.0, 0.0] is empty
  %y = xnn.unary clamp %x {min = 6.0 : f32, max = 0.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @softmax_scalar(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.softmax' op input must have at least one dim
  %y = xnn.softmax %x : (tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}

// -----

func.func @convert_types(%x: tensor<2x8xf32>) -> tensor<2x8xi8> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.convert' op converts between f32, f16 and bf16, or f32 and a per-tensor 8-bit quantized type, not f32 -> i8
  %y = xnn.convert %x : (tensor<2x8xf32>) -> tensor<2x8xi8>
  func.return %y : tensor<2x8xi8>
}

// -----

func.func @transpose_perm(%x: tensor<1x3x8x6xf32>) -> tensor<1x8x8x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_transpose' op perm [0, 2, 2, 1] is not a permutation of the input's 4 dims
  %y = xnn.static_transpose %x {perm = array<i64: 0, 2, 2, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

func.func @transpose_output(%x: tensor<1x3x8x6xf32>) -> tensor<1x6x8x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_transpose' op output shape [1, 6, 8, 3] should be [1, 8, 6, 3]
  %y = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x6x8x3xf32>
  func.return %y : tensor<1x6x8x3xf32>
}

// -----

func.func @broadcast_incompatible(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_broadcast' op input shape [2, 3] does not broadcast to [4, 3]
  %y = xnn.static_broadcast %x {new_shape = array<i64: 4, 3>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

func.func @broadcast_new_shape(%x: tensor<1x3xf32>) -> tensor<4x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_broadcast' op output shape [4, 3] does not match new_shape [5, 3]
  %y = xnn.static_broadcast %x {new_shape = array<i64: 5, 3>} : (tensor<1x3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

func.func @reshape_new_shape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_reshape' op new_shape [0, 0] may hold one 0 (inferred) and no negative dims
  %y = xnn.static_reshape %x {new_shape = array<i64: 0, 0>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  func.return %y : tensor<6x4xf32>
}

// -----

func.func @reshape_output(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_reshape' op output shape [4, 6] does not match new_shape [6, 4]
  %y = xnn.static_reshape %x {new_shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  func.return %y : tensor<4x6xf32>
}

// -----

func.func @reshape_element_count(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_reshape' op cannot reshape [2, 3, 4] (24 elements) to [5, 5] (25)
  %y = xnn.static_reshape %x {new_shape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  func.return %y : tensor<5x5xf32>
}

// -----

func.func @slice_lengths(%x: tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_slice' op offsets and sizes need one value per input dim (4)
  %y = xnn.static_slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 1, 6, 7, 4>} : (tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32>
  func.return %y : tensor<1x6x7x4xf32>
}

// -----

func.func @slice_bounds(%x: tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_slice' op slice [4, 10) of dim 1 is outside the input's [0, 8)
  %y = xnn.static_slice %x {offsets = array<i64: 0, 4, 0, 0>, sizes = array<i64: 1, 6, 7, 4>} : (tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32>
  func.return %y : tensor<1x6x7x4xf32>
}

// -----

func.func @slice_output(%x: tensor<1x8x8x4xf32>) -> tensor<1x6x6x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_slice' op output shape [1, 6, 6, 4] should be [1, 6, 7, 4]
  %y = xnn.static_slice %x {offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 6, 7, 4>} : (tensor<1x8x8x4xf32>) -> tensor<1x6x6x4xf32>
  func.return %y : tensor<1x6x6x4xf32>
}

// -----

func.func @pad_lengths(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x10x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_constant_pad' op pre_paddings and post_paddings need one value per input dim (4)
  %y = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x10x4xf32>
  func.return %y : tensor<1x8x10x4xf32>
}

// -----

func.func @pad_negative(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x7x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_constant_pad' op paddings must be >= 0, got pre [0, 0, -1, 0], post [0, 0, 0, 0]
  %y = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, -1, 0>, post_paddings = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x7x4xf32>
  func.return %y : tensor<1x8x7x4xf32>
}

// -----

func.func @pad_output(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x9x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_constant_pad' op output shape [1, 8, 9, 4] should be [1, 8, 10, 4]
  %y = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x9x4xf32>
  func.return %y : tensor<1x8x9x4xf32>
}

// -----

func.func @concatenate_count(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.concatenate' op takes 2 to 5 inputs, got 1
  %y = xnn.concatenate %a {axis = 0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @concatenate_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.concatenate' op axis 2 is out of range for rank 2
  %y = xnn.concatenate %a, %b {axis = 2} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return %y : tensor<2x6xf32>
}

// -----

func.func @concatenate_shapes(%a: tensor<1x4x4x2xf32>, %b: tensor<1x5x4x3xf32>) -> tensor<1x4x4x5xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.concatenate' op input shapes [1, 4, 4, 2], [1, 5, 4, 3] must have rank 4 and agree outside axis 3
  %y = xnn.concatenate %a, %b {axis = 3} : (tensor<1x4x4x2xf32>, tensor<1x5x4x3xf32>) -> tensor<1x4x4x5xf32>
  func.return %y : tensor<1x4x4x5xf32>
}

// -----

func.func @concatenate_output(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.concatenate' op output shape [2, 6] should be [4, 3]
  %y = xnn.concatenate %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return %y : tensor<2x6xf32>
}

// -----

func.func @depth_to_space_block_size(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.depth_to_space_2d' op block_size must be at least 2, got 1
  %y = xnn.depth_to_space_2d %x {block_size = 1} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x4x4x6xf32>) -> tensor<1x8x8x1xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.depth_to_space_2d' op input channels 6 are not divisible by block_size^2 = 4
  %y = xnn.depth_to_space_2d %x {block_size = 2} : (tensor<1x4x4x6xf32>) -> tensor<1x8x8x1xf32>
  func.return %y : tensor<1x8x8x1xf32>
}

// -----

func.func @depth_to_space_output(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.depth_to_space_2d' op output shape [1, 4, 4, 8] should be [1, 8, 8, 2]
  %y = xnn.depth_to_space_2d %x {block_size = 2} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}

// -----

func.func @space_to_depth_spatial(%x: tensor<1x6x5x2xf32>) -> tensor<1x3x2x8xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.space_to_depth_2d' op input height and width 6x5 are not divisible by block_size 2
  %y = xnn.space_to_depth_2d %x {block_size = 2} : (tensor<1x6x5x2xf32>) -> tensor<1x3x2x8xf32>
  func.return %y : tensor<1x3x2x8xf32>
}

// -----

func.func @space_to_depth_output(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.space_to_depth_2d' op output shape [1, 2, 2, 2] should be [1, 2, 2, 8]
  %y = xnn.space_to_depth_2d %x {block_size = 2} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @reduce_axes(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_reduce' op axes [1, -2] must be distinct dims of the rank-3 input
  %y = xnn.static_reduce sum %x {axes = array<i64: 1, -2>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @reduce_output(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_reduce' op output shape [2, 4] should be [2, 1, 4]
  %y = xnn.static_reduce mean %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

func.func @global_average_pooling_rank(%x: tensor<4x16xf32>) -> tensor<16xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.global_average_pooling_2d' op input must be at least 3-D [..., H, W, C], got [4, 16]
  %y = xnn.global_average_pooling_2d %x : (tensor<4x16xf32>) -> tensor<16xf32>
  func.return %y : tensor<16xf32>
}

// -----

func.func @global_average_pooling_output(%x: tensor<1x7x7x16xf32>) -> tensor<1x1x1x16xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.global_average_pooling_2d' op output shape [1, 1, 1, 16] should be [1, 16]
  %y = xnn.global_average_pooling_2d %x : (tensor<1x7x7x16xf32>) -> tensor<1x1x1x16xf32>
  func.return %y : tensor<1x1x1x16xf32>
}

// -----

func.func @pooling_positive(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.average_pooling_2d' op pooling_height = 0 must be positive
  %y = xnn.average_pooling_2d %x {pooling_height = 0, pooling_width = 2, stride_height = 2, stride_width = 2} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @pooling_window_too_big(%x: tensor<1x3x3x4xf32>) -> tensor<1x1x1x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.max_pooling_2d' op the 5x5 window (dilation 1x1) does not fit the padded 3x3 input
  %y = xnn.max_pooling_2d %x {pooling_height = 5, pooling_width = 5} : (tensor<1x3x3x4xf32>) -> tensor<1x1x1x4xf32>
  func.return %y : tensor<1x1x1x4xf32>
}

// -----

func.func @pooling_output(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.max_pooling_2d' op output shape [1, 4, 4, 4] should be [1, 3, 3, 4] for input 8x8, window 3x3, stride 2x2, dilation 1x1 and padding (top, right, bottom, left) (0, 0, 0, 0)
  %y = xnn.max_pooling_2d %x {pooling_height = 3, pooling_width = 3, stride_height = 2, stride_width = 2} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @resize_size(%x: tensor<1x4x4x3xf32>) -> tensor<1x0x6x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_resize_bilinear_2d' op new size 0x6 must be positive and below 2**24
  %y = xnn.static_resize_bilinear_2d %x {new_height = 0, new_width = 6} : (tensor<1x4x4x3xf32>) -> tensor<1x0x6x3xf32>
  func.return %y : tensor<1x0x6x3xf32>
}

// -----

func.func @resize_flags(%x: tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_resize_bilinear_2d' op XNN_FLAG_ALIGN_CORNERS and XNN_FLAG_TENSORFLOW_LEGACY_MODE exclude each other
  %y = xnn.static_resize_bilinear_2d %x {new_height = 8, new_width = 6, flags = 12 : i32} : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>
  func.return %y : tensor<1x8x6x3xf32>
}

// -----

func.func @resize_output(%x: tensor<1x4x4x3xf32>) -> tensor<1x6x8x3xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_resize_bilinear_2d' op output shape [1, 6, 8, 3] should be [1, 8, 6, 3]
  %y = xnn.static_resize_bilinear_2d %x {new_height = 8, new_width = 6} : (tensor<1x4x4x3xf32>) -> tensor<1x6x8x3xf32>
  func.return %y : tensor<1x6x8x3xf32>
}

// -----

// On a symbolic dim an offset < 0 starts that far before its end and a size <= 0 stops
// that far before it: [T - 1, T - 1) is empty.
func.func @slice_relative_end_before_the_start(%x: tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_slice' op slice [T - 1, T - 1) of dim 2 is empty or outside the input's [0, T)
  %y = xnn.static_slice %x {offsets = array<i64: 0, 0, -1, 0>, sizes = array<i64: 1, 1, -1, 4>} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
  func.return %y : tensor<1x1x?x4xf32, #xnnc.dims<"T">>
}

// -----

// A slice counted from a symbolic dim's end must fit its smallest size (xnnc.symbols).
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @slice_from_the_end_before_the_start(%x: tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32> {
    // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:5: error: 'xnn.static_slice' op slice [T - 3, T - 2) of dim 1 starts before the input's start when T = 2, its smallest size
    %y = xnn.static_slice %x {offsets = array<i64: 0, -3, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32>
    func.return %y : tensor<1x1x4xf32>
  }
}

// -----

// A slice of n elements starting k < n before the end runs past it.
func.func @slice_from_the_end_past_the_end(%x: tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x2x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.static_slice' op slice [T - 1, T + 1) of dim 1 is empty or outside the input's [0, T)
  %y = xnn.static_slice %x {offsets = array<i64: 0, -1, 0>, sizes = array<i64: 1, 2, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// -----

func.func @lstm_weight_count(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>) -> tensor<3x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op expected 3 weights (1 layers x 1 directions x 3), got 2
  %y, %h, %c = xnn.lstm %x state() weights(%w, %w) {layers = 1} : tensor<3x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<3x1x2xf32>
}

// -----

func.func @lstm_weight_shape(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>, %v: tensor<8x3xf32>) -> tensor<3x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op cell 0: weight of shape [8, 3], expected [8, 2]
  %y, %h, %c = xnn.lstm %x state() weights(%v, %w) {layers = 1, has_bias = 0} : tensor<3x1x2xf32> state() weights(tensor<8x3xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<3x1x2xf32>
}

// -----

func.func @lstm_output_shape(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>) -> tensor<3x1x4xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op output of shape [3, 1, 4], expected [3, 1, 2]
  %y, %h, %c = xnn.lstm %x state() weights(%w, %w) {layers = 1, has_bias = 0} : tensor<3x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x4xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<3x1x4xf32>
}

// -----

func.func @lstm_dtype(%x: tensor<3x1x2xf16>, %w: tensor<8x2xf32>) -> tensor<3x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op xnn.lstm takes static f32 tensors, got tensor<3x1x2xf16>
  %y, %h, %c = xnn.lstm %x state() weights(%w, %w) {layers = 1, has_bias = 0} : tensor<3x1x2xf16> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<3x1x2xf32>
}

// -----

func.func @lstm_state_count(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>, %s: tensor<1x1x2xf32>) -> tensor<3x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op state is (h0, c0) or empty (zeros), got 1 values
  %y, %h, %c = xnn.lstm %x state(%s) weights(%w, %w) {layers = 1, has_bias = 0} : tensor<3x1x2xf32> state(tensor<1x1x2xf32>) weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<3x1x2xf32>
}

// -----

func.func @lstm_w_hh_rank(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>, %v: tensor<8xf32>) -> tensor<3x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op cell 0: W_hh of shape [8], expected [4H, H]
  %y, %h, %c = xnn.lstm %x state() weights(%w, %v) {layers = 1, has_bias = 0} : tensor<3x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<3x1x2xf32>
}

// -----

func.func @lstm_no_frames(%x: tensor<0x1x2xf32>, %w: tensor<8x2xf32>) -> tensor<0x1x2xf32> {
  // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:3: error: 'xnn.lstm' op needs at least one frame, batch row and hidden unit, got T=0, B=1, H=2
  %y, %h, %c = xnn.lstm %x state() weights(%w, %w) {layers = 1, has_bias = 0} : tensor<0x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<0x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  func.return %y : tensor<0x1x2xf32>
}

// -----

// Fewer dim expressions than '?' dims (it raised an internal error: StopIteration).
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @dims_count(%x: tensor<1x?x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x?x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x?x?xf32, #xnnc.dims<"T">>):
      // CHECK: {{.*}}xnn_verify.mlir:[[# @LINE + 1]]:7: error: 'xnn.unary' op tensor<1x?x?xf32, #xnnc.dims<"T">>: 1 dim expressions for 2 '?' dims
      %y = xnn.unary tanh %a : (tensor<1x?x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T">>
      xnn.output %y : tensor<1x?x?xf32, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x?x?xf32, #xnnc.dims<"T">>
  }
}
