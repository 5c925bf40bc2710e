// eps is the smallest scale: positive.
func.func @f(%x: tensor<4x!xnn.quant.dynamic<i8:f32, token, eps 0.0>>) {
  func.return
}
