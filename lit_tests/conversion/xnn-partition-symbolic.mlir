// RUN: xnn-opt %s --split-input-file -p xnn-partition | filecheck %s
// RUN: not xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock"},xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STOCK

// xnn-partition on symbolic sizes (issue 13). Size-generic ops group as on static sizes
// and the block arguments keep T; an op not lowered size-generic (log_softmax) splits the
// chain and stays outside with the reason. On the stock target a sum and a max over T
// stay outside too (stock has no reduce node, and their fully-connected and max-pooling
// forms have fixed sizes), while the mean over T (global average pooling) goes in.
// CHECK-LABEL: func.func @split_by_log_softmax
// CHECK-NEXT:    %[[A:.*]] = xnn.subgraph(%x) : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf32, #xnnc.dims<"T">> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x?x16xf32, #xnnc.dims<"T">>):
// CHECK-NEXT:      aten.tanh
// CHECK-NEXT:      xnn.output
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[L:.*]] = aten._log_softmax %[[A]]
// CHECK-NEXT:    %[[B:.*]] = xnn.subgraph(%[[L]])
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x?x16xf32, #xnnc.dims<"T">>):
// CHECK-NEXT:      aten.sum
// CHECK-NEXT:      aten.amax
// CHECK-NEXT:      aten.mean
// CHECK-NEXT:      xnn.output
// STOCK: xnn-opt: error: 3 ops stayed outside XNNPACK:
// STOCK-SAME: xnn-partition-symbolic.mlir:29:5: aten._log_softmax (symbolic shape tensor<1x?x16xf32, #xnnc.dims<"T">>: aten._log_softmax is not lowered size-generic yet)
// STOCK-SAME: xnn-partition-symbolic.mlir:30:5: aten.sum (a sum over the symbolic dim T: stock ExecuTorch has no reduce node, and its fully-connected and max-pooling forms have a fixed size)
// STOCK-SAME: xnn-partition-symbolic.mlir:31:5: aten.amax (a max over the symbolic dim T: stock ExecuTorch has no reduce node, and its fully-connected and max-pooling forms have a fixed size)
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @split_by_log_softmax(%x: tensor<1x?x16xf32, #xnnc.dims<"T">>) -> (tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>) {
    %t = aten.tanh %x : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf32, #xnnc.dims<"T">>
    %l = aten._log_softmax %t {dim = 1 : i64, half_to_float = false} : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf32, #xnnc.dims<"T">>
    %s = aten.sum %l {dim = array<i64: 1>} : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x16xf32>
    %m = aten.amax %l {dim = array<i64: 1>} : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x16xf32>
    %a = aten.mean %l {dim = array<i64: 1>} : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x16xf32>
    func.return %s, %m, %a : tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>
  }
}
