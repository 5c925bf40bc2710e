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

// A max over the last axis (kept) as one 1x8 max-pooling window: NHWC [1, 1, 8, 6], the
// reduced values along W and the six kept ones as channels.
// CHECK-LABEL: func.func @max_last_axis
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x8xf32>) -> tensor<8x2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 8, 6>} : (tensor<8x2x3xf32>) -> tensor<1x1x8x6xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.max_pooling_2d %[[R]] {pooling_height = 1 : i64, pooling_width = 8 : i64} : (tensor<1x1x8x6xf32>) -> tensor<1x1x1x6xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 2, 3, 1>} : (tensor<1x1x1x6xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @max_last_axis(%x: tensor<2x3x8xf32>) -> tensor<2x3x1xf32> {
  %y = xnn.static_reduce max %x {axes = array<i64: 2>, flags = 64 : i32} : (tensor<2x3x8xf32>) -> tensor<2x3x1xf32>
  func.return %y : tensor<2x3x1xf32>
}

// -----

// A min over the leading axes (dropped) is -max(-x); leading reduced axes need no transpose.
// CHECK-LABEL: func.func @min_leading_axes
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 1, 6, 8>} : (tensor<2x3x8xf16>) -> tensor<1x1x6x8xf16>
// CHECK-NEXT:    %[[N:.*]] = xnn.unary negate %[[R]]
// CHECK-NEXT:    %[[P:.*]] = xnn.max_pooling_2d %[[N]] {pooling_height = 1 : i64, pooling_width = 6 : i64} : (tensor<1x1x6x8xf16>) -> tensor<1x1x1x8xf16>
// CHECK-NEXT:    %[[M:.*]] = xnn.unary negate %[[P]]
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[M]] {new_shape = array<i64: 8>} : (tensor<1x1x1x8xf16>) -> tensor<8xf16>
// CHECK-NEXT:    func.return %[[Y]]
func.func @min_leading_axes(%x: tensor<2x3x8xf16>) -> tensor<8xf16> {
  %y = xnn.static_reduce min %x {axes = array<i64: 0, 1>} : (tensor<2x3x8xf16>) -> tensor<8xf16>
  func.return %y : tensor<8xf16>
}

// -----

// A max over a dim of size 1 is a copy: XNNPACK's max pooling wants a window of 2 or more.
// CHECK-LABEL: func.func @max_unit_axis
// CHECK-NEXT:    %[[C:.*]] = xnn.copy %x : (tensor<3x1xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[C]] {new_shape = array<i64: 3>} : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @max_unit_axis(%x: tensor<3x1xf32>) -> tensor<3xf32> {
  %y = xnn.static_reduce max %x {axes = array<i64: 1>} : (tensor<3x1xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// -----

// Moving unit dims moves no data: a max over [1, 4, 1]'s middle axis needs no transpose.
// CHECK-LABEL: func.func @max_between_unit_dims
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 1, 4, 1>} : (tensor<1x4x1xf32>) -> tensor<1x1x4x1xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.max_pooling_2d %[[R]] {pooling_height = 1 : i64, pooling_width = 4 : i64}
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 1, 1, 1>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @max_between_unit_dims(%x: tensor<1x4x1xf32>) -> tensor<1x1x1xf32> {
  %y = xnn.static_reduce max %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<1x4x1xf32>) -> tensor<1x1x1xf32>
  func.return %y : tensor<1x1x1xf32>
}

// -----

// Left alone: the xnnc-only operators with no stock equivalent (serializing them for `stock`
// fails with a message) and the kinds stock already has.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    xnn.unary cube_root %x
// CHECK-NEXT:    xnn.unary elu %x
// CHECK-NEXT:    xnn.static_transpose %x
// CHECK-NEXT:    func.return
func.func @left_alone(%x: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<3x2x8xf32>) {
  %b = xnn.unary cube_root %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %c = xnn.unary elu %x {alpha = 1.0 : f32} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %d = xnn.static_transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x8xf32>) -> tensor<3x2x8xf32>
  func.return %b, %c, %d : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<3x2x8xf32>
}

// -----

// pow by a scalar constant: x^5 by repeated squaring (x^2, x^4, x * x^4), x^-2 as 1 / x^2,
// x^0 as a clamp to [1, 1], x^2.5 as exp(2.5 * log x).
// CHECK-LABEL: func.func @pow_by_scalars
// CHECK-NEXT:    %[[S2:.*]] = xnn.binary multiply %x, %x
// CHECK-NEXT:    %[[S4:.*]] = xnn.binary multiply %[[S2]], %[[S2]]
// CHECK-NEXT:    %[[P5:.*]] = xnn.binary multiply %x, %[[S4]]
// CHECK-NEXT:    %[[Q2:.*]] = xnn.binary multiply %x, %x
// CHECK-NEXT:    %[[ONE:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[PM2:.*]] = xnn.binary divide %[[ONE]], %[[Q2]]
// CHECK-NEXT:    %[[P0:.*]] = xnn.clamp %x {output_min = 1.000000e+00 : f32, output_max = 1.000000e+00 : f32}
// CHECK-NEXT:    %[[L:.*]] = xnn.unary log %x
// CHECK-NEXT:    %[[N:.*]] = xnn.constant dense<2.500000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.binary multiply %[[L]], %[[N]]
// CHECK-NEXT:    %[[PF:.*]] = xnn.unary exp %[[M]]
// CHECK-NEXT:    func.return %[[P5]], %[[PM2]], %[[P0]], %[[PF]]
func.func @pow_by_scalars(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %five = xnn.constant dense<5.0> : tensor<1xf32>
  %mtwo = xnn.constant dense<-2.0> : tensor<1xf32>
  %zero = xnn.constant dense<0.0> : tensor<1xf32>
  %half = xnn.constant dense<2.5> : tensor<1xf32>
  %a = xnn.binary pow %x, %five : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %b = xnn.binary pow %x, %mtwo : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %c = xnn.binary pow %x, %zero : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %d = xnn.binary pow %x, %half : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  func.return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A mean over a middle dim: global average pooling over NHWC [A, K, 1, C], the kept
// trailing dim as channels, with no transpose.
// CHECK-LABEL: func.func @mean_middle_axis
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 2, 6, 1, 5>} : (tensor<2x6x5xf32>) -> tensor<2x6x1x5xf32>
// CHECK-NEXT:    %[[G:.*]] = xnn.global_average_pooling_2d %[[R]] {flags = 64 : i32} : (tensor<2x6x1x5xf32>) -> tensor<2x1x1x5xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.static_reshape %[[G]] {new_shape = array<i64: 2, 5>} : (tensor<2x1x1x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[S]] {new_shape = array<i64: 2, 1, 5>} : (tensor<2x5xf32>) -> tensor<2x1x5xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @mean_middle_axis(%x: tensor<2x6x5xf32>) -> tensor<2x1x5xf32> {
  %y = xnn.static_reduce mean %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x6x5xf32>) -> tensor<2x1x5xf32>
  func.return %y : tensor<2x1x5xf32>
}

// -----

// Group norm's mean over [N, L, G, C/G] dims 1 and 3: the pooling over L first, then a
// mean over C/G of the small result (a fully_connected); no transpose of x.
// CHECK-LABEL: func.func @mean_two_runs
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 10, 1, 12>} : (tensor<1x10x4x3xf32>) -> tensor<1x10x1x12xf32>
// CHECK-NEXT:    %[[G:.*]] = xnn.global_average_pooling_2d %[[R]] {flags = 64 : i32} : (tensor<1x10x1x12xf32>) -> tensor<1x1x1x12xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.static_reshape %[[G]] {new_shape = array<i64: 4, 3>} : (tensor<1x1x1x12xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[F:.*]] = xnn.constant #xnnc.weight<"reduce.filter", {{.*}}> : tensor<1x3xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.fully_connected %[[S]], %[[F]] : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4x1xf32>
// CHECK-NOT:     xnn.static_transpose
// CHECK-NOT:     xnn.static_reduce
func.func @mean_two_runs(%x: tensor<1x10x4x3xf32>) -> tensor<1x1x4x1xf32> {
  %y = xnn.static_reduce mean %x {axes = array<i64: 1, 3>, flags = 64 : i32} : (tensor<1x10x4x3xf32>) -> tensor<1x1x4x1xf32>
  func.return %y : tensor<1x1x4x1xf32>
}

// -----

// A mean over every dim of [1, L, 1, C]: pooling over L, then a mean over the C channel
// means; no [1, L*C] filter of 1/(L*C) (for L*C = 512000 it weighed 2 MB).
// CHECK-LABEL: func.func @mean_all
// CHECK-NEXT:    xnn.global_average_pooling_2d %x {{.*}} -> tensor<1x1x1x8xf32>
// CHECK-NEXT:    xnn.static_reshape {{.*}} -> tensor<8xf32>
// CHECK:         xnn.fully_connected {{.*}} : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x1xf32>
func.func @mean_all(%x: tensor<1x10x1x8xf32>) -> tensor<1x1x1x1xf32> {
  %y = xnn.static_reduce mean %x {axes = array<i64: 1, 2, 3>, flags = 64 : i32} : (tensor<1x10x1x8xf32>) -> tensor<1x1x1x1xf32>
  func.return %y : tensor<1x1x1x1xf32>
}
