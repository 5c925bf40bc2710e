// RUN: xnn-opt %s --split-input-file -p aten-recognize-safe-softmax | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-recognize-safe-softmax,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN
// RUN: not xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock"},aten-recognize-safe-softmax,xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STOCK

// aten-recognize-safe-softmax on symbolic sizes (issue 13). The SDPA guard over S queries
// and S keys (attention with a dynamic sequence length): raised whole, S kept. Lowered,
// the fully-masked-row test is a mean (XNNPACK counts the S keys at each reshape), not a
// count compared with the row length. On the stock target it stays outside with the
// reason: the per-row mean of S keys in S rows has no stock form.
// CHECK-LABEL: func.func @guard_over_keys
// CHECK-NEXT:    %[[Y:.*]] = aten._safe_softmax %s {dim = 3 : i64} : (tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>
// CHECK-NEXT:    func.return %[[Y]]
// XNN-LABEL: func.func @guard_over_keys
// XNN:         xnn.static_reduce mean %{{.*}} {axes = array<i64: 3>, flags = 64 : i32} : (tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x1xf32, #xnnc.dims<"S">>
// XNN:         xnn.softmax %{{.*}} : (tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>
// XNN-NOT:     aten.
// STOCK: xnn-opt: error: 1 ops stayed outside XNNPACK: aten._safe_softmax at {{.*}} (_safe_softmax over S values in S rows: stock ExecuTorch has no reduce node, and its pooled per-row mean would need two symbolic dims)
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @guard_over_keys(%s: tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">> {
    %p = aten._softmax %s {dim = -1 : i64, half_to_float = false} : (tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>
    %e = aten.generic "aten::eq.Scalar"(%s) {args = [#aten.operand<0>, 0xFFF0000000000000 : f64]} : (tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xi1, #xnnc.dims<"S", "S">>
    %n = aten.generic "aten::logical_not"(%e) {args = [#aten.operand<0>]} : (tensor<1x2x?x?xi1, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xi1, #xnnc.dims<"S", "S">>
    %a = aten.generic "aten::any.dim"(%n) {args = [#aten.operand<0>, -1 : i64, true]} : (tensor<1x2x?x?xi1, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x1xi1, #xnnc.dims<"S">>
    %m = aten.generic "aten::logical_not"(%a) {args = [#aten.operand<0>]} : (tensor<1x2x?x1xi1, #xnnc.dims<"S">>) -> tensor<1x2x?x1xi1, #xnnc.dims<"S">>
    %z = aten.generic "aten::full_like"(%p) {args = [#aten.operand<0>, 0 : i64], kwargs = {pin_memory = false, memory_format = "torch.preserve_format"}} : (tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>
    %y = aten.where %m, %z, %p : (tensor<1x2x?x1xi1, #xnnc.dims<"S">>, tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>, tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>
    func.return %y : tensor<1x2x?x?xf32, #xnnc.dims<"S", "S">>
  }
}
