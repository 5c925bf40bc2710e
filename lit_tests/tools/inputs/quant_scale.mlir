// A negative scale: an error at the type.
func.func @f(%x: tensor<2x!xnn.quant.uniform<i8:f32:0, {0.5, -0.5}>>) {
  func.return
}
