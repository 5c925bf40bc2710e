// Pooling, mean, data movement and activations on quantized types to XNNPACK's qs8 nodes
// (conversion/quant_to_xnn.py): max pooling, concatenate, pad and slice keep their input's
// scale and zero point (XNNPACK's do); mean and the unary activations requantize (each a
// table of the 256 inputs in XNNPACK). Numerics: tests/conversion/test_quantized.py.
// RUN: xnn-opt %s --split-input-file -p 'xnn-partition,convert-aten-to-xnn' | filecheck %s
// A concatenate of different scales stays outside with its reason (one line under strict).
// RUN: not xnn-opt %s --split-input-file -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// CHECK-LABEL: func.func @max_pool(
// CHECK:         xnn.static_transpose
// CHECK-NEXT:    xnn.max_pooling_2d %{{.*}} {pooling_height = 2 : i64, pooling_width = 2 : i64, stride_height = 2 : i64, stride_width = 2 : i64} : (tensor<1x6x6x4x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x3x3x4x!xnn.quant.uniform<i8:f32, 0.05:3>>
// CHECK-NOT:     aten.
func.func @max_pool(%x: tensor<1x4x6x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x4x3x3x!xnn.quant.uniform<i8:f32, 0.05:3>> {
  %y, %i = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x6x6x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> (tensor<1x4x3x3x!xnn.quant.uniform<i8:f32, 0.05:3>>, tensor<1x4x3x3xi64>)
  func.return %y : tensor<1x4x3x3x!xnn.quant.uniform<i8:f32, 0.05:3>>
}

// -----

// CHECK-LABEL: func.func @mean(
// CHECK:         xnn.static_reduce mean %x_1 {axes = array<i64: 2, 3>, flags = 64 : i32} : (tensor<1x8x4x4x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x8x1x1x!xnn.quant.uniform<i8:f32, 0.02:-1>>
func.func @mean(%x: tensor<1x8x4x4x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x8x1x1x!xnn.quant.uniform<i8:f32, 0.02:-1>> {
  %0 = aten.mean %x {dim = array<i64: -1, -2>, keepdim = true} : (tensor<1x8x4x4x!xnn.quant.uniform<i8:f32, 0.05:3>>) -> tensor<1x8x1x1x!xnn.quant.uniform<i8:f32, 0.02:-1>>
  func.return %0 : tensor<1x8x1x1x!xnn.quant.uniform<i8:f32, 0.02:-1>>
}

// -----

// CHECK-LABEL: func.func @cat(
// CHECK:         xnn.concatenate %a_1, %b_1 {axis = 1 : i64} : (tensor<1x2x4x!xnn.quant.uniform<i8:f32, 0.1:2>>, tensor<1x3x4x!xnn.quant.uniform<i8:f32, 0.1:2>>) -> tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>>
func.func @cat(%a: tensor<1x2x4x!xnn.quant.uniform<i8:f32, 0.1:2>>, %b: tensor<1x3x4x!xnn.quant.uniform<i8:f32, 0.1:2>>) -> tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>> {
  %x = aten.cat %a, %b {dim = 1 : i64} : (tensor<1x2x4x!xnn.quant.uniform<i8:f32, 0.1:2>>, tensor<1x3x4x!xnn.quant.uniform<i8:f32, 0.1:2>>) -> tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>>
  func.return %x : tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>>
}

// -----

// CHECK-LABEL: func.func @cat_scales(
// CHECK-NEXT:    aten.cat
// CHECK-NOT:     xnn.subgraph
// STRICT: xnn-opt: error: 1 ops stayed outside XNNPACK: {{.*}}quantized_movement.mlir:[[# @LINE + 2]]:3: aten.cat (aten.cat changes the scale or zero point; XNNPACK's keeps them)
func.func @cat_scales(%a: tensor<1x2x4x!xnn.quant.uniform<i8:f32, 0.1:2>>, %b: tensor<1x3x4x!xnn.quant.uniform<i8:f32, 0.2:2>>) -> tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>> {
  %x = aten.cat %a, %b {dim = 1 : i64} : (tensor<1x2x4x!xnn.quant.uniform<i8:f32, 0.1:2>>, tensor<1x3x4x!xnn.quant.uniform<i8:f32, 0.2:2>>) -> tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>>
  func.return %x : tensor<1x5x4x!xnn.quant.uniform<i8:f32, 0.1:2>>
}

// -----

// CHECK-LABEL: func.func @pad_slice(
// CHECK:         %a = xnn.static_constant_pad %x_1 {pre_paddings = array<i64: 0, 0, 0, 1>, post_paddings = array<i64: 0, 0, 1, 2>} : (tensor<1x3x8x8x!xnn.quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x9x11x!xnn.quant.uniform<i8:f32, 0.1:-4>>
// CHECK-NEXT:    xnn.static_slice %a {offsets = array<i64: 0, 0, 0, 1>, sizes = array<i64: 1, 3, 9, 5>} : (tensor<1x3x9x11x!xnn.quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x9x5x!xnn.quant.uniform<i8:f32, 0.1:-4>>
func.func @pad_slice(%x: tensor<1x3x8x8x!xnn.quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x9x5x!xnn.quant.uniform<i8:f32, 0.1:-4>> {
  %a = aten.constant_pad_nd %x {pad = array<i64: 1, 2, 0, 1>, value = 0.000000e+00 : f32} : (tensor<1x3x8x8x!xnn.quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x9x11x!xnn.quant.uniform<i8:f32, 0.1:-4>>
  %b = aten.slice %a {dim = 3 : i64, start = 1 : i64, end = 6 : i64, step = 1 : i64} : (tensor<1x3x9x11x!xnn.quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x9x5x!xnn.quant.uniform<i8:f32, 0.1:-4>>
  func.return %b : tensor<1x3x9x5x!xnn.quant.uniform<i8:f32, 0.1:-4>>
}

// -----

// CHECK-LABEL: func.func @unary(
// CHECK:         %1 = xnn.unary sigmoid %x_1 : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.05:1>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.00390625:-128>>
// CHECK-NEXT:    %2 = xnn.unary tanh %1 : {{.*}} -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.0078125>>
// CHECK-NEXT:    %3 = xnn.unary hardswish %2 : {{.*}} -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.01:2>>
// CHECK-NEXT:    %4 = xnn.unary leaky_relu %3 {negative_slope = 1.000000e-01 : f32} : {{.*}} -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.01:3>>
// CHECK-NEXT:    %5 = xnn.unary elu %4 {alpha = 1.000000e+00 : f32} : {{.*}} -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.02:4>>
// CHECK-NEXT:    %6 = xnn.unary gelu %5 : {{.*}} -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.03:-5>>
// CHECK-NEXT:    xnn.output %6
func.func @unary(%x: tensor<1x16x!xnn.quant.uniform<i8:f32, 0.05:1>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.03:-5>> {
  %0 = aten.sigmoid %x : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.05:1>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.00390625:-128>>
  %1 = aten.tanh %0 : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.00390625:-128>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.0078125>>
  %2 = aten.hardswish %1 : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.0078125>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.01:2>>
  %3 = aten.leaky_relu %2 {negative_slope = 1.000000e-01 : f32} : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.01:2>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.01:3>>
  %4 = aten.elu %3 {alpha = 1.000000e+00 : f32, scale = 1.000000e+00 : f32, input_scale = 1.000000e+00 : f32} : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.01:3>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.02:4>>
  %5 = aten.gelu %4 {approximate = "none"} : (tensor<1x16x!xnn.quant.uniform<i8:f32, 0.02:4>>) -> tensor<1x16x!xnn.quant.uniform<i8:f32, 0.03:-5>>
  func.return %5 : tensor<1x16x!xnn.quant.uniform<i8:f32, 0.03:-5>>
}
