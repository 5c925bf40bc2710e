// A PT2E static-int8 program with `aten-fold-qdq` disabled computes as PT2E writes it: each
// op in fp32 between the converts of its quantize and dequantize, the int8 weight
// dequantized at compile time (0x01FE = [1, -2] at scales 0.5 and 0.25), the bias float.
// RUN: xnn-opt %s -p 'xnnc-pipeline{disable=aten-fold-qdq}' --print-weights | filecheck %s
// The default pipeline: one qs8 convolution, an int8 filter and an int32 bias.
// RUN: xnn-opt %s -p xnnc-pipeline --print-weights | filecheck %s --check-prefix=INT8

// CHECK-LABEL: func.func @conv_relu(
// CHECK:         %xq = xnn.convert %x_1 : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>
// CHECK-NEXT:    %xd = xnn.convert %xq : (tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %xd
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"const", "0x0000803F00000040"> : tensor<2xf32>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"wd.folded.ohwi", "0x0000003F000000BF"> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %[[T]], %[[W]], %[[B]] {{.*}}output_min = 0.000000e+00 : f32} : (tensor<1x2x2x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Q:.*]] = xnn.convert %[[C]] : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
// CHECK-NEXT:    %[[D:.*]] = xnn.convert %[[Q]] : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[D]]
// CHECK-NEXT:    xnn.output

// INT8-LABEL: func.func @conv_relu(
// INT8:         xnn.constant #xnnc.weight<"const.qint32", "0x1400000050000000"> : tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>
// INT8-NEXT:    xnn.constant #xnnc.weight<"w.ohwi", "0x01FE">
// INT8-NEXT:    xnn.convolution_2d {{.*}} -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
// INT8-NEXT:    xnn.convert {{.*}} -> tensor<1x2x2x2xf32>
func.func @conv_relu(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x01FE"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %xq = aten.quantize %x : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>
  %xd = aten.dequantize %xq : (tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>) -> tensor<1x1x2x2xf32>
  %wd = aten.dequantize %w : (tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<2x1x1x1xf32>
  %c = aten.convolution %xd, %wd, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = aten.relu %c : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %q = aten.quantize %r : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
  %d = aten.dequantize %q : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2xf32>
  func.return %d : tensor<1x2x2x2xf32>
}
