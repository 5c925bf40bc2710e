// RUN: xnn-opt %s --split-input-file -p aten-fold-qdq | filecheck %s

// PT2E's dequantize -> conv -> relu -> quantize: the conv and the relu on quantized types,
// the bias still float; the dequantizes go.
// CHECK-LABEL: func.func @conv_relu(
// CHECK-NEXT:    %w = aten.constant #xnnc.weight<"w"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
// CHECK-NEXT:    %b = aten.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = aten.convolution %x, %w, %b {{.*}} : (tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>, tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2xf32>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
// CHECK-NEXT:    %{{.*}} = aten.relu %[[C]] : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
// CHECK-NEXT:    func.return
func.func @conv_relu(%x: tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>> {
  %w = aten.constant #xnnc.weight<"w"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %xd = aten.dequantize %x : (tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>) -> tensor<1x1x2x2xf32>
  %wd = aten.dequantize %w : (tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<2x1x1x1xf32>
  %c = aten.convolution %xd, %wd, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = aten.relu %c : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %q = aten.quantize %r : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
  func.return %q : tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
}

// -----

// XNNPACKQuantizer annotates relu6 apart from the conv before it: dequantize -> hardtanh ->
// quantize to the same parameters is the hardtanh on the quantized type (conversion then
// fuses it into the conv's output range).
// CHECK-LABEL: func.func @lone_hardtanh(
// CHECK-NEXT:    %{{.*}} = aten.hardtanh %x {{.*}}: (tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>>
// CHECK-NEXT:    func.return
func.func @lone_hardtanh(%x: tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>> {
  %xd = aten.dequantize %x : (tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>>) -> tensor<4xf32>
  %h = aten.hardtanh %xd {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %q = aten.quantize %h : (tensor<4xf32>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>>
  func.return %q : tensor<4x!xnn.quant.uniform<i8:f32, 0.1:-2>>
}

// -----

// A residual add: both operands quantized, each with its own scale.
// CHECK-LABEL: func.func @add(
// CHECK-NEXT:    %{{.*}} = aten.add %a, %b : (tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<4x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.4:-2>>
// CHECK-NEXT:    func.return
func.func @add(%a: tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>, %b: tensor<4x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.4:-2>> {
  %ad = aten.dequantize %a : (tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<4xf32>
  %bd = aten.dequantize %b : (tensor<4x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<4xf32>
  %s = aten.add %ad, %bd : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = aten.quantize %s : (tensor<4xf32>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.4:-2>>
  func.return %q : tensor<4x!xnn.quant.uniform<i8:f32, 0.4:-2>>
}

// -----

// Left alone: exp has no qs8 lowering here, so it stays float between the quantize and
// dequantize (which lower to converts, the exp to fp32).
// CHECK-LABEL: func.func @no_qs8_lowering(
// CHECK-NEXT:    aten.dequantize
// CHECK-NEXT:    aten.exp {{.*}} -> tensor<4xf32>
// CHECK-NEXT:    aten.quantize
func.func @no_qs8_lowering(%a: tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.004:-128>> {
  %ad = aten.dequantize %a : (tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<4xf32>
  %s = aten.exp %ad : (tensor<4xf32>) -> tensor<4xf32>
  %q = aten.quantize %s : (tensor<4xf32>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.004:-128>>
  func.return %q : tensor<4x!xnn.quant.uniform<i8:f32, 0.004:-128>>
}

// -----

// Left alone: an asymmetric per-channel weight, which XNNPACK's int8 filters cannot take.
// CHECK-LABEL: func.func @asymmetric_weight(
// CHECK:         aten.linear {{.*}} -> tensor<1x2xf32>
// CHECK-NEXT:    aten.quantize
func.func @asymmetric_weight(%x: tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.2>> {
  %w = aten.constant #xnnc.weight<"w"> : tensor<2x2x!xnn.quant.uniform<i8:f32:0, {0.5:1, 0.25}>>
  %xd = aten.dequantize %x : (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2xf32>
  %wd = aten.dequantize %w : (tensor<2x2x!xnn.quant.uniform<i8:f32:0, {0.5:1, 0.25}>>) -> tensor<2x2xf32>
  %y = aten.linear %xd, %wd : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %q = aten.quantize %y : (tensor<1x2xf32>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %q : tensor<1x2x!xnn.quant.uniform<i8:f32, 0.2>>
}

// -----

// Left alone: the conv's result has a second user, which needs the float value.
// CHECK-LABEL: func.func @two_users(
// CHECK:         %[[C:.*]] = aten.linear {{.*}} -> tensor<1x2xf32>
// CHECK-NEXT:    aten.quantize %[[C]]
func.func @two_users(%x: tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x2xf32>) {
  %w = aten.constant #xnnc.weight<"w"> : tensor<2x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %xd = aten.dequantize %x : (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2xf32>
  %wd = aten.dequantize %w : (tensor<2x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2xf32>
  %y = aten.linear %xd, %wd : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %q = aten.quantize %y : (tensor<1x2xf32>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %q, %y : tensor<1x2x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x2xf32>
}

// -----

// SEANet's causal conv input: dequantize -> ELU -> pad -> quantize. The pad commutes with
// quantization (the padding value is quantized either way), so the ELU takes the result's
// quantization at its own shape and the pad follows on the quantized type.
// CHECK-LABEL: func.func @elu_pad(
// CHECK-NEXT:    %[[E:.*]] = aten.elu %x {{.*}} : (tensor<1x4x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x6x!xnn.quant.uniform<i8:f32, 0.02:-70>>
// CHECK-NEXT:    %{{.*}} = aten.constant_pad_nd %[[E]] {pad = array<i64: 2, 0>} : (tensor<1x4x6x!xnn.quant.uniform<i8:f32, 0.02:-70>>) -> tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.02:-70>>
// CHECK-NEXT:    func.return
func.func @elu_pad(%x: tensor<1x4x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.02:-70>> {
  %xd = aten.dequantize %x : (tensor<1x4x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x6xf32>
  %e = aten.elu %xd {alpha = 1.000000e+00 : f32} : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %p = aten.constant_pad_nd %e {pad = array<i64: 2, 0>} : (tensor<1x4x6xf32>) -> tensor<1x4x8xf32>
  %q = aten.quantize %p : (tensor<1x4x8xf32>) -> tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.02:-70>>
  func.return %q : tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.02:-70>>
}

// -----

// A transposed conv's trim, dequantize -> slice -> quantize at the same scale: the slice
// itself on the quantized type (it is the op, nothing before it to fuse).
// CHECK-LABEL: func.func @slice(
// CHECK-NEXT:    %{{.*}} = aten.slice %x {{.*}} : (tensor<1x4x10x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.05:3>>
// CHECK-NEXT:    func.return
func.func @slice(%x: tensor<1x4x10x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.05:3>> {
  %xd = aten.dequantize %x : (tensor<1x4x10x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x10xf32>
  %s = aten.slice %xd {dim = 2 : i64, start = 0 : i64, end = 8 : i64} : (tensor<1x4x10xf32>) -> tensor<1x4x8xf32>
  %q = aten.quantize %s : (tensor<1x4x8xf32>) -> tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.05:3>>
  func.return %q : tensor<1x4x8x!xnn.quant.uniform<i8:f32, 0.05:3>>
}
