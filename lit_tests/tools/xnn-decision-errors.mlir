// A malformed xnn.decision is one error line naming where its op is: file:line:col for an op
// read without loc(...), as for a verifier error; else the op and its loc(...) after the
// tool's own prefix.
// RUN: not xnn-opt %s --split-input-file -p xnn-conv-as-gemm 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not xnn-opt %S/inputs/xnn_decision_named_loc.mlir -p xnn-conv-as-gemm 2>&1 | filecheck %s --check-prefix=NAMED

// BAD-NOT: Traceback
// BAD: {{^}}{{.*}}xnn-decision-errors.mlir:12:3: error: xnn.decision: unknown conv-as-gemm choice 'winograd'; valid: direct, gemm{{$}}
// BAD-NOT: {{.}}
func.func @bad(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x2x8xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, group_input_channels = 8, group_output_channels = 32, xnn.decision = {form = "conv-as-gemm", choice = "winograd", source = "rule", layer = ""}} : (tensor<1x1x8x8xf32>, tensor<32x1x2x8xf32>) -> tensor<1x1x7x32xf32>
  func.return %y : tensor<1x1x7x32xf32>
}

// NAMED-NOT: Traceback
// NAMED: {{^}}xnn-opt: error: xnn.convolution_2d at loc("encoder.conv1"): xnn.decision: 'layer' is missing{{$}}
// NAMED-NOT: {{.}}
