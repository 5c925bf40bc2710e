// RUN: xnn-opt %s --split-input-file --verify-diagnostics | filecheck %s

// aten.select (aten::select.int): input[..., index, ...] at dim, which is dropped.
// CHECK-LABEL: func.func @select
// CHECK-NEXT:    %y = aten.select %x {dim = 0 : i64, index = -1 : i64} : (tensor<3x1x4xf32>) -> tensor<1x4xf32>
func.func @select(%x: tensor<3x1x4xf32>) -> tensor<1x4xf32> {
  %y = aten.select %x {dim = 0 : i64, index = -1 : i64} : (tensor<3x1x4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK: {{.*}}aten_select.mlir:[[# @LINE + 2]]:3: error: 'aten.select' op index 3 is out of range for dim 0 of size 3
func.func @select_index(%x: tensor<3x4xf32>) {
  %y = aten.select %x {dim = 0 : i64, index = 3 : i64} : (tensor<3x4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_select.mlir:[[# @LINE + 2]]:3: error: 'aten.select' op result shape [3, 4] should be [4]
func.func @select_keeps_dim(%x: tensor<3x4xf32>) {
  %y = aten.select %x {dim = 0 : i64, index = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_select.mlir:[[# @LINE + 2]]:3: error: 'aten.select' op dim 2 is out of range for rank 2
func.func @select_dim(%x: tensor<3x4xf32>) {
  %y = aten.select %x {dim = 2 : i64, index = 0 : i64} : (tensor<3x4xf32>) -> tensor<3xf32>
  func.return
}
