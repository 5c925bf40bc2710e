// RUN: xnn-opt %s --split-input-file -p xnn-legalize-broadcasts | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-legalize-broadcasts | xnn-opt --split-input-file -p xnn-legalize-broadcasts | filecheck %s

// A nearest x2 upsample (a block broadcast) times a scalar: XNNPACK would drop the
// broadcast and multiply at the input's size, so the multiply moves above the broadcast.
// CHECK-LABEL: func.func @upsample_times_scalar
// CHECK:         %[[U:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 3, 8, 1, 8, 1>}
// CHECK-NEXT:    %[[C:.*]] = xnn.constant
// CHECK-NEXT:    %[[M:.*]] = xnn.binary multiply %[[U]], %[[C]] : (tensor<1x3x8x1x8x1xf32>, tensor<1xf32>) -> tensor<1x3x8x1x8x1xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_broadcast %[[M]] {new_shape = array<i64: 1, 3, 8, 2, 8, 2>}
// CHECK-NEXT:    xnn.static_reshape %[[B]] {new_shape = array<i64: 1, 3, 16, 16>}
func.func @upsample_times_scalar(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %0 = xnn.static_reshape %a {new_shape = array<i64: 1, 3, 8, 1, 8, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x1x8x1xf32>
    %1 = xnn.static_broadcast %0 {new_shape = array<i64: 1, 3, 8, 2, 8, 2>} : (tensor<1x3x8x1x8x1xf32>) -> tensor<1x3x8x2x8x2xf32>
    %2 = xnn.constant dense<2.000000e+00> : tensor<1xf32>
    %3 = xnn.binary multiply %1, %2 : (tensor<1x3x8x2x8x2xf32>, tensor<1xf32>) -> tensor<1x3x8x2x8x2xf32>
    %4 = xnn.static_reshape %3 {new_shape = array<i64: 1, 3, 16, 16>} : (tensor<1x3x8x2x8x2xf32>) -> tensor<1x3x16x16xf32>
    xnn.output %4 : tensor<1x3x16x16xf32>
  }
  func.return %r : tensor<1x3x16x16xf32>
}

// -----

// Both operands broadcast from the same shape: the add runs once at the small shape.
// CHECK-LABEL: func.func @both_broadcast
// CHECK:         %[[S:.*]] = xnn.binary add %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    xnn.static_broadcast %[[S]] {new_shape = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
func.func @both_broadcast(%x: tensor<3x1xf32>, %y: tensor<3x1xf32>) -> tensor<3x4xf32> {
  %r = xnn.subgraph(%x, %y) : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x4xf32> {
  ^bb0(%a: tensor<3x1xf32>, %b: tensor<3x1xf32>):
    %0 = xnn.static_broadcast %a {new_shape = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
    %1 = xnn.static_broadcast %b {new_shape = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
    %2 = xnn.binary add %0, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    xnn.output %2 : tensor<3x4xf32>
  }
  func.return %r : tensor<3x4xf32>
}

// -----

// The other operand has the broadcast shape: XNNPACK's own broadcasting gives the same
// result, so nothing moves.
// CHECK-LABEL: func.func @covered
// CHECK:         %[[B:.*]] = xnn.static_broadcast
// CHECK-NEXT:    xnn.binary add %[[B]], %{{.*}} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
func.func @covered(%x: tensor<3x1xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = xnn.subgraph(%x, %y) : (tensor<3x1xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%a: tensor<3x1xf32>, %b: tensor<3x4xf32>):
    %0 = xnn.static_broadcast %a {new_shape = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
    %1 = xnn.binary add %0, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    xnn.output %1 : tensor<3x4xf32>
  }
  func.return %r : tensor<3x4xf32>
}
