// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s

// select drops the dim it indexes: a one-element slice, then a reshape; negative indices
// count from the end.
// CHECK-LABEL: func.func @select_time_step
// CHECK:         %[[S:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 2, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[S]] {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
func.func @select_time_step(%x: tensor<3x1x4xf32>) -> tensor<1x4xf32> {
  %y = aten.select %x {dim = 0 : i64, index = -1 : i64} : (tensor<3x1x4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @select_last_dim
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 1>}
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 2>}
func.func @select_last_dim(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %y = aten.select %x {dim = -1 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
