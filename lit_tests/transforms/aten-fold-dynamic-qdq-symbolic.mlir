// RUN: xnn-opt %s --split-input-file -p aten-fold-dynamic-qdq | filecheck %s
// RUN: not xnn-opt %s --split-input-file -p 'aten-fold-dynamic-qdq,xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=OUTSIDE

// aten-fold-dynamic-qdq on symbolic sizes (issue 13). A dynamically quantized linear over
// S rows: the linear takes the quantized types, which keep S. Conversion keeps the qd8
// convert and the fully-connected reading it outside together on symbolic sizes (not
// tried there yet), never one without the other.
// CHECK-LABEL: func.func @qc8w_rows(
// CHECK:         %q = aten.quantize %x : (tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>
// CHECK-NEXT:    %y = aten.linear %q, %w, %b : (tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>, tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<1x?x3xf32, #xnnc.dims<"S">>
// CHECK-NEXT:    func.return %y
// OUTSIDE: xnn-opt: error: 2 ops stayed outside XNNPACK: {{.*}}: aten.quantize (symbolic shape {{.*}}: aten.quantize is not lowered size-generic yet); aten.linear at {{.*}} (symbolic shape {{.*}}: aten.linear is not lowered size-generic yet)
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @qc8w_rows(%x: tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x3xf32, #xnnc.dims<"S">> {
    %w = aten.constant #xnnc.weight<"w"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
    %b = aten.constant #xnnc.weight<"b"> : tensor<3xf32>
    %q = aten.quantize %x : (tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>
    %a = aten.dequantize %q : (tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>) -> tensor<1x?x4xf32, #xnnc.dims<"S">>
    %wd = aten.dequantize %w : (tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<3x4xf32>
    %y = aten.linear %a, %wd, %b : (tensor<1x?x4xf32, #xnnc.dims<"S">>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x?x3xf32, #xnnc.dims<"S">>
    func.return %y : tensor<1x?x3xf32, #xnnc.dims<"S">>
  }
}
