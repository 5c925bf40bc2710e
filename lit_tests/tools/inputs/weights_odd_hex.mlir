// A weight with an odd number of hex digits.
func.func @f() -> tensor<2xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x0000803F0000004"> : tensor<2xf32>
  func.return %w : tensor<2xf32>
}
