// A zero point outside the storage range: an error at the type.
func.func @f(%x: tensor<4x!xnn.quant.uniform<i8:f32, 0.5:-300>>) {
  func.return
}
