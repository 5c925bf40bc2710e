// A granularity other than tensor or token.
func.func @f(%x: tensor<4x!xnn.quant.dynamic<i8:f32, channel, eps 1.0e-05>>) {
  func.return
}
