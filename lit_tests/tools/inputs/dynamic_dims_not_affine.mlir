// A dim expression outside the affine class (lit_tests/dialects/dynamic_shapes.mlir).
func.func @not_affine(%x : tensor<1x?xf32, #xnnc.dims<"T*T">>) {
  func.return
}
