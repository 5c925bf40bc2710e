// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn,xnn-legalize-stock | filecheck %s --check-prefix=STOCK

// Normalizations and _safe_softmax as compositions of XNNPACK nodes (conversion/norms.py,
// conversion/safe_softmax.py); stock ExecuTorch 1.5.1 runs every kind after xnn-legalize-stock.

// Layer norm: mean, deviation, mean of its square, rsqrt(var + eps), then the affine part.
// CHECK-LABEL: func.func @layer_norm
// CHECK:         %[[M:.*]] = xnn.static_reduce mean %[[X:.*]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[D:.*]] = xnn.binary subtract %[[X]], %[[M]]
// CHECK-NEXT:    %[[SQ:.*]] = xnn.unary square %[[D]]
// CHECK-NEXT:    %[[V:.*]] = xnn.static_reduce mean %[[SQ]] {axes = array<i64: 1>, flags = 64 : i32}
// CHECK-NEXT:    %[[EPS:.*]] = xnn.constant dense<1.000000e-05> : tensor<1xf32>
// CHECK-NEXT:    %[[VE:.*]] = xnn.binary add %[[V]], %[[EPS]]
// CHECK-NEXT:    %[[R:.*]] = xnn.unary reciprocal_square_root %[[VE]]
// CHECK-NEXT:    %[[N:.*]] = xnn.binary multiply %[[D]], %[[R]]
// CHECK:         %[[S:.*]] = xnn.binary multiply %[[N]], %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>)
// CHECK:         %{{.*}} = xnn.binary add %[[S]], %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>)
// Stock ExecuTorch has no reduce node: each mean is a fully connected with a 1/K filter.
// STOCK-LABEL: func.func @layer_norm
// STOCK-NOT:     xnn.static_reduce
// STOCK:         xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x1xf32>
// STOCK:         xnn.unary square
// STOCK:         xnn.fully_connected
func.func @layer_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %w = aten.constant dense<2.0> : tensor<8xf32>
  %b = aten.constant dense<0.5> : tensor<8xf32>
  %y:3 = aten.native_layer_norm %x : tensor<2x8xf32> weight %w : tensor<8xf32> bias %b : tensor<8xf32> {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  func.return %y#0 : tensor<2x8xf32>
}

// -----

// Group norm: [N, C, L] as [N, G, C / G, L], normalized over its last two dims, and back
// (the reshapes keep L whole, so the layout pass can run it channels-last).
// CHECK-LABEL: func.func @group_norm
// CHECK:         %[[G:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 2, 2, 6>}
// CHECK-NEXT:    xnn.static_reduce mean %[[G]] {axes = array<i64: 2, 3>, flags = 64 : i32}
// CHECK:         %[[N:.*]] = xnn.binary multiply
// CHECK-NEXT:    xnn.static_reshape %[[N]] {new_shape = array<i64: 1, 4, 6>}
// STOCK-LABEL: func.func @group_norm
// STOCK-NOT:     xnn.static_reduce
func.func @group_norm(%x: tensor<1x4x6xf32>) -> tensor<1x4x6xf32> {
  %y:3 = aten.native_group_norm %x : tensor<1x4x6xf32> {N = 1 : i64, C = 4 : i64, hxw = 6 : i64, group = 2 : i64, eps = 1.0e-05 : f64} -> tensor<1x4x6xf32>, tensor<1x2xf32>, tensor<1x2xf32>
  func.return %y#0 : tensor<1x4x6xf32>
}

// -----

// _safe_softmax: the all -inf row test in arithmetic, then softmax(max(x, c)) * (1 - m).
// CHECK-LABEL: func.func @safe_softmax
// CHECK:         %[[LO:.*]] = xnn.clamp %[[X:.*]] {output_min = -3.40282347e+38 : f32}
// CHECK-NEXT:    %[[INF:.*]] = xnn.binary subtract %[[LO]], %[[X]]
// CHECK-NEXT:    %[[E:.*]] = xnn.clamp %[[INF]] {output_max = 1.000000e+00 : f32}
// CHECK-NEXT:    %[[CNT:.*]] = xnn.static_reduce sum %[[E]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[K:.*]] = xnn.constant dense<-4.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[SHIFT:.*]] = xnn.binary add %[[CNT]], %[[K]]
// CHECK-NEXT:    %[[M:.*]] = xnn.clamp %[[SHIFT]] {output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[ONE:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.binary divide %[[ONE]], %[[M]] : (tensor<1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.unary abs %[[R]]
// CHECK-NEXT:    %[[C:.*]] = xnn.unary negate %[[A]]
// CHECK-NEXT:    %[[ONE2:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[KEEP:.*]] = xnn.binary subtract %[[ONE2]], %[[M]]
// CHECK-NEXT:    %[[L:.*]] = xnn.binary maximum %[[X]], %[[C]] : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.softmax %[[L]]
// CHECK-NEXT:    %{{.*}} = xnn.binary multiply %[[S]], %[[KEEP]]
// STOCK-LABEL: func.func @safe_softmax
// STOCK-NOT:     xnn.static_reduce
// STOCK:         xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<2x1xf32>
func.func @safe_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = aten._safe_softmax %x {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

// Unbiased variance: the biased one times K / (K - 1).
// CHECK-LABEL: func.func @var
// CHECK:         %[[V:.*]] = xnn.static_reduce mean %{{.*}} {axes = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.constant dense<1.250000e+00> : tensor<1xf32>
// CHECK-NEXT:    xnn.binary multiply %[[V]], %[[S]]
func.func @var(%x: tensor<2x5xf32>) -> tensor<2xf32> {
  %y = aten.var %x {dim = array<i64: 1>, correction = 1 : i64} : (tensor<2x5xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// bf16 is normalized in fp32 between converts.
// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK:         %[[X:.*]] = xnn.convert %{{.*}} : (tensor<2x8xbf16>) -> tensor<2x8xf32>
// CHECK-NEXT:    xnn.static_reduce mean %[[X]]
// CHECK:         %[[N:.*]] = xnn.binary multiply %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    xnn.convert %[[N]] : (tensor<2x8xf32>) -> tensor<2x8xbf16>
func.func @layer_norm_bf16(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %y:3 = aten.native_layer_norm %x : tensor<2x8xbf16> {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} -> tensor<2x8xbf16>, tensor<2x1xf32>, tensor<2x1xf32>
  func.return %y#0 : tensor<2x8xbf16>
}

// -----

// Left outside: the mean result is used (the lowering computes only the output).
// CHECK-LABEL: func.func @stats_used
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.native_layer_norm
func.func @stats_used(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %y:3 = aten.native_layer_norm %x : tensor<2x8xf32> {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  func.return %y#1 : tensor<2x1xf32>
}
