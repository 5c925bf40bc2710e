// Ops on quantized types to XNNPACK's qs8 nodes (conversion/quant_to_xnn.py): int8 filters in
// XNNPACK's layout with their per-channel axis moved along, float biases as int32 at scale
// input x filter, each node's output type its own; qcast/dcast as xnn.convert.
// RUN: xnn-opt %s --split-input-file -p 'xnn-partition,convert-aten-to-xnn' --print-weights | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-partition,convert-aten-to-xnn,canonicalize' | filecheck %s --check-prefix=CANON
// What XNNPACK cannot run stays outside, with its reason (one line under strict).
// RUN: not xnn-opt %s --split-input-file -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT
// Bit widths XNNPACK has no static node for stay outside too.
// RUN: not xnn-opt %S/../tools/inputs/quant_int16_activation.mlir -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=I16
// RUN: not xnn-opt %S/../tools/inputs/quant_int4_static_weight.mlir -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=I4
// I16: {{^}}xnn-opt: error: 1 ops stayed outside XNNPACK: {{.*}}quant_int16_activation.mlir:3:3: aten.sigmoid (the input is i16 in [-32768, 32767]; the qs8 lowering takes int8 activations over the whole [-128, 127]){{$}}
// I4: {{^}}xnn-opt: error: 1 ops stayed outside XNNPACK: {{.*}}quant_int4_static_weight.mlir:4:3: aten.linear (the weight's quantization !xnn.quant.uniform<i4:f32:0, {0.5, 0.25}> has no static int8 XNNPACK filter){{$}}

// CHECK-LABEL: func.func @conv_relu(
// CHECK:         %xq = xnn.convert %x_1 : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %xq {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"const.qint32", "0x1400000050000000"> : tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"w.ohwi", "0x01FE"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %[[T]], %[[W]], %[[B]] {{.*}} -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
// CHECK-NEXT:    %[[N:.*]] = xnn.static_transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %[[R:.*]] = xnn.clamp %[[N]] {output_min = 0.000000e+00 : f32} : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>)
// CHECK-NEXT:    xnn.convert %[[R]] : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2xf32>
// The relu fuses into the conv's output range; the layout change moves past the convert.
// CANON-LABEL: func.func @conv_relu(
// CANON:         xnn.convolution_2d {{.*}}output_min = 0.000000e+00 : f32}
// CANON-NEXT:    xnn.convert
// CANON-NEXT:    xnn.static_transpose
// CANON-NEXT:    xnn.output
func.func @conv_relu(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x01FE"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %xq = aten.quantize %x : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>
  %c = aten.convolution %xq, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>, tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2xf32>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
  %r = aten.relu %c : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
  %y = aten.dequantize %r : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Depthwise: the filter is [1, KH, KW, C] in XNNPACK, so its quantized axis becomes 3.
// CHECK-LABEL: func.func @depthwise(
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"w.dw", "0x01FE"> : tensor<1x1x1x2x!xnn.quant.uniform<i8<-127:127>:f32:3, {0.5, 0.25}>>
// CHECK-NEXT:    xnn.depthwise_convolution_2d %{{.*}}, %[[W]] {{.*}} -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2>>
func.func @depthwise(%x: tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2>> {
  %w = aten.constant #xnnc.weight<"w", "0x01FE"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %c = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %c : tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2>>
}

// -----

// CHECK-LABEL: func.func @linear_add(
// CHECK:         %[[B:.*]] = xnn.constant #xnnc.weight<"const.qint32", "0x1400000050000000"> : tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"w2", "0x01FE0304"> : tensor<2x2x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
// CHECK-NEXT:    %[[Y:.*]] = xnn.fully_connected %[[X:.*]], %[[W]], %[[B]] : {{.*}} -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3:5>>
// CHECK-NEXT:    xnn.binary add %[[X]], %[[Y]] : (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.4:-2>>
func.func @linear_add(%x: tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.4:-2>> {
  %w = aten.constant #xnnc.weight<"w2", "0x01FE0304"> : tensor<2x2x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = aten.linear %x, %w, %b : (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x2x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2xf32>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3:5>>
  %s = aten.add %x, %y : (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.4:-2>>
  func.return %s : tensor<1x2x!xnn.quant.uniform<i8:f32, 0.4:-2>>
}

// -----

// Left outside: XNNPACK's int8 filters are symmetric.
// CHECK-LABEL: func.func @asymmetric(
// CHECK-NEXT:    aten.constant
// CHECK-NEXT:    aten.linear
// STRICT: xnn-opt: error: 1 ops stayed outside XNNPACK: {{.*}}quantized.mlir:{{[0-9]+}}:{{[0-9]+}}: aten.linear (asymmetric per-channel weight (zero points not all 0): XNNPACK's int8 filters are symmetric)
func.func @asymmetric(%x: tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3>> {
  %w = aten.constant #xnnc.weight<"w3", "0x01FE0304"> : tensor<2x2x!xnn.quant.uniform<i8:f32:0, {0.5:1, 0.25}>>
  %y = aten.linear %x, %w : (tensor<1x2x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x2x!xnn.quant.uniform<i8:f32:0, {0.5:1, 0.25}>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3>>
  func.return %y : tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3>>
}

// -----

// A transposed conv: torch's weight [G * Cin_g, Cout_g, KH, KW] is quantized along axis 1
// (Cout_g); in XNNPACK's [G * Cout_g, KH, KW, Cin_g] the scales repeat for each group along
// axis 0 (a qcint8 filter), and the int32 bias takes them too.
// CHECK-LABEL: func.func @deconvolution(
// CHECK:         %[[B:.*]] = xnn.constant #xnnc.weight<"const.qint32", "0x14000000500000001400000050000000"> : tensor<4x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025, 0.05, 0.025}>>
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"w4.deconv", "0x0102030405060708"> : tensor<4x1x2x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 0.5, 0.25}>>
// CHECK-NEXT:    xnn.deconvolution_2d %{{.*}}, %[[W]], %[[B]] {{.*}}upsampling_width = 2 : i64, groups = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 2 : i64} : {{.*}} -> tensor<1x1x6x4x!xnn.quant.uniform<i8:f32, 0.2>>
func.func @deconvolution(%x: tensor<1x2x1x3x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x1x6x!xnn.quant.uniform<i8:f32, 0.2>> {
  %w = aten.constant #xnnc.weight<"w4", "0x0102030405060708"> : tensor<2x2x1x2x!xnn.quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>>
  %b = aten.constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf32>
  %y = aten.convolution %x, %w, %b {stride = array<i64: 1, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x2x1x3x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x2x1x2x!xnn.quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>>, tensor<4xf32>) -> tensor<1x4x1x6x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %y : tensor<1x4x1x6x!xnn.quant.uniform<i8:f32, 0.2>>
}

// -----

// qs8 multiply: XNNPACK's binary multiply on qs8 operands, each with its own scale.
// CHECK-LABEL: func.func @mul(
// CHECK:         xnn.binary multiply %a_1, %b_1 : (tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<4x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.02:-2>>
func.func @mul(%a: tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>, %b: tensor<4x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.02:-2>> {
  %m = aten.mul %a, %b : (tensor<4x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<4x!xnn.quant.uniform<i8:f32, 0.3:5>>) -> tensor<4x!xnn.quant.uniform<i8:f32, 0.02:-2>>
  func.return %m : tensor<4x!xnn.quant.uniform<i8:f32, 0.02:-2>>
}

// -----

// qs8 average pooling (none in XNNPACK 92a7ad50): a depthwise convolution of int8 ones at
// scale 1/9 that pads with the input's zero point (count_include_pad).
// CHECK-LABEL: func.func @avg_pool(
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"avg_pool.ones", "0x010101010101010101010101010101010101010101010101010101010101010101010101"> : tensor<1x3x3x4x!xnn.quant.uniform<i8<-127:127>:f32, 0.1111111{{[0-9]*}}>>
// CHECK-NEXT:    xnn.depthwise_convolution_2d %{{.*}}, %[[W]] {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, input_channels = 4 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : {{.*}} -> tensor<1x3x3x4x!xnn.quant.uniform<i8:f32, 0.03:-2>>
func.func @avg_pool(%x: tensor<1x4x6x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x3x3x!xnn.quant.uniform<i8:f32, 0.03:-2>> {
  %y = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x4x6x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x3x3x!xnn.quant.uniform<i8:f32, 0.03:-2>>
  func.return %y : tensor<1x4x3x3x!xnn.quant.uniform<i8:f32, 0.03:-2>>
}
