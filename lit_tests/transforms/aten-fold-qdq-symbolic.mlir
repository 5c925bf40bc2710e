// RUN: xnn-opt %s --split-input-file -p aten-fold-qdq | filecheck %s

// aten-fold-qdq on symbolic sizes (issue 13). PT2E's dequantize -> conv1d -> relu ->
// quantize over T frames (a PT2E program exported with dynamic_shapes, imported, cut
// down): the conv and the relu on quantized types that keep their `#xnnc.dims`; the
// dequantizes go. (Numerics: tests/conversion/test_quantized.py, the symbolic-frames test.)
// CHECK-LABEL: func.func @conv_relu_frames(
// CHECK:         %[[C:.*]] = aten.convolution %x, %w, %b {{.*}} : (tensor<1x1x?x!xnn.quant.uniform<i8:f32, 0.1:-3>, #xnnc.dims<"T">>, tensor<2x1x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2xf32>) -> tensor<1x2x?x!xnn.quant.uniform<i8:f32, 0.2:-128>, #xnnc.dims<"T">>
// CHECK-NEXT:    %{{.*}} = aten.relu %[[C]] : (tensor<1x2x?x!xnn.quant.uniform<i8:f32, 0.2:-128>, #xnnc.dims<"T">>) -> tensor<1x2x?x!xnn.quant.uniform<i8:f32, 0.2:-128>, #xnnc.dims<"T">>
// CHECK-NEXT:    func.return
// CHECK-NOT:     aten.dequantize
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @conv_relu_frames(%x: tensor<1x1x?x!xnn.quant.uniform<i8:f32, 0.1:-3>, #xnnc.dims<"T">>) -> tensor<1x2x?x!xnn.quant.uniform<i8:f32, 0.2:-128>, #xnnc.dims<"T">> {
    %w = aten.constant #xnnc.weight<"w"> : tensor<2x1x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
    %b = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %xd = aten.dequantize %x : (tensor<1x1x?x!xnn.quant.uniform<i8:f32, 0.1:-3>, #xnnc.dims<"T">>) -> tensor<1x1x?xf32, #xnnc.dims<"T">>
    %wd = aten.dequantize %w : (tensor<2x1x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<2x1x3xf32>
    %c = aten.convolution %xd, %wd, %b {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x1x?xf32, #xnnc.dims<"T">>, tensor<2x1x3xf32>, tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"T">>
    %r = aten.relu %c : (tensor<1x2x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x?xf32, #xnnc.dims<"T">>
    %q = aten.quantize %r : (tensor<1x2x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x?x!xnn.quant.uniform<i8:f32, 0.2:-128>, #xnnc.dims<"T">>
    func.return %q : tensor<1x2x?x!xnn.quant.uniform<i8:f32, 0.2:-128>, #xnnc.dims<"T">>
  }
}
