// RUN: xnn-opt %s --split-input-file -p aten-recognize-prelu | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-recognize-prelu,fold-constants,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// nn.PReLU(8) decomposed: per-channel slopes viewed to [1, 8, 1, 1].
// CHECK-LABEL: func.func @per_channel
// CHECK-NEXT:    %[[W:.*]] = aten.constant
// CHECK-NEXT:    %[[V:.*]] = aten.view %[[W]]
// CHECK-NEXT:    %[[Y:.*]] = aten.prelu %x, %[[V]] : (tensor<1x8x5x5xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x5x5xf32>
// CHECK-NEXT:    func.return %[[Y]]
// XNN-LABEL: func.func @per_channel
// XNN:         xnn.binary prelu %{{.*}}, %{{.*}} : (tensor<1x5x5x8xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
// XNN-NOT:     aten.
func.func @per_channel(%x: tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32> {
  %w = aten.constant dense<[-0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25]> : tensor<8xf32>
  %v = aten.view %w {size = array<i64: 1, 8, 1, 1>} : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
  %g = aten.generic "aten::gt.Scalar"(%x) {args = [#aten.operand<0>, 0 : i64]} : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xi1>
  %m = aten.mul %v, %x : (tensor<1x8x1x1xf32>, tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %y = aten.where %g, %x, %m : (tensor<1x8x5x5xi1>, tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  func.return %y : tensor<1x8x5x5xf32>
}

// -----

// One shared slope, the product in the other order.
// CHECK-LABEL: func.func @shared
// CHECK:         aten.prelu %x, %{{.*}} : (tensor<2x8x5xf32>, tensor<1x1x1xf32>) -> tensor<2x8x5xf32>
// CHECK-NOT:     aten.where
// XNN-LABEL: func.func @shared
// XNN:         xnn.binary prelu %{{.*}}, %{{.*}} : (tensor<2x8x5xf32>, tensor<5xf32>) -> tensor<2x8x5xf32>
func.func @shared(%x: tensor<2x8x5xf32>) -> tensor<2x8x5xf32> {
  %w = aten.constant dense<0.25> : tensor<1x1x1xf32>
  %g = aten.generic "aten::gt.Scalar"(%x) {args = [#aten.operand<0>, 0.0 : f64]} : (tensor<2x8x5xf32>) -> tensor<2x8x5xi1>
  %m = aten.mul %x, %w : (tensor<2x8x5xf32>, tensor<1x1x1xf32>) -> tensor<2x8x5xf32>
  %y = aten.where %g, %x, %m : (tensor<2x8x5xi1>, tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  func.return %y : tensor<2x8x5xf32>
}

// -----

// Left alone: slopes along the last dim are not PReLU's channels.
// CHECK-LABEL: func.func @slopes_on_last_dim
// CHECK:         aten.where
// CHECK-NOT:     aten.prelu
func.func @slopes_on_last_dim(%x: tensor<2x8x5xf32>) -> tensor<2x8x5xf32> {
  %w = aten.constant dense<0.25> : tensor<5xf32>
  %g = aten.generic "aten::gt.Scalar"(%x) {args = [#aten.operand<0>, 0 : i64]} : (tensor<2x8x5xf32>) -> tensor<2x8x5xi1>
  %m = aten.mul %w, %x : (tensor<5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %y = aten.where %g, %x, %m : (tensor<2x8x5xi1>, tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  func.return %y : tensor<2x8x5xf32>
}

// -----

// Left alone: the threshold is not 0.
// CHECK-LABEL: func.func @threshold
// CHECK:         aten.where
// CHECK-NOT:     aten.prelu
func.func @threshold(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %w = aten.constant dense<0.25> : tensor<1x6xf32>
  %g = aten.generic "aten::gt.Scalar"(%x) {args = [#aten.operand<0>, 1 : i64]} : (tensor<4x6xf32>) -> tensor<4x6xi1>
  %m = aten.mul %w, %x : (tensor<1x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = aten.where %g, %x, %m : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %y : tensor<4x6xf32>
}

// -----

// Left alone: the compared value is not the one selected.
// CHECK-LABEL: func.func @other_condition
// CHECK:         aten.where
// CHECK-NOT:     aten.prelu
func.func @other_condition(%x: tensor<4x6xf32>, %z: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %w = aten.constant dense<0.25> : tensor<1x6xf32>
  %g = aten.generic "aten::gt.Scalar"(%z) {args = [#aten.operand<0>, 0 : i64]} : (tensor<4x6xf32>) -> tensor<4x6xi1>
  %m = aten.mul %w, %x : (tensor<1x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = aten.where %g, %x, %m : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %y : tensor<4x6xf32>
}
