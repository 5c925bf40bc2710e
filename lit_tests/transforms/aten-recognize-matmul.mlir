// RUN: xnn-opt %s --split-input-file -p aten-recognize-matmul | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-recognize-matmul,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// Attention scores q @ k^T with a symbolic sequence length S, as torch.matmul decomposes
// them: the views fold [1, 4] into 4 and back; the one of [4, S, S] has two symbolic dims.
// CHECK-LABEL: func.func @scores
// CHECK-NEXT:    %[[Y:.*]] = aten.matmul %q, %k : (tensor<1x4x?x16xf32, #xnnc.dims<"S">>, tensor<1x4x16x?xf32, #xnnc.dims<"S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
// CHECK-NEXT:    func.return %[[Y]]
// XNN-LABEL: func.func @scores
// XNN:         xnn.batch_matrix_multiply %{{.*}}, %{{.*}} : (tensor<1x4x?x16xf32, #xnnc.dims<"S">>, tensor<1x4x16x?xf32, #xnnc.dims<"S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
// XNN-NOT:     xnn.static_reshape
// XNN:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @scores(%q: tensor<1x4x?x16xf32, #xnnc.dims<"S">>, %k: tensor<1x4x16x?xf32, #xnnc.dims<"S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">> {
    %e = aten.expand %q {size = array<i64: 1, 4, -9223372036854775808, 16>} : (tensor<1x4x?x16xf32, #xnnc.dims<"S">>) -> tensor<1x4x?x16xf32, #xnnc.dims<"S">>
    %a = aten.view %e {size = array<i64: 4, -9223372036854775808, 16>} : (tensor<1x4x?x16xf32, #xnnc.dims<"S">>) -> tensor<4x?x16xf32, #xnnc.dims<"S">>
    %f = aten.expand %k {size = array<i64: 1, 4, 16, -9223372036854775808>} : (tensor<1x4x16x?xf32, #xnnc.dims<"S">>) -> tensor<1x4x16x?xf32, #xnnc.dims<"S">>
    %b = aten.view %f {size = array<i64: 4, 16, -9223372036854775808>} : (tensor<1x4x16x?xf32, #xnnc.dims<"S">>) -> tensor<4x16x?xf32, #xnnc.dims<"S">>
    %c = aten.bmm %a, %b : (tensor<4x?x16xf32, #xnnc.dims<"S">>, tensor<4x16x?xf32, #xnnc.dims<"S">>) -> tensor<4x?x?xf32, #xnnc.dims<"S", "S">>
    %y = aten.view %c {size = array<i64: 1, 4, -9223372036854775808, -9223372036854775808>} : (tensor<4x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
    func.return %y : tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
  }
}

// -----

// Static sizes, without the expands: the same raising.
// CHECK-LABEL: func.func @static
// CHECK-NEXT:    aten.matmul %a, %b : (tensor<2x3x5x8xf32>, tensor<2x3x8x7xf32>) -> tensor<2x3x5x7xf32>
// CHECK-NEXT:    func.return
func.func @static(%a: tensor<2x3x5x8xf32>, %b: tensor<2x3x8x7xf32>) -> tensor<2x3x5x7xf32> {
  %a3 = aten.view %a {size = array<i64: 6, 5, 8>} : (tensor<2x3x5x8xf32>) -> tensor<6x5x8xf32>
  %b3 = aten.view %b {size = array<i64: 6, 8, 7>} : (tensor<2x3x8x7xf32>) -> tensor<6x8x7xf32>
  %c = aten.bmm %a3, %b3 : (tensor<6x5x8xf32>, tensor<6x8x7xf32>) -> tensor<6x5x7xf32>
  %y = aten.view %c {size = array<i64: 2, 3, 5, 7>} : (tensor<6x5x7xf32>) -> tensor<2x3x5x7xf32>
  func.return %y : tensor<2x3x5x7xf32>
}

// -----

// Left alone: the result is used as [6, 5, 7] too, so the bmm stays.
// CHECK-LABEL: func.func @result_used_folded
// CHECK:         aten.bmm
// CHECK-NOT:     aten.matmul
func.func @result_used_folded(%a: tensor<2x3x5x8xf32>, %b: tensor<2x3x8x7xf32>) -> (tensor<2x3x5x7xf32>, tensor<6x5x7xf32>) {
  %a3 = aten.view %a {size = array<i64: 6, 5, 8>} : (tensor<2x3x5x8xf32>) -> tensor<6x5x8xf32>
  %b3 = aten.view %b {size = array<i64: 6, 8, 7>} : (tensor<2x3x8x7xf32>) -> tensor<6x8x7xf32>
  %c = aten.bmm %a3, %b3 : (tensor<6x5x8xf32>, tensor<6x8x7xf32>) -> tensor<6x5x7xf32>
  %y = aten.view %c {size = array<i64: 2, 3, 5, 7>} : (tensor<6x5x7xf32>) -> tensor<2x3x5x7xf32>
  func.return %y, %c : tensor<2x3x5x7xf32>, tensor<6x5x7xf32>
}

// -----

// Left alone: the operands' batch dims differ ([2, 3] and [3, 2]), though both fold to 6.
// CHECK-LABEL: func.func @batch_dims_differ
// CHECK:         aten.bmm
// CHECK-NOT:     aten.matmul
func.func @batch_dims_differ(%a: tensor<2x3x5x8xf32>, %b: tensor<3x2x8x7xf32>) -> tensor<2x3x5x7xf32> {
  %a3 = aten.view %a {size = array<i64: 6, 5, 8>} : (tensor<2x3x5x8xf32>) -> tensor<6x5x8xf32>
  %b3 = aten.view %b {size = array<i64: 6, 8, 7>} : (tensor<3x2x8x7xf32>) -> tensor<6x8x7xf32>
  %c = aten.bmm %a3, %b3 : (tensor<6x5x8xf32>, tensor<6x8x7xf32>) -> tensor<6x5x7xf32>
  %y = aten.view %c {size = array<i64: 2, 3, 5, 7>} : (tensor<6x5x7xf32>) -> tensor<2x3x5x7xf32>
  func.return %y : tensor<2x3x5x7xf32>
}
