// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s

// Reflect padding mirrors without repeating the edge: [x1, x0..x4, x3]. It runs
// channels-last (the convolutions it feeds do), one-element slices around the input.
// CHECK-LABEL: func.func @reflect1d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x5x2xf32>
// CHECK-NEXT:    %[[L:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 1, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[R:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 3, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 1 : i64} : (tensor<1x1x2xf32>, tensor<1x5x2xf32>, tensor<1x1x2xf32>) -> tensor<1x7x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_transpose %[[C]] {perm = array<i64: 0, 2, 1>} : (tensor<1x7x2xf32>) -> tensor<1x2x7xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
func.func @reflect1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x7xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 1, 1>} : (tensor<1x2x5xf32>) -> tensor<1x2x7xf32>
  func.return %y : tensor<1x2x7xf32>
}

// -----

// Wider than XNNPACK's 5 concatenate inputs: each side's elements are joined first, so the
// input is copied once. [x3 x2 x1 | x0..x5 | x4 x3 x2]
// CHECK-LABEL: func.func @reflect1d_wide
// CHECK:         %[[T:.*]] = xnn.static_transpose
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 3, 0>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 2, 0>
// CHECK-NEXT:    %[[C:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 1, 0>
// CHECK-NEXT:    %[[D:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 4, 0>
// CHECK-NEXT:    %[[L:.*]] = xnn.concatenate %[[A]], %[[B]], %[[C]] {axis = 1 : i64}
// CHECK-NEXT:    %[[R:.*]] = xnn.concatenate %[[D]], %[[A]], %[[B]] {axis = 1 : i64}
// CHECK-NEXT:    xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 1 : i64} : (tensor<1x3x2xf32>, tensor<1x6x2xf32>, tensor<1x3x2xf32>) -> tensor<1x12x2xf32>
func.func @reflect1d_wide(%x: tensor<1x2x6xf32>) -> tensor<1x2x12xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 3, 3>} : (tensor<1x2x6xf32>) -> tensor<1x2x12xf32>
  func.return %y : tensor<1x2x12xf32>
}

// -----

// 2-D: the width first, then the height of the padded rows (corners included), in NHWC.
// CHECK-LABEL: func.func @reflect2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
// CHECK:         %[[W:.*]] = xnn.concatenate %{{.*}}, %[[T]], %{{.*}} {axis = 2 : i64} : (tensor<1x3x1x2xf32>, tensor<1x3x4x2xf32>, tensor<1x3x1x2xf32>) -> tensor<1x3x6x2xf32>
// CHECK-NEXT:    %[[R2:.*]] = xnn.static_slice %[[W]] {offsets = array<i64: 0, 2, 0, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[R1:.*]] = xnn.static_slice %[[W]] {offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[H:.*]] = xnn.concatenate %[[R2]], %[[R1]], %[[W]] {axis = 1 : i64} : (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x3x6x2xf32>) -> tensor<1x5x6x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[H]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
func.func @reflect2d(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x5x6xf32> {
  %y = aten.reflection_pad2d %x {padding = array<i64: 1, 1, 2, 0>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x6xf32>
  func.return %y : tensor<1x2x5x6xf32>
}

// -----

// No padding: the input itself; a copy when it would be the subgraph's output unchanged.
// CHECK-LABEL: func.func @reflect_none
// CHECK:         %[[Y:.*]] = xnn.copy %{{.*}} : (tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
func.func @reflect_none(%x: tensor<1x2x5xf32>) -> tensor<1x2x5xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 0, 0>} : (tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  func.return %y : tensor<1x2x5xf32>
}

// -----

// Left outside: a pad as wide as the dim has no element to mirror (PyTorch rejects it).
// CHECK-LABEL: func.func @reflect_too_wide
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.reflection_pad1d
func.func @reflect_too_wide(%x: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 3, 0>} : (tensor<1x2x3xf32>) -> tensor<1x2x6xf32>
  func.return %y : tensor<1x2x6xf32>
}
