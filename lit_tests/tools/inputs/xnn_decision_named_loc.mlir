func.func @named(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x2x8xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, group_input_channels = 8, group_output_channels = 32, xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule"}} : (tensor<1x1x8x8xf32>, tensor<32x1x2x8xf32>) -> tensor<1x1x7x32xf32> loc("encoder.conv1")
  func.return %y : tensor<1x1x7x32xf32>
}
