// Malformed IR: the relu's type lacks its `->`.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu %x : (tensor<2x3xf32>) tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
