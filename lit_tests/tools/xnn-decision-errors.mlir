// A malformed xnn.decision is one error line naming the op and its location; xnn-tune
// refuses a target other than this machine's CPU on the extended runtime.
// RUN: not xnn-opt %s -p xnn-conv-as-gemm 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not xnn-opt %s -p 'xnn-set-target{target="stock,arm64"},xnn-tune' 2>&1 | filecheck %s --check-prefix=CROSS
// RUN: not xnn-opt %s -p 'xnn-tune{form=winograd}' 2>&1 | filecheck %s --check-prefix=FORM

// BAD:   xnn.convolution_2d at loc({{.*}}): xnn.decision: unknown conv-as-gemm choice 'winograd'; valid: direct, gemm
// CROSS: xnn-tune: the module's target 'stock,arm64' is not this machine's CPU on the extended runtime; tuning times layers here (cross-compiles use the static rules)
// FORM:  xnn-tune: unknown form 'winograd'; valid: conv-as-gemm, bf16-gemm
func.func @bad(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x2x8xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, group_input_channels = 8, group_output_channels = 32, xnn.decision = {form = "conv-as-gemm", choice = "winograd", source = "rule", layer = ""}} : (tensor<1x1x8x8xf32>, tensor<32x1x2x8xf32>) -> tensor<1x1x7x32xf32>
  func.return %y : tensor<1x1x7x32xf32>
}
