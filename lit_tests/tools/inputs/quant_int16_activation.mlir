// A 16-bit activation: XNNPACK's qs8 nodes take int8 over the whole [-128, 127].
func.func @int16(%x: tensor<1x16x!xnn.quant.uniform<i16:f32, 0.05>>) -> tensor<1x16x!xnn.quant.uniform<i16:f32, 0.01>> {
  %0 = aten.sigmoid %x : (tensor<1x16x!xnn.quant.uniform<i16:f32, 0.05>>) -> tensor<1x16x!xnn.quant.uniform<i16:f32, 0.01>>
  func.return %0 : tensor<1x16x!xnn.quant.uniform<i16:f32, 0.01>>
}
