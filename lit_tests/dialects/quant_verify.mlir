// RUN: xnn-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xnn-opt %S/../tools/inputs/quant_zero_point_range.mlir 2>&1 | filecheck %s --check-prefix=ZP
// RUN: not xnn-opt %S/../tools/inputs/quant_scale.mlir 2>&1 | filecheck %s --check-prefix=SCALE

// One case per check of quantized types that needs the tensor's shape, and per verifier
// message of aten.quantize / aten.dequantize. A type that is wrong on its own is a parse
// error at the type (inputs/quant_*.mlir).
// ZP: {{^}}{{.*}}quant_zero_point_range.mlir:2:{{[0-9]+}}: error: zero point 0 is -300, outside the storage range [-128, 127]{{$}}
// SCALE: {{^}}{{.*}}quant_scale.mlir:2:{{[0-9]+}}: error: scale 1 is -0.5; scales must be finite and positive{{$}}

func.func @scale_count(%w: tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<3x4xf32> {
  // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:3: error: 'aten.dequantize' op 2 scales for 3 channels along axis 0 of tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %y = aten.dequantize %w : (tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @axis_range(%w: tensor<2x!xnn.quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2xf32> {
  // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:3: error: 'aten.dequantize' op quantized axis 1 is out of range for 1-D tensor<2x!xnn.quant.uniform<i8:f32:1, {0.5, 0.25}>>
  %y = aten.dequantize %w : (tensor<2x!xnn.quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @block_count(%w: tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25}>>) -> tensor<2x64xf32> {
  // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:3: error: 'aten.dequantize' op 2 scales for 4 blocks of tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25}>>
  %y = aten.dequantize %w : (tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25}>>) -> tensor<2x64xf32>
  func.return %y : tensor<2x64xf32>
}

// -----

func.func @quantize_to_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:3: error: 'aten.quantize' op aten.quantize needs a quantized tensor, got tensor<4xf32>
  %y = aten.quantize %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

func.func @expressed_type(%x: tensor<4xf16>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.5>> {
  // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:3: error: 'aten.quantize' op tensor<4xf16> is not the type tensor<4x!xnn.quant.uniform<i8:f32, 0.5>> expresses (f32)
  %y = aten.quantize %x : (tensor<4xf16>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.5>>
  func.return %y : tensor<4x!xnn.quant.uniform<i8:f32, 0.5>>
}

// -----

// XNNPACK computes on a dynamically quantized (qdint8) value only in its fully-connected,
// convolution and deconvolution nodes, and those write f32; only a convert writes one.
func.func @qd8_conv_to_qd8(%q: tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) {
  %y = xnn.subgraph(%q) : (tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<1x4x4x3x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>> {
  ^bb0(%a: tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>):
    %w = xnn.constant #xnnc.weight<"w"> : tensor<3x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>
    // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:5: error: 'xnn.convolution_2d' op XNNPACK reads a dynamically quantized (qdint8) value only in a fully-connected, convolution or deconvolution node with an f32 output, and writes one only in a convert; got input !xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, output !xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>
    %c = xnn.convolution_2d %a, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<1x4x4x3x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
    xnn.output %c : tensor<1x4x4x3x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  }
  func.return
}

// -----

// Nor does any other node read one (XNNPACK's qd8 parameters are per row: an add, a reshape
// or a transpose of a qd8 tensor would compute with the wrong ones).
func.func @qd8_add(%q: tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>) {
  %y = xnn.subgraph(%q) : (tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>> {
  ^bb0(%a: tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>):
    // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:5: error: 'xnn.binary' op XNNPACK reads a dynamically quantized (qdint8) value only in a fully-connected, convolution or deconvolution node with an f32 output, and writes one only in a convert; got input1 !xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>, input2 !xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>, output !xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>
    %s = xnn.binary add %a, %a : (tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>, tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>
    xnn.output %s : tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>
  }
  func.return
}

// -----

// XNNPACK quantizes a qd8 value per image for a convolution and per row for a
// fully-connected node: one value cannot serve both.
func.func @qd8_conv_and_fc(%x: tensor<1x4x4x2xf32>) {
  %y:2 = xnn.subgraph(%x) : (tensor<1x4x4x2xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  ^bb0(%a: tensor<1x4x4x2xf32>):
    %w = xnn.constant #xnnc.weight<"w"> : tensor<3x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>
    %v = xnn.constant #xnnc.weight<"v"> : tensor<3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>
    // CHECK: {{.*}}quant_verify.mlir:[[# @LINE + 1]]:5: error: 'xnn.convert' op a qdint8 value is quantized per image for a convolution and per row for a fully-connected node; convert it once for each (read by xnn.convolution_2d, xnn.fully_connected)
    %q = xnn.convert %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
    %c = xnn.convolution_2d %q, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<1x4x4x3xf32>
    %f = xnn.fully_connected %q, %v : (tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<1x4x4x3xf32>
    xnn.output %c, %f : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
  }
  func.return
}
