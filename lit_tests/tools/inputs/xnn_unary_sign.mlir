// An xnn.unary operator no stock node kind encodes (lit_tests/backend_xnnpack/xnnpack_target.mlir).
func.func @f(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = xnn.subgraph(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %s = xnn.unary sign %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    xnn.output %s : tensor<2x8xf32>
  }
  func.return %y : tensor<2x8xf32>
}
