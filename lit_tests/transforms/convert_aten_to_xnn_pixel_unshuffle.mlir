// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn,xnn-legalize-stock | filecheck %s --check-prefix=STOCK

// pixel_unshuffle is xnn.space_to_depth_2d in NHWC. XNNPACK puts the block before the channel
// (TensorFlow DCR), torch after it (CRD): the block index moves behind the channel on the way
// back to NCHW. The stock target, which lacks the node kind, gets reshape/transpose/reshape.
// CHECK-LABEL: func.func @pixel_unshuffle
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.space_to_depth_2d %[[T]] {block_size = 2 : i64} : (tensor<1x8x6x3xf32>) -> tensor<1x4x3x12xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[S]] {new_shape = array<i64: 1, 4, 3, 4, 3>} : (tensor<1x4x3x12xf32>) -> tensor<1x4x3x4x3xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.static_transpose %[[R]] {perm = array<i64: 0, 4, 3, 1, 2>} : (tensor<1x4x3x4x3xf32>) -> tensor<1x3x4x4x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 1, 12, 4, 3>} : (tensor<1x3x4x4x3xf32>) -> tensor<1x12x4x3xf32>
// CHECK-NEXT:    xnn.output %[[Y]]

// STOCK-LABEL: func.func @pixel_unshuffle
// STOCK-NOT:     xnn.space_to_depth_2d
// STOCK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 2, 3, 2, 3>} : (tensor<1x8x6x3xf32>) -> tensor<1x4x2x3x2x3xf32>
// STOCK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<1x4x2x3x2x3xf32>) -> tensor<1x4x3x2x2x3xf32>
// STOCK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 3, 12>} : (tensor<1x4x3x2x2x3xf32>) -> tensor<1x4x3x12xf32>
func.func @pixel_unshuffle(%x: tensor<1x3x8x6xf32>) -> tensor<1x12x4x3xf32> {
  %y = aten.pixel_unshuffle %x {downscale_factor = 2 : i64} : (tensor<1x3x8x6xf32>) -> tensor<1x12x4x3xf32>
  func.return %y : tensor<1x12x4x3xf32>
}
