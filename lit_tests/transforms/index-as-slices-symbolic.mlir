// RUN: xnn-opt %s --split-input-file -p index-as-slices | filecheck %s
// RUN: xnn-opt %s --split-input-file -p fold-constants,index-as-slices,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// index-as-slices on symbolic sizes (issue 13). Replicate padding of H, decomposed, over
// T frames: the slices and the cat keep T (the slices failed to verify, typed from the
// symbolic shape without its expressions); lowered, each slice keeps T whole (size 0).
// CHECK-LABEL: func.func @replicate_rows_of_frames
// CHECK-NEXT:    %[[A:.*]] = aten.slice %x {dim = 2 : i64, start = 0 : i64, end = 1 : i64} : (tensor<1x2x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x1x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[B:.*]] = aten.slice %x {dim = 2 : i64, start = 3 : i64, end = 4 : i64} : (tensor<1x2x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x1x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    aten.cat %[[A]], %[[A]], %x, %[[B]], %[[B]] {dim = 2 : i64} : {{.*}} -> tensor<1x2x8x?xf32, #xnnc.dims<"T">>
// XNN-LABEL: func.func @replicate_rows_of_frames
// XNN:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 1, 0>} : (tensor<1x2x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x1x?xf32, #xnnc.dims<"T">>
// XNN:         xnn.concatenate {{.*}} {axis = 2 : i64} : {{.*}} -> tensor<1x2x8x?xf32, #xnnc.dims<"T">>
// XNN-NOT:     aten.
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @replicate_rows_of_frames(%x: tensor<1x2x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x8x?xf32, #xnnc.dims<"T">> {
    %i = aten.constant dense<[0, 0, 0, 1, 2, 3, 3, 3]> : tensor<8xi64>
    %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, none, #aten.operand<1>, none]]} : (tensor<1x2x4x?xf32, #xnnc.dims<"T">>, tensor<8xi64>) -> tensor<1x2x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x2x8x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// Declined: constant positions along the symbolic dim itself cover it at no size.
// CHECK-LABEL: func.func @positions_of_frames
// XNN-LABEL: func.func @positions_of_frames
// CHECK:         aten.generic "aten::index.Tensor"(%x, %{{.*}}) {xnn.declined = {"index-as-slices" = "symbolic size T: constant positions along it cover it at no size"}
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @positions_of_frames(%x: tensor<1x2x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x2xf32> {
    %i = aten.constant dense<[0, 1]> : tensor<2xi64>
    %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, none, #aten.operand<1>]]} : (tensor<1x2x?xf32, #xnnc.dims<"T">>, tensor<2xi64>) -> tensor<1x2x2xf32>
    func.return %y : tensor<1x2x2xf32>
  }
}
