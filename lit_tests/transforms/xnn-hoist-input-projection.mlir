// RUN: xnn-opt %s --split-input-file -p xnn-hoist-input-projection | filecheck %s

// An nn.LSTMCell loop: x[t] (a slice and a reshape dropping the time dim) projected by the
// same weights at every step, each step with its own constant ops. One fully_connected over
// [T, B, C] replaces them; each step reads its row back.
// CHECK-LABEL: func.func @cell_loop
// CHECK:         %[[Y:.*]] = xnn.fully_connected %x, %{{.*}}, %{{.*}} : (tensor<3x1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<3x1x8xf32>
// CHECK-NEXT:    %[[S0:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 8>}
// CHECK-NEXT:    %[[G0:.*]] = xnn.static_reshape %[[S0]] {new_shape = array<i64: 1, 8>} : (tensor<1x1x8xf32>) -> tensor<1x8xf32>
// CHECK:         %[[S1:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 1, 8>}
// CHECK-NEXT:    %[[G1:.*]] = xnn.static_reshape %[[S1]]
// CHECK:         %[[S2:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 2, 0, 0>, sizes = array<i64: 1, 1, 8>}
// CHECK-NEXT:    %[[G2:.*]] = xnn.static_reshape %[[S2]]
// CHECK-NOT:     xnn.fully_connected
// CHECK:         func.return %[[G0]], %[[G1]], %[[G2]]
func.func @cell_loop(%x: tensor<3x1x4xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %w0 = xnn.constant dense<5.000000e-01> : tensor<8x4xf32>
  %b0 = xnn.constant dense<1.000000e-01> : tensor<8xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %r0 = xnn.static_reshape %x0 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %g0 = xnn.fully_connected %r0, %w0, %b0 : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %w1 = xnn.constant dense<5.000000e-01> : tensor<8x4xf32>
  %b1 = xnn.constant dense<1.000000e-01> : tensor<8xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %r1 = xnn.static_reshape %x1 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %g1 = xnn.fully_connected %r1, %w1, %b1 : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %x2 = xnn.static_slice %x {offsets = array<i64: 2, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %r2 = xnn.static_reshape %x2 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %g2 = xnn.fully_connected %r2, %w1, %b1 : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  func.return %g0, %g1, %g2 : tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// Batch-first [B, T, C] sliced along T in uneven chunks, read directly (no reshape), no
// bias, fused bounds alike: the slices of the hoisted product keep their shapes.
// CHECK-LABEL: func.func @batch_first_chunks
// CHECK:         %[[Y:.*]] = xnn.fully_connected %x, %{{.*}} {output_min = 0.000000e+00 : f32} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2, 2, 5>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 0, 2, 0>, sizes = array<i64: 2, 1, 5>}
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @batch_first_chunks(%x: tensor<2x3x4xf32>) -> (tensor<2x2x5xf32>, tensor<2x1x5xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<5x4xf32>
  %xa = xnn.static_slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2, 2, 4>} : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
  %xb = xnn.static_slice %x {offsets = array<i64: 0, 2, 0>, sizes = array<i64: 2, 1, 4>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %a = xnn.fully_connected %xa, %w {output_min = 0.000000e+00 : f32} : (tensor<2x2x4xf32>, tensor<5x4xf32>) -> tensor<2x2x5xf32>
  %b = xnn.fully_connected %xb, %w {output_min = 0.000000e+00 : f32} : (tensor<2x1x4xf32>, tensor<5x4xf32>) -> tensor<2x1x5xf32>
  func.return %a, %b : tensor<2x2x5xf32>, tensor<2x1x5xf32>
}

// -----

// A slice with another reader stays for it; the node that read it is still replaced.
// CHECK-LABEL: func.func @slice_with_another_user
// CHECK:         %[[X0:.*]] = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>}
// CHECK:         %[[Y:.*]] = xnn.fully_connected %x, %{{.*}} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK-NOT:     xnn.fully_connected
// CHECK:         func.return %{{.*}}, %{{.*}}, %[[X0]]
func.func @slice_with_another_user(%x: tensor<2x4xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x4xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x4xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %a = xnn.fully_connected %x0, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %b = xnn.fully_connected %x1, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %a, %b, %x0 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x4xf32>
}

// -----

// Left alone: the filters differ (the input and recurrent projections of a cell).
// CHECK-LABEL: func.func @different_filters
// CHECK-COUNT-2: xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
func.func @different_filters(%x: tensor<2x4xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x4xf32>
  %v = xnn.constant dense<5.000000e-01> : tensor<3x4xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %a = xnn.fully_connected %x0, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %b = xnn.fully_connected %x1, %v : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Left alone: one has a bias and the other not.
// CHECK-LABEL: func.func @different_bias
// CHECK-COUNT-2: xnn.fully_connected
func.func @different_bias(%x: tensor<2x4xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x4xf32>
  %bias = xnn.constant dense<1.000000e-01> : tensor<3xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %a = xnn.fully_connected %x0, %w, %bias : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %b = xnn.fully_connected %x1, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Left alone: the fused output bounds differ.
// CHECK-LABEL: func.func @different_bounds
// CHECK-COUNT-2: xnn.fully_connected
func.func @different_bounds(%x: tensor<2x4xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x4xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %a = xnn.fully_connected %x0, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %b = xnn.fully_connected %x1, %w {output_max = 1.000000e+00 : f32} : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Left alone: rows 0 and 2 of 3; the hoisted product would compute row 1 for nobody.
// CHECK-LABEL: func.func @gap
// CHECK-COUNT-2: xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
func.func @gap(%x: tensor<3x4xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x4xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %x2 = xnn.static_slice %x {offsets = array<i64: 2, 0>, sizes = array<i64: 1, 4>} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %a = xnn.fully_connected %x0, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %b = xnn.fully_connected %x2, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Left alone: the slices cut the features (the last dim), not rows.
// CHECK-LABEL: func.func @feature_slices
// CHECK-COUNT-2: xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
func.func @feature_slices(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x2xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 2>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 2, 2>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %a = xnn.fully_connected %x0, %w : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  %b = xnn.fully_connected %x1, %w : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Left alone: the reshape regroups the features ([1, 1, 4] -> [2, 2]), so rows of the
// product are not rows of the slice.
// CHECK-LABEL: func.func @reshape_changes_features
// CHECK-COUNT-2: xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
func.func @reshape_changes_features(%x: tensor<2x1x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x2xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<2x1x4xf32>) -> tensor<1x1x4xf32>
  %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<2x1x4xf32>) -> tensor<1x1x4xf32>
  %r0 = xnn.static_reshape %x0 {new_shape = array<i64: 2, 2>} : (tensor<1x1x4xf32>) -> tensor<2x2xf32>
  %r1 = xnn.static_reshape %x1 {new_shape = array<i64: 2, 2>} : (tensor<1x1x4xf32>) -> tensor<2x2xf32>
  %a = xnn.fully_connected %r0, %w : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  %b = xnn.fully_connected %r1, %w : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Left alone: a single node (nothing to share).
// CHECK-LABEL: func.func @single
// CHECK:         xnn.static_slice
// CHECK-NEXT:    xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
func.func @single(%x: tensor<2x4xf32>) -> tensor<1x3xf32> {
  %w = xnn.constant dense<2.500000e-01> : tensor<3x4xf32>
  %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  %a = xnn.fully_connected %x0, %w : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %a : tensor<1x3xf32>
}
