// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s

// mean/sum with dtype= cast the input first (as torch does), then reduce in that dtype.
// CHECK-LABEL: func.func @mean_f16_to_f32
// CHECK:         %[[C:.*]] = xnn.convert %{{.*}} : (tensor<2x5xf16>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.static_reduce mean %[[C]] {axes = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.convert %{{.*}} : (tensor<2x5xf16>) -> tensor<2x5xf32>
// CHECK-NEXT:    xnn.static_reduce sum %[[S]] {axes = array<i64: 0, 1>, flags = 64 : i32} : (tensor<2x5xf32>) -> tensor<1x1xf32>
func.func @mean_f16_to_f32(%x: tensor<2x5xf16>) -> (tensor<2xf32>, tensor<1x1xf32>) {
  %m = aten.mean %x {dim = array<i64: 1>, dtype = f32} : (tensor<2x5xf16>) -> tensor<2xf32>
  %s = aten.sum %x {dim = array<i64: 0, 1>, keepdim = true, dtype = f32} : (tensor<2x5xf16>) -> tensor<1x1xf32>
  func.return %m, %s : tensor<2xf32>, tensor<1x1xf32>
}

// -----

// The input's own dtype: no convert.
// CHECK-LABEL: func.func @mean_same_dtype
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.static_reduce mean
func.func @mean_same_dtype(%x: tensor<2x5xf32>) -> tensor<2xf32> {
  %m = aten.mean %x {dim = array<i64: 1>, dtype = f32} : (tensor<2x5xf32>) -> tensor<2xf32>
  func.return %m : tensor<2xf32>
}

// -----

// Left outside: XNNPACK has no float64 and no int64.
// CHECK-LABEL: func.func @outside
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.mean %x {dim = array<i64: 1>, dtype = f64}
// CHECK:         aten.mean %i {dim = array<i64: 1>, dtype = f32}
func.func @outside(%x: tensor<2x5xf32>, %i: tensor<2x5xi64>) -> (tensor<2xf64>, tensor<2xf32>) {
  %m = aten.mean %x {dim = array<i64: 1>, dtype = f64} : (tensor<2x5xf32>) -> tensor<2xf64>
  %n = aten.mean %i {dim = array<i64: 1>, dtype = f32} : (tensor<2x5xi64>) -> tensor<2xf32>
  func.return %m, %n : tensor<2xf64>, tensor<2xf32>
}
