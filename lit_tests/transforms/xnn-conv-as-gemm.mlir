// RUN: xnn-opt %s --split-input-file -p xnn-conv-as-gemm | filecheck %s --check-prefixes=CHECK,PASS
// RUN: xnn-opt %s --split-input-file -p 'xnn-conv-as-gemm{min-output-channels=4}' | filecheck %s --check-prefix=FEW
// RUN: xnn-opt %s --split-input-file -p 'xnn-conv-as-gemm{two-d=false}' | filecheck %s --check-prefix=ONE
// RUN: xnn-opt %s --split-input-file -p 'xnn-conv-as-gemm{ignore-target=true}' | filecheck %s --check-prefix=IGNORE

// The rewrite was measured on an AVX2 CPU without AVX-512 (transforms/conv_as_gemm.py), so each
// case pins that target; xnn-conv-as-gemm-target.mlir shows the targets it leaves alone.

// k3 with padding 1 / 1: a pad, three time slices, three fully-connected taps (the bias on
// the first) and two adds; the conv's clamp goes to the last add.
// CHECK-LABEL: func.func @k3_padded
// CHECK:         %[[P:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 0, 1, 0>, post_paddings = array<i64: 0, 0, 1, 0>} : (tensor<1x1x6x2xf32>) -> tensor<1x1x8x2xf32>
// CHECK-NEXT:    %[[S0:.*]] = xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[W0:.*]] = xnn.constant #xnnc.weight<"const.tap0"> : tensor<16x2xf32>
// CHECK-NEXT:    %[[F0:.*]] = xnn.fully_connected %[[S0]], %[[W0]], %[[B:.*]] : (tensor<1x1x6x2xf32>, tensor<16x2xf32>, tensor<16xf32>) -> tensor<1x1x6x16xf32>
// CHECK-NEXT:    %[[S1:.*]] = xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[W1:.*]] = xnn.constant #xnnc.weight<"const.tap1"> : tensor<16x2xf32>
// CHECK-NEXT:    %[[F1:.*]] = xnn.fully_connected %[[S1]], %[[W1]] : (tensor<1x1x6x2xf32>, tensor<16x2xf32>) -> tensor<1x1x6x16xf32>
// CHECK-NEXT:    %[[A1:.*]] = xnn.binary add %[[F0]], %[[F1]] : (tensor<1x1x6x16xf32>, tensor<1x1x6x16xf32>) -> tensor<1x1x6x16xf32>
// CHECK-NEXT:    %[[S2:.*]] = xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[W2:.*]] = xnn.constant #xnnc.weight<"const.tap2"> : tensor<16x2xf32>
// CHECK-NEXT:    %[[F2:.*]] = xnn.fully_connected %[[S2]], %[[W2]] : (tensor<1x1x6x2xf32>, tensor<16x2xf32>) -> tensor<1x1x6x16xf32>
// PASS-NEXT:     %[[Y:.*]] = xnn.binary add %[[A1]], %[[F2]] {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule", layer = "conv f32 1x1x6x2->16 k1x3 d1x1 p0,1,0,1", why = "AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)"}, output_min = 0.000000e+00 : f32} : (tensor<1x1x6x16xf32>, tensor<1x1x6x16xf32>) -> tensor<1x1x6x16xf32>
// IGNORE:        xnn.binary add {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "option", layer = "conv f32 1x1x6x2->16 k1x3 d1x1 p0,1,0,1", why = "ignore-target=true"}, output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @k3_padded(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x6x16xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %b = xnn.constant dense<1.000000e+00> : tensor<16xf32>
  %y = xnn.convolution_2d %x, %w, %b {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16, output_min = 0.0 : f32} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>, tensor<16xf32>) -> tensor<1x1x6x16xf32>
  func.return %y : tensor<1x1x6x16xf32>
}
}

// -----

// Dilation 3, no padding, no bias: taps start 3 samples apart.
// CHECK-LABEL: func.func @dilated
// CHECK-NOT:     xnn.static_constant_pad
// PASS:          xnn.static_slice %x {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 2, 1, 7, 4>}
// PASS:          xnn.static_slice %x {offsets = array<i64: 0, 0, 3, 0>, sizes = array<i64: 2, 1, 7, 4>}
// CHECK:         %[[Y:.*]] = xnn.binary add
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @dilated(%x: tensor<2x1x10x4xf32>) -> tensor<2x1x7x16xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x2x4xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, dilation_width = 3, group_input_channels = 4, group_output_channels = 16} : (tensor<2x1x10x4xf32>, tensor<16x1x2x4xf32>) -> tensor<2x1x7x16xf32>
  func.return %y : tensor<2x1x7x16xf32>
}
}

// -----

// Left alone: fewer than 16 output channels (unless min-output-channels allows them).
// CHECK-LABEL: func.func @few_channels
// CHECK:         xnn.convolution_2d
// FEW-LABEL:   func.func @few_channels
// FEW-NOT:       xnn.convolution_2d
// FEW:           xnn.fully_connected
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @few_channels(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x8xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<8x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 8} : (tensor<1x1x6x2xf32>, tensor<8x1x3x2xf32>) -> tensor<1x1x4x8xf32>
  func.return %y : tensor<1x1x4x8xf32>
}
}

// -----

// 2-D 3x3 with padding 1: nine taps, each a 2-D window of the padded input (the last at
// offsets 2, 2).
// CHECK-LABEL: func.func @two_d
// CHECK:         %[[P:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x3x6x4xf32>) -> tensor<1x5x8x4xf32>
// CHECK:         xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 3, 6, 4>}
// PASS-COUNT-9:  xnn.fully_connected
// PASS-NOT:      xnn.fully_connected
// CHECK-NOT:     xnn.convolution_2d
// ONE-LABEL:   func.func @two_d
// ONE:           xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @two_d(%x: tensor<1x3x6x4xf32>) -> tensor<1x3x6x16xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x3x3x4xf32>
  %y = xnn.convolution_2d %x, %w {padding_top = 1, padding_right = 1, padding_bottom = 1, padding_left = 1, kernel_height = 3, kernel_width = 3, group_input_channels = 4, group_output_channels = 16} : (tensor<1x3x6x4xf32>, tensor<16x3x3x4xf32>) -> tensor<1x3x6x16xf32>
  func.return %y : tensor<1x3x6x16xf32>
}
}

// -----

// Left alone: strided, 1x1, grouped, fp16 and elided-weight convolutions.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.fully_connected
// CHECK-COUNT-5: xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @left_alone(%l: tensor<1x1x9x4xf32>, %h: tensor<1x1x6x4xf16>) -> (tensor<1x1x4x16xf32>, tensor<1x1x9x16xf32>, tensor<1x1x7x16xf32>, tensor<1x1x4x16xf16>, tensor<1x1x7x16xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x4xf32>
  %b = xnn.convolution_2d %l, %w {kernel_height = 1, kernel_width = 3, subsampling_width = 2, group_input_channels = 4, group_output_channels = 16} : (tensor<1x1x9x4xf32>, tensor<16x1x3x4xf32>) -> tensor<1x1x4x16xf32>
  %w1 = xnn.constant dense<5.000000e-01> : tensor<16x1x1x4xf32>
  %c = xnn.convolution_2d %l, %w1 {kernel_height = 1, kernel_width = 1, group_input_channels = 4, group_output_channels = 16} : (tensor<1x1x9x4xf32>, tensor<16x1x1x4xf32>) -> tensor<1x1x9x16xf32>
  %wg = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %d = xnn.convolution_2d %l, %wg {kernel_height = 1, kernel_width = 3, groups = 2, group_input_channels = 2, group_output_channels = 8} : (tensor<1x1x9x4xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x7x16xf32>
  %wh = xnn.constant dense<5.000000e-01> : tensor<16x1x3x4xf16>
  %e = xnn.convolution_2d %h, %wh {kernel_height = 1, kernel_width = 3, group_input_channels = 4, group_output_channels = 16} : (tensor<1x1x6x4xf16>, tensor<16x1x3x4xf16>) -> tensor<1x1x4x16xf16>
  %we = xnn.constant #xnnc.weight<"elided"> : tensor<16x1x3x4xf32>
  %f = xnn.convolution_2d %l, %we {kernel_height = 1, kernel_width = 3, group_input_channels = 4, group_output_channels = 16} : (tensor<1x1x9x4xf32>, tensor<16x1x3x4xf32>) -> tensor<1x1x7x16xf32>
  func.return %b, %c, %d, %e, %f : tensor<1x1x4x16xf32>, tensor<1x1x9x16xf32>, tensor<1x1x7x16xf32>, tensor<1x1x4x16xf16>, tensor<1x1x7x16xf32>
}
}

// -----

// One output channel with a clamp: a depthwise convolution with the same window, then a
// fully-connected sum over the channels that takes the bias and the clamp.
// CHECK-LABEL: func.func @one_output_channel
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.depthwise"> : tensor<1x1x7x4xf32>
// CHECK-NEXT:    %[[D:.*]] = xnn.depthwise_convolution_2d %x, %[[W]] {kernel_height = 1 : i64, kernel_width = 7 : i64, input_channels = 4 : i64, padding_right = 3 : i64, padding_left = 3 : i64} : (tensor<1x1x20x4xf32>, tensor<1x1x7x4xf32>) -> tensor<1x1x20x4xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.constant #xnnc.weight<"const.channel_sum"> : tensor<1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.fully_connected %[[D]], %[[S]], %{{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule", layer = "conv f32 1x1x20x4->1 k1x7 d1x1 p0,3,0,3", why = "{{.*}}"}, output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32} : (tensor<1x1x20x4xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<1x1x20x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @one_output_channel(%x: tensor<1x1x20x4xf32>) -> tensor<1x1x20x1xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x7x4xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<1xf32>
  %y = xnn.convolution_2d %x, %w, %b {padding_right = 3, padding_left = 3, kernel_height = 1, kernel_width = 7, group_input_channels = 4, group_output_channels = 1, output_min = -1.0 : f32, output_max = 1.0 : f32} : (tensor<1x1x20x4xf32>, tensor<1x1x7x4xf32>, tensor<1xf32>) -> tensor<1x1x20x1xf32>
  func.return %y : tensor<1x1x20x1xf32>
}
}

// -----

// One output channel without a clamp, extended runtime: the bias rides on channel 0 of the
// depthwise convolution and XNNPACK's sum reduction adds the channels (XNN_FLAG_KEEP_DIMS = 64).
// CHECK-LABEL: func.func @one_output_channel_sum
// CHECK:         %[[B:.*]] = xnn.constant #xnnc.weight<"const.bias0"> : tensor<4xf32>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"const.depthwise"> : tensor<1x1x7x4xf32>
// CHECK-NEXT:    %[[D:.*]] = xnn.depthwise_convolution_2d %x, %[[W]], %[[B]] {{{.*}}kernel_width = 7 : i64, input_channels = 4 : i64{{.*}}} : (tensor<1x1x20x4xf32>, tensor<1x1x7x4xf32>, tensor<4xf32>) -> tensor<1x1x20x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reduce sum %[[D]] {xnn.decision = {form = "conv-as-gemm", choice = "gemm"{{.*}}}, axes = array<i64: 3>, flags = 64 : i32} : (tensor<1x1x20x4xf32>) -> tensor<1x1x20x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @one_output_channel_sum(%x: tensor<1x1x20x4xf32>) -> tensor<1x1x20x1xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x7x4xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<1xf32>
  %y = xnn.convolution_2d %x, %w, %b {padding_right = 3, padding_left = 3, kernel_height = 1, kernel_width = 7, group_input_channels = 4, group_output_channels = 1} : (tensor<1x1x20x4xf32>, tensor<1x1x7x4xf32>, tensor<1xf32>) -> tensor<1x1x20x1xf32>
  func.return %y : tensor<1x1x20x1xf32>
}
}

// -----

// The same layer on the stock target keeps the fully-connected sum (stock has no reduction
// node: its legalization would make one of the reduction again).
// CHECK-LABEL: func.func @one_output_channel_stock
// CHECK:         xnn.depthwise_convolution_2d %x, %{{[^,]*}} {
// CHECK:         xnn.fully_connected %{{.*}} -> tensor<1x1x20x1xf32>
// CHECK-NOT:     xnn.static_reduce
builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @one_output_channel_stock(%x: tensor<1x1x20x4xf32>) -> tensor<1x1x20x1xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x7x4xf32>
  %b = xnn.constant dense<1.000000e-01> : tensor<1xf32>
  %y = xnn.convolution_2d %x, %w, %b {padding_right = 3, padding_left = 3, kernel_height = 1, kernel_width = 7, group_input_channels = 4, group_output_channels = 1} : (tensor<1x1x20x4xf32>, tensor<1x1x7x4xf32>, tensor<1xf32>) -> tensor<1x1x20x1xf32>
  func.return %y : tensor<1x1x20x1xf32>
}
}

// -----

// xnn-conv-as-gemm reads its profitability from the module's #xnn.target: it applies on
// x86-64 with AVX2 and FMA3 and without AVX-512 (the IGEMM kernel it was measured against),
// and does nothing elsewhere unless ignore-target=true.

// The preset x86-64-avx2: rewritten.
// CHECK-LABEL: func.func @avx2
// CHECK-NOT:     xnn.convolution_2d
// CHECK:         xnn.fully_connected
// IGNORE-LABEL: func.func @avx2
// IGNORE-NOT:     xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
  func.func @avx2(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    func.return %y : tensor<1x1x4x16xf32>
  }
}

// -----

// The preset x86-64-avx512 with 2 input channels (AVX-512 takes only >= 384): left alone,
// both the dense conv and the one to a single output channel; ignore-target rewrites them.
// CHECK-LABEL: func.func @avx512
// CHECK-NOT:     xnn.fully_connected
// CHECK-COUNT-2: xnn.convolution_2d
// IGNORE-LABEL: func.func @avx512
// IGNORE-NOT:     xnn.convolution_2d
// IGNORE:         xnn.depthwise_convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "avx512f", "avx512vnni", "f16c", "fma3"], threads = 1>} {
  func.func @avx512(%x: tensor<1x1x6x2xf32>) -> (tensor<1x1x4x16xf32>, tensor<1x1x4x1xf32>) {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    %w1 = xnn.constant dense<5.000000e-01> : tensor<1x1x3x2xf32>
    %z = xnn.convolution_2d %x, %w1 {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 1} : (tensor<1x1x6x2xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x4x1xf32>
    func.return %y, %z : tensor<1x1x4x16xf32>, tensor<1x1x4x1xf32>
  }
}

// -----

// No xnn.target: the default target assumes no CPU feature, so nothing happens.
// CHECK-LABEL: func.func @no_target
// CHECK:         xnn.convolution_2d
// IGNORE-LABEL: func.func @no_target
// IGNORE-NOT:     xnn.convolution_2d
func.func @no_target(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
  func.return %y : tensor<1x1x4x16xf32>
}

// -----

// arm64 with NEON: left alone (not measured there).
// CHECK-LABEL: func.func @arm64
// CHECK:         xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "arm64", features = ["neon"], threads = 1>} {
  func.func @arm64(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    func.return %y : tensor<1x1x4x16xf32>
  }
}

// -----

// The nearest enclosing module's target decides: an AVX2 module inside an AVX-512 one is
// rewritten, the outer module's own function is not.
// CHECK-LABEL: func.func @inner_avx2
// CHECK-NOT:     xnn.convolution_2d
// CHECK-LABEL: func.func @outer_avx512
// CHECK:         xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "avx512f", "f16c", "fma3"], threads = 1>} {
  builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 4>} {
    func.func @inner_avx2(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
      %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
      %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
      func.return %y : tensor<1x1x4x16xf32>
    }
  }
  func.func @outer_avx512(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    func.return %y : tensor<1x1x4x16xf32>
  }
}

// -----

// With AVX-512 a convolution with 384 or more input channels pays (measured on a Xeon):
// rewritten; one with 256 is left alone.
// CHECK-LABEL: func.func @avx512_wide
// CHECK:         xnn.fully_connected {{.*}} : (tensor<1x1x4x384xf32>, tensor<16x384xf32>) -> tensor<1x1x4x16xf32>
// CHECK:         xnn.convolution_2d {{.*}} : (tensor<1x1x6x256xf32>, tensor<16x1x3x256xf32>) -> tensor<1x1x4x16xf32>
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "avx512f", "avx512vnni", "f16c", "fma3"], threads = 1>} {
  func.func @avx512_wide(%x: tensor<1x1x6x384xf32>, %z: tensor<1x1x6x256xf32>) -> (tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x384xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 384, group_output_channels = 16} : (tensor<1x1x6x384xf32>, tensor<16x1x3x384xf32>) -> tensor<1x1x4x16xf32>
    %v = xnn.constant dense<5.000000e-01> : tensor<16x1x3x256xf32>
    %u = xnn.convolution_2d %z, %v {kernel_height = 1, kernel_width = 3, group_input_channels = 256, group_output_channels = 16} : (tensor<1x1x6x256xf32>, tensor<16x1x3x256xf32>) -> tensor<1x1x4x16xf32>
    func.return %y, %u : tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>
  }
}

// -----

// A symbolic width on the extended runtime: tap j of k3 starts j samples into the padded
// input and ends 2 - j before its symbolic end (sizes -2, -1, 0: XNNStaticSliceV3 writes
// them). Without xnnc.symbols the range is unknown; the rule reads channels and threads.
// CHECK-LABEL: func.func @symbolic_width
// CHECK:         %[[P:.*]] = xnn.static_constant_pad %x {{.*}} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x2xf32, #xnnc.dims<"T + 2">>
// CHECK-NEXT:    xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, -2, 2>} : (tensor<1x1x?x2xf32, #xnnc.dims<"T + 2">>) -> tensor<1x1x?x2xf32, #xnnc.dims<"T">>
// CHECK:         xnn.fully_connected {{.*}} -> tensor<1x1x?x16xf32, #xnnc.dims<"T">>
// CHECK:         xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 1, 0>, sizes = array<i64: 1, 1, -1, 2>}
// CHECK:         xnn.static_slice %[[P]] {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, 0, 2>}
// PASS:          %y = xnn.binary add {{.*}}xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule", layer = "conv f32 1x1xTx2->16 k1x3 d1x1 p0,1,0,1", why = "symbolic size T (no recorded range): the rule: AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)"}
// IGNORE:        %y = xnn.binary add {{.*}}source = "option"
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_width(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %b = xnn.constant dense<1.000000e+00> : tensor<16xf32>
  %y = xnn.convolution_2d %x, %w, %b {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<16x1x3x2xf32>, tensor<16xf32>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T">>
  func.return %y : tensor<1x1x?x16xf32, #xnnc.dims<"T">>
}
}

// -----

// Dilation 2, no padding, T in [8, 64]: the taps end 4, 2 and 0 samples before the input's
// end, and the rule, evaluated at T = 8 and T = 64, agrees.
// CHECK-LABEL: func.func @symbolic_width_dilated
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.static_slice %x {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, -4, 2>} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x2xf32, #xnnc.dims<"T - 4">>
// CHECK:         xnn.static_slice %x {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, -2, 2>}
// CHECK:         xnn.static_slice %x {offsets = array<i64: 0, 0, 4, 0>, sizes = array<i64: 1, 1, 0, 2>}
// PASS:          xnn.binary add {{.*}}why = "symbolic size T in [8, 64]: gemm by the rule at both ends: AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)"
// CHECK-NOT:     xnn.convolution_2d
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [8, 64]>, xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_width_dilated(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T - 4">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, dilation_width = 2, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<16x1x3x2xf32>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T - 4">>
  func.return %y : tensor<1x1x?x16xf32, #xnnc.dims<"T - 4">>
}
}

// -----

// The stock target: its XNNStaticSlice cannot end before a symbolic end, so the convolution
// stays (even with ignore-target) and its decision says why.
// CHECK-LABEL: func.func @symbolic_width_stock
// CHECK:         %y = xnn.convolution_2d %x, %w {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "rule", layer = "conv f32 1x1xTx2->16 k1x3 d1x1 p0,1,0,1", why = "symbolic size T: the taps' slices end before the end of a symbolic dim, and stock ExecuTorch's XNNStaticSlice takes only absolute unsigned sizes (a slice to the end is the most it can follow)"}
// CHECK-NEXT:    func.return %y
// IGNORE-LABEL: func.func @symbolic_width_stock
// IGNORE:         xnn.convolution_2d {{.*}}choice = "direct"
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>, xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_width_stock(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<16x1x3x2xf32>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T">>
  func.return %y : tensor<1x1x?x16xf32, #xnnc.dims<"T">>
}
}

// -----

// Stock, a symbolic height and a 1x3 kernel: along the height every tap is a slice to the
// end (size 0), which the stock slice writes, so the GEMM form follows there too.
// CHECK-LABEL: func.func @symbolic_rows_stock
// CHECK:         xnn.static_slice %x {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 0, 4, 2>}
// CHECK:         xnn.static_slice %x {offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 0, 4, 2>}
// PASS:          xnn.binary add {{.*}}why = "symbolic size H in [1, 32]: gemm by the rule at both ends: {{.*}}"
// CHECK-NOT:     xnn.convolution_2d
builtin.module attributes {xnnc.symbols = #xnnc.symbols<H = [1, 32]>, xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_rows_stock(%x: tensor<1x?x6x2xf32, #xnnc.dims<"H">>) -> tensor<1x?x4x16xf32, #xnnc.dims<"H">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x?x6x2xf32, #xnnc.dims<"H">>, tensor<16x1x3x2xf32>) -> tensor<1x?x4x16xf32, #xnnc.dims<"H">>
  func.return %y : tensor<1x?x4x16xf32, #xnnc.dims<"H">>
}
}

// -----

// A decision recorded on a symbolic layer is followed only when it is keyed for that layer
// (its symbolic signature); one measured at a fixed size (a static layer's key) is not.
// CHECK-LABEL: func.func @symbolic_recorded
// CHECK:         %y = xnn.convolution_2d {{.*}}layer = "conv f32 1x1xTx2->16 k1x3 d1x1 p0,1,0,1"
// CHECK:         xnn.static_slice
// PASS:          %z = xnn.binary add {{.*}}source = "rule", layer = "conv f32 1x1xTx2->16 k1x3 d1x1 p0,1,0,1", why = "symbolic size T in [4, 64]: gemm by the rule at both ends
// CHECK:         func.return %y, %z
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>, xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_recorded(%x: tensor<1x1x?x2xf32, #xnnc.dims<"T">>) -> (tensor<1x1x?x16xf32, #xnnc.dims<"T">>, tensor<1x1x?x16xf32, #xnnc.dims<"T">>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "rule", layer = "conv f32 1x1xTx2->16 k1x3 d1x1 p0,1,0,1", why = "a previous compile"}, padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<16x1x3x2xf32>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T">>
  %z = xnn.convolution_2d %x, %w {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "tuned", layer = "conv f32 1x1x64x2->16 k1x3 d1x1 p0,1,0,1", times_ms = {direct = 1.0 : f64, gemm = 1.5 : f64}}, padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x?x2xf32, #xnnc.dims<"T">>, tensor<16x1x3x2xf32>) -> tensor<1x1x?x16xf32, #xnnc.dims<"T">>
  func.return %y, %z : tensor<1x1x?x16xf32, #xnnc.dims<"T">>, tensor<1x1x?x16xf32, #xnnc.dims<"T">>
}
}

// -----

// One output channel on a symbolic width: the depthwise + channel-sum form slices nothing,
// so it follows the size (both nodes reshape with it).
// CHECK-LABEL: func.func @symbolic_one_output_channel
// CHECK:         xnn.depthwise_convolution_2d %x, {{.*}} -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// CHECK:         xnn.static_reduce sum {{.*}}choice = "gemm", source = "rule"{{.*}} -> tensor<1x1x?x1xf32, #xnnc.dims<"T">>
// CHECK-NOT:     xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
func.func @symbolic_one_output_channel(%x: tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x1xf32, #xnnc.dims<"T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x3x4xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 4, group_output_channels = 1} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<1x1x3x4xf32>) -> tensor<1x1x?x1xf32, #xnnc.dims<"T">>
  func.return %y : tensor<1x1x?x1xf32, #xnnc.dims<"T">>
}
}
