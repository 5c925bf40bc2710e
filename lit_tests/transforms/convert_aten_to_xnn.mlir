// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s

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

// Left outside: log_softmax (no XNNPACK node), a strided slice.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten._log_softmax
// CHECK:         aten.slice
func.func @left_alone(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %s = aten._log_softmax %x {dim = 0 : i64, half_to_float = false} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %t = aten.slice %s {dim = 1 : i64, start = 0 : i64, end = 6 : i64, step = 2 : i64} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  func.return %t : tensor<4x3xf32>
}
