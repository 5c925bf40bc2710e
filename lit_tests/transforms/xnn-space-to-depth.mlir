// xnn-space-to-depth: a strided int8 convolution over few input channels as a stride-1
// convolution over the stride x stride blocks of its padded input (pad, reshape, transpose,
// reshape), where the layer's decision says so: the recorded one, else the target's rule
// (cost.rules.space_to_depth: int8 taps padded to 8 channels on x86, 4 on arm64).
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2"},xnn-space-to-depth' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},xnn-space-to-depth' | filecheck %s --check-prefix=ARM
// RUN: xnn-opt %s --split-input-file -p 'xnn-space-to-depth{ignore-target=true}' | filecheck %s --check-prefix=IGNORE

// A 3x3 stride-2 kernel over one channel: 9 taps of 8 packed channels on x86 against 4
// taps of 8 (the 4 block channels): 72 -> 32. Six rows, one of padding on each side: three
// output rows read four blocks of two rows (8 = 1 + 6 + 1).
// CHECK-LABEL: func.func @stem
// CHECK:         %[[P:.*]] = xnn.static_constant_pad %x {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : ({{.*}}) -> tensor<1x8x8x1x!xnn.quant.uniform<i8:f32, 0.1:3>>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 1, 4, 2, 4, 2, 1>}
// CHECK-NEXT:    %[[T:.*]] = xnn.static_transpose %[[R]] {perm = array<i64: 0, 1, 3, 2, 4, 5>} : ({{.*}}) -> tensor<1x4x4x2x2x1x!xnn.quant.uniform<i8:f32, 0.1:3>>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 4, 4, 4>}
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"w.blocks2"> : tensor<2x2x2x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
// CHECK-NEXT:    %[[Y:.*]] = xnn.convolution_2d %[[B]], %[[W]], %b {xnn.decision = {form = "space-to-depth", choice = "space-to-depth", source = "rule", layer = "stem qs8 1x6x6x1->2 k3x3 s2 p1,1,1,1", why = "int8 taps padded to 8 channels: 72 -> 32 MACs per output (2.25x) >= 1.25"}, kernel_height = 2 : i64, kernel_width = 2 : i64, group_input_channels = 4 : i64, group_output_channels = 2 : i64, output_min = 0.000000e+00 : f32} : ({{.*}}) -> tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
// CHECK-NEXT:    func.return %[[Y]]
// With int8 taps in groups of 4 (arm64's dot-product kernels): 36 -> 16, still taken.
// ARM-LABEL: func.func @stem
// ARM:         xnn.decision = {form = "space-to-depth", choice = "space-to-depth", source = "unmeasured", layer = "stem qs8 1x6x6x1->2 k3x3 s2 p1,1,1,1", why = "int8 taps padded to 4 channels: 36 -> 16 MACs per output (2.25x) >= 1.25; unmeasured on arm64"}
// IGNORE-LABEL: func.func @stem
// IGNORE:       xnn.decision = {form = "space-to-depth", choice = "space-to-depth", source = "option", layer = "stem qs8 1x6x6x1->2 k3x3 s2 p1,1,1,1", why = "ignore-target=true"}
func.func @stem(%x: tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>> {
  %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708090a0b0c0d0e0f101112"> : tensor<2x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = xnn.constant #xnnc.weight<"b", "0x1400000050000000"> : tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>
  %y = xnn.convolution_2d %x, %w, %b {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 1 : i64, group_output_channels = 2 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1:3>>, tensor<2x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2x!xnn.quant.uniform<i32:f32:0, {0.05, 0.025}>>) -> tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
  func.return %y : tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
}

// -----

// Three channels, 3x3 stride 2 (MobileNetV2's stem): 72 -> 64 packed MACs on x86, under the
// 1.25x the pad and transpose cost: direct. A 2x2 kernel at stride 2 over 7 rows without
// padding reads 6: the row no window reads is sliced off, and no pad is needed.
// CHECK-LABEL: func.func @two_layers
// CHECK:         xnn.convolution_2d %x, {{.*}}xnn.decision = {form = "space-to-depth", choice = "direct", source = "rule", layer = "stem qs8 1x7x7x3->1 k3x3 s2 p1,1,1,1", why = "int8 taps padded to 8 channels: 72 -> 64 MACs per output (1.12x) < 1.25"}
// CHECK:         %[[S:.*]] = xnn.static_slice %x {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 6, 6, 3>}
// CHECK-NOT:     xnn.static_constant_pad
// CHECK:         xnn.static_reshape %[[S]] {new_shape = array<i64: 1, 3, 2, 3, 2, 3>}
// CHECK:         xnn.convolution_2d {{.*}}layer = "stem qs8 1x7x7x3->1 k2x2 s2 p0,0,0,0"{{.*}}kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 12 : i64
// With the blocks forced, the first layer is rewritten too.
// IGNORE-LABEL: func.func @two_layers
// IGNORE-COUNT-2: source = "option"
func.func @two_layers(%x: tensor<1x7x7x3x!xnn.quant.uniform<i8:f32, 0.1>>) -> (tensor<1x4x4x1x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x3x3x1x!xnn.quant.uniform<i8:f32, 0.2>>) {
  %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b"> : tensor<1x3x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>
  %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 3 : i64, group_output_channels = 1 : i64} : (tensor<1x7x7x3x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x3x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>) -> tensor<1x4x4x1x!xnn.quant.uniform<i8:f32, 0.2>>
  %v = xnn.constant #xnnc.weight<"v", "0x010203040506070809101112"> : tensor<1x2x2x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>
  %z = xnn.convolution_2d %x, %v {kernel_height = 2 : i64, kernel_width = 2 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, group_input_channels = 3 : i64, group_output_channels = 1 : i64} : (tensor<1x7x7x3x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x2x2x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>) -> tensor<1x3x3x1x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %y, %z : tensor<1x4x4x1x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x3x3x1x!xnn.quant.uniform<i8:f32, 0.2>>
}

// -----

// A recorded decision is followed whatever the target (a tuned "direct").
// CHECK-LABEL: func.func @recorded
// CHECK-NOT:     xnn.static_reshape
// CHECK:         xnn.convolution_2d %x, {{.*}}source = "tuned"
func.func @recorded(%x: tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>> {
  %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708090a0b0c0d0e0f101112"> : tensor<2x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 1 : i64, group_output_channels = 2 : i64, xnn.decision = {form = "space-to-depth", choice = "direct", source = "tuned", layer = "stem qs8 1x6x6x1->2 k3x3 s2 p1,1,1,1", times_ms = {direct = 1.0 : f64, "space-to-depth" = 1.2 : f64}}} : (tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1:3>>, tensor<2x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
  func.return %y : tensor<1x3x3x2x!xnn.quant.uniform<i8:f32, 0.2:-1>>
}

// -----

// Left alone, no decision: fp32 (XNNPACK's fp32 IGEMM pads no channels), more than four
// input channels, stride 1, a dilation.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.decision
// CHECK-NOT:     xnn.static_reshape
// CHECK:         func.return
// IGNORE-LABEL: func.func @left_alone
// IGNORE-NOT:    xnn.decision
func.func @left_alone(%x: tensor<1x6x6x1xf32>, %q: tensor<1x6x6x5x!xnn.quant.uniform<i8:f32, 0.1>>, %r: tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1>>) -> (tensor<1x3x3x1xf32>, tensor<1x3x3x1x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x1x1x1x!xnn.quant.uniform<i8:f32, 0.2>>) {
  %wf = xnn.constant dense<5.000000e-01> : tensor<1x3x3x1xf32>
  %f = xnn.convolution_2d %x, %wf {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x6x6x1xf32>, tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  %w5 = xnn.constant #xnnc.weight<"w5", "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d"> : tensor<1x3x3x5x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>
  %a = xnn.convolution_2d %q, %w5 {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 5 : i64, group_output_channels = 1 : i64} : (tensor<1x6x6x5x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x3x3x5x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>) -> tensor<1x3x3x1x!xnn.quant.uniform<i8:f32, 0.2>>
  %w1 = xnn.constant #xnnc.weight<"w1", "0x010203040506070809"> : tensor<1x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>
  %s = xnn.convolution_2d %r, %w1 {kernel_height = 3 : i64, kernel_width = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>) -> tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.2>>
  %d = xnn.convolution_2d %r, %w1 {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, dilation_height = 2 : i64, dilation_width = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.1>>, tensor<1x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5}>>) -> tensor<1x1x1x1x!xnn.quant.uniform<i8:f32, 0.2>>
  func.return %f, %a, %s, %d : tensor<1x3x3x1xf32>, tensor<1x3x3x1x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x6x6x1x!xnn.quant.uniform<i8:f32, 0.2>>, tensor<1x1x1x1x!xnn.quant.uniform<i8:f32, 0.2>>
}
