// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn,xnn-legalize-stock --print-weights | filecheck %s --check-prefix=STOCK
// RUN: not xnn-opt %s --split-input-file -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// The ops models need beyond convolutions: log_softmax as a composition, the activations
// and their stock forms, and the reasons the ops XNNPACK cannot compute stay outside.

// log_softmax is s - log(sum(exp(s))) with s = x - max(x): never log(softmax(x)).
// Stock ExecuTorch has no reduce node: the max is a 1xK max-pooling window over the K
// reduced values with the kept ones as channels, the sum a fully_connected with ones.
// CHECK-LABEL: func.func @log_softmax_last
// CHECK:         %[[M:.*]] = xnn.static_reduce max %[[X:.*]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x10xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.binary subtract %[[X]], %[[M]] : (tensor<2x10xf32>, tensor<2x1xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %[[E:.*]] = xnn.unary exp %[[S]] : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_reduce sum %[[E]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x10xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[L:.*]] = xnn.unary log %[[T]] : (tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary subtract %[[S]], %[[L]] : (tensor<2x10xf32>, tensor<2x1xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
// CHECK-NOT:     xnn.softmax
// STOCK-LABEL: func.func @log_softmax_last
// STOCK:         %[[T:.*]] = xnn.static_transpose %[[X:.*]] {perm = array<i64: 1, 0>} : (tensor<2x10xf32>) -> tensor<10x2xf32>
// STOCK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 10, 2>} : (tensor<10x2xf32>) -> tensor<1x1x10x2xf32>
// STOCK-NEXT:    %[[P:.*]] = xnn.max_pooling_2d %[[R]] {pooling_height = 1 : i64, pooling_width = 10 : i64} : (tensor<1x1x10x2xf32>) -> tensor<1x1x1x2xf32>
// STOCK-NEXT:    %[[M:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 2, 1>} : (tensor<1x1x1x2xf32>) -> tensor<2x1xf32>
// STOCK-NEXT:    %[[S:.*]] = xnn.binary subtract %[[X]], %[[M]]
// STOCK-NEXT:    %[[E:.*]] = xnn.unary exp %[[S]]
// STOCK-NEXT:    %[[F:.*]] = xnn.constant #xnnc.weight<"reduce.filter", "0x0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"> : tensor<1x10xf32>
// STOCK-NEXT:    %[[G:.*]] = xnn.fully_connected %[[E]], %[[F]] : (tensor<2x10xf32>, tensor<1x10xf32>) -> tensor<2x1xf32>
// STOCK-NEXT:    %[[L:.*]] = xnn.unary log %[[G]]
// STOCK-NEXT:    xnn.binary subtract %[[S]], %[[L]]
// STOCK-NOT:     xnn.static_reduce
func.func @log_softmax_last(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = aten._log_softmax %x {dim = -1 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

// Over an inner dim (fp16): the reductions keep it as 1 and the subtractions broadcast; for
// stock, the max needs no transpose when the reduced dim comes first after the kept ones
// are moved behind it.
// CHECK-LABEL: func.func @log_softmax_channels
// CHECK:         xnn.static_reduce max %{{.*}} {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf16>) -> tensor<2x1x4xf16>
// CHECK:         xnn.static_reduce sum %{{.*}} {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf16>) -> tensor<2x1x4xf16>
// CHECK:         xnn.binary subtract %{{.*}}, %{{.*}} : (tensor<2x3x4xf16>, tensor<2x1x4xf16>) -> tensor<2x3x4xf16>
// STOCK-LABEL: func.func @log_softmax_channels
// STOCK:         xnn.static_transpose %{{.*}} {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf16>) -> tensor<3x2x4xf16>
// STOCK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 3, 8>}
// STOCK-NEXT:    xnn.max_pooling_2d %{{.*}} {pooling_height = 1 : i64, pooling_width = 3 : i64} : (tensor<1x1x3x8xf16>) -> tensor<1x1x1x8xf16>
// STOCK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 2, 1, 4>}
func.func @log_softmax_channels(%x: tensor<2x3x4xf16>) -> tensor<2x3x4xf16> {
  %y = aten._log_softmax %x {dim = 1 : i64, half_to_float = false} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
  func.return %y : tensor<2x3x4xf16>
}

// -----

// GELU: erf form as XNNPACK's gelu (stock XNNGelu), tanh form as approxgelu, an XNNUnary
// stock ExecuTorch lacks: for stock, x * sigmoid(x * (a + b x^2)) with a = 2 sqrt(2/pi) and
// b = 0.044715 a, since (1 + tanh(z)) / 2 = sigmoid(2z). SiLU is x * sigmoid(x).
// CHECK-LABEL: func.func @activations
// CHECK:         %[[G:.*]] = xnn.unary gelu %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.unary approxgelu %[[G]] : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.unary sigmoid %[[A]]
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary multiply %[[A]], %[[S]]
// CHECK-NEXT:    xnn.output %[[Y]]
// STOCK-LABEL: func.func @activations
// STOCK:         %[[G:.*]] = xnn.unary gelu %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// STOCK-NEXT:    %[[X2:.*]] = xnn.unary square %[[G]]
// STOCK-NEXT:    %[[B:.*]] = xnn.constant dense<0.0713548139> : tensor<1xf32>
// STOCK-NEXT:    %[[P:.*]] = xnn.binary multiply %[[X2]], %[[B]]
// STOCK-NEXT:    %[[A:.*]] = xnn.constant dense<1.59576917> : tensor<1xf32>
// STOCK-NEXT:    %[[Q:.*]] = xnn.binary add %[[P]], %[[A]]
// STOCK-NEXT:    %[[Z:.*]] = xnn.binary multiply %[[Q]], %[[G]]
// STOCK-NEXT:    %[[S:.*]] = xnn.unary sigmoid %[[Z]]
// STOCK-NEXT:    %[[T:.*]] = xnn.binary multiply %[[G]], %[[S]]
// STOCK-NEXT:    xnn.unary sigmoid %[[T]]
// STOCK-NOT:     approxgelu
func.func @activations(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %g = aten.gelu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = aten.gelu %g {approximate = "tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = aten.silu %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// XNNPACK 92a7ad50 has no comparison, select or gather, and no bool or int64 tensors:
// these stay outside, each with its reason; so does log_softmax with half_to_float (an fp16
// input, an fp32 result).
// CHECK-LABEL: func.func @outside
// CHECK-NOT:     xnn.subgraph
// STRICT: xnn-opt: error: 4 ops stayed outside XNNPACK: aten.generic aten::lt.Tensor (XNNPACK 92a7ad50 has no comparison operator {{.*}}); aten.where (XNNPACK 92a7ad50 has no select operator {{.*}}); aten.embedding (XNNPACK 92a7ad50 has no gather node {{.*}}); aten._log_softmax (half_to_float)
func.func @outside(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<2x3xi64>, %h: tensor<2x4xf16>) -> (tensor<4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>) {
  %c = aten.generic "aten::lt.Tensor"(%a, %b) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %y = aten.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w = aten.constant dense<0.5> : tensor<10x4xf32>
  %e = aten.embedding %w, %i : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %l = aten._log_softmax %h {dim = 1 : i64, half_to_float = true} : (tensor<2x4xf16>) -> tensor<2x4xf32>
  func.return %y, %e, %l : tensor<4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>
}
