// A malformed xnn.decision is one error line naming the op and its location.
// RUN: not xnn-opt %s -p xnn-conv-as-gemm 2>&1 | filecheck %s --check-prefix=BAD

// BAD:   xnn.convolution_2d at loc({{.*}}): xnn.decision: unknown conv-as-gemm choice 'winograd'; valid: direct, gemm
func.func @bad(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x2x8xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, group_input_channels = 8, group_output_channels = 32, xnn.decision = {form = "conv-as-gemm", choice = "winograd", source = "rule", layer = ""}} : (tensor<1x1x8x8xf32>, tensor<32x1x2x8xf32>) -> tensor<1x1x7x32xf32>
  func.return %y : tensor<1x1x7x32xf32>
}
