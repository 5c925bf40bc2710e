// Dynamically quantized element types (`!xnn.quant.dynamic`): parameters chosen per tensor
// or per token at run time, so the type names the granularity, the storage range and eps.
// RUN: XNN_ROUNDTRIP
// RUN: xnn-opt %s --split-input-file | xnn-opt --split-input-file | filecheck %s
// RUN: not xnn-opt %S/../tools/inputs/dynamic_quant_granularity.mlir 2>&1 | filecheck %s --check-prefix=GRAN
// RUN: not xnn-opt %S/../tools/inputs/dynamic_quant_eps.mlir 2>&1 | filecheck %s --check-prefix=EPS
// RUN: not xnn-opt %S/../tools/inputs/dynamic_quant_storage.mlir 2>&1 | filecheck %s --check-prefix=STORAGE
// GRAN: {{^}}{{.*}}dynamic_quant_granularity.mlir:2:{{[0-9]+}}: error: granularity 'channel' is not one of tensor, token{{$}}
// EPS: {{^}}{{.*}}dynamic_quant_eps.mlir:2:{{[0-9]+}}: error: eps 0.0 must be finite and positive (the smallest scale){{$}}
// STORAGE: {{^}}{{.*}}dynamic_quant_storage.mlir:2:{{[0-9]+}}: error: dynamically quantized storage is i8 (XNNPACK's qdint8), not i4{{$}}

// PT2E's choose_qparams.tensor: one scale and zero point for the tensor.
// CHECK-LABEL: func.func @per_tensor(
// CHECK-NEXT:    %q = aten.quantize %x : (tensor<4x64xf32>) -> tensor<4x64x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
// CHECK-NEXT:    %y = aten.dequantize %q : (tensor<4x64x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<4x64xf32>
func.func @per_tensor(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %q = aten.quantize %x : (tensor<4x64xf32>) -> tensor<4x64x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %y = aten.dequantize %q : (tensor<4x64x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>) -> tensor<4x64xf32>
  func.return %y : tensor<4x64xf32>
}

// -----

// torchao's choose_qparams_affine over [1, 1, K]: one pair per token; a narrowed range
// prints, the whole i8 range does not.
// CHECK-LABEL: func.func @per_token(
// CHECK-SAME:    %q: tensor<1x8x64x!xnn.quant.dynamic<i8<-127:127>:f32, token, eps 1.1754943508222875e-38>>
// CHECK-SAME:    %r: tensor<1x8x64x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>
func.func @per_token(%q: tensor<1x8x64x!xnn.quant.dynamic<i8<-127:127>:f32, token, eps 1.1754943508222875e-38>>,
                     %r: tensor<1x8x64x!xnn.quant.dynamic<i8<-128:127>:f32, token, eps 1.0e-05>>) {
  func.return
}

// -----

// XNNPACK's convert to qd8 and its dynamically quantized fully-connected: qd8 in, f32 out.
// CHECK-LABEL: func.func @xnn_nodes(
// CHECK:         %q = xnn.convert %a : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>
// CHECK-NEXT:    %y_1 = xnn.fully_connected %q, %w : (tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>, tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<2x3xf32>
func.func @xnn_nodes(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %y = xnn.subgraph(%x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %w = xnn.constant #xnnc.weight<"w"> : tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>
    %q = xnn.convert %a : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>
    %y = xnn.fully_connected %q, %w : (tensor<2x4x!xnn.quant.dynamic<i8:f32, token, eps 1.0e-05>>, tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<2x3xf32>
    xnn.output %y : tensor<2x3xf32>
  }
  func.return %y : tensor<2x3xf32>
}
