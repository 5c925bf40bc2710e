// RUN: xnn-opt %s --split-input-file -p xnn-fc-as-bmm | filecheck %s

// A recorded "bmm" decision: the filter [N, K] becomes the batch matmul's transposed
// right-hand side (broadcast over the batch), the bias an add that keeps the clamp.
// CHECK-LABEL: func.func @bias_and_clamp
// CHECK-NEXT:    %[[W:.*]] = xnn.constant
// CHECK-NEXT:    %[[B:.*]] = xnn.constant
// CHECK-NEXT:    %[[P:.*]] = xnn.batch_matrix_multiply %x, %[[W]] {flags = 1 : i32} : (tensor<2x4x16xf32>, tensor<4x16xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary add %[[P]], %[[B]] {xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "tuned", layer = "linear f32 8x16->4", times_ms = {fc = 2.000000e+00 : f64, bmm = 1.000000e+00 : f64}}, output_min = 0.000000e+00 : f32} : (tensor<2x4x4xf32>, tensor<4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @bias_and_clamp(%x: tensor<2x4x16xf32>) -> tensor<2x4x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x16xf32>
  %b = xnn.constant dense<1.000000e+00> : tensor<4xf32>
  %y = xnn.fully_connected %x, %w, %b {output_min = 0.0 : f32, xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "tuned", layer = "linear f32 8x16->4", times_ms = {fc = 2.0 : f64, bmm = 1.0 : f64}}} : (tensor<2x4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<2x4x4xf32>
  func.return %y : tensor<2x4x4xf32>
}

// -----

// Transposed weights ([K, N]) are bmm's right-hand side as they are.
// CHECK-LABEL: func.func @transposed_weights
// CHECK:         xnn.batch_matrix_multiply %x, %{{.*}} {xnn.decision = {{.*}}choice = "bmm"{{.*}}} : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
func.func @transposed_weights(%x: tensor<8x16xf16>) -> tensor<8x4xf16> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x4xf16>
  %y = xnn.fully_connected %x, %w {flags = 1 : i32, xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "tuned", layer = "linear f16 8x16->4", times_ms = {fc = 2.0 : f64, bmm = 1.0 : f64}}} : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
  func.return %y : tensor<8x4xf16>
}

// -----

// Left alone: a filter computed in the graph, a clamp with no bias to carry it, a rank-1
// input.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.batch_matrix_multiply
// CHECK:         func.return
func.func @left_alone(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %v: tensor<16xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) {
  %y = xnn.fully_connected %x, %w {xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "option", layer = "linear f32 8x16->4"}} : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %c = xnn.constant dense<5.000000e-01> : tensor<4x16xf32>
  %z = xnn.fully_connected %x, %c {output_max = 6.0 : f32, xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "option", layer = "linear f32 8x16->4"}} : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %u = xnn.fully_connected %v, %c {xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "option", layer = "linear f32 1x16->4"}} : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4xf32>
  func.return %y, %z, %u : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>
}

// -----

// Left alone, the rule's "fc" recorded: a filter whose memory two nodes read (an unrolled
// LSTM's steps); as batch matmuls, each would pack its own copy.
// CHECK-LABEL: func.func @shared_filter
// CHECK-NOT:     xnn.batch_matrix_multiply
// CHECK:         xnn.fully_connected {{.*}}choice = "fc", source = "rule", layer = "linear f32 8x4->2", why = "its filter is read by 2 nodes: XNNPACK packs a batch matmul's constant once per node"
// CHECK:         xnn.fully_connected {{.*}}choice = "fc", source = "rule"
func.func @shared_filter(%x: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %w = xnn.constant #xnnc.weight<"w", "0x0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"> : tensor<2x4xf32>
  %y = xnn.fully_connected %x, %w {xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "option", layer = "linear f32 8x4->2"}} : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  %z = xnn.fully_connected %x, %w {xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "option", layer = "linear f32 8x4->2"}} : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  func.return %y, %z : tensor<8x2xf32>, tensor<8x2xf32>
}
