// RUN: xnn-opt %s --split-input-file -p fold-constants --print-weights | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'fold-constants{shapes-only=true}' --print-weights | filecheck %s

// fold-constants on symbolic sizes (issue 13). Snake's 1 / (alpha + 2) folds (static),
// and the multiply of the S frames by it stays. LLaMA's `mask[:S]`: the static ops under
// it fold, the slice whose size is S cannot be a constant and stays (the program computes
// it once per size).
// CHECK-LABEL: func.func @mask_and_scale
// CHECK-NEXT:    %[[R:.*]] = aten.constant #xnnc.weight<"r.folded", "0x0000803E0000803E"> : tensor<1x2x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = aten.mul %x, %[[R]] : (tensor<1x2x?xf32, #xnnc.dims<"S">>, tensor<1x2x1xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"S">>
// CHECK-NEXT:    %[[N:.*]] = aten.constant #xnnc.weight<"neg.folded", "0x{{(000080BF)+}}"> : tensor<512x8xf32>
// CHECK-NEXT:    %[[M:.*]] = aten.slice %[[N]] {end = -9223372036854775808 : i64} : (tensor<512x8xf32>) -> tensor<?x8xf32, #xnnc.dims<"S">>
// CHECK-NEXT:    func.return %[[Y]], %[[M]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @mask_and_scale(%x: tensor<1x2x?xf32, #xnnc.dims<"S">>) -> (tensor<1x2x?xf32, #xnnc.dims<"S">>, tensor<?x8xf32, #xnnc.dims<"S">>) {
    %a = aten.constant dense<2.0> : tensor<1x2x1xf32>
    %s = aten.add %a {scalar = 2.0 : f64} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
    %r = aten.reciprocal %s : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
    %y = aten.mul %x, %r : (tensor<1x2x?xf32, #xnnc.dims<"S">>, tensor<1x2x1xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"S">>
    %mask = aten.constant dense<1.0> : tensor<512x8xf32>
    %neg = aten.neg %mask : (tensor<512x8xf32>) -> tensor<512x8xf32>
    %m = aten.slice %neg {end = -9223372036854775808 : i64} : (tensor<512x8xf32>) -> tensor<?x8xf32, #xnnc.dims<"S">>
    func.return %y, %m : tensor<1x2x?xf32, #xnnc.dims<"S">>, tensor<?x8xf32, #xnnc.dims<"S">>
  }
}
