// RUN: xnn-opt %s --split-input-file -p xnn-legalize-stock --print-weights | filecheck %s

// xnn-legalize-stock on symbolic sizes (issue 13): the xnnc-only kinds as stock ones where
// the stock form follows the size, declined (with the reason) where it cannot.

// Depth-to-space over T frames (polyphase's interleave): the six-dim view and the result
// keep T as the reshapes' inferred 0.
// CHECK-LABEL: func.func @d2s
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 1, 0, 2, 2, 3>} : (tensor<1x1x?x12xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x2x2x3xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[R]] {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<1x1x?x2x2x3xf32, #xnnc.dims<"T">>) -> tensor<1x1x2x?x2x3xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 2, 0, 3>} : (tensor<1x1x2x?x2x3xf32, #xnnc.dims<"T">>) -> tensor<1x2x?x3xf32, #xnnc.dims<"2*T">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @d2s(%x: tensor<1x1x?x12xf32, #xnnc.dims<"T">>) -> tensor<1x2x?x3xf32, #xnnc.dims<"2*T">> {
    %y = xnn.depth_to_space_2d %x {block_size = 2} : (tensor<1x1x?x12xf32, #xnnc.dims<"T">>) -> tensor<1x2x?x3xf32, #xnnc.dims<"2*T">>
    func.return %y : tensor<1x2x?x3xf32, #xnnc.dims<"2*T">>
  }
}

// -----

// A mean over the static features of T rows (RMSNorm): [T, 8] x [1, 8] with a filter of
// 1/8 (0x3E000000), the rows inferred.
// CHECK-LABEL: func.func @mean_last
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[F:.*]] = xnn.constant #xnnc.weight<"reduce.filter", "0x0000003E0000003E0000003E0000003E0000003E0000003E0000003E0000003E"> : tensor<1x8xf32>
// CHECK-NEXT:    %[[G:.*]] = xnn.fully_connected %[[R]], %[[F]] : (tensor<?x8xf32, #xnnc.dims<"T">>, tensor<1x8xf32>) -> tensor<?x1xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[G]] {new_shape = array<i64: 1, 0, 1>} : (tensor<?x1xf32, #xnnc.dims<"T">>) -> tensor<1x?x1xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @mean_last(%x: tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x1xf32, #xnnc.dims<"T">> {
    %y = xnn.static_reduce mean %x {axes = array<i64: -1>, flags = 64 : i32} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x1xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x1xf32, #xnnc.dims<"T">>
  }
}

// -----

// A mean over T: global average pooling counts T at run time.
// CHECK-LABEL: func.func @mean_over_t
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 0, 1, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x1x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.global_average_pooling_2d %[[R]] {flags = 64 : i32} : (tensor<1x?x1x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x1x8xf32>
// CHECK-NOT:     xnn.static_reduce
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @mean_over_t(%x: tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x8xf32> {
    %y = xnn.static_reduce mean %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x8xf32>
    func.return %y : tensor<1x1x8xf32>
  }
}

// -----

// Declined: a sum over T has no stock form (its [1, T] filter has no fixed size); the
// node stays (conversion keeps such a sum outside on the stock target).
// CHECK-LABEL: func.func @sum_over_t
// CHECK-NEXT:    xnn.static_reduce sum %x {xnn.declined = {"xnn-legalize-stock" = "symbolic size T: a sum over it: the [1, K] filter of a fully-connected node has a fixed K, and stock ExecuTorch has no reduce node"}, axes = array<i64: 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8xf32>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @sum_over_t(%x: tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8xf32> {
    %y = xnn.static_reduce sum %x {axes = array<i64: 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x8xf32>
    func.return %y : tensor<1x8xf32>
  }
}

// -----

// Declined: a max over T (a max-pooling window of T values has no fixed size).
// CHECK-LABEL: func.func @max_over_t
// CHECK-NEXT:    xnn.static_reduce max %x {xnn.declined = {"xnn-legalize-stock" = "symbolic size T: a max over it: a max-pooling window has a fixed size, and stock ExecuTorch has no reduce node"}
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @max_over_t(%x: tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x8xf32> {
    %y = xnn.static_reduce max %x {axes = array<i64: 1>, flags = 64 : i32} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x8xf32>
    func.return %y : tensor<1x1x8xf32>
  }
}

// -----

// A max over the static features of T rows: one 1x8 window, the T rows as channels.
// CHECK-LABEL: func.func @max_last
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<8x1x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 8, 0>} : (tensor<8x1x?xf32, #xnnc.dims<"T">>) -> tensor<1x1x8x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[P:.*]] = xnn.max_pooling_2d %[[R]] {pooling_height = 1 : i64, pooling_width = 8 : i64} : (tensor<1x1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x1x1x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_reshape %[[P]] {new_shape = array<i64: 1, 0, 1>} : (tensor<1x1x1x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x1xf32, #xnnc.dims<"T">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @max_last(%x: tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x1xf32, #xnnc.dims<"T">> {
    %y = xnn.static_reduce max %x {axes = array<i64: -1>, flags = 64 : i32} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x1xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x1xf32, #xnnc.dims<"T">>
  }
}

// -----

// A broadcast that keeps T (new_shape 0) and grows the static dims: an add of zeros that
// take 1 on T, so the add's own broadcasting gives [2, T, 4] at every size.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %[[Z:.*]] = xnn.constant #xnnc.weight<"broadcast.zeros", "0x{{0+}}"> : tensor<2x1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary add %x, %[[Z]] : (tensor<1x?x1xf32, #xnnc.dims<"T">>, tensor<2x1x4xf32>) -> tensor<2x?x4xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @broadcast(%x: tensor<1x?x1xf32, #xnnc.dims<"T">>) -> tensor<2x?x4xf32, #xnnc.dims<"T">> {
    %y = xnn.static_broadcast %x {new_shape = array<i64: 2, 0, 4>} : (tensor<1x?x1xf32, #xnnc.dims<"T">>) -> tensor<2x?x4xf32, #xnnc.dims<"T">>
    func.return %y : tensor<2x?x4xf32, #xnnc.dims<"T">>
  }
}

// -----

// A mean over a trailing T: no [1, T] filter has its size, so global average pooling takes
// it with one channel.
// CHECK-LABEL: func.func @mean_trailing_t
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 8, 0, 1, 1>} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<8x?x1x1xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.global_average_pooling_2d %[[R]] {flags = 64 : i32} : (tensor<8x?x1x1xf32, #xnnc.dims<"T">>) -> tensor<8x1x1x1xf32>
// CHECK-NOT:     xnn.static_reduce
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @mean_trailing_t(%x: tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x1xf32> {
    %y = xnn.static_reduce mean %x {axes = array<i64: 2>, flags = 64 : i32} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x1xf32>
    func.return %y : tensor<1x8x1xf32>
  }
}
