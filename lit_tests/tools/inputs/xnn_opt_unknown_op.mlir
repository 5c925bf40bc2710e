// An op no registered dialect defines.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.frobnicate %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
