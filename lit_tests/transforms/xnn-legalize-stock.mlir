// RUN: xnn-opt %s --split-input-file -p xnn-legalize-stock --print-weights | filecheck %s

// `xnn-legalize-stock`: the xnnc-only node kinds as ones stock ExecuTorch 1.5.1 runs.

// depth_to_space_2d (block-major) as reshape [N, H, W, b, b, C] -> transpose -> reshape.
// CHECK-LABEL: func.func @depth_to_space
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 5, 2, 2, 3>} : (tensor<1x4x5x12xf32>) -> tensor<1x4x5x2x2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[R]] {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<1x4x5x2x2x3xf32>) -> tensor<1x4x2x5x2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 8, 10, 3>} : (tensor<1x4x2x5x2x3xf32>) -> tensor<1x8x10x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @depth_to_space(%x: tensor<1x4x5x12xf32>) -> tensor<1x8x10x3xf32> {
  %y = xnn.depth_to_space_2d %x {block_size = 2} : (tensor<1x4x5x12xf32>) -> tensor<1x8x10x3xf32>
  func.return %y : tensor<1x8x10x3xf32>
}

// -----

// A mean over the last axis (kept) as [M, K] x [1, K] fully_connected with a filter of
// 1/K = 0.125 (0x3E000000), between reshapes.
// CHECK-LABEL: func.func @mean_last_axis
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 6, 8>} : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT:    %[[F:.*]] = xnn.constant #xnnc.weight<"reduce.filter", "0x0000003E0000003E0000003E0000003E0000003E0000003E0000003E0000003E"> : tensor<1x8xf32>
// CHECK-NEXT:    %[[G:.*]] = xnn.fully_connected %[[R]], %[[F]] : (tensor<6x8xf32>, tensor<1x8xf32>) -> tensor<6x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[G]] {new_shape = array<i64: 2, 3, 1>} : (tensor<6x1xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     xnn.static_reduce
func.func @mean_last_axis(%x: tensor<2x3x8xf32>) -> tensor<2x3x1xf32> {
  %y = xnn.static_reduce mean %x {axes = array<i64: -1>, flags = 64 : i32} : (tensor<2x3x8xf32>) -> tensor<2x3x1xf32>
  func.return %y : tensor<2x3x1xf32>
}

// -----

// A sum over inner axes (dropped): a transpose puts them last first; the fp16 filter is
// all ones (0x3C00).
// CHECK-LABEL: func.func @sum_inner_axes
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf16>) -> tensor<2x5x3x4xf16>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 10, 12>} : (tensor<2x5x3x4xf16>) -> tensor<10x12xf16>
// CHECK-NEXT:    %[[F:.*]] = xnn.constant #xnnc.weight<"reduce.filter", "0x003C003C003C003C003C003C003C003C003C003C003C003C"> : tensor<1x12xf16>
// CHECK-NEXT:    %[[G:.*]] = xnn.fully_connected %[[R]], %[[F]] : (tensor<10x12xf16>, tensor<1x12xf16>) -> tensor<10x1xf16>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[G]] {new_shape = array<i64: 2, 5>} : (tensor<10x1xf16>) -> tensor<2x5xf16>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sum_inner_axes(%x: tensor<2x3x4x5xf16>) -> tensor<2x5xf16> {
  %y = xnn.static_reduce sum %x {axes = array<i64: 1, 2>} : (tensor<2x3x4x5xf16>) -> tensor<2x5xf16>
  func.return %y : tensor<2x5xf16>
}

// -----

// A broadcast as an add of zeros of the output shape.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %[[Z:.*]] = xnn.constant #xnnc.weight<"broadcast.zeros", "0x{{0+}}"> : tensor<2x3x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary add %x, %[[Z]] : (tensor<1x3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @broadcast(%x: tensor<1x3x1xf32>) -> tensor<2x3x4xf32> {
  %y = xnn.static_broadcast %x {new_shape = array<i64: 2, 0, 4>} : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// Left alone: max/min reductions (no stock equivalent: serializing them for `stock` fails
// with a message) and the kinds stock already has.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    xnn.static_reduce max %x {axes = array<i64: 2>, flags = 64 : i32}
// CHECK-NEXT:    xnn.static_reduce min %x {axes = array<i64: 2>}
// CHECK-NEXT:    xnn.unary elu %x
// CHECK-NEXT:    xnn.static_transpose %x
// CHECK-NEXT:    func.return
func.func @left_alone(%x: tensor<2x3x8xf32>) -> (tensor<2x3x1xf32>, tensor<2x3xf32>, tensor<2x3x8xf32>, tensor<3x2x8xf32>) {
  %a = xnn.static_reduce max %x {axes = array<i64: 2>, flags = 64 : i32} : (tensor<2x3x8xf32>) -> tensor<2x3x1xf32>
  %b = xnn.static_reduce min %x {axes = array<i64: 2>} : (tensor<2x3x8xf32>) -> tensor<2x3xf32>
  %c = xnn.unary elu %x {alpha = 1.0 : f32} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %d = xnn.static_transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x8xf32>) -> tensor<3x2x8xf32>
  func.return %a, %b, %c, %d : tensor<2x3x1xf32>, tensor<2x3xf32>, tensor<2x3x8xf32>, tensor<3x2x8xf32>
}
