// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn,xnn-fold-pad | filecheck %s --check-prefix=FOLD

// Replicate: the edge element's slice, repeated in the concatenate. Channels-last, like
// the convolutions it feeds. [x0 x0 | x0..x4 | x4]
// CHECK-LABEL: func.func @replicate1d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x5x2xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 4, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %[[A]], %[[A]], %[[T]], %[[B]] {axis = 1 : i64} : (tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x5x2xf32>, tensor<1x1x2xf32>) -> tensor<1x8x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[C]] {perm = array<i64: 0, 2, 1>} : (tensor<1x8x2xf32>) -> tensor<1x2x8xf32>
func.func @replicate1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x8xf32> {
  %y = aten.replication_pad1d %x {padding = array<i64: 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x2x8xf32>
  func.return %y : tensor<1x2x8xf32>
}

// -----

// 2-D: the width first, then the height of the padded rows (corners included).
// CHECK-LABEL: func.func @replicate2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
// CHECK-NEXT:    %[[L:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 3, 1, 2>}
// CHECK-NEXT:    %[[W:.*]] = xnn.concatenate %[[L]], %[[T]] {axis = 2 : i64} : (tensor<1x3x1x2xf32>, tensor<1x3x4x2xf32>) -> tensor<1x3x5x2xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[W]] {offsets = array<i64: 0, 2, 0, 0>, sizes = array<i64: 1, 1, 5, 2>}
// CHECK-NEXT:    %[[H:.*]] = xnn.concatenate %[[W]], %[[B]], %[[B]] {axis = 1 : i64} : (tensor<1x3x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[H]] {perm = array<i64: 0, 3, 1, 2>}
func.func @replicate2d(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x5x5xf32> {
  %y = aten.replication_pad2d %x {padding = array<i64: 1, 0, 0, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x5xf32>
  func.return %y : tensor<1x2x5x5xf32>
}

// -----

// Replicate wider than XNNPACK's 5 concatenate inputs: each side is joined first.
// CHECK-LABEL: func.func @replicate_wide
// CHECK:         %[[T:.*]] = xnn.static_transpose
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 2, 0>
// CHECK-NEXT:    %[[L:.*]] = xnn.concatenate %[[A]], %[[A]], %[[A]], %[[A]] {axis = 1 : i64}
// CHECK-NEXT:    %[[R:.*]] = xnn.concatenate %[[B]], %[[B]] {axis = 1 : i64}
// CHECK-NEXT:    xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 1 : i64} : (tensor<1x4x2xf32>, tensor<1x3x2xf32>, tensor<1x2x2xf32>) -> tensor<1x9x2xf32>
func.func @replicate_wide(%x: tensor<1x2x3xf32>) -> tensor<1x2x9xf32> {
  %y = aten.replication_pad1d %x {padding = array<i64: 4, 2>} : (tensor<1x2x3xf32>) -> tensor<1x2x9xf32>
  func.return %y : tensor<1x2x9xf32>
}

// -----

// Circular: the other end's slice wrapped around. [x3 x4 | x0..x4 | x0]
// CHECK-LABEL: func.func @circular1d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 3, 0>, sizes = array<i64: 1, 2, 2>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %[[A]], %[[T]], %[[B]] {axis = 1 : i64} : (tensor<1x2x2xf32>, tensor<1x5x2xf32>, tensor<1x1x2xf32>) -> tensor<1x8x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[C]] {perm = array<i64: 0, 2, 1>}
func.func @circular1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x8xf32> {
  %y = aten._pad_circular %x {pad = array<i64: 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x2x8xf32>
  func.return %y : tensor<1x2x8xf32>
}

// -----

// 2-D; a pad as wide as the dim (PyTorch's limit) wraps the whole input: no slice.
// CHECK-LABEL: func.func @circular2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[L:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 3, 0>, sizes = array<i64: 1, 3, 1, 2>}
// CHECK-NEXT:    %[[R:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 3, 1, 2>}
// CHECK-NEXT:    %[[W:.*]] = xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 2 : i64} : (tensor<1x3x1x2xf32>, tensor<1x3x4x2xf32>, tensor<1x3x1x2xf32>) -> tensor<1x3x6x2xf32>
// CHECK-NEXT:    %[[H:.*]] = xnn.concatenate %[[W]], %[[W]] {axis = 1 : i64} : (tensor<1x3x6x2xf32>, tensor<1x3x6x2xf32>) -> tensor<1x6x6x2xf32>
func.func @circular2d(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x6x6xf32> {
  %y = aten._pad_circular %x {pad = array<i64: 1, 1, 0, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x6xf32>
  func.return %y : tensor<1x2x6x6xf32>
}

// -----

// Left outside: circular padding wider than the dim, negative padding (a crop).
// CHECK-LABEL: func.func @outside
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten._pad_circular
// CHECK:         aten.replication_pad1d
func.func @outside(%x: tensor<1x2x3xf32>) -> (tensor<1x2x7xf32>, tensor<1x2x4xf32>) {
  %y = aten._pad_circular %x {pad = array<i64: 4, 0>} : (tensor<1x2x3xf32>) -> tensor<1x2x7xf32>
  %z = aten.replication_pad1d %x {padding = array<i64: 2, -1>} : (tensor<1x2x3xf32>) -> tensor<1x2x4xf32>
  func.return %y, %z : tensor<1x2x7xf32>, tensor<1x2x4xf32>
}

// -----

// xnn-fold-pad folds zero constant pads only: the conv after a replicate pad keeps its
// own (zero) padding and reads the concatenated tensor.
// FOLD-LABEL: func.func @replicate_then_conv
// FOLD:         xnn.concatenate
// FOLD:         xnn.convolution_2d %{{.*}}, %{{.*}} {kernel_height = 3 : i64, kernel_width = 3 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x6x6x2xf32>
func.func @replicate_then_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = aten.constant dense<0.5> : tensor<2x2x3x3xf32>
  %p = aten.replication_pad2d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y = aten.convolution %p, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
