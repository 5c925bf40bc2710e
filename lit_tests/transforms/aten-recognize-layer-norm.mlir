// RUN: xnn-opt %s --split-input-file -p aten-recognize-layer-norm | filecheck %s

// (x - mean) / sqrt(var + eps), with torch.var: one layer norm over the last dim.
// CHECK-LABEL: func.func @with_var
// CHECK-NEXT:    %[[Y:.*]], %{{.*}}, %{{.*}} = aten.native_layer_norm %x : tensor<2x8xf32> {normalized_shape = array<i64: 8>, eps = 1.000000e-05 : f64} -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @with_var(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = aten.sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %v = aten.var %x {dim = array<i64: -1>, correction = 0 : i64, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %s = aten.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = aten.div %d, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// rsqrt(mean(d^2) + eps) * d over the last two dims: the variance spelled out.
// CHECK-LABEL: func.func @spelled_out
// CHECK-NEXT:    %[[Y:.*]], %{{.*}}, %{{.*}} = aten.native_layer_norm %x : tensor<2x3x4xf32> {normalized_shape = array<i64: 3, 4>, eps = 1.000000e-06 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @spelled_out(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %mu = aten.mean %x {dim = array<i64: 1, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %d = aten.sub %x, %mu : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %sq = aten.pow %d {scalar = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v = aten.mean %sq {dim = array<i64: 1, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %ve = aten.add %v {scalar = 1.0e-06 : f64} : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = aten.rsqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %y = aten.mul %r, %d : (tensor<2x1x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// The deviation has another user: the norm is raised and the deviation stays for it.
// CHECK-LABEL: func.func @deviation_used
// CHECK:         %[[D:.*]] = aten.sub %x
// CHECK:         %[[Y:.*]], %{{.*}}, %{{.*}} = aten.native_layer_norm %x
// CHECK-NOT:     aten.div
// CHECK:         func.return %[[Y]], %[[D]]
func.func @deviation_used(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %mu = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = aten.sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %v = aten.var %x {dim = array<i64: -1>, correction = 0 : i64, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %s = aten.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = aten.div %d, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y, %d : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Left alone: the unbiased variance (correction 1) is not layer norm's.
// CHECK-LABEL: func.func @unbiased
// CHECK-NOT:     aten.native_layer_norm
// CHECK:         aten.div
func.func @unbiased(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = aten.sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %v = aten.var %x {dim = array<i64: -1>, correction = 1 : i64, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %s = aten.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = aten.div %d, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// Left alone: normalized over a leading dim (not layer norm's trailing dims).
// CHECK-LABEL: func.func @leading_dim
// CHECK-NOT:     aten.native_layer_norm
// CHECK:         aten.div
func.func @leading_dim(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = aten.mean %x {dim = array<i64: 0>, keepdim = true} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %d = aten.sub %x, %mu : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %v = aten.var %x {dim = array<i64: 0>, correction = 0 : i64, keepdim = true} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %s = aten.sqrt %ve : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %y = aten.div %d, %s : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// Left alone: the mean and the variance reduce different dims.
// CHECK-LABEL: func.func @mismatched_dims
// CHECK-NOT:     aten.native_layer_norm
// CHECK:         aten.mul
func.func @mismatched_dims(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %mu = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %d = aten.sub %x, %mu : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %v = aten.var %x {dim = array<i64: 1, 2>, correction = 0 : i64, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = aten.rsqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %y = aten.mul %d, %r : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}
