// Ops XNNPACK 92a7ad50 cannot compute, for xnn-partition{strict=true}'s reasons
// (lit_tests/conversion/xnn-partition.mlir).
func.func @outside(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<2x3xi64>, %h: tensor<2x4xf16>, %x: tensor<1x8x20x20xf32>) -> (tensor<4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<1x8x3x7xf32>) {
  %c = aten.generic "aten::lt.Tensor"(%a, %b) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %y = aten.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w = aten.constant dense<0.5> : tensor<10x4xf32>
  %e = aten.embedding %w, %i : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %l = aten._log_softmax %h {dim = 1 : i64, half_to_float = true} : (tensor<2x4xf16>) -> tensor<2x4xf32>
  %p = aten._adaptive_avg_pool2d %x {output_size = array<i64: 3, 7>} : (tensor<1x8x20x20xf32>) -> tensor<1x8x3x7xf32>
  func.return %y, %e, %l, %p : tensor<4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<1x8x3x7xf32>
}
