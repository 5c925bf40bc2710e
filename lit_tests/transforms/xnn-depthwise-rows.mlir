// xnn-depthwise-rows: a depthwise convolution over one row of W pixels (a 1-D signal) as
// one over W rows of one pixel, where the layer's decision says so: the recorded one, else
// the target's rule (cost.rules.depthwise_rows: rows when the threads outnumber the batch,
// as XNNPACK splits depthwise convolutions and poolings by output rows only).
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-depthwise-rows' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2"},xnn-depthwise-rows' | filecheck %s --check-prefix=ONE
// RUN: xnn-opt %s --split-input-file -p 'xnn-depthwise-rows{ignore-target=true}' | filecheck %s --check-prefix=IGNORE

// Two threads, batch 1: over rows. The reshapes move no data; padding left/right becomes
// top/bottom, the stride and dilation move to H, the filter [1, 1, k, C] becomes [1, k, 1, C].
// CHECK-LABEL: func.func @causal_k7
// CHECK:         %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 40, 1, 4>} : (tensor<1x1x40x4xf32>) -> tensor<1x40x1x4xf32>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"w.rows"> : tensor<1x7x1x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = xnn.depthwise_convolution_2d %[[R]], %[[W]], %b {xnn.decision = {form = "depthwise-rows", choice = "rows", source = "rule", layer = "dwconv1d f32 1x40x4 k7 s2 d3 p12,6", why = "2 threads > batch 1: XNNPACK splits depthwise convolutions and poolings by output rows only"}, kernel_height = 7 : i64, kernel_width = 1 : i64, subsampling_height = 2 : i64, dilation_height = 3 : i64, input_channels = 4 : i64, padding_top = 12 : i64, padding_bottom = 6 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x40x1x4xf32>, tensor<1x7x1x4xf32>, tensor<4xf32>) -> tensor<1x20x1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[Z]] {new_shape = array<i64: 1, 1, 20, 4>} : (tensor<1x20x1x4xf32>) -> tensor<1x1x20x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// One thread: the width, one kernel call per row.
// ONE-LABEL: func.func @causal_k7
// ONE:         xnn.depthwise_convolution_2d %x, %w, %b {xnn.decision = {form = "depthwise-rows", choice = "width", source = "rule", layer = "dwconv1d f32 1x40x4 k7 s2 d3 p12,6", why = "1 thread(s) <= batch 1: the batch splits the work; one kernel call per row, not per pixel"}
// ONE-NOT:     xnn.static_reshape
// IGNORE-LABEL: func.func @causal_k7
// IGNORE:       xnn.decision = {form = "depthwise-rows", choice = "rows", source = "option", layer = "dwconv1d f32 1x40x4 k7 s2 d3 p12,6", why = "ignore-target=true"}
func.func @causal_k7(%x: tensor<1x1x40x4xf32>) -> tensor<1x1x20x4xf32> {
  %w = xnn.constant #xnnc.weight<"w", "0x000000000000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000a0410000a8410000b0410000b8410000c0410000c8410000d0410000d841"> : tensor<1x1x7x4xf32>
  %b = xnn.constant dense<5.000000e-01> : tensor<4xf32>
  %y = xnn.depthwise_convolution_2d %x, %w, %b {kernel_height = 1 : i64, kernel_width = 7 : i64, subsampling_width = 2 : i64, dilation_width = 3 : i64, padding_left = 12 : i64, padding_right = 6 : i64, input_channels = 4 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x1x40x4xf32>, tensor<1x1x7x4xf32>, tensor<4xf32>) -> tensor<1x1x20x4xf32>
  func.return %y : tensor<1x1x20x4xf32>
}

// -----

// A batch of two at two threads: the width form already splits (two rows).
// CHECK-LABEL: func.func @batch_of_two
// CHECK:         xnn.depthwise_convolution_2d %x, %w {xnn.decision = {form = "depthwise-rows", choice = "width", source = "rule", layer = "dwconv1d f32 2x16x4 k3 s1 d1 p1,1", why = "2 thread(s) <= batch 2: the batch splits the work; one kernel call per row, not per pixel"}
func.func @batch_of_two(%x: tensor<2x1x16x4xf32>) -> tensor<2x1x16x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x3x4xf32>
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, padding_left = 1 : i64, padding_right = 1 : i64, input_channels = 4 : i64} : (tensor<2x1x16x4xf32>, tensor<1x1x3x4xf32>) -> tensor<2x1x16x4xf32>
  func.return %y : tensor<2x1x16x4xf32>
}

// -----

// Left alone, with no decision: more than one row (2-D), a filter that is no constant,
// and a single pixel (nothing to split).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.static_reshape
// CHECK-NOT:     xnn.decision
// CHECK:         func.return
func.func @left_alone(%x: tensor<1x4x16x4xf32>, %v: tensor<1x1x3x4xf32>, %u: tensor<1x1x16x4xf32>, %p: tensor<1x1x1x4xf32>) -> (tensor<1x4x16x4xf32>, tensor<1x1x16x4xf32>, tensor<1x1x1x4xf32>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x3x4xf32>
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, padding_left = 1 : i64, padding_right = 1 : i64, input_channels = 4 : i64} : (tensor<1x4x16x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x4x16x4xf32>
  %z = xnn.depthwise_convolution_2d %u, %v {kernel_height = 1 : i64, kernel_width = 3 : i64, padding_left = 1 : i64, padding_right = 1 : i64, input_channels = 4 : i64} : (tensor<1x1x16x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x16x4xf32>
  %q = xnn.depthwise_convolution_2d %p, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, padding_left = 1 : i64, padding_right = 1 : i64, input_channels = 4 : i64} : (tensor<1x1x1x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x1x4xf32>
  func.return %y, %z, %q : tensor<1x4x16x4xf32>, tensor<1x1x16x4xf32>, tensor<1x1x1x4xf32>
}

// -----

// A symbolic width: the reshapes infer it (0 in new_shape), and the rule, which reads the
// threads and the batch only, decides.
// CHECK-LABEL: func.func @symbolic_width
// CHECK:         %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 0, 1, 4>} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x?x1x4xf32, #xnnc.dims<"T">>
// CHECK:         xnn.depthwise_convolution_2d %[[R]], %{{.*}} {xnn.decision = {form = "depthwise-rows", choice = "rows", source = "rule", layer = "dwconv1d f32 1xTx4 k3 s1 d1 p1,1"
// CHECK-SAME:    -> tensor<1x?x1x4xf32, #xnnc.dims<"T">>
// CHECK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 0, 4>}
func.func @symbolic_width(%x: tensor<1x1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x3x4xf32>
  %y = xnn.depthwise_convolution_2d %x, %w {kernel_height = 1 : i64, kernel_width = 3 : i64, padding_left = 1 : i64, padding_right = 1 : i64, input_channels = 4 : i64} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<1x1x3x4xf32>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
  func.return %y : tensor<1x1x?x4xf32, #xnnc.dims<"T">>
}

// -----

// Max and average pooling over a 1-D signal split the same way: the window (and its
// stride, dilation and padding) moves from W to H between reshapes; the clamp stays.
// CHECK-LABEL: func.func @poolings
// CHECK:         %[[R:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 40, 1, 4>}
// CHECK-NEXT:    %[[M:.*]] = xnn.max_pooling_2d %[[R]] {xnn.decision = {form = "depthwise-rows", choice = "rows", source = "rule", layer = "maxpool1d f32 1x40x4 k4 s2 d2 p1,2", {{.*}}}, pooling_height = 4 : i64, pooling_width = 1 : i64, output_min = 0.000000e+00 : f32, dilation_height = 2 : i64, stride_height = 2 : i64, padding_top = 1 : i64, padding_bottom = 2 : i64} : (tensor<1x40x1x4xf32>) -> tensor<1x19x1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[M]] {new_shape = array<i64: 1, 1, 19, 4>}
// CHECK-NEXT:    %[[S:.*]] = xnn.static_reshape %x {new_shape = array<i64: 1, 40, 1, 4>}
// CHECK-NEXT:    %[[A:.*]] = xnn.average_pooling_2d %[[S]] {xnn.decision = {form = "depthwise-rows", choice = "rows", source = "rule", layer = "avgpool1d f32 1x40x4 k3 s1 d1 p1,1", {{.*}}}, pooling_height = 3 : i64, pooling_width = 1 : i64, padding_top = 1 : i64, padding_bottom = 1 : i64} : (tensor<1x40x1x4xf32>) -> tensor<1x40x1x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = xnn.static_reshape %[[A]] {new_shape = array<i64: 1, 1, 40, 4>}
// CHECK-NEXT:    func.return %[[Y]], %[[Z]]
// ONE-LABEL: func.func @poolings
// ONE:         xnn.max_pooling_2d %x {xnn.decision = {form = "depthwise-rows", choice = "width"
// ONE:         xnn.average_pooling_2d %x {xnn.decision = {form = "depthwise-rows", choice = "width"
// ONE-NOT:     xnn.static_reshape
func.func @poolings(%x: tensor<1x1x40x4xf32>) -> (tensor<1x1x19x4xf32>, tensor<1x1x40x4xf32>) {
  %m = xnn.max_pooling_2d %x {pooling_height = 1 : i64, pooling_width = 4 : i64, stride_width = 2 : i64, dilation_width = 2 : i64, padding_left = 1 : i64, padding_right = 2 : i64, output_min = 0.000000e+00 : f32} : (tensor<1x1x40x4xf32>) -> tensor<1x1x19x4xf32>
  %a = xnn.average_pooling_2d %x {pooling_height = 1 : i64, pooling_width = 3 : i64, padding_left = 1 : i64, padding_right = 1 : i64} : (tensor<1x1x40x4xf32>) -> tensor<1x1x40x4xf32>
  func.return %m, %a : tensor<1x1x19x4xf32>, tensor<1x1x40x4xf32>
}
