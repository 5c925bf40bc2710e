// RUN: xnn-opt %s --split-input-file -p aten-fold-dynamic-qdq | filecheck %s

// A linear over a dequantized dynamic activation and a dequantized int8 weight becomes the
// linear on the quantized types; its f32 bias and result stay f32.
// CHECK-LABEL: func.func @qc8w(
// CHECK-NEXT:    %w = aten.constant #xnnc.weight<"w"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
// CHECK-NEXT:    %b = aten.constant #xnnc.weight<"b"> : tensor<3xf32>
// CHECK-NEXT:    %q = aten.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
// CHECK-NEXT:    %y = aten.linear %q, %w, %b : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %y : tensor<2x3xf32>
func.func @qc8w(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = aten.constant #xnnc.weight<"w"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
  %b = aten.constant #xnnc.weight<"b"> : tensor<3xf32>
  %q = aten.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %a = aten.dequantize %q : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<2x4xf32>
  %wd = aten.dequantize %w : (tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<3x4xf32>
  %y = aten.linear %a, %wd, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// Blockwise 4-bit weights (int8 storage in [-8, 7]) and per-token activations, no bias.
// CHECK-LABEL: func.func @qb4w(
// CHECK:         %y = aten.linear %q, %w : (tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>, tensor<2x64x!xnn.quant.uniform<i8<-8:7>:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<1x2x2xf32>
// CHECK-NOT:     aten.dequantize
func.func @qb4w(%x: tensor<1x2x64xf32>) -> tensor<1x2x2xf32> {
  %w = aten.constant #xnnc.weight<"w"> : tensor<2x64x!xnn.quant.uniform<i8<-8:7>:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>
  %q = aten.quantize %x : (tensor<1x2x64xf32>) -> tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>
  %a = aten.dequantize %q : (tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>) -> tensor<1x2x64xf32>
  %wd = aten.dequantize %w : (tensor<2x64x!xnn.quant.uniform<i8<-8:7>:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<2x64xf32>
  %y = aten.linear %a, %wd : (tensor<1x2x64xf32>, tensor<2x64xf32>) -> tensor<1x2x2xf32>
  func.return %y : tensor<1x2x2xf32>
}

// -----

// Left alone: a float weight (nothing quantizes it), and a dynamic activation used twice
// keeps its dequantize for the other user.
// CHECK-LABEL: func.func @float_weight(
// CHECK:         %a = aten.dequantize %q
// CHECK-NEXT:    %y = aten.linear %a, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
func.func @float_weight(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = aten.constant #xnnc.weight<"w"> : tensor<3x4xf32>
  %q = aten.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %a = aten.dequantize %q : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<2x4xf32>
  %y = aten.linear %a, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @shared_activation(
// CHECK:         %a = aten.dequantize %q
// CHECK-NEXT:    %y = aten.linear %q, %w
// CHECK-NEXT:    %r = aten.relu %a
func.func @shared_activation(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>) {
  %w = aten.constant #xnnc.weight<"w"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
  %q = aten.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %a = aten.dequantize %q : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<2x4xf32>
  %wd = aten.dequantize %w : (tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<3x4xf32>
  %y = aten.linear %a, %wd : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %r = aten.relu %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %y, %r : tensor<2x3xf32>, tensor<2x4xf32>
}

// -----

// A 2-D convolution over a dequantized dynamic activation and a per-output-channel int8
// weight becomes the convolution on the quantized types (XNNPACK's qd8 convolution); a
// grouped transposed one (XNNPACK's qd8 deconvolution has one group) keeps its chain.
// CHECK-LABEL: func.func @conv2d(
// CHECK:         %y = aten.convolution %q, %w, %b {{.*}} : (tensor<1x2x4x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x2x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK:         %z = aten.convolution %{{.*}}, %{{.*}} {{.*}}groups = 2 : i64{{.*}} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x5x5xf32>
func.func @conv2d(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x2x5x5xf32>) {
  %w = aten.constant #xnnc.weight<"w"> : tensor<3x2x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
  %b = aten.constant #xnnc.weight<"b"> : tensor<3xf32>
  %q = aten.quantize %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %a = aten.dequantize %q : (tensor<1x2x4x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<1x2x4x4xf32>
  %wd = aten.dequantize %w : (tensor<3x2x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<3x2x3x3xf32>
  %y = aten.convolution %a, %wd, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %v = aten.constant #xnnc.weight<"v"> : tensor<2x1x2x2x!xnn.quant.uniform<i8<-127:127>:f32:1, {0.5}>>
  %vd = aten.dequantize %v : (tensor<2x1x2x2x!xnn.quant.uniform<i8<-127:127>:f32:1, {0.5}>>) -> tensor<2x1x2x2xf32>
  %z = aten.convolution %a, %vd {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x5x5xf32>
  func.return %y, %z : tensor<1x3x4x4xf32>, tensor<1x2x5x5xf32>
}
