// A stride-2 convolution of a symbolic length: its output length (T - 1) // 2 + 1 is no
// affine expression of T, so the verifier cannot check the result for every T.
func.func @strided(%x : tensor<1x4x?xf32, #xnnc.dims<"T">>) {
  %w = aten.constant #xnnc.weight<"c.weight"> : tensor<8x4x3xf32>
  %c = aten.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
  func.return
}
