// RUN: xnn-opt %s --split-input-file -p xnn-layout | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-layout{reshapes=false}' | filecheck %s --check-prefix=NORESHAPE

// An NHWC -> NCHW -> NHWC pair cancels.
// CHECK-LABEL: func.func @cancel_pair
// CHECK-NEXT:    func.return %x
func.func @cancel_pair(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %b = xnn.static_transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %b : tensor<1x4x4x8xf32>
}

// -----

// Two transposes that do not cancel compose into one.
// CHECK-LABEL: func.func @compose_pair
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @compose_pair(%x: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x2x4xf32>
  %b = xnn.static_transpose %a {perm = array<i64: 0, 3, 2, 1>} : (tensor<1x3x2x4xf32>) -> tensor<1x4x2x3xf32>
  func.return %b : tensor<1x4x2x3xf32>
}

// -----

// Two transposes stay two when the one they would compose into is a copy of higher rank
// than either (dims that move together merged): NCHW -> NHWC (rank 2) then a space-to-depth
// (rank 4) would be a rank-5 copy of single elements, which XNNPACK runs element by element.
// CHECK-LABEL: func.func @compose_only_into_no_harder_copy
// CHECK-NEXT:    %[[A:.*]] = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 4, 5, 1>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_transpose %[[A]] {perm = array<i64: 0, 1, 3, 2, 4, 5>}
// CHECK-NEXT:    func.return %[[B]]
func.func @compose_only_into_no_harder_copy(%x: tensor<1x3x4x2x4x2xi8>) -> tensor<1x4x4x2x2x3xi8> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 2, 3, 4, 5, 1>} : (tensor<1x3x4x2x4x2xi8>) -> tensor<1x4x2x4x2x3xi8>
  %b = xnn.static_transpose %a {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<1x4x2x4x2x3xi8>) -> tensor<1x4x4x2x2x3xi8>
  func.return %b : tensor<1x4x4x2x2x3xi8>
}

// -----

// A transpose that moves only unit dims next to a reshape is a reshape, and the two fold
// (a 1-D conv's output with one channel: [N, 1, L, 1] -> [N, L, 1] -> [N, 1, L]).
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 1, 16>} : (tensor<1x1x16x1xf32>) -> tensor<1x1x16xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @transpose_of_unit_dims(%x: tensor<1x1x16x1xf32>) -> tensor<1x1x16xf32> {
  %r = xnn.static_reshape %x {new_shape = array<i64: 1, 16, 1>} : (tensor<1x1x16x1xf32>) -> tensor<1x16x1xf32>
  %t = xnn.static_transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<1x16x1xf32>) -> tensor<1x1x16xf32>
  func.return %t : tensor<1x1x16xf32>
}

// -----

// Unary ops are layout-agnostic: the transpose sinks below and meets its inverse.
// CHECK-LABEL: func.func @unary
// CHECK-NEXT:    %[[E:.*]] = xnn.unary elu %x {alpha = 1.000000e+00 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    func.return %[[E]]
func.func @unary(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %e = xnn.unary elu %a {alpha = 1.0 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %b = xnn.static_transpose %e {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %b : tensor<1x4x4x8xf32>
}

// -----

// So are clamp and convert, which keeps its element types.
// CHECK-LABEL: func.func @clamp_convert
// CHECK-NEXT:    %[[C:.*]] = xnn.clamp %x {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[H:.*]] = xnn.convert %[[C]] : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf16>
// CHECK-NEXT:    func.return %[[H]]
func.func @clamp_convert(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf16> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %c = xnn.clamp %a {output_min = 0.0 : f32, output_max = 6.0 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %h = xnn.convert %c : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf16>
  %b = xnn.static_transpose %h {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf16>) -> tensor<1x4x4x8xf16>
  func.return %b : tensor<1x4x4x8xf16>
}

// -----

// Both operands transposed alike: the transpose is hoisted after the op.
// CHECK-LABEL: func.func @binary_both_transposed
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %x, %y {output_min = 0.000000e+00 : f32} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    func.return %[[A]]
func.func @binary_both_transposed(%x: tensor<1x4x4x8xf32>, %y: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %b = xnn.static_transpose %y {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %s = xnn.binary add %a, %b {output_min = 0.0 : f32} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %t = xnn.static_transpose %s {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %t : tensor<1x4x4x8xf32>
}

// -----

// A full-size constant operand is permuted at compile time (NCHW -> NHWC here).
// CHECK-LABEL: func.func @binary_constant
// CHECK-NEXT:    %[[C:.*]] = xnn.constant dense<{{\[\[\[}}[1.000000e+00, 5.000000e+00], [2.000000e+00, 6.000000e+00]], {{\[}}[3.000000e+00, 7.000000e+00], [4.000000e+00, 8.000000e+00]]]]> : tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.binary subtract %[[C]], %x : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @binary_constant(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = xnn.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]]> : tensor<1x2x2x2xf32>
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = xnn.binary subtract %c, %a : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %t = xnn.static_transpose %s {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %t : tensor<1x2x2x2xf32>
}

// -----

// A [C, 1, 1] constant (batch norm's scale) follows NHWC as [C].
// CHECK-LABEL: func.func @binary_broadcast_constant
// CHECK-NEXT:    %[[C:.*]] = xnn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.binary multiply %x, %[[C]] : (tensor<1x2x2x3xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @binary_broadcast_constant(%x: tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32> {
  %c = xnn.constant dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32>
  %m = xnn.binary multiply %a, %c : (tensor<1x3x2x2xf32>, tensor<3x1x1xf32>) -> tensor<1x3x2x2xf32>
  %t = xnn.static_transpose %m {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
  func.return %t : tensor<1x2x2x3xf32>
}

// -----

// A computed [C, 1, 1] operand is reshaped to [C]; an [H, W] one to [H, W, 1].
// CHECK-LABEL: func.func @binary_broadcast_values
// CHECK-NEXT:    %[[S:.*]] = xnn.static_reshape %s {new_shape = array<i64: 3>} : (tensor<3x1x1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.binary multiply %x, %[[S]] : (tensor<1x2x4x3xf32>, tensor<3xf32>) -> tensor<1x2x4x3xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.static_reshape %p {new_shape = array<i64: 2, 4, 1>} : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %[[M]], %[[P]] : (tensor<1x2x4x3xf32>, tensor<2x4x1xf32>) -> tensor<1x2x4x3xf32>
// CHECK-NEXT:    func.return %[[A]]
func.func @binary_broadcast_values(%x: tensor<1x2x4x3xf32>, %s: tensor<3x1x1xf32>, %p: tensor<2x4xf32>) -> tensor<1x2x4x3xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x4x3xf32>) -> tensor<1x3x2x4xf32>
  %m = xnn.binary multiply %a, %s : (tensor<1x3x2x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x2x4xf32>
  %b = xnn.binary add %m, %p : (tensor<1x3x2x4xf32>, tensor<2x4xf32>) -> tensor<1x3x2x4xf32>
  %t = xnn.static_transpose %b {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x2x4xf32>) -> tensor<1x2x4x3xf32>
  func.return %t : tensor<1x2x4x3xf32>
}

// -----

// A single-element operand takes no part: it stays as it is, on either side.
// CHECK-LABEL: func.func @binary_scalar
// CHECK-NEXT:    %[[H:.*]] = xnn.constant dense<5.000000e-01> : tensor<1xf32>
// CHECK-NEXT:    %[[D:.*]] = xnn.binary divide %[[H]], %x : (tensor<1xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    func.return %[[D]]
func.func @binary_scalar(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %h = xnn.constant dense<0.5> : tensor<1xf32>
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %d = xnn.binary divide %h, %a : (tensor<1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %t = xnn.static_transpose %d {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %t : tensor<1x4x4x8xf32>
}

// -----

// A pad's pads are permuted with the transpose: NCHW (H: 1 + 2, W: 3 + 0) to NHWC.
// CHECK-LABEL: func.func @pad
// CHECK-NEXT:    %[[P:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 3, 0>, post_paddings = array<i64: 0, 2, 0, 0>, padding_value = 1.000000e+00 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x7x7x8xf32>
// CHECK-NEXT:    func.return %[[P]]
func.func @pad(%x: tensor<1x4x4x8xf32>) -> tensor<1x7x7x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %p = xnn.static_constant_pad %a {pre_paddings = array<i64: 0, 0, 1, 3>, post_paddings = array<i64: 0, 0, 2, 0>, padding_value = 1.0 : f32} : (tensor<1x8x4x4xf32>) -> tensor<1x8x7x7xf32>
  %t = xnn.static_transpose %p {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x7x7x8xf32>
  func.return %t : tensor<1x7x7x8xf32>
}

// -----

// A channel concatenate (NCHW axis 1) becomes one on NHWC's axis 3.
// CHECK-LABEL: func.func @concatenate
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %x, %y {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x10xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @concatenate(%x: tensor<1x4x4x8xf32>, %y: tensor<1x4x4x2xf32>) -> tensor<1x4x4x10xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %b = xnn.static_transpose %y {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
  %c = xnn.concatenate %a, %b {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x10x4x4xf32>
  %t = xnn.static_transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x10x4x4xf32>) -> tensor<1x4x4x10xf32>
  func.return %t : tensor<1x4x4x10xf32>
}

// -----

// A slice's offsets and sizes are permuted with the transpose.
// CHECK-LABEL: func.func @slice
// CHECK-NEXT:    %[[S:.*]] = xnn.static_slice %x {offsets = array<i64: 0, 1, 0, 2>, sizes = array<i64: 1, 2, 4, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x2x4x3xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @slice(%x: tensor<1x4x4x8xf32>) -> tensor<1x2x4x3xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %s = xnn.static_slice %a {offsets = array<i64: 0, 2, 1, 0>, sizes = array<i64: 1, 3, 2, 4>} : (tensor<1x8x4x4xf32>) -> tensor<1x3x2x4xf32>
  %t = xnn.static_transpose %s {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x2x4xf32>) -> tensor<1x2x4x3xf32>
  func.return %t : tensor<1x2x4x3xf32>
}

// -----

// A mean over NCHW's H and W is one over NHWC's H and W; nothing is left to transpose.
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT:    %[[M:.*]] = xnn.static_reduce mean %x {axes = array<i64: 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @reduce(%x: tensor<1x4x4x8xf32>) -> tensor<1x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %m = xnn.static_reduce mean %a {axes = array<i64: 2, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  func.return %m : tensor<1x8xf32>
}

// -----

// A broadcast's new shape is permuted with the transpose. With C = 1 the first transpose
// moves no data, but it stays a transpose: its perm says which dim the broadcast expands.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %[[B:.*]] = xnn.static_broadcast %x {new_shape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @broadcast(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x8xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x1xf32>) -> tensor<1x1x4x4xf32>
  %b = xnn.static_broadcast %a {new_shape = array<i64: 1, 8, 4, 4>} : (tensor<1x1x4x4xf32>) -> tensor<1x8x4x4xf32>
  %t = xnn.static_transpose %b {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %t : tensor<1x4x4x8xf32>
}

// -----

// Conversion's 1-D form between two convs: reshape [N, L, C], transpose [0, 2, 1], the NCL
// ops, transpose [0, 2, 1], reshape [N, 1, L, C]. Everything stays [N, 1, L, C].
// CHECK-LABEL: func.func @conv1d_between
// CHECK-NEXT:    %[[E:.*]] = xnn.unary elu %x {alpha = 1.000000e+00 : f32} : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.static_constant_pad %[[E]] {pre_paddings = array<i64: 0, 0, 2, 0>, post_paddings = array<i64: 0, 0, 0, 0>} : (tensor<1x1x8x4xf32>) -> tensor<1x1x10x4xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %[[P]], %y : (tensor<1x1x10x4xf32>, tensor<1x1x10x4xf32>) -> tensor<1x1x10x4xf32>
// CHECK-NEXT:    func.return %[[A]]
// Without reshapes the transposes still cancel, but the reshapes stay where they were.
// NORESHAPE-LABEL: func.func @conv1d_between
// NORESHAPE-NEXT:    %r = xnn.static_reshape %x {new_shape = array<i64: 1, 8, 4>}
// NORESHAPE-NEXT:    xnn.unary elu %r
// NORESHAPE-NOT:     xnn.static_transpose
// NORESHAPE:         func.return
func.func @conv1d_between(%x: tensor<1x1x8x4xf32>, %y: tensor<1x1x10x4xf32>) -> tensor<1x1x10x4xf32> {
  %r = xnn.static_reshape %x {new_shape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %t = xnn.static_transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<1x8x4xf32>) -> tensor<1x4x8xf32>
  %e = xnn.unary elu %t {alpha = 1.0 : f32} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %p = xnn.static_constant_pad %e {pre_paddings = array<i64: 0, 0, 2>, post_paddings = array<i64: 0, 0, 0>} : (tensor<1x4x8xf32>) -> tensor<1x4x10xf32>
  %r2 = xnn.static_reshape %y {new_shape = array<i64: 1, 10, 4>} : (tensor<1x1x10x4xf32>) -> tensor<1x10x4xf32>
  %t2 = xnn.static_transpose %r2 {perm = array<i64: 0, 2, 1>} : (tensor<1x10x4xf32>) -> tensor<1x4x10xf32>
  %a = xnn.binary add %p, %t2 : (tensor<1x4x10xf32>, tensor<1x4x10xf32>) -> tensor<1x4x10xf32>
  %u = xnn.static_transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<1x4x10xf32>) -> tensor<1x10x4xf32>
  %v = xnn.static_reshape %u {new_shape = array<i64: 1, 1, 10, 4>} : (tensor<1x10x4xf32>) -> tensor<1x1x10x4xf32>
  func.return %v : tensor<1x1x10x4xf32>
}

// -----

// A 1-D subgraph input: the transpose sinks below the reshape that inserts H = 1 and becomes
// NCHW -> NHWC with H = 1, the one transpose left at the boundary.
// CHECK-LABEL: func.func @conv1d_input
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 8>} : (tensor<1x4x8xf32>) -> tensor<1x4x1x8xf32>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[R]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x1x8xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT:    func.return %[[T]]
// Without reshapes the transpose stops at the reshape.
// NORESHAPE-LABEL: func.func @conv1d_input
// NORESHAPE-NEXT:    %t = xnn.static_transpose %x {perm = array<i64: 0, 2, 1>}
// NORESHAPE-NEXT:    %r = xnn.static_reshape %t
func.func @conv1d_input(%x: tensor<1x4x8xf32>) -> tensor<1x1x8x4xf32> {
  %t = xnn.static_transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
  %r = xnn.static_reshape %t {new_shape = array<i64: 1, 1, 8, 4>} : (tensor<1x8x4xf32>) -> tensor<1x1x8x4xf32>
  func.return %r : tensor<1x1x8x4xf32>
}

// -----

// A reshape that both interleaves (a polyphase deconvolution's phases) and drops H = 1: its
// unit-dim part sinks through the slice and cancels, the interleave stays.
// CHECK-LABEL: func.func @interleave_slice
// CHECK-NEXT:    %[[I:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 1, 18, 4>} : (tensor<1x1x9x8xf32>) -> tensor<1x1x18x4xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.static_slice %[[I]] {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 16, 4>} : (tensor<1x1x18x4xf32>) -> tensor<1x1x16x4xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @interleave_slice(%x: tensor<1x1x9x8xf32>) -> tensor<1x1x16x4xf32> {
  %r = xnn.static_reshape %x {new_shape = array<i64: 1, 18, 4>} : (tensor<1x1x9x8xf32>) -> tensor<1x18x4xf32>
  %s = xnn.static_slice %r {offsets = array<i64: 0, 1, 0>, sizes = array<i64: 1, 16, 4>} : (tensor<1x18x4xf32>) -> tensor<1x16x4xf32>
  %u = xnn.static_reshape %s {new_shape = array<i64: 1, 1, 16, 4>} : (tensor<1x16x4xf32>) -> tensor<1x1x16x4xf32>
  func.return %u : tensor<1x1x16x4xf32>
}

// -----

// Left alone: a transpose feeding a node that is not layout-agnostic (fully_connected works
// on the innermost dim).
// CHECK-LABEL: func.func @left_alone_fully_connected
// CHECK-NEXT:    %w = xnn.constant
// CHECK-NEXT:    %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %y = xnn.fully_connected %a, %w
func.func @left_alone_fully_connected(%x: tensor<1x2x2x3xf32>) -> tensor<1x3x2x5xf32> {
  %w = xnn.constant dense<0.5> : tensor<5x2xf32>
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32>
  %y = xnn.fully_connected %a, %w : (tensor<1x3x2x2xf32>, tensor<5x2xf32>) -> tensor<1x3x2x5xf32>
  func.return %y : tensor<1x3x2x5xf32>
}

// -----

// Left alone: a subgraph output in NCHW with no inverse below it keeps its one transpose
// (after the elementwise op, as every transpose sinks).
// CHECK-LABEL: func.func @left_alone_output
// CHECK:         xnn.subgraph
// CHECK-NEXT:    ^bb0(%in: tensor<1x4x4x8xf32>):
// CHECK-NEXT:      %[[E:.*]] = xnn.unary tanh %in : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:      %[[T:.*]] = xnn.static_transpose %[[E]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:      xnn.output %[[T]]
func.func @left_alone_output(%x: tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32> {
  ^bb0(%in: tensor<1x4x4x8xf32>):
    %a = xnn.static_transpose %in {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
    %e = xnn.unary tanh %a : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    xnn.output %e : tensor<1x8x4x4xf32>
  }
  func.return %r : tensor<1x8x4x4xf32>
}

// -----

// Left alone: two full-size operands of which only one is transposed.
// CHECK-LABEL: func.func @left_alone_binary
// CHECK-NEXT:    %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %s = xnn.binary add %a, %y
func.func @left_alone_binary(%x: tensor<1x4x4x8xf32>, %y: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %a = xnn.static_transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %s = xnn.binary add %a, %y : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

// A transpose that also feeds an output stays for it and sinks through its other users only
// where the copy meets another layout change: not here (it would give each output its own
// transpose)...
// CHECK-LABEL: func.func @shared_with_an_output
// CHECK:         ^bb0(%in: tensor<1x4x4x8xf32>):
// CHECK-NEXT:      %a = xnn.static_transpose %in {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:      %e = xnn.unary tanh %a
// CHECK-NEXT:      xnn.output %a, %e
func.func @shared_with_an_output(%x: tensor<1x4x4x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %r:2 = xnn.subgraph(%x) : (tensor<1x4x4x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  ^bb0(%in: tensor<1x4x4x8xf32>):
    %a = xnn.static_transpose %in {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
    %e = xnn.unary tanh %a : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    xnn.output %a, %e : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
  }
  func.return %r#0, %r#1 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// ... but here, where it cancels with the transpose into NHWC below the tanh.
// CHECK-LABEL: func.func @shared_with_an_output_cancels
// CHECK:         ^bb0(%in: tensor<1x4x4x8xf32>):
// CHECK-NEXT:      %a = xnn.static_transpose %in {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:      %[[E:.*]] = xnn.unary tanh %in : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:      xnn.output %a, %[[E]]
func.func @shared_with_an_output_cancels(%x: tensor<1x4x4x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>) {
  %r:2 = xnn.subgraph(%x) : (tensor<1x4x4x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>) {
  ^bb0(%in: tensor<1x4x4x8xf32>):
    %a = xnn.static_transpose %in {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
    %e = xnn.unary tanh %a : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    %b = xnn.static_transpose %e {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
    xnn.output %a, %b : tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>
  }
  func.return %r#0, %r#1 : tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>
}
