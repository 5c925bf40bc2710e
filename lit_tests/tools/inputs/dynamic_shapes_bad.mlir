// A symbolic dim that does not match the op's shape rule (lit_tests/dialects/dynamic_shapes.mlir).
func.func @conv_wrong_dim(%x : tensor<1x4x?xf32, #xnnc.dims<"T">>) {
  %w = aten.constant #xnnc.weight<"c.weight"> : tensor<8x4x3xf32>
  %c = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T + 1">>
  func.return
}
