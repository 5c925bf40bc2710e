// The cost model's decision for each strided deconvolution xnn-polyphase can rewrite: the
// static rule (cost.rules.polyphase, the same on every ISA), recorded on the op computing
// the layer; a recorded (tuned) decision is followed.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-polyphase' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-polyphase' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},canonicalize' | filecheck %s --check-prefix=ARM

// A dense kernel that is a multiple of the stride: polyphase.
// CHECK-LABEL: func.func @dense
// ARM-LABEL:   func.func @dense
// CHECK-NOT:   xnn.deconvolution_2d
// CHECK:       xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,0,0,0", why = "dense, kernel growth 1.00x <= 1.4 (1.15-1.95x)"}
// ARM:         xnn.decision = {form = "polyphase", choice = "polyphase", source = "unmeasured", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,0,0,0", why = "dense, kernel growth 1.00x <= 1.4 (1.15-1.95x); unmeasured on arm64"}
func.func @dense(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x12x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_height = 1 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x12x3xf32>
  func.return %y : tensor<1x1x12x3xf32>
}

// -----

// A dense 3x3 kernel at stride 2 grows 16/9 when padded: the deconvolution stays.
// CHECK-LABEL: func.func @dense_growth
// ARM-LABEL:   func.func @dense_growth
// CHECK:       xnn.deconvolution_2d {{.*}}xnn.decision = {form = "polyphase", choice = "deconvolution", source = "rule", layer = "deconv f32 1x4x4x2->3 g1 k3x3 s2x2 p0,0,0,0", why = "padding the kernel to the stride grows it 1.78x > 1.4"}
// ARM:         xnn.deconvolution_2d {{.*}}xnn.decision = {form = "polyphase", choice = "deconvolution", source = "unmeasured", layer = "deconv f32 1x4x4x2->3 g1 k3x3 s2x2 p0,0,0,0", why = "padding the kernel to the stride grows it 1.78x > 1.4; unmeasured on arm64"}
func.func @dense_growth(%x: tensor<1x4x4x2xf32>) -> tensor<1x9x9x3xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x3x3x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>) -> tensor<1x9x9x3xf32>
  func.return %y : tensor<1x9x9x3xf32>
}

// -----

// Depthwise: polyphase, whatever the kernel.
// CHECK-LABEL: func.func @depthwise
// ARM-LABEL:   func.func @depthwise
// CHECK-NOT:   xnn.deconvolution_2d
// CHECK:       xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", layer = "deconv f32 1x4x4x4->4 g4 k3x3 s2x2 p0,0,0,0", why = "depthwise: XNNPACK's depthwise deconvolution is slow (3-16x)"}
// ARM:         xnn.decision = {form = "polyphase", choice = "polyphase", source = "unmeasured", layer = "deconv f32 1x4x4x4->4 g4 k3x3 s2x2 p0,0,0,0", why = "depthwise: XNNPACK's depthwise deconvolution is slow (3-16x); unmeasured on arm64"}
func.func @depthwise(%x: tensor<1x4x4x4xf32>) -> tensor<1x9x9x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x3x3x1xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, groups = 4 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x9x9x4xf32>
  func.return %y : tensor<1x9x9x4xf32>
}

// -----

// A tuned "deconvolution" is followed, and a tuned "polyphase" overrides the growth rule.
// CHECK-LABEL: func.func @tuned
// ARM-LABEL:   func.func @tuned
// CHECK:       xnn.deconvolution_2d {{.*}}choice = "deconvolution", source = "tuned"
// CHECK:       xnn.decision = {form = "polyphase", choice = "polyphase", source = "tuned", layer = "deconv f32 1x4x4x2->3 g1 k3x3 s2x2 p0,0,0,0", times_ms = {deconvolution = 2.000000e+00 : f64, polyphase = 1.000000e+00 : f64}}
func.func @tuned(%x: tensor<1x1x5x2xf32>, %z: tensor<1x4x4x2xf32>) -> (tensor<1x1x12x3xf32>, tensor<1x9x9x3xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_height = 1 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, xnn.decision = {form = "polyphase", choice = "deconvolution", source = "tuned", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,0,0,0", times_ms = {deconvolution = 1.0 : f64, polyphase = 2.0 : f64}}} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x12x3xf32>
  %v = xnn.constant dense<5.000000e-01> : tensor<3x3x3x2xf32>
  %u = xnn.deconvolution_2d %z, %v {kernel_height = 3 : i64, kernel_width = 3 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, xnn.decision = {form = "polyphase", choice = "polyphase", source = "tuned", layer = "deconv f32 1x4x4x2->3 g1 k3x3 s2x2 p0,0,0,0", times_ms = {deconvolution = 2.0 : f64, polyphase = 1.0 : f64}}} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>) -> tensor<1x9x9x3xf32>
  func.return %y, %u : tensor<1x1x12x3xf32>, tensor<1x9x9x3xf32>
}

// -----

// A tuned "per-phase" is followed on a static size: one convolution per run of output phases
// (here one phase each), concatenated and interleaved, no crop. Where the output phases differ
// in length (11 outputs at stride 2) it has no form: the single convolution and its crop, the
// decision saying why.
// CHECK-LABEL: func.func @tuned_per_phase
// ARM-LABEL:   func.func @tuned_per_phase
// CHECK-COUNT-2: xnn.convolution_2d
// CHECK-NEXT:  xnn.concatenate {{.*}}xnn.decision = {form = "polyphase", choice = "per-phase", source = "tuned", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,1,0,1", times_ms = {{.*}}}
// CHECK-NEXT:  xnn.static_reshape
// CHECK:       xnn.convolution_2d {{.*}}xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,0,0,1", why = "per-phase convolutions need output phases of one length and a dense filter"}
// ARM:         xnn.convolution_2d {{.*}}xnn.decision = {form = "polyphase", choice = "polyphase", source = "rule", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,0,0,1", why = "per-phase convolutions need output phases of one length and a dense filter"}
func.func @tuned_per_phase(%x: tensor<1x1x5x2xf32>) -> (tensor<1x1x10x3xf32>, tensor<1x1x11x3xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %y = xnn.deconvolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_height = 1 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_right = 1 : i64, padding_left = 1 : i64, xnn.decision = {form = "polyphase", choice = "per-phase", source = "tuned", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,1,0,1", times_ms = {deconvolution = 2.0 : f64, polyphase = 1.5 : f64, "per-phase" = 1.0 : f64}}} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x10x3xf32>
  %v = xnn.constant dense<5.000000e-01> : tensor<3x1x4x2xf32>
  %u = xnn.deconvolution_2d %x, %v {kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_height = 1 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_left = 1 : i64, xnn.decision = {form = "polyphase", choice = "per-phase", source = "tuned", layer = "deconv f32 1x1x5x2->3 g1 k1x4 s1x2 p0,0,0,1", times_ms = {deconvolution = 2.0 : f64, polyphase = 1.5 : f64, "per-phase" = 1.0 : f64}}} : (tensor<1x1x5x2xf32>, tensor<3x1x4x2xf32>) -> tensor<1x1x11x3xf32>
  func.return %y, %u : tensor<1x1x10x3xf32>, tensor<1x1x11x3xf32>
}
