// RUN: xnn-opt %s --split-input-file -p aten-recognize-safe-softmax | filecheck %s

// The guard the SDPA decomposition puts around softmax, raised whole.
// CHECK-LABEL: func.func @guard
// CHECK-NEXT:    %[[Y:.*]] = aten._safe_softmax %s {dim = 3 : i64} : (tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @guard(%s: tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32> {
  %p = aten._softmax %s {dim = -1 : i64, half_to_float = false} : (tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0xFFF0000000000000 : f64]} : (tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xi1>
  %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<1x2x4x5xi1>) -> tensor<1x2x4x5xi1>
  %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, -1 : i64, true]} : (tensor<1x2x4x5xi1>) -> tensor<1x2x4x1xi1>
  %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<1x2x4x1xi1>) -> tensor<1x2x4x1xi1>
  %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 0 : i64], kwargs = {pin_memory = false, memory_format = "torch.preserve_format"}} : (tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %y = aten.where %m, %z, %p : (tensor<1x2x4x1xi1>, tensor<1x2x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  func.return %y : tensor<1x2x4x5xf32>
}

// -----

// Over another dim: the softmax's dim and any's agree.
// CHECK-LABEL: func.func @guard_dim1
// CHECK-NEXT:    aten._safe_softmax %s {dim = 1 : i64}
func.func @guard_dim1(%s: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %p = aten._softmax %s {dim = 1 : i64, half_to_float = false} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0xFFF0000000000000 : f64]} : (tensor<3x5xf32>) -> tensor<3x5xi1>
  %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<3x5xi1>) -> tensor<3x5xi1>
  %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, 1 : i64, true]} : (tensor<3x5xi1>) -> tensor<3x1xi1>
  %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<3x1xi1>) -> tensor<3x1xi1>
  %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 0 : i64]} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = aten.where %m, %z, %p : (tensor<3x1xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

// Left alone: the test is against 0, not -inf (not the guard).
// CHECK-LABEL: func.func @eq_zero
// CHECK-NOT:     aten._safe_softmax
// CHECK:         aten.where
func.func @eq_zero(%s: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %p = aten._softmax %s {dim = 1 : i64, half_to_float = false} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0.0 : f64]} : (tensor<3x5xf32>) -> tensor<3x5xi1>
  %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<3x5xi1>) -> tensor<3x5xi1>
  %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, 1 : i64, true]} : (tensor<3x5xi1>) -> tensor<3x1xi1>
  %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<3x1xi1>) -> tensor<3x1xi1>
  %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 0 : i64]} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = aten.where %m, %z, %p : (tensor<3x1xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

// Left alone: `any` runs over another dim than the softmax.
// CHECK-LABEL: func.func @other_dim
// CHECK-NOT:     aten._safe_softmax
// CHECK:         aten.where
func.func @other_dim(%s: tensor<5x5xf32>) -> tensor<5x5xf32> {
  %p = aten._softmax %s {dim = 1 : i64, half_to_float = false} : (tensor<5x5xf32>) -> tensor<5x5xf32>
  %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0xFFF0000000000000 : f64]} : (tensor<5x5xf32>) -> tensor<5x5xi1>
  %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<5x5xi1>) -> tensor<5x5xi1>
  %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, 0 : i64, true]} : (tensor<5x5xi1>) -> tensor<1x5xi1>
  %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<1x5xi1>) -> tensor<1x5xi1>
  %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 0 : i64]} : (tensor<5x5xf32>) -> tensor<5x5xf32>
  %y = aten.where %m, %z, %p : (tensor<1x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  func.return %y : tensor<5x5xf32>
}

// -----

// Left alone: the fill is 1, not 0.
// CHECK-LABEL: func.func @fill_one
// CHECK-NOT:     aten._safe_softmax
// CHECK:         aten.where
func.func @fill_one(%s: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %p = aten._softmax %s {dim = 1 : i64, half_to_float = false} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0xFFF0000000000000 : f64]} : (tensor<3x5xf32>) -> tensor<3x5xi1>
  %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<3x5xi1>) -> tensor<3x5xi1>
  %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, 1 : i64, true]} : (tensor<3x5xi1>) -> tensor<3x1xi1>
  %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<3x1xi1>) -> tensor<3x1xi1>
  %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 1 : i64]} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = aten.where %m, %z, %p : (tensor<3x1xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

// Left alone: the row test is used elsewhere too.
// CHECK-LABEL: func.func @mask_used_twice
// CHECK-NOT:     aten._safe_softmax
// CHECK:         aten.where
func.func @mask_used_twice(%s: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x1xi1>) {
  %p = aten._softmax %s {dim = 1 : i64, half_to_float = false} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0xFFF0000000000000 : f64]} : (tensor<3x5xf32>) -> tensor<3x5xi1>
  %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<3x5xi1>) -> tensor<3x5xi1>
  %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, 1 : i64, true]} : (tensor<3x5xi1>) -> tensor<3x1xi1>
  %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<3x1xi1>) -> tensor<3x1xi1>
  %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 0 : i64]} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = aten.where %m, %z, %p : (tensor<3x1xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y, %m : tensor<3x5xf32>, tensor<3x1xi1>
}
