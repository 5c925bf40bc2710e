// A weight whose bytes are not hex digits.
func.func @f() -> tensor<2xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x0000803G00000040"> : tensor<2xf32>
  func.return %w : tensor<2xf32>
}
