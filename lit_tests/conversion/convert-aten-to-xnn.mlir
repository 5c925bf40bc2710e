// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock"},xnn-partition,convert-aten-to-xnn,xnn-legalize-stock' | filecheck %s --check-prefix=STOCK

// Normalizations and _safe_softmax as compositions of XNNPACK nodes (conversion/norms.py,
// conversion/safe_softmax.py); stock ExecuTorch 1.5.1 runs every kind after xnn-legalize-stock.

// Layer norm: mean, deviation, mean of its square, rsqrt(var + eps), then the affine part.
// CHECK-LABEL: func.func @layer_norm
// CHECK:         %[[M:.*]] = xnn.static_reduce mean %[[X:.*]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[D:.*]] = xnn.binary subtract %[[X]], %[[M]]
// CHECK-NEXT:    %[[SQ:.*]] = xnn.unary square %[[D]]
// CHECK-NEXT:    %[[V:.*]] = xnn.static_reduce mean %[[SQ]] {axes = array<i64: 1>, flags = 64 : i32}
// CHECK-NEXT:    %[[EPS:.*]] = xnn.constant dense<1.000000e-05> : tensor<1xf32>
// CHECK-NEXT:    %[[VE:.*]] = xnn.binary add %[[V]], %[[EPS]]
// CHECK-NEXT:    %[[R:.*]] = xnn.unary reciprocal_square_root %[[VE]]
// CHECK-NEXT:    %[[N:.*]] = xnn.binary multiply %[[D]], %[[R]]
// CHECK:         %[[S:.*]] = xnn.binary multiply %[[N]], %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>)
// CHECK:         %{{.*}} = xnn.binary add %[[S]], %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>)
// Stock ExecuTorch has no reduce node: each mean is a fully connected with a 1/K filter.
// STOCK-LABEL: func.func @layer_norm
// STOCK-NOT:     xnn.static_reduce
// STOCK:         xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x1xf32>
// STOCK:         xnn.unary square
// STOCK:         xnn.fully_connected
func.func @layer_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %w = aten.constant dense<2.0> : tensor<8xf32>
  %b = aten.constant dense<0.5> : tensor<8xf32>
  %y:3 = aten.native_layer_norm %x : tensor<2x8xf32> weight %w : tensor<8xf32> bias %b : tensor<8xf32> {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  func.return %y#0 : tensor<2x8xf32>
}

// -----

// Group norm: [N, C, L] as [N, G, C / G, L], normalized over its last two dims, and back
// (the reshapes keep L whole, so the layout pass can run it channels-last).
// CHECK-LABEL: func.func @group_norm
// CHECK:         %[[G:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 2, 2, 6>}
// CHECK-NEXT:    xnn.static_reduce mean %[[G]] {axes = array<i64: 2, 3>, flags = 64 : i32}
// CHECK:         %[[N:.*]] = xnn.binary multiply
// CHECK-NEXT:    xnn.static_reshape %[[N]] {new_shape = array<i64: 1, 4, 6>}
// STOCK-LABEL: func.func @group_norm
// STOCK-NOT:     xnn.static_reduce
func.func @group_norm(%x: tensor<1x4x6xf32>) -> tensor<1x4x6xf32> {
  %y:3 = aten.native_group_norm %x : tensor<1x4x6xf32> {N = 1 : i64, C = 4 : i64, hxw = 6 : i64, group = 2 : i64, eps = 1.0e-05 : f64} -> tensor<1x4x6xf32>, tensor<1x2xf32>, tensor<1x2xf32>
  func.return %y#0 : tensor<1x4x6xf32>
}

// -----

// _safe_softmax: the all -inf row test in arithmetic (the share of finite values, no row
// length), then softmax(max(x, c)) * (1 - m).
// CHECK-LABEL: func.func @safe_softmax
// CHECK:         %[[LO:.*]] = xnn.clamp %[[X:.*]] {output_min = -3.40282347e+38 : f32}
// CHECK-NEXT:    %[[GAP:.*]] = xnn.binary subtract %[[X]], %[[LO]]
// CHECK-NEXT:    %[[ONE0:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[F:.*]] = xnn.binary add %[[GAP]], %[[ONE0]] {output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[SHARE:.*]] = xnn.static_reduce mean %[[F]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[BIG:.*]] = xnn.constant dense<0x4C000000> : tensor<1xf32>
// CHECK-NEXT:    %[[SCALED:.*]] = xnn.binary multiply %[[SHARE]], %[[BIG]]
// CHECK-NEXT:    %[[ONE1:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.binary subtract %[[ONE1]], %[[SCALED]] {output_min = 0.000000e+00 : f32} : (tensor<1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[ONE:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.binary divide %[[ONE]], %[[M]] : (tensor<1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.unary abs %[[R]]
// CHECK-NEXT:    %[[C:.*]] = xnn.unary negate %[[A]]
// CHECK-NEXT:    %[[ONE2:.*]] = xnn.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[KEEP:.*]] = xnn.binary subtract %[[ONE2]], %[[M]]
// CHECK-NEXT:    %[[L:.*]] = xnn.binary maximum %[[X]], %[[C]] : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.softmax %[[L]]
// CHECK-NEXT:    %{{.*}} = xnn.binary multiply %[[S]], %[[KEEP]]
// STOCK-LABEL: func.func @safe_softmax
// STOCK-NOT:     xnn.static_reduce
// STOCK:         xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<2x1xf32>
func.func @safe_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = aten._safe_softmax %x {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

// Unbiased variance: the biased one times K / (K - 1).
// CHECK-LABEL: func.func @var
// CHECK:         %[[V:.*]] = xnn.static_reduce mean %{{.*}} {axes = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.constant dense<1.250000e+00> : tensor<1xf32>
// CHECK-NEXT:    xnn.binary multiply %[[V]], %[[S]]
func.func @var(%x: tensor<2x5xf32>) -> tensor<2xf32> {
  %y = aten.var %x {dim = array<i64: 1>, correction = 1 : i64} : (tensor<2x5xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// bf16 is normalized in fp32 between converts.
// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK:         %[[X:.*]] = xnn.convert %{{.*}} : (tensor<2x8xbf16>) -> tensor<2x8xf32>
// CHECK-NEXT:    xnn.static_reduce mean %[[X]]
// CHECK:         %[[N:.*]] = xnn.binary multiply %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    xnn.convert %[[N]] : (tensor<2x8xf32>) -> tensor<2x8xbf16>
func.func @layer_norm_bf16(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %y:3 = aten.native_layer_norm %x : tensor<2x8xbf16> {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} -> tensor<2x8xbf16>, tensor<2x1xf32>, tensor<2x1xf32>
  func.return %y#0 : tensor<2x8xbf16>
}

// -----

// Left outside: the mean result is used (the lowering computes only the output).
// CHECK-LABEL: func.func @stats_used
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.native_layer_norm
func.func @stats_used(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %y:3 = aten.native_layer_norm %x : tensor<2x8xf32> {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  func.return %y#1 : tensor<2x1xf32>
}

// -----

// A 2-D convolution runs in NHWC between explicit transposes; its filter becomes OHWI.
// CHECK-LABEL: func.func @conv2d
// CHECK:         xnn.subgraph
// CHECK:           %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x5x5x2xf32>
// CHECK:           %[[W:.*]] = xnn.constant #xnnc.weight<"const.ohwi"> : tensor<3x3x3x2xf32>
// CHECK:           %[[C:.*]] = xnn.convolution_2d %[[T]], %[[W]] {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x3x2xf32>) -> tensor<1x3x3x3xf32>
// CHECK:           %[[O:.*]] = xnn.static_transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
// CHECK:           xnn.output %[[O]]
// CHECK-NOT:     aten.
func.func @conv2d(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %w = aten.constant dense<0.5> : tensor<3x2x3x3xf32>
  %y = aten.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  func.return %y : tensor<1x3x3x3xf32>
}

// -----

// conv1d is conv2d with H = 1; depthwise (groups = channels) uses the depthwise node.
// CHECK-LABEL: func.func @depthwise1d
// CHECK:         xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x4x9xf32>) -> tensor<1x9x4xf32>
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 9, 4>}
// CHECK:         xnn.depthwise_convolution_2d %{{.*}}, %{{.*}} {kernel_height = 1 : i64, kernel_width = 3 : i64, input_channels = 4 : i64} : (tensor<1x1x9x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x7x4xf32>
// CHECK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 7, 4>}
// CHECK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x7x4xf32>) -> tensor<1x4x7xf32>
func.func @depthwise1d(%x: tensor<1x4x9xf32>) -> tensor<1x4x7xf32> {
  %w = aten.constant dense<0.25> : tensor<4x1x3xf32>
  %y = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 4 : i64} : (tensor<1x4x9xf32>, tensor<4x1x3xf32>) -> tensor<1x4x7xf32>
  func.return %y : tensor<1x4x7xf32>
}

// -----

// A transposed convolution is a deconvolution; output_padding is its adjustment.
// CHECK-LABEL: func.func @deconv
// CHECK:         xnn.deconvolution_2d %{{.*}}, %{{.*}}, %{{.*}} {adjustment_height = 1 : i64, adjustment_width = 1 : i64, kernel_height = 4 : i64, kernel_width = 4 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x4x4x2xf32>, tensor<3xf32>) -> tensor<1x9x9x3xf32>
func.func @deconv(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x9x9xf32> {
  %w = aten.constant dense<0.5> : tensor<2x3x4x4xf32>
  %b = aten.constant dense<0.1> : tensor<3xf32>
  %y = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x9x9xf32>
  func.return %y : tensor<1x3x9x9xf32>
}

// -----

// Elementwise ops keep the logical layout; relu/hardtanh/clamp are clamps; ELU is a unary.
// CHECK-LABEL: func.func @elementwise
// CHECK:         %[[A:.*]] = xnn.binary add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.clamp %[[A]] {output_min = 0.000000e+00 : f32} :
// CHECK-NEXT:    %[[E:.*]] = xnn.unary elu %[[R]] {alpha = 5.000000e-01 : f32}
// CHECK-NEXT:    %[[H:.*]] = xnn.clamp %[[E]] {output_min = -1.000000e+00 : f32, output_max = 1.000000e+00 : f32}
// CHECK-NEXT:    xnn.output %[[H]]
func.func @elementwise(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = aten.add %x {scalar = 1.5 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = aten.relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = aten.elu %r {alpha = 0.5 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = aten.hardtanh %e : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %h : tensor<2x3xf32>
}

// -----

// linear is fully_connected; mean.dim is static_reduce; casts are converts.
// CHECK-LABEL: func.func @linear_mean_cast
// CHECK:         xnn.fully_connected %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    xnn.static_reduce mean %{{.*}} {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    xnn.convert %{{.*}} : (tensor<2x1xf32>) -> tensor<2x1xf16>
func.func @linear_mean_cast(%x: tensor<2x4xf32>) -> tensor<2x1xf16> {
  %w = aten.constant dense<0.5> : tensor<3x4xf32>
  %b = aten.constant dense<0.1> : tensor<3xf32>
  %y = aten.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %m = aten.mean %y {dim = array<i64: -1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %c = aten._to_copy %m {dtype = f16} : (tensor<2x1xf32>) -> tensor<2x1xf16>
  func.return %c : tensor<2x1xf16>
}

// -----

// expand is a static broadcast, after a reshape to the output's rank.
// CHECK-LABEL: func.func @expand
// CHECK:         %[[R:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 3, 1>} : (tensor<3x1xf32>) -> tensor<1x3x1xf32>
// CHECK-NEXT:    xnn.static_broadcast %[[R]] {new_shape = array<i64: 2, 3, 4>} : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = aten.expand %x {size = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// Left outside: a strided slice (log_softmax: convert-aten-to-xnn-model-ops.mlir).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.slice
func.func @left_alone(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %t = aten.slice %x {dim = 1 : i64, start = 0 : i64, end = 6 : i64, step = 2 : i64} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  func.return %t : tensor<4x3xf32>
}

// -----

// select drops the dim it indexes: a one-element slice, then a reshape; negative indices
// count from the end.
// CHECK-LABEL: func.func @select_time_step
// CHECK:         %[[S:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 2, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[S]] {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
func.func @select_time_step(%x: tensor<3x1x4xf32>) -> tensor<1x4xf32> {
  %y = aten.select %x {dim = 0 : i64, index = -1 : i64} : (tensor<3x1x4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @select_last_dim
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 1>}
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 2>}
func.func @select_last_dim(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %y = aten.select %x {dim = -1 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// Reflect padding mirrors without repeating the edge: [x1, x0..x4, x3]. It runs
// channels-last (the convolutions it feeds do), one-element slices around the input.
// CHECK-LABEL: func.func @reflect1d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x5x2xf32>
// CHECK-NEXT:    %[[L:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 1, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[R:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 3, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 1 : i64} : (tensor<1x1x2xf32>, tensor<1x5x2xf32>, tensor<1x1x2xf32>) -> tensor<1x7x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_transpose %[[C]] {perm = array<i64: 0, 2, 1>} : (tensor<1x7x2xf32>) -> tensor<1x2x7xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
func.func @reflect1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x7xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 1, 1>} : (tensor<1x2x5xf32>) -> tensor<1x2x7xf32>
  func.return %y : tensor<1x2x7xf32>
}

// -----

// Wider than XNNPACK's 5 concatenate inputs: each side's elements are joined first, so the
// input is copied once. [x3 x2 x1 | x0..x5 | x4 x3 x2]
// CHECK-LABEL: func.func @reflect1d_wide
// CHECK:         %[[T:.*]] = xnn.static_transpose
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 3, 0>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 2, 0>
// CHECK-NEXT:    %[[C:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 1, 0>
// CHECK-NEXT:    %[[D:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 4, 0>
// CHECK-NEXT:    %[[L:.*]] = xnn.concatenate %[[A]], %[[B]], %[[C]] {axis = 1 : i64}
// CHECK-NEXT:    %[[R:.*]] = xnn.concatenate %[[D]], %[[A]], %[[B]] {axis = 1 : i64}
// CHECK-NEXT:    xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 1 : i64} : (tensor<1x3x2xf32>, tensor<1x6x2xf32>, tensor<1x3x2xf32>) -> tensor<1x12x2xf32>
func.func @reflect1d_wide(%x: tensor<1x2x6xf32>) -> tensor<1x2x12xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 3, 3>} : (tensor<1x2x6xf32>) -> tensor<1x2x12xf32>
  func.return %y : tensor<1x2x12xf32>
}

// -----

// 2-D: the width first, then the height of the padded rows (corners included), in NHWC.
// CHECK-LABEL: func.func @reflect2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
// CHECK:         %[[W:.*]] = xnn.concatenate %{{.*}}, %[[T]], %{{.*}} {axis = 2 : i64} : (tensor<1x3x1x2xf32>, tensor<1x3x4x2xf32>, tensor<1x3x1x2xf32>) -> tensor<1x3x6x2xf32>
// CHECK-NEXT:    %[[R2:.*]] = xnn.static_slice %[[W]] {offsets = array<i64: 0, 2, 0, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[R1:.*]] = xnn.static_slice %[[W]] {offsets = array<i64: 0, 1, 0, 0>, sizes = array<i64: 1, 1, 6, 2>}
// CHECK-NEXT:    %[[H:.*]] = xnn.concatenate %[[R2]], %[[R1]], %[[W]] {axis = 1 : i64} : (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x3x6x2xf32>) -> tensor<1x5x6x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[H]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
func.func @reflect2d(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x5x6xf32> {
  %y = aten.reflection_pad2d %x {padding = array<i64: 1, 1, 2, 0>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x6xf32>
  func.return %y : tensor<1x2x5x6xf32>
}

// -----

// No padding: the input itself; a copy when it would be the subgraph's output unchanged.
// CHECK-LABEL: func.func @reflect_none
// CHECK:         %[[Y:.*]] = xnn.copy %{{.*}} : (tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
func.func @reflect_none(%x: tensor<1x2x5xf32>) -> tensor<1x2x5xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 0, 0>} : (tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  func.return %y : tensor<1x2x5xf32>
}

// -----

// Left outside: a pad as wide as the dim has no element to mirror (PyTorch rejects it).
// CHECK-LABEL: func.func @reflect_too_wide
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.reflection_pad1d
func.func @reflect_too_wide(%x: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  %y = aten.reflection_pad1d %x {padding = array<i64: 3, 0>} : (tensor<1x2x3xf32>) -> tensor<1x2x6xf32>
  func.return %y : tensor<1x2x6xf32>
}

// -----

// Replicate: the edge element's slice, repeated in the concatenate. Channels-last, like
// the convolutions it feeds. [x0 x0 | x0..x4 | x4]
// CHECK-LABEL: func.func @replicate1d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x5x2xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 4, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %[[A]], %[[A]], %[[T]], %[[B]] {axis = 1 : i64} : (tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x5x2xf32>, tensor<1x1x2xf32>) -> tensor<1x8x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[C]] {perm = array<i64: 0, 2, 1>} : (tensor<1x8x2xf32>) -> tensor<1x2x8xf32>
func.func @replicate1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x8xf32> {
  %y = aten.replication_pad1d %x {padding = array<i64: 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x2x8xf32>
  func.return %y : tensor<1x2x8xf32>
}

// -----

// 2-D: the width first, then the height of the padded rows (corners included).
// CHECK-LABEL: func.func @replicate2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
// CHECK-NEXT:    %[[L:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 3, 1, 2>}
// CHECK-NEXT:    %[[W:.*]] = xnn.concatenate %[[L]], %[[T]] {axis = 2 : i64} : (tensor<1x3x1x2xf32>, tensor<1x3x4x2xf32>) -> tensor<1x3x5x2xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[W]] {offsets = array<i64: 0, 2, 0, 0>, sizes = array<i64: 1, 1, 5, 2>}
// CHECK-NEXT:    %[[H:.*]] = xnn.concatenate %[[W]], %[[B]], %[[B]] {axis = 1 : i64} : (tensor<1x3x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[H]] {perm = array<i64: 0, 3, 1, 2>}
func.func @replicate2d(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x5x5xf32> {
  %y = aten.replication_pad2d %x {padding = array<i64: 1, 0, 0, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x5xf32>
  func.return %y : tensor<1x2x5x5xf32>
}

// -----

// Replicate wider than XNNPACK's 5 concatenate inputs: each side is joined first.
// CHECK-LABEL: func.func @replicate_wide
// CHECK:         %[[T:.*]] = xnn.static_transpose
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 2, 0>
// CHECK-NEXT:    %[[L:.*]] = xnn.concatenate %[[A]], %[[A]], %[[A]], %[[A]] {axis = 1 : i64}
// CHECK-NEXT:    %[[R:.*]] = xnn.concatenate %[[B]], %[[B]] {axis = 1 : i64}
// CHECK-NEXT:    xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 1 : i64} : (tensor<1x4x2xf32>, tensor<1x3x2xf32>, tensor<1x2x2xf32>) -> tensor<1x9x2xf32>
func.func @replicate_wide(%x: tensor<1x2x3xf32>) -> tensor<1x2x9xf32> {
  %y = aten.replication_pad1d %x {padding = array<i64: 4, 2>} : (tensor<1x2x3xf32>) -> tensor<1x2x9xf32>
  func.return %y : tensor<1x2x9xf32>
}

// -----

// Circular: the other end's slice wrapped around. [x3 x4 | x0..x4 | x0]
// CHECK-LABEL: func.func @circular1d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT:    %[[A:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 3, 0>, sizes = array<i64: 1, 2, 2>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 2>}
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %[[A]], %[[T]], %[[B]] {axis = 1 : i64} : (tensor<1x2x2xf32>, tensor<1x5x2xf32>, tensor<1x1x2xf32>) -> tensor<1x8x2xf32>
// CHECK-NEXT:    xnn.static_transpose %[[C]] {perm = array<i64: 0, 2, 1>}
func.func @circular1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x8xf32> {
  %y = aten._pad_circular %x {pad = array<i64: 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x2x8xf32>
  func.return %y : tensor<1x2x8xf32>
}

// -----

// 2-D; a pad as wide as the dim (PyTorch's limit) wraps the whole input: no slice.
// CHECK-LABEL: func.func @circular2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[L:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 3, 0>, sizes = array<i64: 1, 3, 1, 2>}
// CHECK-NEXT:    %[[R:.*]] = xnn.static_slice %[[T]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 3, 1, 2>}
// CHECK-NEXT:    %[[W:.*]] = xnn.concatenate %[[L]], %[[T]], %[[R]] {axis = 2 : i64} : (tensor<1x3x1x2xf32>, tensor<1x3x4x2xf32>, tensor<1x3x1x2xf32>) -> tensor<1x3x6x2xf32>
// CHECK-NEXT:    %[[H:.*]] = xnn.concatenate %[[W]], %[[W]] {axis = 1 : i64} : (tensor<1x3x6x2xf32>, tensor<1x3x6x2xf32>) -> tensor<1x6x6x2xf32>
func.func @circular2d(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x6x6xf32> {
  %y = aten._pad_circular %x {pad = array<i64: 1, 1, 0, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x6xf32>
  func.return %y : tensor<1x2x6x6xf32>
}

// -----

// Left outside: circular padding wider than the dim, negative padding (a crop).
// CHECK-LABEL: func.func @outside
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten._pad_circular
// CHECK:         aten.replication_pad1d
func.func @outside(%x: tensor<1x2x3xf32>) -> (tensor<1x2x7xf32>, tensor<1x2x4xf32>) {
  %y = aten._pad_circular %x {pad = array<i64: 4, 0>} : (tensor<1x2x3xf32>) -> tensor<1x2x7xf32>
  %z = aten.replication_pad1d %x {padding = array<i64: 2, -1>} : (tensor<1x2x3xf32>) -> tensor<1x2x4xf32>
  func.return %y, %z : tensor<1x2x7xf32>, tensor<1x2x4xf32>
}

// -----

// mean/sum with dtype= cast the input first (as torch does), then reduce in that dtype.
// CHECK-LABEL: func.func @mean_f16_to_f32
// CHECK:         %[[C:.*]] = xnn.convert %{{.*}} : (tensor<2x5xf16>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[M:.*]] = xnn.static_reduce mean %[[C]] {axes = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.convert %{{.*}} : (tensor<2x5xf16>) -> tensor<2x5xf32>
// CHECK-NEXT:    xnn.static_reduce sum %[[S]] {axes = array<i64: 0, 1>, flags = 64 : i32} : (tensor<2x5xf32>) -> tensor<1x1xf32>
func.func @mean_f16_to_f32(%x: tensor<2x5xf16>) -> (tensor<2xf32>, tensor<1x1xf32>) {
  %m = aten.mean %x {dim = array<i64: 1>, dtype = f32} : (tensor<2x5xf16>) -> tensor<2xf32>
  %s = aten.sum %x {dim = array<i64: 0, 1>, keepdim = true, dtype = f32} : (tensor<2x5xf16>) -> tensor<1x1xf32>
  func.return %m, %s : tensor<2xf32>, tensor<1x1xf32>
}

// -----

// The input's own dtype: no convert.
// CHECK-LABEL: func.func @mean_same_dtype
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.static_reduce mean
func.func @mean_same_dtype(%x: tensor<2x5xf32>) -> tensor<2xf32> {
  %m = aten.mean %x {dim = array<i64: 1>, dtype = f32} : (tensor<2x5xf32>) -> tensor<2xf32>
  func.return %m : tensor<2xf32>
}

// -----

// Left outside: XNNPACK has no float64 and no int64.
// CHECK-LABEL: func.func @outside
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.mean %x {dim = array<i64: 1>, dtype = f64}
// CHECK:         aten.mean %i {dim = array<i64: 1>, dtype = f32}
func.func @outside(%x: tensor<2x5xf32>, %i: tensor<2x5xi64>) -> (tensor<2xf64>, tensor<2xf32>) {
  %m = aten.mean %x {dim = array<i64: 1>, dtype = f64} : (tensor<2x5xf32>) -> tensor<2xf64>
  %n = aten.mean %i {dim = array<i64: 1>, dtype = f32} : (tensor<2x5xi64>) -> tensor<2xf32>
  func.return %m, %n : tensor<2xf64>, tensor<2xf32>
}

// -----

// XNNPACK's resize samples at the size ratio: 1.5 on 6 pixels (9 = 6 * 1.5 exactly) is the
// same scale; align_corners uses (in - 1) / (out - 1) on both sides, whatever the factor.
// 1.5 on 5 pixels gives 7 outputs, which torch samples at 1 / 1.5 and XNNPACK at 5 / 7.
// CHECK-LABEL: func.func @bilinear
// CHECK:         aten.upsample_bilinear2d %z {scale_factors = array<f64: 1.500000e+00, 1.500000e+00>, align_corners = false}
// CHECK:         xnn.subgraph
// CHECK:           xnn.static_resize_bilinear_2d %{{.*}} {new_height = 9 : i64, new_width = 9 : i64} : (tensor<1x6x6x3xf32>) -> tensor<1x9x9x3xf32>
// CHECK:           xnn.static_resize_bilinear_2d %{{.*}} {new_height = 7 : i64, new_width = 7 : i64, flags = 8 : i32} : (tensor<1x5x5x3xf32>) -> tensor<1x7x7x3xf32>
// CHECK-NOT:     aten.upsample_bilinear2d
func.func @bilinear(%x: tensor<1x3x6x6xf32>, %z: tensor<1x3x5x5xf32>) -> (tensor<1x3x9x9xf32>, tensor<1x3x7x7xf32>, tensor<1x3x7x7xf32>) {
  %y = aten.upsample_bilinear2d %x {scale_factors = array<f64: 1.5, 1.5>, align_corners = false} : (tensor<1x3x6x6xf32>) -> tensor<1x3x9x9xf32>
  %a = aten.upsample_bilinear2d %z {scale_factors = array<f64: 1.5, 1.5>, align_corners = false} : (tensor<1x3x5x5xf32>) -> tensor<1x3x7x7xf32>
  %b = aten.upsample_bilinear2d %z {scale_factors = array<f64: 1.5, 1.5>, align_corners = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x7x7xf32>
  func.return %y, %a, %b : tensor<1x3x9x9xf32>, tensor<1x3x7x7xf32>, tensor<1x3x7x7xf32>
}

// -----

// Casts: fp32 <-> bf16 become converts inside the delegate (with or without dim order);
// an integer cast and a memory-format change stay outside.
// CHECK-LABEL: func.func @casts
// CHECK:        xnn.subgraph
// CHECK:          xnn.convert %{{.*}} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xbf16>
// CHECK:          xnn.convert %{{.*}} : (tensor<1x4x2x2xbf16>) -> tensor<1x4x2x2xf32>
// CHECK:        aten._to_copy %{{.*}} {dtype = i32}
// CHECK:        aten._to_copy %{{.*}} {memory_format = "torch.channels_last"}
func.func @casts(%x: tensor<1x4x2x2xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xi32>, tensor<1x4x2x2xf32>) {
  %a = aten._to_copy %x {dtype = bf16} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xbf16>
  %b = aten._to_dim_order_copy %a {dtype = f32, dim_order = array<i64: 0, 1, 2, 3>} : (tensor<1x4x2x2xbf16>) -> tensor<1x4x2x2xf32>
  %c = aten._to_copy %b {dtype = i32} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xi32>
  %d = aten._to_copy %b {memory_format = "torch.channels_last"} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  func.return %b, %c, %d : tensor<1x4x2x2xf32>, tensor<1x4x2x2xi32>, tensor<1x4x2x2xf32>
}

// -----

// A dq -> cast -> q chain keeps its requantize: the quantize ops stay (outside), the cast
// becomes a convert, nothing is folded away.
// CHECK-LABEL: func.func @dq_cast_q
// CHECK:        %[[DQ:.*]] = aten.generic "quantized_decomposed::dequantize_per_tensor"
// CHECK:        %[[S:.*]] = xnn.subgraph(%[[DQ]])
// CHECK:          xnn.convert %{{.*}} : (tensor<8xf32>) -> tensor<8xf16>
// CHECK:        aten.generic "quantized_decomposed::quantize_per_tensor"(%[[S]])
func.func @dq_cast_q(%x: tensor<8xi8>) -> tensor<8xi8> {
  %dq = aten.generic "quantized_decomposed::dequantize_per_tensor"(%x) {args = [#aten.operand<0>, 5.000000e-01 : f64, 0 : i64, -128 : i64, 127 : i64, i8]} : (tensor<8xi8>) -> tensor<8xf32>
  %h = aten._to_copy %dq {dtype = f16} : (tensor<8xf32>) -> tensor<8xf16>
  %q = aten.generic "quantized_decomposed::quantize_per_tensor"(%h) {args = [#aten.operand<0>, 5.000000e-01 : f64, 0 : i64, -128 : i64, 127 : i64, i8]} : (tensor<8xf16>) -> tensor<8xi8>
  func.return %q : tensor<8xi8>
}

// -----

// pixel_unshuffle is xnn.space_to_depth_2d in NHWC. XNNPACK puts the block before the channel
// (TensorFlow DCR), torch after it (CRD): the block index moves behind the channel on the way
// back to NCHW. The stock target, which lacks the node kind, gets reshape/transpose/reshape.
// CHECK-LABEL: func.func @pixel_unshuffle
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.space_to_depth_2d %[[T]] {block_size = 2 : i64} : (tensor<1x8x6x3xf32>) -> tensor<1x4x3x12xf32>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[S]] {new_shape = array<i64: 1, 4, 3, 4, 3>} : (tensor<1x4x3x12xf32>) -> tensor<1x4x3x4x3xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.static_transpose %[[R]] {perm = array<i64: 0, 4, 3, 1, 2>} : (tensor<1x4x3x4x3xf32>) -> tensor<1x3x4x4x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 1, 12, 4, 3>} : (tensor<1x3x4x4x3xf32>) -> tensor<1x12x4x3xf32>
// CHECK-NEXT:    xnn.output %[[Y]]

// STOCK-LABEL: func.func @pixel_unshuffle
// STOCK-NOT:     xnn.space_to_depth_2d
// STOCK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 2, 3, 2, 3>} : (tensor<1x8x6x3xf32>) -> tensor<1x4x2x3x2x3xf32>
// STOCK-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<1x4x2x3x2x3xf32>) -> tensor<1x4x3x2x2x3xf32>
// STOCK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 3, 12>} : (tensor<1x4x3x2x2x3xf32>) -> tensor<1x4x3x12xf32>
func.func @pixel_unshuffle(%x: tensor<1x3x8x6xf32>) -> tensor<1x12x4x3xf32> {
  %y = aten.pixel_unshuffle %x {downscale_factor = 2 : i64} : (tensor<1x3x8x6xf32>) -> tensor<1x12x4x3xf32>
  func.return %y : tensor<1x12x4x3xf32>
}

// -----

// log_softmax is s - log(sum(exp(s))) with s = x - max(x): never log(softmax(x)).
// Stock ExecuTorch has no reduce node: the max is a 1xK max-pooling window over the K
// reduced values with the kept ones as channels, the sum a fully_connected with ones.
// CHECK-LABEL: func.func @log_softmax_last
// CHECK:         %[[M:.*]] = xnn.static_reduce max %[[X:.*]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x10xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.binary subtract %[[X]], %[[M]] : (tensor<2x10xf32>, tensor<2x1xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %[[E:.*]] = xnn.unary exp %[[S]] : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %[[T:.*]] = xnn.static_reduce sum %[[E]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x10xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[L:.*]] = xnn.unary log %[[T]] : (tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary subtract %[[S]], %[[L]] : (tensor<2x10xf32>, tensor<2x1xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    xnn.output %[[Y]]
// CHECK-NOT:     xnn.softmax
// STOCK-LABEL: func.func @log_softmax_last
// STOCK:         %[[T:.*]] = xnn.static_transpose %[[X:.*]] {perm = array<i64: 1, 0>} : (tensor<2x10xf32>) -> tensor<10x2xf32>
// STOCK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 10, 2>} : (tensor<10x2xf32>) -> tensor<1x1x10x2xf32>
// STOCK-NEXT:    %[[P:.*]] = xnn.max_pooling_2d %[[R]] {pooling_height = 1 : i64, pooling_width = 10 : i64} : (tensor<1x1x10x2xf32>) -> tensor<1x1x1x2xf32>
// STOCK-NEXT:    %[[M:.*]] = xnn.static_reshape %[[P]] {new_shape = array<i64: 2, 1>} : (tensor<1x1x1x2xf32>) -> tensor<2x1xf32>
// STOCK-NEXT:    %[[S:.*]] = xnn.binary subtract %[[X]], %[[M]]
// STOCK-NEXT:    %[[E:.*]] = xnn.unary exp %[[S]]
// STOCK-NEXT:    %[[F:.*]] = xnn.constant #xnnc.weight<"reduce.filter"{{.*}}> : tensor<1x10xf32>
// STOCK-NEXT:    %[[G:.*]] = xnn.fully_connected %[[E]], %[[F]] : (tensor<2x10xf32>, tensor<1x10xf32>) -> tensor<2x1xf32>
// STOCK-NEXT:    %[[L:.*]] = xnn.unary log %[[G]]
// STOCK-NEXT:    xnn.binary subtract %[[S]], %[[L]]
// STOCK-NOT:     xnn.static_reduce
func.func @log_softmax_last(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = aten._log_softmax %x {dim = -1 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

// Over an inner dim (fp16): the reductions keep it as 1 and the subtractions broadcast; for
// stock, a transpose puts the reduced dim first, ahead of the kept ones (the channels).
// CHECK-LABEL: func.func @log_softmax_channels
// CHECK:         xnn.static_reduce max %{{.*}} {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf16>) -> tensor<2x1x4xf16>
// CHECK:         xnn.static_reduce sum %{{.*}} {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x3x4xf16>) -> tensor<2x1x4xf16>
// CHECK:         xnn.binary subtract %{{.*}}, %{{.*}} : (tensor<2x3x4xf16>, tensor<2x1x4xf16>) -> tensor<2x3x4xf16>
// STOCK-LABEL: func.func @log_softmax_channels
// STOCK:         xnn.static_transpose %{{.*}} {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf16>) -> tensor<3x2x4xf16>
// STOCK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 3, 8>}
// STOCK-NEXT:    xnn.max_pooling_2d %{{.*}} {pooling_height = 1 : i64, pooling_width = 3 : i64} : (tensor<1x1x3x8xf16>) -> tensor<1x1x1x8xf16>
// STOCK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 2, 1, 4>}
func.func @log_softmax_channels(%x: tensor<2x3x4xf16>) -> tensor<2x3x4xf16> {
  %y = aten._log_softmax %x {dim = 1 : i64, half_to_float = false} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
  func.return %y : tensor<2x3x4xf16>
}

// -----

// GELU: erf form as XNNPACK's gelu (stock XNNGelu), tanh form as approxgelu, an XNNUnary
// stock ExecuTorch lacks: for stock, x * sigmoid(x * (a + b x^2)) with a = 2 sqrt(2/pi) and
// b = 0.044715 a, since (1 + tanh(z)) / 2 = sigmoid(2z). SiLU is x * sigmoid(x).
// CHECK-LABEL: func.func @activations
// CHECK:         %[[G:.*]] = xnn.unary gelu %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[A:.*]] = xnn.unary approxgelu %[[G]] : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[S:.*]] = xnn.unary sigmoid %[[A]]
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary multiply %[[A]], %[[S]]
// CHECK-NEXT:    xnn.output %[[Y]]
// STOCK-LABEL: func.func @activations
// STOCK:         %[[G:.*]] = xnn.unary gelu %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// STOCK-NEXT:    %[[X2:.*]] = xnn.unary square %[[G]]
// STOCK-NEXT:    %[[B:.*]] = xnn.constant dense<0.0713548139> : tensor<1xf32>
// STOCK-NEXT:    %[[P:.*]] = xnn.binary multiply %[[X2]], %[[B]]
// STOCK-NEXT:    %[[A:.*]] = xnn.constant dense<1.59576917> : tensor<1xf32>
// STOCK-NEXT:    %[[Q:.*]] = xnn.binary add %[[P]], %[[A]]
// STOCK-NEXT:    %[[Z:.*]] = xnn.binary multiply %[[Q]], %[[G]]
// STOCK-NEXT:    %[[S:.*]] = xnn.unary sigmoid %[[Z]]
// STOCK-NEXT:    %[[T:.*]] = xnn.binary multiply %[[G]], %[[S]]
// STOCK-NEXT:    xnn.unary sigmoid %[[T]]
// STOCK-NOT:     approxgelu
func.func @activations(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %g = aten.gelu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = aten.gelu %g {approximate = "tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = aten.silu %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// Activations XNNPACK has no node for, composed of stock kinds (so the stock form is the
// same): hardsigmoid as torch computes it, an add clamped to [0, 6] then a divide;
// softplus without overflow, relu(z) + log1p(exp(-|z|)) over z = beta * x, log1p(t) as
// log(u) + (t - (u - 1)) / u with u = 1 + t; mish as x * n / (n + 2), n = a * (a + 2),
// a = exp(min(x, 20)); SELU as scale * elu(x, alpha).
// CHECK-LABEL: func.func @more_activations
// CHECK:         %[[THREE:.*]] = xnn.constant dense<3.000000e+00>
// CHECK-NEXT:    %[[C:.*]] = xnn.binary add %{{.*}}, %[[THREE]] {output_min = 0.000000e+00 : f32, output_max = 6.000000e+00 : f32}
// CHECK-NEXT:    %[[SIX:.*]] = xnn.constant dense<6.000000e+00>
// CHECK-NEXT:    %[[H:.*]] = xnn.binary divide %[[C]], %[[SIX]]
// CHECK-NEXT:    %[[BETA:.*]] = xnn.constant dense<2.000000e+00>
// CHECK-NEXT:    %[[Z:.*]] = xnn.binary multiply %[[H]], %[[BETA]]
// CHECK-NEXT:    %[[A:.*]] = xnn.unary abs %[[Z]]
// CHECK-NEXT:    %[[N:.*]] = xnn.unary negate %[[A]]
// CHECK-NEXT:    %[[T:.*]] = xnn.unary exp %[[N]]
// CHECK-NEXT:    %[[R:.*]] = xnn.clamp %[[Z]] {output_min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[ONE:.*]] = xnn.constant dense<1.000000e+00>
// CHECK-NEXT:    %[[U:.*]] = xnn.binary add %[[T]], %[[ONE]]
// CHECK-NEXT:    %[[ONE2:.*]] = xnn.constant dense<1.000000e+00>
// CHECK-NEXT:    %[[D:.*]] = xnn.binary subtract %[[U]], %[[ONE2]]
// CHECK-NEXT:    %[[LOST:.*]] = xnn.binary subtract %[[T]], %[[D]]
// CHECK-NEXT:    %[[L:.*]] = xnn.unary log %[[U]]
// CHECK-NEXT:    %[[Q:.*]] = xnn.binary divide %[[LOST]], %[[U]]
// CHECK-NEXT:    %[[L1P:.*]] = xnn.binary add %[[L]], %[[Q]]
// CHECK-NEXT:    %[[SP:.*]] = xnn.binary add %[[L1P]], %[[R]]
// CHECK-NEXT:    %[[BETA2:.*]] = xnn.constant dense<2.000000e+00>
// CHECK-NEXT:    %[[S:.*]] = xnn.binary divide %[[SP]], %[[BETA2]]
// CHECK-NEXT:    %[[MIN:.*]] = xnn.clamp %[[S]] {output_max = 2.000000e+01 : f32}
// CHECK-NEXT:    %[[EA:.*]] = xnn.unary exp %[[MIN]]
// CHECK:         %[[NN:.*]] = xnn.binary multiply %[[EA]], %{{.*}}
// CHECK:         %[[RATIO:.*]] = xnn.binary divide %[[NN]], %{{.*}}
// CHECK-NEXT:    %[[M:.*]] = xnn.binary multiply %[[S]], %[[RATIO]]
// CHECK-NEXT:    %[[E:.*]] = xnn.unary elu %[[M]] {alpha = 1.67326319 : f32}
// CHECK-NEXT:    %[[SCALE:.*]] = xnn.constant dense<1.05070102>
// CHECK-NEXT:    %[[Y:.*]] = xnn.binary multiply %[[E]], %[[SCALE]]
// CHECK-NEXT:    xnn.output %[[Y]]
// STOCK-LABEL: func.func @more_activations
// STOCK-NOT:     xnn.unary {{(approxgelu|bankers)}}
// STOCK:         xnn.output
func.func @more_activations(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %h = aten.hardsigmoid %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = aten.softplus %h {beta = 2.0 : f64, threshold = 20.0 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = aten.mish %s : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %e = aten.elu %m {alpha = 1.6732632423543772 : f64, scale = 1.0507009873554805 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %e : tensor<2x8xf32>
}

// -----

// log2 and log10 as the natural log times 1 / log(b) (XNNPACK has no other base; stock
// kinds); `x.max()` (aten::max) as a max reduce over every dim, a 0-d result.
// CHECK-LABEL: func.func @log_bases_and_global_max
// CHECK:         %[[L:.*]] = xnn.unary log %{{.*}}
// CHECK-NEXT:    %[[K:.*]] = xnn.constant dense<0.434294492>
// CHECK-NEXT:    %{{.*}} = xnn.binary multiply %[[L]], %[[K]]
// CHECK:         %[[L2:.*]] = xnn.unary log %{{.*}}
// CHECK-NEXT:    %[[K2:.*]] = xnn.constant dense<1.44269502>
// CHECK-NEXT:    %{{.*}} = xnn.binary multiply %[[L2]], %[[K2]]
// CHECK:         xnn.static_reduce max %{{.*}} {axes = array<i64: 0, 1>} : (tensor<2x8xf32>) -> tensor<f32>
// STOCK-LABEL: func.func @log_bases_and_global_max
// STOCK-NOT:     aten.
// STOCK:         xnn.output
func.func @log_bases_and_global_max(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<f32>) {
  %a = aten.log10 %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b = aten.log2 %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = aten.amax %x : (tensor<2x8xf32>) -> tensor<f32>
  func.return %a, %b, %m : tensor<2x8xf32>, tensor<2x8xf32>, tensor<f32>
}

// -----

// PReLU: XNNPACK's slopes run along the innermost dim, so a 1-D (N, C, L) input with a
// slope per channel goes channels-last around it; a single slope is repeated along the
// innermost dim as it stands. A stock kind (XNNPReLU).
// CHECK-LABEL: func.func @prelu
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 1, 5, 3>}
// CHECK-NEXT:    %[[S:.*]] = xnn.constant {{.*}} : tensor<3xf32>
// CHECK-NEXT:    %[[P:.*]] = xnn.binary prelu %[[R]], %[[S]] : (tensor<1x1x5x3xf32>, tensor<3xf32>) -> tensor<1x1x5x3xf32>
// CHECK:         %[[S1:.*]] = xnn.constant {{.*}} : tensor<5xf32>
// CHECK-NEXT:    xnn.binary prelu %{{.*}}, %[[S1]] : (tensor<1x3x5xf32>, tensor<5xf32>) -> tensor<1x3x5xf32>
// STOCK-LABEL: func.func @prelu
// STOCK:         xnn.binary prelu
func.func @prelu(%x: tensor<1x3x5xf32>) -> (tensor<1x3x5xf32>, tensor<1x3x5xf32>) {
  %w = aten.constant dense<[0.25, -0.5, 1.0]> : tensor<3xf32>
  %y = aten.prelu %x, %w : (tensor<1x3x5xf32>, tensor<3xf32>) -> tensor<1x3x5xf32>
  %s = aten.constant dense<0.25> : tensor<1xf32>
  %z = aten.prelu %x, %s : (tensor<1x3x5xf32>, tensor<1xf32>) -> tensor<1x3x5xf32>
  func.return %y, %z : tensor<1x3x5xf32>, tensor<1x3x5xf32>
}

// -----

// Average pooling that counts the padding (count_include_pad) pads zeros first; ceil_mode's
// last, partial window is XNNPACK padding at the bottom/right, which its divisor leaves out
// as PyTorch's does (conversion/pooling.py).
// CHECK-LABEL: func.func @avg_pool_count_include_pad_ceil
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[P:.*]] = xnn.static_constant_pad %[[T]] {pre_paddings = array<i64: 0, 1, 1, 0>, post_paddings = array<i64: 0, 1, 1, 0>} : (tensor<1x20x20x8xf32>) -> tensor<1x22x22x8xf32>
// CHECK-NEXT:    xnn.average_pooling_2d %[[P]] {pooling_height = 3 : i64, pooling_width = 3 : i64, stride_height = 2 : i64, stride_width = 2 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64} : (tensor<1x22x22x8xf32>) -> tensor<1x11x11x8xf32>
// STOCK-LABEL: func.func @avg_pool_count_include_pad_ceil
// STOCK:         xnn.static_constant_pad
// STOCK-NEXT:    xnn.average_pooling_2d
func.func @avg_pool_count_include_pad_ceil(%x: tensor<1x8x20x20xf32>) -> tensor<1x8x11x11xf32> {
  %y = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x8x20x20xf32>) -> tensor<1x8x11x11xf32>
  func.return %y : tensor<1x8x11x11xf32>
}

// -----

// count_include_pad=false is XNNPACK's own padding: no pad node.
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK:         %[[T:.*]] = xnn.static_transpose
// CHECK-NEXT:    xnn.average_pooling_2d %[[T]] {pooling_height = 3 : i64, pooling_width = 3 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64} : (tensor<1x20x20x8xf32>) -> tensor<1x20x20x8xf32>
func.func @avg_pool_exclude_pad(%x: tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32> {
  %y = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x8x20x20xf32>) -> tensor<1x8x20x20xf32>
  func.return %y : tensor<1x8x20x20xf32>
}

// -----

// divisor_override on whole windows: the mean of the zero-padded window, rescaled by 9/5.
// CHECK-LABEL: func.func @avg_pool_divisor_override
// CHECK:         xnn.static_constant_pad
// CHECK-NEXT:    %[[A:.*]] = xnn.average_pooling_2d
// CHECK-NEXT:    %[[S:.*]] = xnn.constant dense<1.800000e+00> : tensor<1xf32>
// CHECK-NEXT:    xnn.binary multiply %[[A]], %[[S]]
func.func @avg_pool_divisor_override(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %y = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, divisor_override = 5 : i64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// ceil_mode max pooling: the partial last window is -inf padding at the bottom/right.
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK:         xnn.max_pooling_2d %{{.*}} {pooling_height = 3 : i64, pooling_width = 3 : i64, stride_height = 2 : i64, stride_width = 2 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64} : (tensor<1x10x10x8xf32>) -> tensor<1x5x5x8xf32>
func.func @max_pool_ceil_mode(%x: tensor<1x8x10x10xf32>) -> tensor<1x8x5x5xf32> {
  %y, %i = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x8x10x10xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xi64>)
  func.return %y : tensor<1x8x5x5xf32>
}

// -----

// Adaptive pooling whose output divides the input: kernel = stride = input / output.
// CHECK-LABEL: func.func @adaptive_pools
// CHECK:         xnn.max_pooling_2d %{{.*}} {pooling_height = 4 : i64, pooling_width = 2 : i64, stride_height = 4 : i64, stride_width = 2 : i64} : (tensor<1x20x20x8xf32>) -> tensor<1x5x10x8xf32>
// CHECK:         xnn.average_pooling_2d %{{.*}} {pooling_height = 4 : i64, pooling_width = 2 : i64, stride_height = 4 : i64, stride_width = 2 : i64} : (tensor<1x20x20x8xf32>) -> tensor<1x5x10x8xf32>
// STOCK-LABEL: func.func @adaptive_pools
// STOCK:         xnn.max_pooling_2d
// STOCK:         xnn.average_pooling_2d
func.func @adaptive_pools(%x: tensor<1x8x20x20xf32>) -> (tensor<1x8x5x10xf32>, tensor<1x8x5x10xf32>) {
  %m, %i = aten.adaptive_max_pool2d %x {output_size = array<i64: 5, 10>} : (tensor<1x8x20x20xf32>) -> (tensor<1x8x5x10xf32>, tensor<1x8x5x10xi64>)
  %a = aten._adaptive_avg_pool2d %x {output_size = array<i64: 5, 10>} : (tensor<1x8x20x20xf32>) -> tensor<1x8x5x10xf32>
  func.return %m, %a : tensor<1x8x5x10xf32>, tensor<1x8x5x10xf32>
}

// -----

// A flip as one slice per element, concatenated backwards (XNNPACK has no reverse node); a
// dim of size 1 needs none.
// CHECK-LABEL: func.func @flip
// CHECK:         %[[A:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 2>, sizes = array<i64: 2, 1, 1>}
// CHECK-NEXT:    %[[B:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 1>, sizes = array<i64: 2, 1, 1>}
// CHECK-NEXT:    %[[C:.*]] = xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2, 1, 1>}
// CHECK-NEXT:    xnn.concatenate %[[A]], %[[B]], %[[C]] {axis = 2 : i64}
func.func @flip(%x: tensor<2x1x3xf32>) -> tensor<2x1x3xf32> {
  %y = aten.flip %x {dims = array<i64: 1, -1>} : (tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
  func.return %y : tensor<2x1x3xf32>
}

// -----

// mean/sum with no dim (`x.mean()`, `x.sum()`: aten.mean.default) reduce every dim into a 0-d
// result, as torch gives; stock computes them from its own kinds.
// CHECK-LABEL: func.func @reduce_every_dim
// CHECK:         xnn.static_reduce mean %{{.*}} {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK-NEXT:    xnn.static_reduce sum %{{.*}} {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
// STOCK-LABEL: func.func @reduce_every_dim
// STOCK-NOT:     xnn.static_reduce
func.func @reduce_every_dim(%x: tensor<2x3x4xf32>) -> (tensor<f32>, tensor<f32>) {
  %m = aten.mean %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %s = aten.sum %x : (tensor<2x3x4xf32>) -> tensor<f32>
  func.return %m, %s : tensor<f32>, tensor<f32>
}

// -----

// Nearest 1-D upsampling by an integer scale: a broadcast on the innermost dim, in the
// input's own layout (no transpose); 8 -> 12 (1.5x) gathers a, a, b from each pair.
// CHECK-LABEL: func.func @upsample_nearest1d
// CHECK-NOT:     xnn.static_transpose
// CHECK:         %[[U:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 2, 3, 8, 1>} : (tensor<2x3x8xf32>) -> tensor<2x3x8x1xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_broadcast %[[U]] {new_shape = array<i64: 2, 3, 8, 3>} : (tensor<2x3x8x1xf32>) -> tensor<2x3x8x3xf32>
// CHECK-NEXT:    xnn.static_reshape %[[B]] {new_shape = array<i64: 2, 3, 24>} : (tensor<2x3x8x3xf32>) -> tensor<2x3x24xf32>
// CHECK:         %[[P:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 2, 3, 4, 2>} : (tensor<2x3x8xf32>) -> tensor<2x3x4x2xf32>
// CHECK:         xnn.concatenate
// CHECK-NOT:     xnn.static_transpose
func.func @upsample_nearest1d(%x: tensor<2x3x8xf32>) -> (tensor<2x3x24xf32>, tensor<2x3x12xf32>) {
  %y = aten.upsample_nearest1d %x {scale_factors = array<f64: 3.0>} : (tensor<2x3x8xf32>) -> tensor<2x3x24xf32>
  %z = aten.upsample_nearest1d %x {output_size = array<i64: 12>} : (tensor<2x3x8xf32>) -> tensor<2x3x12xf32>
  func.return %y, %z : tensor<2x3x24xf32>, tensor<2x3x12xf32>
}

// -----

// round (halves to even) is XNNPACK's bankers rounding, an xnn.unary operator stock
// ExecuTorch 1.5.1 has no node kind for: on the stock target it stays outside, on torch or
// ExecuTorch's portable kernel, while the op before it is delegated. round.decimals with
// decimals != 0 stays outside on both targets.
// CHECK-LABEL: func.func @round
// CHECK:         xnn.subgraph
// CHECK:           %[[D:.*]] = xnn.binary multiply
// CHECK-NEXT:      %[[R:.*]] = xnn.unary bankers_rounding %[[D]] : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:      %[[Z:.*]] = xnn.unary bankers_rounding %[[R]] : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:      xnn.output %[[R]], %[[Z]]
// CHECK:         aten.round %{{.*}} {decimals = 1 : i64}
// STOCK-LABEL: func.func @round
// STOCK:         %[[S:.*]] = xnn.subgraph
// STOCK:           xnn.binary multiply
// STOCK-NOT:       bankers_rounding
// STOCK:         %[[R:.*]] = aten.round %[[S]] : (tensor<2x8xf32>) -> tensor<2x8xf32>
// STOCK-NEXT:    aten.round %[[R]] {decimals = 0 : i64}
// STOCK-NEXT:    aten.round %[[R]] {decimals = 1 : i64}
func.func @round(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %c = aten.constant dense<2.0> : tensor<1xf32>
  %d = aten.mul %x, %c : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %r = aten.round %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %z = aten.round %r {decimals = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = aten.round %r {decimals = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %r, %z, %t : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// pow by a tensor is xnn.binary pow, which stock ExecuTorch 1.5.1 has no node kind for and
// xnn-legalize-stock rewrites only by a constant scalar: on stock it stays outside.
// CHECK-LABEL: func.func @pow_by_a_tensor
// CHECK:         xnn.binary pow
// STOCK-LABEL: func.func @pow_by_a_tensor
// STOCK:         xnn.subgraph
// STOCK:           xnn.unary abs
// STOCK-NOT:       xnn.binary pow
// STOCK:         aten.pow %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @pow_by_a_tensor(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = aten.abs %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %p = aten.pow %a, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %p : tensor<2x8xf32>
}
