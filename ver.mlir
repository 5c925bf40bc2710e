// Parses, but aten.relu's verifier rejects the result shape.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu %x : (tensor<2x3xf32>) -> tensor<3x3xf32>
  func.return %x : tensor<2x3xf32>
}
