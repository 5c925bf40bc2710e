// RUN: xnn-opt %s --split-input-file | xnn-opt --split-input-file | filecheck %s
// RUN: xnn-opt %s --split-input-file --print-op-generic | xnn-opt --split-input-file | filecheck %s
// RUN: xnn-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @subgraph(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x8xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x8x8x3xf32>) -> (tensor<1x8x8x8xf32>) {
  ^bb0(%in: tensor<1x8x8x3xf32>):
    %w = xnn.constant #xnnc.weight<"conv.weight"> : tensor<8x3x3x3xf32>
    %b = xnn.constant dense<0.5> : tensor<8xf32>
    %y = xnn.convolution_2d %in, %w, %b {padding_top = 1, padding_right = 1, padding_bottom = 1, padding_left = 1, kernel_height = 3, kernel_width = 3, group_input_channels = 3, group_output_channels = 8, output_min = 0.0 : f32} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    xnn.output %y : tensor<1x8x8x8xf32>
  }
  func.return %r : tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @subgraph(
// CHECK-NEXT:  %r = xnn.subgraph(%x) : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT:  ^bb0(%in: tensor<1x8x8x3xf32>):
// CHECK-NEXT:  %w = xnn.constant #xnnc.weight<"conv.weight"> : tensor<8x3x3x3xf32>
// CHECK-NEXT:  %b = xnn.constant dense<5.000000e-01> : tensor<8xf32>
// CHECK-NEXT:  %y = xnn.convolution_2d %in, %w, %b {padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 3 : i64, group_output_channels = 8 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:  xnn.output %y : tensor<1x8x8x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %r : tensor<1x8x8x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "subgraph"
// GENERIC:       %r = "xnn.subgraph"(%x) ({
// GENERIC:       %w = "xnn.constant"() <{value = #xnnc.weight<"conv.weight">}> : () -> tensor<8x3x3x3xf32>
// GENERIC:       %b = "xnn.constant"() <{value = dense<5.000000e-01> : tensor<8xf32>}> : () -> tensor<8xf32>
// GENERIC:       %y = "xnn.convolution_2d"(%in, %w, %b) <{padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 3 : i64, group_output_channels = 8 : i64, output_min = 0.000000e+00 : f32, subsampling_height = 1 : i64, subsampling_width = 1 : i64, dilation_height = 1 : i64, dilation_width = 1 : i64, groups = 1 : i64, flags = 0 : i32}> : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// GENERIC:       "xnn.output"(%y) : (tensor<1x8x8x8xf32>) -> ()

// -----

func.func @subgraph_multi(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = xnn.subgraph(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = xnn.binary add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    xnn.output %s, %x : tensor<4xf32>, tensor<4xf32>
  }
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @subgraph_multi(
// CHECK-NEXT:  %r, %r_1 = xnn.subgraph(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
// CHECK-NEXT:  %s = xnn.binary add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  xnn.output %s, %x : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %r, %r_1 : tensor<4xf32>, tensor<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "subgraph_multi"
// GENERIC:       %r, %r_1 = "xnn.subgraph"(%a, %b) ({
// GENERIC:       %s = "xnn.binary"(%x, %y) <{kind = #xnn<binary_operator add>, flags = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       "xnn.output"(%s, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()

// -----

func.func @conv_grouped_strided(%x: tensor<1x9x9x4xf32>, %w: tensor<6x3x3x2xf32>) -> tensor<1x4x3x6xf32> {
  %y = xnn.convolution_2d %x, %w {padding_bottom = 1, padding_right = 0, kernel_height = 3, kernel_width = 3, subsampling_height = 2, subsampling_width = 3, dilation_height = 1, dilation_width = 1, groups = 2, group_input_channels = 2, group_output_channels = 3, flags = 0 : i32} : (tensor<1x9x9x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x4x3x6xf32>
  func.return %y : tensor<1x4x3x6xf32>
}

// CHECK-LABEL: func.func @conv_grouped_strided(
// CHECK-NEXT:  %y = xnn.convolution_2d %x, %w {padding_bottom = 1 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 3 : i64, groups = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x9x9x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x4x3x6xf32>
// CHECK-NEXT:  func.return %y : tensor<1x4x3x6xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "conv_grouped_strided"
// GENERIC:       %y = "xnn.convolution_2d"(%x, %w) <{padding_bottom = 1 : i64, padding_right = 0 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 3 : i64, dilation_height = 1 : i64, dilation_width = 1 : i64, groups = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, flags = 0 : i32, padding_top = 0 : i64, padding_left = 0 : i64}> : (tensor<1x9x9x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x4x3x6xf32>

// -----

func.func @conv_same(%x: tensor<1x7x7x3xf16>, %w: tensor<8x3x3x3xf16>) -> tensor<1x4x4x8xf16> {
  %y = xnn.convolution_2d %x, %w {kernel_height = 3, kernel_width = 3, subsampling_height = 2, subsampling_width = 2, group_input_channels = 3, group_output_channels = 8, flags = 4 : i32} : (tensor<1x7x7x3xf16>, tensor<8x3x3x3xf16>) -> tensor<1x4x4x8xf16>
  func.return %y : tensor<1x4x4x8xf16>
}

// CHECK-LABEL: func.func @conv_same(
// CHECK-NEXT:  %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, group_input_channels = 3 : i64, group_output_channels = 8 : i64, flags = 4 : i32} : (tensor<1x7x7x3xf16>, tensor<8x3x3x3xf16>) -> tensor<1x4x4x8xf16>
// CHECK-NEXT:  func.return %y : tensor<1x4x4x8xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "conv_same"
// GENERIC:       %y = "xnn.convolution_2d"(%x, %w) <{kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, group_input_channels = 3 : i64, group_output_channels = 8 : i64, flags = 4 : i32, dilation_height = 1 : i64, dilation_width = 1 : i64, groups = 1 : i64, padding_top = 0 : i64, padding_right = 0 : i64, padding_bottom = 0 : i64, padding_left = 0 : i64}> : (tensor<1x7x7x3xf16>, tensor<8x3x3x3xf16>) -> tensor<1x4x4x8xf16>

// -----

func.func @depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<1x3x3x8xf32>, %b: tensor<8xf32>) -> tensor<1x6x8x8xf32> {
  %y = xnn.depthwise_convolution_2d %x, %w, %b {padding_left = 1, padding_right = 1, kernel_height = 3, kernel_width = 3, depth_multiplier = 2, input_channels = 4, output_max = 6.0 : f32} : (tensor<1x8x8x4xf32>, tensor<1x3x3x8xf32>, tensor<8xf32>) -> tensor<1x6x8x8xf32>
  func.return %y : tensor<1x6x8x8xf32>
}

// CHECK-LABEL: func.func @depthwise(
// CHECK-NEXT:  %y = xnn.depthwise_convolution_2d %x, %w, %b {padding_left = 1 : i64, padding_right = 1 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, depth_multiplier = 2 : i64, input_channels = 4 : i64, output_max = 6.000000e+00 : f32} : (tensor<1x8x8x4xf32>, tensor<1x3x3x8xf32>, tensor<8xf32>) -> tensor<1x6x8x8xf32>
// CHECK-NEXT:  func.return %y : tensor<1x6x8x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "depthwise"
// GENERIC:       %y = "xnn.depthwise_convolution_2d"(%x, %w, %b) <{padding_left = 1 : i64, padding_right = 1 : i64, kernel_height = 3 : i64, kernel_width = 3 : i64, depth_multiplier = 2 : i64, input_channels = 4 : i64, output_max = 6.000000e+00 : f32, subsampling_height = 1 : i64, subsampling_width = 1 : i64, dilation_height = 1 : i64, dilation_width = 1 : i64, padding_top = 0 : i64, padding_bottom = 0 : i64, flags = 0 : i32}> : (tensor<1x8x8x4xf32>, tensor<1x3x3x8xf32>, tensor<8xf32>) -> tensor<1x6x8x8xf32>

// -----

func.func @deconv(%x: tensor<1x4x4x2xf32>, %w: tensor<3x4x4x2xf32>) -> tensor<1x9x8x3xf32> {
  %y = xnn.deconvolution_2d %x, %w {padding_top = 1, padding_right = 1, padding_bottom = 1, padding_left = 1, adjustment_height = 1, kernel_height = 4, kernel_width = 4, upsampling_height = 2, upsampling_width = 2, group_input_channels = 2, group_output_channels = 3} : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x9x8x3xf32>
  func.return %y : tensor<1x9x8x3xf32>
}

// CHECK-LABEL: func.func @deconv(
// CHECK-NEXT:  %y = xnn.deconvolution_2d %x, %w {padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, adjustment_height = 1 : i64, kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x9x8x3xf32>
// CHECK-NEXT:  func.return %y : tensor<1x9x8x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "deconv"
// GENERIC:       %y = "xnn.deconvolution_2d"(%x, %w) <{padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, adjustment_height = 1 : i64, kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, adjustment_width = 0 : i64, dilation_height = 1 : i64, dilation_width = 1 : i64, groups = 1 : i64, flags = 0 : i32}> : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>) -> tensor<1x9x8x3xf32>

// -----

func.func @fully_connected(%x: tensor<2x5x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>, %wt: tensor<16x8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x8xf32>) {
  %y = xnn.fully_connected %x, %w, %b : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %z = xnn.fully_connected %x, %wt {flags = 1 : i32, output_min = -1.0 : f32, output_max = 1.0 : f32} : (tensor<2x5x16xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
  func.return %y, %z : tensor<2x5x8xf32>, tensor<2x5x8xf32>
}

// CHECK-LABEL: func.func @fully_connected(
// CHECK-NEXT:  %y = xnn.fully_connected %x, %w, %b : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:  %z = xnn.fully_connected %x, %wt {flags = 1 : i32, output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32} : (tensor<2x5x16xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<2x5x8xf32>, tensor<2x5x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "fully_connected"
// GENERIC:       %y = "xnn.fully_connected"(%x, %w, %b) <{flags = 0 : i32}> : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// GENERIC:       %z = "xnn.fully_connected"(%x, %wt) <{flags = 1 : i32, output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32}> : (tensor<2x5x16xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>

// -----

func.func @batch_matrix_multiply(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %bt: tensor<2x3x6x4xf32>) -> (tensor<2x5x3x6xf32>, tensor<2x3x3x6xf32>) {
  %y = xnn.batch_matrix_multiply %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %z = xnn.batch_matrix_multiply %a, %bt {flags = 1 : i32} : (tensor<2x1x3x4xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x3x6xf32>
  func.return %y, %z : tensor<2x5x3x6xf32>, tensor<2x3x3x6xf32>
}

// CHECK-LABEL: func.func @batch_matrix_multiply(
// CHECK-NEXT:  %y = xnn.batch_matrix_multiply %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK-NEXT:  %z = xnn.batch_matrix_multiply %a, %bt {flags = 1 : i32} : (tensor<2x1x3x4xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x3x6xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<2x5x3x6xf32>, tensor<2x3x3x6xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "batch_matrix_multiply"
// GENERIC:       %y = "xnn.batch_matrix_multiply"(%a, %b) <{flags = 0 : i32}> : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// GENERIC:       %z = "xnn.batch_matrix_multiply"(%a, %bt) <{flags = 1 : i32}> : (tensor<2x1x3x4xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x3x6xf32>

// -----

func.func @binary(%a: tensor<1x4x4x8xf32>, %b: tensor<8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) {
  %y = xnn.binary multiply %a, %b {output_min = 0.0 : f32} : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %z = xnn.binary squared_difference %a, %a {flags = 4096 : i32} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %y, %z : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>
}

// CHECK-LABEL: func.func @binary(
// CHECK-NEXT:  %y = xnn.binary multiply %a, %b {output_min = 0.000000e+00 : f32} : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:  %z = xnn.binary squared_difference %a, %a {flags = 4096 : i32} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "binary"
// GENERIC:       %y = "xnn.binary"(%a, %b) <{kind = #xnn<binary_operator multiply>, output_min = 0.000000e+00 : f32, flags = 0 : i32}> : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// GENERIC:       %z = "xnn.binary"(%a, %a) <{kind = #xnn<binary_operator squared_difference>, flags = 4096 : i32}> : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>

// -----

func.func @unary(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %a = xnn.unary approxgelu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b = xnn.unary elu %x {alpha = 1.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = xnn.unary leaky_relu %x {negative_slope = 0.01 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %d = xnn.unary clamp %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %a, %b, %c, %d : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @unary(
// CHECK-NEXT:  %a = xnn.unary approxgelu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  %b = xnn.unary elu %x {alpha = 1.000000e+00 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  %c = xnn.unary leaky_relu %x {negative_slope = 1.000000e-02 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  %d = xnn.unary clamp %x {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  func.return %a, %b, %c, %d : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "unary"
// GENERIC:       %a = "xnn.unary"(%x) <{kind = #xnn<unary_operator approxgelu>, flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:       %b = "xnn.unary"(%x) <{kind = #xnn<unary_operator elu>, alpha = 1.000000e+00 : f32, flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:       %c = "xnn.unary"(%x) <{kind = #xnn<unary_operator leaky_relu>, negative_slope = 1.000000e-02 : f32, flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:       %d = "xnn.unary"(%x) <{kind = #xnn<unary_operator clamp>, min = 0.000000e+00 : f32, max = 6.000000e+00 : f32, flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>

// -----

func.func @clamp(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = xnn.clamp %x {output_min = 0.0 : f32, output_max = 6.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @clamp(
// CHECK-NEXT:  %y = xnn.clamp %x {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  func.return %y : tensor<2x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "clamp"
// GENERIC:       %y = "xnn.clamp"(%x) <{output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32, flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>

// -----

func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = xnn.softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:  %y = xnn.softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  func.return %y : tensor<2x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "softmax"
// GENERIC:       %y = "xnn.softmax"(%x) <{flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>

// -----

func.func @convert(%x: tensor<2x8xf32>) -> tensor<2x8xbf16> {
  %y = xnn.convert %x : (tensor<2x8xf32>) -> tensor<2x8xbf16>
  func.return %y : tensor<2x8xbf16>
}

// CHECK-LABEL: func.func @convert(
// CHECK-NEXT:  %y = xnn.convert %x : (tensor<2x8xf32>) -> tensor<2x8xbf16>
// CHECK-NEXT:  func.return %y : tensor<2x8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "convert"
// GENERIC:       %y = "xnn.convert"(%x) <{flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xbf16>

// -----

func.func @copy(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = xnn.copy %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @copy(
// CHECK-NEXT:  %y = xnn.copy %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:  func.return %y : tensor<2x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "copy"
// GENERIC:       %y = "xnn.copy"(%x) <{flags = 0 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>

// -----

func.func @static_transpose(%x: tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32> {
  %y = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
  func.return %y : tensor<1x8x6x3xf32>
}

// CHECK-LABEL: func.func @static_transpose(
// CHECK-NEXT:  %y = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
// CHECK-NEXT:  func.return %y : tensor<1x8x6x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_transpose"
// GENERIC:       %y = "xnn.static_transpose"(%x) <{perm = array<i64: 0, 2, 3, 1>, flags = 0 : i32}> : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>

// -----

func.func @static_broadcast(%x: tensor<1x3x1xf32>) -> tensor<2x3x4xf32> {
  %y = xnn.static_broadcast %x {new_shape = array<i64: 2, 0, 4>} : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @static_broadcast(
// CHECK-NEXT:  %y = xnn.static_broadcast %x {new_shape = array<i64: 2, 0, 4>} : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_broadcast"
// GENERIC:       %y = "xnn.static_broadcast"(%x) <{new_shape = array<i64: 2, 0, 4>, flags = 0 : i32}> : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>

// -----

func.func @static_reshape(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<24xf32>) {
  %y = xnn.static_reshape %x {new_shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %z = xnn.static_reshape %x {new_shape = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  func.return %y, %z : tensor<6x4xf32>, tensor<24xf32>
}

// CHECK-LABEL: func.func @static_reshape(
// CHECK-NEXT:  %y = xnn.static_reshape %x {new_shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:  %z = xnn.static_reshape %x {new_shape = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<6x4xf32>, tensor<24xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_reshape"
// GENERIC:       %y = "xnn.static_reshape"(%x) <{new_shape = array<i64: 6, 4>, flags = 0 : i32}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC:       %z = "xnn.static_reshape"(%x) <{new_shape = array<i64: 0>, flags = 0 : i32}> : (tensor<2x3x4xf32>) -> tensor<24xf32>

// -----

func.func @static_slice(%x: tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32> {
  %y = xnn.static_slice %x {offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 6, 7, 4>} : (tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32>
  func.return %y : tensor<1x6x7x4xf32>
}

// CHECK-LABEL: func.func @static_slice(
// CHECK-NEXT:  %y = xnn.static_slice %x {offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 6, 7, 4>} : (tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32>
// CHECK-NEXT:  func.return %y : tensor<1x6x7x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_slice"
// GENERIC:       %y = "xnn.static_slice"(%x) <{offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 6, 7, 4>, flags = 0 : i32}> : (tensor<1x8x8x4xf32>) -> tensor<1x6x7x4xf32>

// -----

func.func @static_constant_pad(%x: tensor<1x8x8x4xf32>) -> tensor<1x9x11x4xf32> {
  %y = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 1, 2, 0>, padding_value = -1.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x9x11x4xf32>
  func.return %y : tensor<1x9x11x4xf32>
}

// CHECK-LABEL: func.func @static_constant_pad(
// CHECK-NEXT:  %y = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 1, 2, 0>, padding_value = -1.000000e+00 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x9x11x4xf32>
// CHECK-NEXT:  func.return %y : tensor<1x9x11x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_constant_pad"
// GENERIC:       %y = "xnn.static_constant_pad"(%x) <{pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 1, 2, 0>, padding_value = -1.000000e+00 : f32, flags = 0 : i32}> : (tensor<1x8x8x4xf32>) -> tensor<1x9x11x4xf32>

// -----

func.func @concatenate(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x3xf32>, %c: tensor<1x4x4x1xf32>) -> tensor<1x4x4x6xf32> {
  %y = xnn.concatenate %a, %b, %c {axis = -1} : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x6xf32>
  func.return %y : tensor<1x4x4x6xf32>
}

// CHECK-LABEL: func.func @concatenate(
// CHECK-NEXT:  %y = xnn.concatenate %a, %b, %c {axis = -1 : i64} : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x6xf32>
// CHECK-NEXT:  func.return %y : tensor<1x4x4x6xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "concatenate"
// GENERIC:       %y = "xnn.concatenate"(%a, %b, %c) <{axis = -1 : i64, flags = 0 : i32}> : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x6xf32>

// -----

func.func @depth_to_space_2d(%x: tensor<1x4x4x12xf32>) -> tensor<1x8x8x3xf32> {
  %y = xnn.depth_to_space_2d %x {block_size = 2} : (tensor<1x4x4x12xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// CHECK-LABEL: func.func @depth_to_space_2d(
// CHECK-NEXT:  %y = xnn.depth_to_space_2d %x {block_size = 2 : i64} : (tensor<1x4x4x12xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:  func.return %y : tensor<1x8x8x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "depth_to_space_2d"
// GENERIC:       %y = "xnn.depth_to_space_2d"(%x) <{block_size = 2 : i64, flags = 0 : i32}> : (tensor<1x4x4x12xf32>) -> tensor<1x8x8x3xf32>

// -----

func.func @space_to_depth_2d(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x12xf32> {
  %y = xnn.space_to_depth_2d %x {block_size = 2} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x12xf32>
  func.return %y : tensor<1x4x4x12xf32>
}

// CHECK-LABEL: func.func @space_to_depth_2d(
// CHECK-NEXT:  %y = xnn.space_to_depth_2d %x {block_size = 2 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x12xf32>
// CHECK-NEXT:  func.return %y : tensor<1x4x4x12xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "space_to_depth_2d"
// GENERIC:       %y = "xnn.space_to_depth_2d"(%x) <{block_size = 2 : i64, flags = 0 : i32}> : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x12xf32>

// -----

func.func @static_reduce(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<2x1x4xf32>) {
  %y = xnn.static_reduce mean %x {axes = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %z = xnn.static_reduce max %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  func.return %y, %z : tensor<2xf32>, tensor<2x1x4xf32>
}

// CHECK-LABEL: func.func @static_reduce(
// CHECK-NEXT:  %y = xnn.static_reduce mean %x {axes = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
// CHECK-NEXT:  %z = xnn.static_reduce max %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<2xf32>, tensor<2x1x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_reduce"
// GENERIC:       %y = "xnn.static_reduce"(%x) <{kind = #xnn<reduce_operator mean>, axes = array<i64: 1, -1>, flags = 0 : i32}> : (tensor<2x3x4xf32>) -> tensor<2xf32>
// GENERIC:       %z = "xnn.static_reduce"(%x) <{kind = #xnn<reduce_operator max>, axes = array<i64: 1>, flags = 64 : i32}> : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>

// -----

func.func @max_pooling_2d(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = xnn.max_pooling_2d %x {padding_bottom = 1, padding_right = 1, pooling_height = 3, pooling_width = 3, stride_height = 2, stride_width = 2} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @max_pooling_2d(
// CHECK-NEXT:  %y = xnn.max_pooling_2d %x {padding_bottom = 1 : i64, padding_right = 1 : i64, pooling_height = 3 : i64, pooling_width = 3 : i64, stride_height = 2 : i64, stride_width = 2 : i64} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:  func.return %y : tensor<1x4x4x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "max_pooling_2d"
// GENERIC:       %y = "xnn.max_pooling_2d"(%x) <{padding_bottom = 1 : i64, padding_right = 1 : i64, pooling_height = 3 : i64, pooling_width = 3 : i64, stride_height = 2 : i64, stride_width = 2 : i64, dilation_height = 1 : i64, dilation_width = 1 : i64, padding_top = 0 : i64, padding_left = 0 : i64, flags = 0 : i32}> : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>

// -----

func.func @average_pooling_2d(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = xnn.average_pooling_2d %x {pooling_height = 2, pooling_width = 2, stride_height = 2, stride_width = 2, output_max = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @average_pooling_2d(
// CHECK-NEXT:  %y = xnn.average_pooling_2d %x {pooling_height = 2 : i64, pooling_width = 2 : i64, stride_height = 2 : i64, stride_width = 2 : i64, output_max = 6.000000e+00 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:  func.return %y : tensor<1x4x4x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "average_pooling_2d"
// GENERIC:       %y = "xnn.average_pooling_2d"(%x) <{pooling_height = 2 : i64, pooling_width = 2 : i64, stride_height = 2 : i64, stride_width = 2 : i64, output_max = 6.000000e+00 : f32, padding_top = 0 : i64, padding_right = 0 : i64, padding_bottom = 0 : i64, padding_left = 0 : i64, flags = 0 : i32}> : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>

// -----

func.func @global_average_pooling_2d(%x: tensor<1x7x7x16xf32>) -> (tensor<1x16xf32>, tensor<1x1x1x16xf32>) {
  %y = xnn.global_average_pooling_2d %x : (tensor<1x7x7x16xf32>) -> tensor<1x16xf32>
  %z = xnn.global_average_pooling_2d %x {flags = 64 : i32} : (tensor<1x7x7x16xf32>) -> tensor<1x1x1x16xf32>
  func.return %y, %z : tensor<1x16xf32>, tensor<1x1x1x16xf32>
}

// CHECK-LABEL: func.func @global_average_pooling_2d(
// CHECK-NEXT:  %y = xnn.global_average_pooling_2d %x : (tensor<1x7x7x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:  %z = xnn.global_average_pooling_2d %x {flags = 64 : i32} : (tensor<1x7x7x16xf32>) -> tensor<1x1x1x16xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<1x16xf32>, tensor<1x1x1x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "global_average_pooling_2d"
// GENERIC:       %y = "xnn.global_average_pooling_2d"(%x) <{flags = 0 : i32}> : (tensor<1x7x7x16xf32>) -> tensor<1x16xf32>
// GENERIC:       %z = "xnn.global_average_pooling_2d"(%x) <{flags = 64 : i32}> : (tensor<1x7x7x16xf32>) -> tensor<1x1x1x16xf32>

// -----

func.func @static_resize_bilinear_2d(%x: tensor<1x4x4x3xf32>) -> (tensor<1x8x6x3xf32>, tensor<1x8x6x3xf32>) {
  %y = xnn.static_resize_bilinear_2d %x {new_height = 8, new_width = 6} : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>
  %z = xnn.static_resize_bilinear_2d %x {new_height = 8, new_width = 6, flags = 8 : i32} : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>
  func.return %y, %z : tensor<1x8x6x3xf32>, tensor<1x8x6x3xf32>
}

// CHECK-LABEL: func.func @static_resize_bilinear_2d(
// CHECK-NEXT:  %y = xnn.static_resize_bilinear_2d %x {new_height = 8 : i64, new_width = 6 : i64} : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>
// CHECK-NEXT:  %z = xnn.static_resize_bilinear_2d %x {new_height = 8 : i64, new_width = 6 : i64, flags = 8 : i32} : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<1x8x6x3xf32>, tensor<1x8x6x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "static_resize_bilinear_2d"
// GENERIC:       %y = "xnn.static_resize_bilinear_2d"(%x) <{new_height = 8 : i64, new_width = 6 : i64, flags = 0 : i32}> : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>
// GENERIC:       %z = "xnn.static_resize_bilinear_2d"(%x) <{new_height = 8 : i64, new_width = 6 : i64, flags = 8 : i32}> : (tensor<1x4x4x3xf32>) -> tensor<1x8x6x3xf32>

// -----

func.func @lstm(%x: tensor<2x5x3xf32>, %h0: tensor<2x2x4xf32>, %c0: tensor<2x2x4xf32>, %wi: tensor<16x3xf32>, %wh: tensor<16x4xf32>, %b: tensor<16xf32>) -> (tensor<2x5x8xf32>, tensor<2x2x4xf32>) {
  %y, %h, %c = xnn.lstm %x state(%h0, %c0) weights(%wi, %wh, %b, %wi, %wh, %b) {layers = 1, bidirectional = 1, batch_first = 1} : tensor<2x5x3xf32> state(tensor<2x2x4xf32>, tensor<2x2x4xf32>) weights(tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<2x5x8xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
  func.return %y, %h : tensor<2x5x8xf32>, tensor<2x2x4xf32>
}

// CHECK-LABEL: func.func @lstm(
// CHECK-NEXT:  %y, %h, %c = xnn.lstm %x state(%h0, %c0) weights(%wi, %wh, %b, %wi, %wh, %b) {layers = 1 : i64, bidirectional = 1 : i64, batch_first = 1 : i64} : tensor<2x5x3xf32> state(tensor<2x2x4xf32>, tensor<2x2x4xf32>) weights(tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<2x5x8xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
// CHECK-NEXT:  func.return %y, %h : tensor<2x5x8xf32>, tensor<2x2x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "lstm"
// GENERIC:       %y, %h, %c = "xnn.lstm"(%x, %h0, %c0, %wi, %wh, %b, %wi, %wh, %b) <{layers = 1 : i64, bidirectional = 1 : i64, batch_first = 1 : i64, operandSegmentSizes = array<i32: 1, 2, 6>, has_bias = 1 : i64}> : (tensor<2x5x3xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>) -> (tensor<2x5x8xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
