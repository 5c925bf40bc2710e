// A 4-bit weight under a static int8 activation: XNNPACK's 4-bit filters serve qd8 only.
func.func @int4_static_weight(%x: tensor<1x32x!xnn.quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3>> {
  %w = aten.constant #xnnc.weight<"w4", "0x0102030405060701020304050607010203040506070102030405060701020304"> : tensor<2x32x!xnn.quant.uniform<i4:f32:0, {0.5, 0.25}>>
  %y = aten.linear %x, %w : (tensor<1x32x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<2x32x!xnn.quant.uniform<i4:f32:0, {0.5, 0.25}>>) -> tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3>>
  func.return %y : tensor<1x2x!xnn.quant.uniform<i8:f32, 0.3>>
}
