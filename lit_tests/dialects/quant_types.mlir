// Quantized element types (`!xnn.quant.uniform`) and the qcast/dcast ops of `aten`.
// RUN: XNN_ROUNDTRIP
// RUN: xnn-opt %s --split-input-file | xnn-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @per_tensor(
// CHECK-SAME:    %x: tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %q = aten.quantize %x : (tensor<1x4xf32>) -> tensor<1x4x!xnn.quant.uniform<i8:f32, 0.0235:-3>>
// CHECK-NEXT:    %y = aten.dequantize %q : (tensor<1x4x!xnn.quant.uniform<i8:f32, 0.0235:-3>>) -> tensor<1x4xf32>
func.func @per_tensor(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %q = aten.quantize %x : (tensor<1x4xf32>) -> tensor<1x4x!xnn.quant.uniform<i8:f32, 0.0235:-3>>
  %y = aten.dequantize %q : (tensor<1x4x!xnn.quant.uniform<i8:f32, 0.0235:-3>>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// A zero point of 0 is not printed; a narrowed storage range is.
// CHECK-LABEL: func.func @symmetric_per_axis(
// CHECK-SAME:    %w: tensor<3x2x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25:2, 1.0}>>
func.func @symmetric_per_axis(%w: tensor<3x2x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5:0, 0.25:2, 1.0}>>) {
  func.return
}

// -----

// More than 8 scales print as their count and one hex string (f32 when each scale is one,
// i32 zero points after them when any is not 0), which parses back to the same type.
// CHECK-LABEL: func.func @long_per_axis(
// CHECK-SAME:    tensor<9x1x!xnn.quant.uniform<i8:f32:0, {9 x f32 "0x0000003F0000803E0000803F0000803F0000803F0000803F0000803F0000803F00000040"}>>
// CHECK-SAME:    tensor<9x!xnn.quant.uniform<i8:f32:0, {9 x f64 "0x{{[0-9A-F]+}}"}>>
func.func @long_per_axis(%a: tensor<9x1x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0}>>, %b: tensor<9x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.1:3}>>) {
  func.return
}

// -----

// Blockwise: axis 0 with blocks of 32 along the innermost dim, one scale per (row, block).
// CHECK-LABEL: func.func @blockwise(
// CHECK-SAME:    %w: tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25, 1.0, 3.0}>>
func.func @blockwise(%w: tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25, 1.0, 3.0}>>) {
  func.return
}
