// RUN: xnn-opt %s --split-input-file -p aten-frames-as-conv | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-frames-as-conv,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// torch.stft's framing: 7 frames of 16 samples, 4 apart, of each of the 2 rows: a
// convolution whose output channel j reads tap j (an identity kernel), stride 4.
// CHECK-LABEL: func.func @unfold
// CHECK:         %[[V:.*]] = aten.view %x {size = array<i64: 2, 1, 40>}
// CHECK-NEXT:    %[[W:.*]] = aten.constant #xnnc.weight<"frames16"> : tensor<16x1x16xf32>
// CHECK-NEXT:    %[[C:.*]] = aten.convolution %[[V]], %[[W]] {stride = array<i64: 4>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, {{.*}}} : (tensor<2x1x40xf32>, tensor<16x1x16xf32>) -> tensor<2x16x7xf32>
// CHECK-NEXT:    %u = aten.permute %[[C]] {dims = array<i64: 0, 2, 1>} : (tensor<2x16x7xf32>) -> tensor<2x7x16xf32>
// XNN-LABEL: func.func @unfold
// XNN:         xnn.subgraph
// XNN:           xnn.convolution_2d
// XNN-NOT:     aten.
func.func @unfold(%x: tensor<2x40xf32>) -> tensor<2x7x16xf32> {
  %u = aten.generic "aten::unfold"(%x) {args = [#aten.operand<0>, -1, 16, 4]} : (tensor<2x40xf32>) -> tensor<2x7x16xf32>
  func.return %u : tensor<2x7x16xf32>
}

// -----

// torch.istft's overlap-add: 6 frames of 8 samples summed 4 apart from position 2 into 32
// samples of zeros: a transposed convolution with the identity kernel, padded by 2 on each
// side. The positions' constant and the zeros are gone.
// CHECK-LABEL: func.func @overlap_add
// CHECK:         %[[V:.*]] = aten.view %f {size = array<i64: 1, 6, 8>}
// CHECK-NEXT:    %[[P:.*]] = aten.permute %[[V]] {dims = array<i64: 0, 2, 1>} : (tensor<1x6x8xf32>) -> tensor<1x8x6xf32>
// CHECK-NEXT:    %[[W:.*]] = aten.constant #xnnc.weight<"frames8"> : tensor<8x1x8xf32>
// CHECK-NEXT:    %[[C:.*]] = aten.convolution %[[P]], %[[W]] {stride = array<i64: 4>, {{.*}}transposed = true{{.*}}} : (tensor<1x8x6xf32>, tensor<8x1x8xf32>) -> tensor<1x1x28xf32>
// CHECK-NEXT:    %[[D:.*]] = aten.constant_pad_nd %[[C]] {pad = array<i64: 2, 2>, value = 0.000000e+00 : f64}
// CHECK-NEXT:    %y = aten.view %[[D]] {size = array<i64: 1, 32>}
// CHECK-NEXT:    func.return %y
// XNN-LABEL: func.func @overlap_add
// XNN:         xnn.subgraph
// XNN:           xnn.deconvolution_2d
// XNN-NOT:     aten.
func.func @overlap_add(%f: tensor<1x48xf32>) -> tensor<1x32xf32> {
  %z = aten.constant dense<0.0> : tensor<1x32xf32>
  %i = aten.constant dense<[2, 3, 4, 5, 6, 7, 8, 9, 6, 7, 8, 9, 10, 11, 12, 13, 10, 11, 12, 13, 14, 15, 16, 17, 14, 15, 16, 17, 18, 19, 20, 21, 18, 19, 20, 21, 22, 23, 24, 25, 22, 23, 24, 25, 26, 27, 28, 29]> : tensor<48xi64>
  %y = aten.generic "aten::index_put"(%z, %i, %f) {args = [#aten.operand<0>, [none, #aten.operand<1>], #aten.operand<2>, true]} : (tensor<1x32xf32>, tensor<48xi64>, tensor<1x48xf32>) -> tensor<1x32xf32>
  func.return %y : tensor<1x32xf32>
}

// -----

// Without accumulate, index_put overwrites: no sum of frames, left alone (on torch).
// CHECK-LABEL: func.func @overwrite
// CHECK:         aten.generic "aten::index_put"
// XNN-LABEL: func.func @overwrite
// XNN:         aten.generic "aten::index_put"
func.func @overwrite(%f: tensor<1x48xf32>) -> tensor<1x32xf32> {
  %z = aten.constant dense<0.0> : tensor<1x32xf32>
  %i = aten.constant dense<[2, 3, 4, 5, 6, 7, 8, 9, 6, 7, 8, 9, 10, 11, 12, 13, 10, 11, 12, 13, 14, 15, 16, 17, 14, 15, 16, 17, 18, 19, 20, 21, 18, 19, 20, 21, 22, 23, 24, 25, 22, 23, 24, 25, 26, 27, 28, 29]> : tensor<48xi64>
  %y = aten.generic "aten::index_put"(%z, %i, %f) {args = [#aten.operand<0>, [none, #aten.operand<1>], #aten.operand<2>, false]} : (tensor<1x32xf32>, tensor<48xi64>, tensor<1x48xf32>) -> tensor<1x32xf32>
  func.return %y : tensor<1x32xf32>
}
