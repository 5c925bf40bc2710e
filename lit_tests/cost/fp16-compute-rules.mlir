// The cost model's decision per fp16 region in xnn-fp16-precision's auto mode (a maximal set
// of fp16 nodes connected by fp16 values around fp16 layers): the static rule of the pinned
// target (cost.rules.fp16_native), recorded on each layer of the region with the region named;
// a decision recorded (tuned) on a layer is followed by its whole region on any target; layers
// of one region whose recorded decisions disagree are followed one by one.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,X86
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,X86
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,ARM
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2"},xnn-fp16-precision,xnn-fc-as-bmm' | filecheck %s --check-prefix=MOVED

// x86 (even with AVX512-FP16): fp32; arm64 with FP16 arithmetic: native.
// CHECK-LABEL: func.func @conv
// X86-NOT:     xnn.convert
// X86:         xnn.convolution_2d {{.*}}xnn.decision = {form = "fp16-compute", choice = "fp32", source = "rule", layer = "fp16 region of 1 layer from convolution_2d 1x4x4x2,2x1x1x2->1x4x4x2 group_input_channels=2 group_output_channels=2 kernel_height=1 kernel_width=1 #{{[0-9a-f]+}}", why = "region of 1 fp16 layer, 2 nodes, from {{.*}}fp16-compute-rules.mlir:{{[0-9]+}}:5: no XNNPACK fp16 arithmetic path for this CPU"}{{.*}} -> tensor<1x4x4x2xf32>
// X86-NEXT:    xnn.unary sigmoid {{.*}} -> tensor<1x4x4x2xf32>
// ARM:         xnn.convert {{.*}} -> tensor<1x4x4x2xf16>
// ARM:         xnn.convolution_2d {{.*}}xnn.decision = {form = "fp16-compute", choice = "native", source = "unmeasured", {{.*}}why = "region of 1 fp16 layer, 2 nodes, from {{.*}}: arm64 FP16 arithmetic; unmeasured on arm64"}{{.*}} -> tensor<1x4x4x2xf16>
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

// A tuned "native" fully-connected on x86: its region (the sigmoid too) stays fp16, no
// converts; its fp16 input (the subgraph's) is read directly.
// CHECK-LABEL: func.func @tuned_native
// CHECK-NOT:   xnn.convert
// CHECK:       ^bb0(%[[A:.*]]: tensor<4x8xf16>):
// CHECK:       %[[F:.*]] = xnn.fully_connected %[[A]], {{.*}}choice = "native", source = "tuned"{{.*}} -> tensor<4x8xf16>
// CHECK-NEXT:  %[[S:.*]] = xnn.unary sigmoid %[[F]] : (tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT:  xnn.output %[[S]]
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

// Two regions, split by an fp32 tanh: the first follows the decision tuned on one of its
// layers (both convolutions and the sigmoid between them stay fp16, converts only at its
// boundary); the second, with no decision, the target's rule.
// CHECK-LABEL: func.func @two_regions
// X86:         %[[H:.*]] = xnn.convert %{{.*}} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
// X86-NEXT:    %[[W:.*]] = xnn.constant {{.*}} : tensor<2x1x1x2xf16>
// X86-NEXT:    %[[Y1:.*]] = xnn.convolution_2d %[[H]], %[[W]] {xnn.decision = {form = "fp16-compute", choice = "native", source = "tuned", layer = "fp16 region of 2 layers"{{.*}} -> tensor<1x4x4x2xf16>
// X86-NEXT:    %[[S:.*]] = xnn.unary sigmoid %[[Y1]] : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf16>
// X86-NEXT:    %[[Y2:.*]] = xnn.convolution_2d %[[S]], %[[W]] {xnn.decision = {form = "fp16-compute", choice = "native", source = "tuned", layer = "fp16 region of 2 layers"{{.*}} -> tensor<1x4x4x2xf16>
// X86-NEXT:    %[[F:.*]] = xnn.convert %[[Y2]] : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
// X86-NEXT:    %[[G:.*]] = xnn.unary tanh %[[F]]
// X86-NEXT:    %[[W32:.*]] = xnn.constant {{.*}} : tensor<2x1x1x2xf32>
// X86-NEXT:    %[[Y3:.*]] = xnn.convolution_2d %[[G]], %[[W32]] {xnn.decision = {form = "fp16-compute", choice = "fp32", source = "rule", layer = "fp16 region of 1 layer from convolution_2d {{.*}}", why = "region of 1 fp16 layer, 1 node, from {{.*}}"}{{.*}} -> tensor<1x4x4x2xf32>
// X86-NEXT:    xnn.output %[[Y3]]
// ARM-COUNT-3: choice = "native"
// ARM-NOT:     choice = "fp32"
func.func @two_regions(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>):
    %h = xnn.convert %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
    %w = xnn.constant dense<5.000000e-01> : tensor<2x1x1x2xf16>
    %y1 = xnn.convolution_2d %h, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64, xnn.decision = {form = "fp16-compute", choice = "native", source = "tuned", layer = "fp16 region of 2 layers", times_ms = {native = 1.0 : f64, fp32 = 2.0 : f64}}} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>) -> tensor<1x4x4x2xf16>
    %s1 = xnn.unary sigmoid %y1 : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf16>
    %y2 = xnn.convolution_2d %s1, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>) -> tensor<1x4x4x2xf16>
    %f = xnn.convert %y2 : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
    %g = xnn.unary tanh %f : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
    %h2 = xnn.convert %g : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
    %y3 = xnn.convolution_2d %h2, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>) -> tensor<1x4x4x2xf16>
    %o = xnn.convert %y3 : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
    xnn.output %o : tensor<1x4x4x2xf32>
  }
  func.return %r : tensor<1x4x4x2xf32>
}

// -----

// Layers of one region whose recorded decisions disagree (IR from before regions, or
// edited): each layer follows its own, the native one between converts; the sigmoid between
// them, in no layer's name, follows the target's rule.
// CHECK-LABEL: func.func @disagreeing
// X86:         xnn.convolution_2d {{.*}}choice = "native"{{.*}} -> tensor<1x4x4x2xf16>
// X86-NEXT:    xnn.convert {{.*}} -> tensor<1x4x4x2xf32>
// X86-NEXT:    xnn.unary sigmoid {{.*}} -> tensor<1x4x4x2xf32>
// X86:         xnn.convolution_2d {{.*}}choice = "fp32"{{.*}} -> tensor<1x4x4x2xf32>
func.func @disagreeing(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>):
    %h = xnn.convert %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
    %w = xnn.constant dense<5.000000e-01> : tensor<2x1x1x2xf16>
    %y1 = xnn.convolution_2d %h, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64, xnn.decision = {form = "fp16-compute", choice = "native", source = "tuned", layer = "fp16 convolution_2d", times_ms = {native = 1.0 : f64, fp32 = 2.0 : f64}}} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>) -> tensor<1x4x4x2xf16>
    %s1 = xnn.unary sigmoid %y1 : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf16>
    %y2 = xnn.convolution_2d %s1, %w {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64, xnn.decision = {form = "fp16-compute", choice = "fp32", source = "tuned", layer = "fp16 convolution_2d", times_ms = {native = 2.0 : f64, fp32 = 1.0 : f64}}} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>) -> tensor<1x4x4x2xf16>
    %o = xnn.convert %y2 : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
    xnn.output %o : tensor<1x4x4x2xf32>
  }
  func.return %r : tensor<1x4x4x2xf32>
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
