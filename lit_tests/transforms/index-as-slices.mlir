// RUN: xnn-opt %s --split-input-file -p index-as-slices | filecheck %s
// RUN: xnn-opt %s --split-input-file -p fold-constants,index-as-slices,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// Replicate padding as torch decomposes it: clamp(arange(-2, 6), 0, 3) = [0, 0, 0, 1, 2, 3, 3, 3]
// gathers rows; its runs [0], [0], [0..3], [3], [3] are slices (each once) and a cat.
// CHECK-LABEL: func.func @replicate
// CHECK:         %[[A:.*]] = aten.slice %x {dim = 2 : i64, start = 0 : i64, end = 1 : i64} : (tensor<1x2x4x5xf32>) -> tensor<1x2x1x5xf32>
// CHECK-NEXT:    %[[B:.*]] = aten.slice %x {dim = 2 : i64, start = 3 : i64, end = 4 : i64} : (tensor<1x2x4x5xf32>) -> tensor<1x2x1x5xf32>
// CHECK-NEXT:    %{{.*}} = aten.cat %[[A]], %[[A]], %x, %[[B]], %[[B]] {dim = 2 : i64} : (tensor<1x2x1x5xf32>, tensor<1x2x1x5xf32>, tensor<1x2x4x5xf32>, tensor<1x2x1x5xf32>, tensor<1x2x1x5xf32>) -> tensor<1x2x8x5xf32>
// CHECK-NOT:     aten.generic
// XNN-LABEL: func.func @replicate
// XNN:         xnn.subgraph
// XNN:           xnn.concatenate
// XNN-NOT:     aten.
func.func @replicate(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x8x5xf32> {
  %i = aten.constant dense<[0, 0, 0, 1, 2, 3, 3, 3]> : tensor<8xi64>
  %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, none, #aten.operand<1>, none]]} : (tensor<1x2x4x5xf32>, tensor<8xi64>) -> tensor<1x2x8x5xf32>
  func.return %y : tensor<1x2x8x5xf32>
}

// -----

// Reflect, with negative positions counted from the end: [1, 0, 1, 2, 3, -2] on 4 rows.
// CHECK-LABEL: func.func @reflect_negative
// XNN-LABEL: func.func @reflect_negative
// CHECK:         %[[A:.*]] = aten.slice %x {dim = 1 : i64, start = 1 : i64, end = 2 : i64}
// CHECK-NEXT:    %[[B:.*]] = aten.slice %x {dim = 1 : i64, start = 2 : i64, end = 3 : i64}
// CHECK-NEXT:    aten.cat %[[A]], %x, %[[B]] {dim = 1 : i64}
func.func @reflect_negative(%x: tensor<3x4xf32>) -> tensor<3x6xf32> {
  %i = aten.constant dense<[1, 0, 1, 2, 3, -2]> : tensor<6xi64>
  %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, #aten.operand<1>]]} : (tensor<3x4xf32>, tensor<6xi64>) -> tensor<3x6xf32>
  func.return %y : tensor<3x6xf32>
}

// -----

// Left alone: an index that is not a constant, two indexed dims.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-2: aten.generic "aten::index.Tensor"
func.func @left_alone(%x: tensor<3x4xf32>, %i: tensor<2xi64>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, #aten.operand<1>]]} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %j = aten.constant dense<[0, 1]> : tensor<2xi64>
  %z = aten.generic "aten::index.Tensor"(%x, %j, %j) {args = [#aten.operand<0>, [#aten.operand<1>, #aten.operand<2>]]} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  func.return %y, %z : tensor<3x2xf32>, tensor<2xf32>
}

// -----

// The index still computed from no tensor (as the partitioner sees it, before
// fold-constants): the arange/clamp chain is computed here and goes with the index.
// CHECK-LABEL: func.func @arange_chain
// CHECK-NOT:     aten.generic
// CHECK-NOT:     aten.clamp
// CHECK:         %[[A:.*]] = aten.slice %x {dim = 1 : i64, start = 0 : i64, end = 1 : i64}
// CHECK-NEXT:    %[[B:.*]] = aten.slice %x {dim = 1 : i64, start = 3 : i64, end = 4 : i64}
// CHECK-NEXT:    %[[Y:.*]] = aten.cat %[[A]], %[[A]], %x, %[[B]] {dim = 1 : i64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @arange_chain(%x: tensor<3x4xf32>) -> tensor<3x7xf32> {
  %a = aten.generic "aten::arange.start_step"() {args = [-2 : i64, 5 : i64], kwargs = {layout = "torch.strided", device = "cpu", pin_memory = false}} : () -> tensor<7xi64>
  %c = aten.clamp %a {min = 0 : i64, max = 3 : i64} : (tensor<7xi64>) -> tensor<7xi64>
  %y = aten.generic "aten::index.Tensor"(%x, %c) {args = [#aten.operand<0>, [none, #aten.operand<1>]]} : (tensor<3x4xf32>, tensor<7xi64>) -> tensor<3x7xf32>
  func.return %y : tensor<3x7xf32>
}

// -----

// Every position once, in order: the input itself.
// CHECK-LABEL: func.func @identity
// CHECK-NEXT:    func.return %x
func.func @identity(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %i = aten.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, #aten.operand<1>]]} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}
