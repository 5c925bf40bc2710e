// RUN: xnn-opt %s --split-input-file -p xnn-partition | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-partition{exclude="aten.tanh"}' | filecheck %s --check-prefix=EXCL
// RUN: not xnn-opt %s --split-input-file -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT
// RUN: not xnn-opt %S/../tools/inputs/xnn_partition_outside_reasons.mlir -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=REASONS

// A chain of supported ops becomes one subgraph; the constant is cloned into it.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[S:.*]] = xnn.subgraph(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[C:.*]] = aten.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:      %[[A:.*]] = aten.add %[[X]], %[[C]]
// CHECK-NEXT:      %[[T:.*]] = aten.tanh %[[A]]
// CHECK-NEXT:      xnn.output %[[T]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[S]] : tensor<2x3xf32>
// EXCL-LABEL: func.func @chain
// EXCL:         xnn.subgraph
// EXCL:           aten.add
// EXCL:           xnn.output
// EXCL:         aten.tanh
func.func @chain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = aten.constant dense<1.0> : tensor<3xf32>
  %a = aten.add %x, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = aten.tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %t : tensor<2x3xf32>
}

// -----

// An unsupported op in the middle splits the chain in two regions, in program order.
// CHECK-LABEL: func.func @split
// CHECK:         %[[A:.*]] = xnn.subgraph(%x)
// CHECK:           aten.relu
// CHECK:         %[[G:.*]] = aten.generic "aten::cumsum"(%[[A]])
// CHECK:         %[[B:.*]] = xnn.subgraph(%[[G]])
// CHECK:           aten.sigmoid
// CHECK:         func.return %[[B]]
// STRICT: xnn-opt: error: 1 ops stayed outside XNNPACK: {{.*}}xnn-partition.mlir:41:3: aten.cumsum (no xnn lowering)
func.func @split(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = aten.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %g = aten.generic "aten::cumsum"(%a) {args = [#aten.operand<0>, 0 : i64]} : (tensor<4xf32>) -> tensor<4xf32>
  %b = aten.sigmoid %g : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// Merging %a and %c would create a cycle through the unsupported %b: two regions.
// CHECK-LABEL: func.func @no_cycle
// CHECK:         %[[A:.*]] = xnn.subgraph(%x)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      aten.relu
// CHECK-NEXT:      xnn.output
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[B:.*]] = aten.generic "aten::cumsum"(%[[A]])
// CHECK-NEXT:    %[[C:.*]] = xnn.subgraph(%[[A]], %[[B]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      aten.add
func.func @no_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = aten.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = aten.generic "aten::cumsum"(%a) {args = [#aten.operand<0>, 0 : i64]} : (tensor<4xf32>) -> tensor<4xf32>
  %c = aten.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// Independent branches merge into one region with two outputs.
// CHECK-LABEL: func.func @siblings
// CHECK:         %[[A:.*]], %[[B:.*]] = xnn.subgraph(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         xnn.output
// CHECK:         func.return %[[A]], %[[B]]
func.func @siblings(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = aten.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = aten.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer math stays outside.
// CHECK-LABEL: func.func @integers
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.add
func.func @integers(%x: tensor<4xi64>) -> tensor<4xi64> {
  %a = aten.add %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  func.return %a : tensor<4xi64>
}

// Each op left outside says why: XNNPACK 92a7ad50 has no comparison, select or gather, and
// no bool or int64 tensors; log_softmax with half_to_float (fp16 in, fp32 out) is not lowered.
// REASONS: xnn-opt: error: 5 ops stayed outside XNNPACK: {{.*}}:4:3: aten.lt.Tensor (XNNPACK 92a7ad50 has no comparison operator {{.*}}); {{.*}}:5:3: aten.where (XNNPACK 92a7ad50 has no select operator {{.*}}); {{.*}}:7:3: aten.embedding (XNNPACK 92a7ad50 has no gather node {{.*}}); {{.*}}:8:3: aten._log_softmax (half_to_float); {{.*}}:9:3: aten._adaptive_avg_pool2d (adaptive pooling of [20, 20] to [3, 7]: the output does not divide the input{{.*}})

// -----

// A declaration has no body to partition: it passes through (it raised an internal error).
// CHECK-LABEL: func.func @external(tensor<2xf32>) -> tensor<2xf32>
// EXCL-LABEL:  func.func @external(tensor<2xf32>) -> tensor<2xf32>
func.func @external(%x: tensor<2xf32>) -> tensor<2xf32>
