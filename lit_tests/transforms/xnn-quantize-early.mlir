// RUN: xnn-opt %s --split-input-file -p xnn-quantize-early | filecheck %s
// RUN: xnn-opt %s --split-input-file -p canonicalize | filecheck %s --check-prefix=CANON

// Polyphase's float depthwise phases feeding a qs8 op: the quantizing convert climbs past the
// interleave and the concatenate, one convert per phase, int8 copies.
// CHECK-LABEL: func.func @phases
// CHECK-NEXT:    %[[A:.*]] = xnn.convert %a : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
// CHECK-NEXT:    %[[B:.*]] = xnn.convert %b : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
// CHECK-NEXT:    %[[C:.*]] = xnn.convert %c : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
// CHECK-NEXT:    %[[D:.*]] = xnn.convert %d : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[A]], %[[B]], %[[C]], %[[D]] {axis = 3 : i64} : {{.*}} -> tensor<1x2x2x12x!xnn.quant.uniform<i8:f32, 0.1:2>>
// CHECK-NEXT:    %[[Y:.*]] = xnn.depth_to_space_2d %[[J]] {block_size = 2 : i64} : (tensor<1x2x2x12x!xnn.quant.uniform<i8:f32, 0.1:2>>) -> tensor<1x4x4x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
// CHECK-NEXT:    func.return %[[Y]]
// CANON-LABEL: func.func @phases
// CANON-COUNT-4: xnn.convert
// CANON-NEXT:    xnn.concatenate
func.func @phases(%a: tensor<1x2x2x3xf32>, %b: tensor<1x2x2x3xf32>, %c: tensor<1x2x2x3xf32>, %d: tensor<1x2x2x3xf32>) -> tensor<1x4x4x3x!xnn.quant.uniform<i8:f32, 0.1:2>> {
  %j = xnn.concatenate %a, %b, %c, %d {axis = 3 : i64} : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x12xf32>
  %i = xnn.depth_to_space_2d %j {block_size = 2 : i64} : (tensor<1x2x2x12xf32>) -> tensor<1x4x4x3xf32>
  %q = xnn.convert %i : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
  func.return %q : tensor<1x4x4x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
}

// -----

// Left alone: the float concatenate has another use (it would be copied twice).
// CHECK-LABEL: func.func @other_use
// CHECK-NEXT:    %j = xnn.concatenate %a, %b
// CHECK-NEXT:    %q = xnn.convert %j
func.func @other_use(%a: tensor<1x2x2x3xf32>, %b: tensor<1x2x2x3xf32>) -> (tensor<1x2x2x6x!xnn.quant.uniform<i8:f32, 0.1:2>>, tensor<1x2x2x6xf32>) {
  %j = xnn.concatenate %a, %b {axis = 3 : i64} : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x6xf32>
  %q = xnn.convert %j : (tensor<1x2x2x6xf32>) -> tensor<1x2x2x6x!xnn.quant.uniform<i8:f32, 0.1:2>>
  func.return %q, %j : tensor<1x2x2x6x!xnn.quant.uniform<i8:f32, 0.1:2>>, tensor<1x2x2x6xf32>
}

// -----

// Left alone: a dequantizing convert (qs8 -> f32) and a convert to fp16 are not quantizing,
// and a slice drops elements a convert before it would convert for nothing.
// CHECK-LABEL: func.func @not_quantizing
// CHECK-NEXT:    %j = xnn.concatenate %a, %b
// CHECK-NEXT:    %h = xnn.convert %j
// CHECK-NEXT:    %s = xnn.static_slice %b
// CHECK-NEXT:    %q = xnn.convert %s
func.func @not_quantizing(%a: tensor<1x2x2x3xf32>, %b: tensor<1x2x2x3xf32>) -> (tensor<1x2x2x6xf16>, tensor<1x1x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>) {
  %j = xnn.concatenate %a, %b {axis = 3 : i64} : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x6xf32>
  %h = xnn.convert %j : (tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf16>
  %s = xnn.static_slice %b {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 2, 3>} : (tensor<1x2x2x3xf32>) -> tensor<1x1x2x3xf32>
  %q = xnn.convert %s : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
  func.return %h, %q : tensor<1x2x2x6xf16>, tensor<1x1x2x3x!xnn.quant.uniform<i8:f32, 0.1:2>>
}
