// RUN: xnn-opt %s --split-input-file -p xnn-legalize-outputs | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-legalize-outputs | xnn-opt --split-input-file -p xnn-legalize-outputs | filecheck %s

// An output that is the subgraph's input (an identity model), and an output repeated: each
// gets a copy node of its own; the first use of a value produced inside stays as it is.
// CHECK-LABEL: func.func @identity_and_repeat
// CHECK:         ^bb0(%[[A:.*]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[R:.*]] = xnn.unary sigmoid %[[A]]
// CHECK-NEXT:      %[[C0:.*]] = xnn.copy %[[A]]
// CHECK-NEXT:      %[[C1:.*]] = xnn.copy %[[R]]
// CHECK-NEXT:      xnn.output %[[C0]], %[[R]], %[[C1]]
func.func @identity_and_repeat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %r:3 = xnn.subgraph(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  ^bb0(%a: tensor<2x3xf32>):
    %y = xnn.unary sigmoid %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
    xnn.output %a, %y, %y : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
