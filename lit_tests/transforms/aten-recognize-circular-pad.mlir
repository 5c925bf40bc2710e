// RUN: xnn-opt %s --split-input-file -p aten-recognize-circular-pad | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-recognize-circular-pad,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// F.pad(x, (2, 1), mode="circular") as to_edge decomposes it: x copied into an empty
// tensor, then each end filled from the other.
// CHECK-LABEL: func.func @circular_1d
// CHECK-NEXT:    %[[Y:.*]] = aten._pad_circular %x {pad = array<i64: 2, 1>} : (tensor<1x3x5xf32>) -> tensor<1x3x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
// XNN-LABEL: func.func @circular_1d
// XNN:         xnn.concatenate
// XNN-NOT:     aten.
func.func @circular_1d(%x: tensor<1x3x5xf32>) -> tensor<1x3x8xf32> {
  %e = aten.generic "dim_order_ops::_empty_dim_order"() {args = [[1 : i64, 3 : i64, 8 : i64]], kwargs = {dtype = f32, dim_order = [0 : i64, 1 : i64, 2 : i64]}} : () -> tensor<1x3x8xf32>
  %s0 = aten.slice %e {dim = 2 : i64, start = 2 : i64, end = 7 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x5xf32>
  %c0 = aten.generic "aten::copy"(%s0, %x) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<1x3x5xf32>, tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %w0 = aten.generic "aten::slice_scatter"(%e, %c0) {args = [#aten.operand<0>, #aten.operand<1>, 2 : i64, 2 : i64, 7 : i64]} : (tensor<1x3x8xf32>, tensor<1x3x5xf32>) -> tensor<1x3x8xf32>
  %s1 = aten.slice %w0 {dim = 2 : i64, start = 0 : i64, end = 2 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x2xf32>
  %s2 = aten.slice %w0 {dim = 2 : i64, start = 5 : i64, end = 7 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x2xf32>
  %c1 = aten.generic "aten::copy"(%s1, %s2) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %w1 = aten.generic "aten::slice_scatter"(%w0, %c1) {args = [#aten.operand<0>, #aten.operand<1>, 2 : i64, 0 : i64, 2 : i64]} : (tensor<1x3x8xf32>, tensor<1x3x2xf32>) -> tensor<1x3x8xf32>
  %s3 = aten.slice %w1 {dim = 2 : i64, start = 7 : i64, end = 8 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x1xf32>
  %s4 = aten.slice %w1 {dim = 2 : i64, start = 2 : i64, end = 3 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x1xf32>
  %c2 = aten.generic "aten::copy"(%s3, %s4) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<1x3x1xf32>, tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  %w2 = aten.generic "aten::slice_scatter"(%w1, %c2) {args = [#aten.operand<0>, #aten.operand<1>, 2 : i64, 7 : i64, 8 : i64]} : (tensor<1x3x8xf32>, tensor<1x3x1xf32>) -> tensor<1x3x8xf32>
  func.return %w2 : tensor<1x3x8xf32>
}

// -----

// Left alone: the right end is never written, so the result is not a function of x.
// CHECK-LABEL: func.func @undefined_end
// CHECK-NOT:     aten._pad_circular
// CHECK:         aten.generic "aten::slice_scatter"
// CHECK:         aten.generic "aten::slice_scatter"
// XNN-LABEL: func.func @undefined_end
// XNN:           aten.generic "aten::slice_scatter"
func.func @undefined_end(%x: tensor<1x3x5xf32>) -> tensor<1x3x8xf32> {
  %e = aten.generic "dim_order_ops::_empty_dim_order"() {args = [[1 : i64, 3 : i64, 8 : i64]], kwargs = {dtype = f32, dim_order = [0 : i64, 1 : i64, 2 : i64]}} : () -> tensor<1x3x8xf32>
  %s0 = aten.slice %e {dim = 2 : i64, start = 2 : i64, end = 7 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x5xf32>
  %c0 = aten.generic "aten::copy"(%s0, %x) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<1x3x5xf32>, tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %w0 = aten.generic "aten::slice_scatter"(%e, %c0) {args = [#aten.operand<0>, #aten.operand<1>, 2 : i64, 2 : i64, 7 : i64]} : (tensor<1x3x8xf32>, tensor<1x3x5xf32>) -> tensor<1x3x8xf32>
  %s1 = aten.slice %w0 {dim = 2 : i64, start = 0 : i64, end = 2 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x2xf32>
  %s2 = aten.slice %w0 {dim = 2 : i64, start = 5 : i64, end = 7 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x2xf32>
  %c1 = aten.generic "aten::copy"(%s1, %s2) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %w1 = aten.generic "aten::slice_scatter"(%w0, %c1) {args = [#aten.operand<0>, #aten.operand<1>, 2 : i64, 0 : i64, 2 : i64]} : (tensor<1x3x8xf32>, tensor<1x3x2xf32>) -> tensor<1x3x8xf32>
  func.return %w1 : tensor<1x3x8xf32>
}

// -----

// Left alone: a reversal along the padded dim is a gather, but not circular padding.
// CHECK-LABEL: func.func @reversed
// CHECK-NOT:     aten._pad_circular
// CHECK:         func.return
func.func @reversed(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %e = aten.generic "aten::empty.memory_format"() {args = [[1 : i64, 2 : i64]]} : () -> tensor<1x2xf32>
  %s0 = aten.slice %x {dim = 1 : i64, start = 1 : i64, end = 2 : i64} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  %w0 = aten.generic "aten::slice_scatter"(%e, %s0) {args = [#aten.operand<0>, #aten.operand<1>, 1 : i64, 0 : i64, 1 : i64]} : (tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x2xf32>
  %s1 = aten.slice %x {dim = 1 : i64, start = 0 : i64, end = 1 : i64} : (tensor<1x2xf32>) -> tensor<1x1xf32>
  %w1 = aten.generic "aten::slice_scatter"(%w0, %s1) {args = [#aten.operand<0>, #aten.operand<1>, 1 : i64, 1 : i64, 2 : i64]} : (tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x2xf32>
  func.return %w1 : tensor<1x2xf32>
}
