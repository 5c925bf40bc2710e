// RUN: xnn-opt %s --split-input-file -p aten-fold-dynamic-qdq | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'aten-fold-dynamic-qdq,xnn-partition{strict=true},convert-aten-to-xnn' | filecheck %s --check-prefix=XNN

// aten-fold-dynamic-qdq on symbolic sizes (issue 13). A dynamically quantized linear over
// S rows: the linear takes the quantized types, which keep S. Conversion lowers both on the
// symbolic size (strict: nothing stays outside): the qd8 convert computes its parameters at
// run time, however many rows there are.
// CHECK-LABEL: func.func @qc8w_rows(
// CHECK:         %q = aten.quantize %x : (tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>
// CHECK-NEXT:    %y = aten.linear %q, %w, %b : (tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>, tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<1x?x3xf32, #xnnc.dims<"S">>
// CHECK-NEXT:    func.return %y
// XNN-LABEL: func.func @qc8w_rows(
// XNN:         xnn.subgraph
// XNN:         %[[Q:.*]] = xnn.convert %{{.*}} : (tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>
// XNN:         xnn.fully_connected %[[Q]], {{.*}} -> tensor<1x?x3xf32, #xnnc.dims<"S">>
// XNN-NOT:     aten.quantize
// XNN-NOT:     aten.linear
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @qc8w_rows(%x: tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x3xf32, #xnnc.dims<"S">> {
    %w = aten.constant #xnnc.weight<"w", "0x01FE03817F0005FA0708F70A"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
    %b = aten.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
    %q = aten.quantize %x : (tensor<1x?x4xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>
    %a = aten.dequantize %q : (tensor<1x?x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>, #xnnc.dims<"S">>) -> tensor<1x?x4xf32, #xnnc.dims<"S">>
    %wd = aten.dequantize %w : (tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<3x4xf32>
    %y = aten.linear %a, %wd, %b : (tensor<1x?x4xf32, #xnnc.dims<"S">>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x?x3xf32, #xnnc.dims<"S">>
    func.return %y : tensor<1x?x3xf32, #xnnc.dims<"S">>
  }
}
