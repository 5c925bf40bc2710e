// RUN: xnn-opt %s --split-input-file -p xnn-legalize-outputs | filecheck %s

// xnn-legalize-outputs on symbolic sizes (issue 13). A subgraph over S rows whose outputs
// are its input (a squeeze canonicalization removed) and a value twice: the copies take
// the values' types, S included, so XNNPACK reshapes them with the rest.
// CHECK-LABEL: func.func @identity_and_repeat
// CHECK:         ^bb0(%[[A:.*]]: tensor<?x3xf32, #xnnc.dims<"S">>):
// CHECK-NEXT:      %[[R:.*]] = xnn.unary sigmoid %[[A]] : (tensor<?x3xf32, #xnnc.dims<"S">>) -> tensor<?x3xf32, #xnnc.dims<"S">>
// CHECK-NEXT:      %[[C0:.*]] = xnn.copy %[[A]] : (tensor<?x3xf32, #xnnc.dims<"S">>) -> tensor<?x3xf32, #xnnc.dims<"S">>
// CHECK-NEXT:      %[[C1:.*]] = xnn.copy %[[R]] : (tensor<?x3xf32, #xnnc.dims<"S">>) -> tensor<?x3xf32, #xnnc.dims<"S">>
// CHECK-NEXT:      xnn.output %[[C0]], %[[R]], %[[C1]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @identity_and_repeat(%x: tensor<?x3xf32, #xnnc.dims<"S">>) -> (tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>) {
    %r:3 = xnn.subgraph(%x) : (tensor<?x3xf32, #xnnc.dims<"S">>) -> (tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>) {
    ^bb0(%a: tensor<?x3xf32, #xnnc.dims<"S">>):
      %y = xnn.unary sigmoid %a : (tensor<?x3xf32, #xnnc.dims<"S">>) -> tensor<?x3xf32, #xnnc.dims<"S">>
      xnn.output %a, %y, %y : tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>
    }
    func.return %r#0, %r#1, %r#2 : tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>, tensor<?x3xf32, #xnnc.dims<"S">>
  }
}
