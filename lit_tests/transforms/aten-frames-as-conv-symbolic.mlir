// RUN: xnn-opt %s --split-input-file -p aten-frames-as-conv | filecheck %s

// aten-frames-as-conv on symbolic sizes (issue 13): a signal of T samples has no fixed
// number of frames, so its unfold (16 samples, 1 apart) stays as it is (on torch).
// CHECK-LABEL: func.func @unfold_of_t_samples
// CHECK-NEXT:    %u = aten.generic "aten::unfold"(%x)
// CHECK-NOT:     aten.convolution
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [64, 4096]>} {
  func.func @unfold_of_t_samples(%x: tensor<1x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf32, #xnnc.dims<"T - 15">> {
    %u = aten.generic "aten::unfold"(%x) {args = [#aten.operand<0>, -1, 16, 1]} : (tensor<1x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf32, #xnnc.dims<"T - 15">>
    func.return %u : tensor<1x?x16xf32, #xnnc.dims<"T - 15">>
  }
}
