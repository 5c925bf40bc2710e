// The cost model's decision per fp16 layer in xnn-fp16-precision's auto mode: the static rule
// of the pinned target (cost.rules.fp16_native), recorded on the layer; a recorded (tuned)
// decision is followed on any target, and a native layer among fp32 ones keeps its converts.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,X86
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,X86
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,ARM
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2"},xnn-fp16-precision,xnn-fc-as-bmm' | filecheck %s --check-prefix=MOVED

// x86 (even with AVX512-FP16): fp32; arm64 with FP16 arithmetic: native.
// CHECK-LABEL: func.func @conv
// X86-NOT:     xnn.convert
// X86:         xnn.convolution_2d {{.*}}xnn.decision = {form = "fp16-compute", choice = "fp32", source = "rule", layer = "fp16 convolution_2d 1x4x4x2,2x1x1x2->1x4x4x2 group_input_channels=2 group_output_channels=2 kernel_height=1 kernel_width=1", why = "no XNNPACK fp16 arithmetic path for this CPU"}{{.*}} -> tensor<1x4x4x2xf32>
// X86-NEXT:    xnn.unary sigmoid {{.*}} -> tensor<1x4x4x2xf32>
// ARM:         xnn.convert {{.*}} -> tensor<1x4x4x2xf16>
// ARM:         xnn.convolution_2d {{.*}}xnn.decision = {form = "fp16-compute", choice = "native", source = "rule", {{.*}}why = "arm64 FP16 arithmetic"}{{.*}} -> tensor<1x4x4x2xf16>
// ARM-NEXT:    xnn.unary sigmoid {{.*}} -> tensor<1x4x4x2xf16>
func.func @conv(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>):
    %h = xnn.convert %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
    %w = xnn.constant dense<5.000000e-01> : tensor<2x1x1x2xf16>
    %y = xnn.convolution_2d %h, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>) -> tensor<1x4x4x2xf16>
    %z = xnn.unary sigmoid %y : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf16>
    %o = xnn.convert %z : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
    xnn.output %o : tensor<1x4x4x2xf32>
  }
  func.return %r : tensor<1x4x4x2xf32>
}

// -----

// A tuned "native" fully-connected on x86: it stays fp16 between converts while the other
// nodes compute in fp32; its fp16 input (the subgraph's) is read directly.
// CHECK-LABEL: func.func @tuned_native
// X86:         ^bb0(%[[A:.*]]: tensor<4x8xf16>):
// X86:         %[[F:.*]] = xnn.fully_connected %[[A]], {{.*}}choice = "native", source = "tuned"{{.*}} -> tensor<4x8xf16>
// X86-NEXT:    %[[W:.*]] = xnn.convert %[[F]] : (tensor<4x8xf16>) -> tensor<4x8xf32>
// X86-NEXT:    xnn.unary sigmoid %[[W]] : (tensor<4x8xf32>) -> tensor<4x8xf32>
// ARM:         xnn.fully_connected {{.*}}choice = "native", source = "tuned"{{.*}} -> tensor<4x8xf16>
// ARM-NEXT:    xnn.unary sigmoid {{.*}} -> tensor<4x8xf16>
func.func @tuned_native(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %r = xnn.subgraph(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>):
    %w = xnn.constant dense<5.000000e-01> : tensor<8x8xf16>
    %y = xnn.fully_connected %a, %w {xnn.decision = {form = "fp16-compute", choice = "native", source = "tuned", layer = "fp16 fully_connected 4x8,8x8->4x8", times_ms = {native = 1.0 : f64, fp32 = 2.0 : f64}}} : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
    %z = xnn.unary sigmoid %y : (tensor<4x8xf16>) -> tensor<4x8xf16>
    xnn.output %z : tensor<4x8xf16>
  }
  func.return %r : tensor<4x8xf16>
}

// -----

// A native fp16 linear layer that xnn-fc-as-bmm then rewrites (both decisions tuned, an
// array): the op computing the layer keeps both.
// MOVED-LABEL: func.func @moved
// MOVED:       xnn.batch_matrix_multiply {{.*}}xnn.decision = [{form = "fp16-compute", choice = "native", source = "tuned"{{.*}}}, {form = "fc-or-bmm", choice = "bmm", source = "tuned"{{.*}}}]{{.*}} -> tensor<4x8xf16>
func.func @moved(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %r = xnn.subgraph(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>):
    %w = xnn.constant dense<5.000000e-01> : tensor<8x8xf16>
    %y = xnn.fully_connected %a, %w {xnn.decision = [{form = "fp16-compute", choice = "native", source = "tuned", layer = "fp16 fc", times_ms = {native = 1.0 : f64, fp32 = 2.0 : f64}}, {form = "fc-or-bmm", choice = "bmm", source = "tuned", layer = "linear f16 4x8->8", times_ms = {fc = 2.0 : f64, bmm = 1.0 : f64}}]} : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
    xnn.output %y : tensor<4x8xf16>
  }
  func.return %r : tensor<4x8xf16>
}
