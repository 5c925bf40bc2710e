// A PT2E program imports with quantized types: the input quantized by aten.quantize, the
// int8 weight a quantized constant (by reference, its per-channel scales in its type), and
// every q/dq pair an aten.quantize / aten.dequantize, none left as aten.generic.
// RUN: %python %S/../tools/inputs/make_quantized_pt2.py %t.pt2 2>/dev/null
// RUN: xnn-opt %t.pt2 | filecheck %s
// RUN: xnn-opt %t.pt2 -p aten-fold-qdq | filecheck %s --check-prefix=FOLD

// CHECK-NOT:     quantized_decomposed
// CHECK:         %[[W:.*]] = aten.constant #xnnc.weight<"_frozen_param0"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {[[S:[0-9.e-]+, [0-9.e-]+]]}>>
// CHECK-NEXT:    %[[WD:.*]] = aten.dequantize %[[W]] : {{.*}} -> tensor<2x1x1x1xf32>
// CHECK:         %[[Q:.*]] = aten.quantize %input : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4x!xnn.quant.uniform<i8:f32, [[IN:[0-9.e-]+:-?[0-9]+]]>>
// CHECK-NEXT:    %[[D:.*]] = aten.dequantize %[[Q]] : (tensor<1x1x4x4x!xnn.quant.uniform<i8:f32, [[IN]]>>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT:    aten.convolution %[[D]], %[[WD]]
// CHECK-NEXT:    aten.relu
// CHECK-NEXT:    aten.quantize
// CHECK-NEXT:    aten.dequantize

// FOLD:          aten.quantize %input
// FOLD-NEXT:     aten.convolution {{.*}} : (tensor<1x1x4x4x!xnn.quant.uniform<i8:f32, {{.*}}>>, tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {{.*}}>>, tensor<2xf32>) -> tensor<1x2x4x4x!xnn.quant.uniform<i8:f32, {{.*}}>>
// FOLD-NEXT:     aten.relu
// FOLD-NEXT:     aten.dequantize
// FOLD-NEXT:     func.return
