// RUN: XNN_ROUNDTRIP
// RUN: XNN_GENERIC_ROUNDTRIP
// RUN: xnn-opt %s --split-input-file | filecheck %s

// Every op of the aten dialect, printed in its custom form (CHECK) and, for a few
// representative ones, in the generic form (GENERIC).

// CHECK-LABEL: func.func @constant_weight(
// CHECK-NEXT:    %w = aten.constant #xnnc.weight<"encoder.conv.weight"> : tensor<8x4x3xf32>
// CHECK-NEXT:    func.return %w : tensor<8x4x3xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "constant_weight"
// GENERIC:       %w = "aten.constant"() <{value = #xnnc.weight<"encoder.conv.weight">}> : () -> tensor<8x4x3xf32>
func.func @constant_weight() -> tensor<8x4x3xf32> {
  %w = aten.constant #xnnc.weight<"encoder.conv.weight"> : tensor<8x4x3xf32>
  func.return %w : tensor<8x4x3xf32>
}

// -----
// CHECK-LABEL: func.func @constant_dense(
// CHECK-NEXT:    %c = aten.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %c : tensor<2x2xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "constant_dense"
// GENERIC:       %c = "aten.constant"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
func.func @constant_dense() -> tensor<2x2xf32> {
  %c = aten.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  func.return %c : tensor<2x2xf32>
}

// -----
// CHECK-LABEL: func.func @generic(
// CHECK-NEXT:    %a = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, #aten.operand<1>]]} : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<4x3xf32>
// CHECK-NEXT:    %v, %k = aten.generic "aten::topk"(%a) {args = [#aten.operand<0>, 2 : i64], kwargs = {dim = -1 : i64, largest = true, sorted = true}} : (tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
// CHECK-NEXT:    func.return %a, %v, %k : tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x2xi64>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "generic"
// GENERIC:       %a = "aten.generic"(%x, %i) <{target = "aten::index.Tensor", args = [#aten.operand<0>, [none, #aten.operand<1>]], kwargs = {}}> : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<4x3xf32>
// GENERIC:       %v, %k = "aten.generic"(%a) <{target = "aten::topk", args = [#aten.operand<0>, 2 : i64], kwargs = {dim = -1 : i64, largest = true, sorted = true}}> : (tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
func.func @generic(%x: tensor<4x10xf32>, %i: tensor<3xi64>) -> (tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x2xi64>) {
  %a = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, #aten.operand<1>]]} : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  %v, %k = aten.generic "aten::topk"(%a) {args = [#aten.operand<0>, 2 : i64], kwargs = {dim = -1 : i64, largest = true, sorted = true}} : (tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  func.return %a, %v, %k : tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x2xi64>
}

// -----
// CHECK-LABEL: func.func @generic_no_operands(
// CHECK-NEXT:    %r = aten.generic "aten::arange.start"() {args = [0 : i64, 8 : i64], kwargs = {dtype = f32}} : () -> tensor<8xf32>
// CHECK-NEXT:    func.return %r : tensor<8xf32>
// CHECK-NEXT:  }
func.func @generic_no_operands() -> tensor<8xf32> {
  %r = aten.generic "aten::arange.start"() {args = [0 : i64, 8 : i64], kwargs = {dtype = f32}} : () -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----
// CHECK-LABEL: func.func @conv1d(
// CHECK-NEXT:    %y = aten.convolution %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x7xf32>
// CHECK-NEXT:    func.return %y : tensor<1x8x7xf32>
// CHECK-NEXT:  }
func.func @conv1d(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x7xf32> {
  %y = aten.convolution %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x7xf32>
  func.return %y : tensor<1x8x7xf32>
}

// -----
// CHECK-LABEL: func.func @conv2d_grouped_dilated(
// CHECK-NEXT:    %y = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, transposed = false, output_padding = array<i64: 0, 0>, groups = 4 : i64} : (tensor<1x8x10x10xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x10x10xf32>
// CHECK-NEXT:    func.return %y : tensor<1x16x10x10xf32>
// CHECK-NEXT:  }
func.func @conv2d_grouped_dilated(%x: tensor<1x8x10x10xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<1x16x10x10xf32> {
  %y = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, transposed = false, output_padding = array<i64: 0, 0>, groups = 4 : i64} : (tensor<1x8x10x10xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x10x10xf32>
  func.return %y : tensor<1x16x10x10xf32>
}

// -----
// CHECK-LABEL: func.func @conv_transpose2d(
// CHECK-NEXT:    %y = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x10x10xf32>
// CHECK-NEXT:    func.return %y : tensor<1x4x10x10xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "conv_transpose2d"
// GENERIC:       %y = "aten.convolution"(%x, %w, %b) <{stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x10x10xf32>
func.func @conv_transpose2d(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x10x10xf32> {
  %y = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x10x10xf32>
  func.return %y : tensor<1x4x10x10xf32>
}

// -----
// CHECK-LABEL: func.func @conv3d(
// CHECK-NEXT:    %y = aten.convolution %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, transposed = false, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64} : (tensor<1x2x4x8x8xf32>, tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x6x6xf32>
// CHECK-NEXT:    func.return %y : tensor<1x4x4x6x6xf32>
// CHECK-NEXT:  }
func.func @conv3d(%x: tensor<1x2x4x8x8xf32>, %w: tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x6x6xf32> {
  %y = aten.convolution %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, transposed = false, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64} : (tensor<1x2x4x8x8xf32>, tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x6x6xf32>
  func.return %y : tensor<1x4x4x6x6xf32>
}

// -----
// CHECK-LABEL: func.func @pad_circular(
// CHECK-NEXT:    %a = aten._pad_circular %x {pad = array<i64: 2, 1, 0, 3>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x8xf32>
// CHECK-NEXT:    func.return %a : tensor<1x3x7x8xf32>
// CHECK-NEXT:  }
func.func @pad_circular(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x7x8xf32> {
  %a = aten._pad_circular %x {pad = array<i64: 2, 1, 0, 3>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x8xf32>
  func.return %a : tensor<1x3x7x8xf32>
}

// -----
// CHECK-LABEL: func.func @pads(
// CHECK-NEXT:    %a = aten.constant_pad_nd %x {pad = array<i64: 1, 2, 0, 1>, value = 5.000000e-01 : f32} : (tensor<1x3x8x8xf32>) -> tensor<1x3x9x11xf32>
// CHECK-NEXT:    %b = aten.reflection_pad1d %s {padding = array<i64: 2, 2>} : (tensor<1x3x8xf32>) -> tensor<1x3x12xf32>
// CHECK-NEXT:    %c = aten.reflection_pad2d %x {padding = array<i64: 1, 1, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x12x10xf32>
// CHECK-NEXT:    %d = aten.replication_pad1d %t {padding = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<3x9xf32>
// CHECK-NEXT:    %e = aten.replication_pad2d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
// CHECK-NEXT:    func.return %a, %b, %c, %d, %e : tensor<1x3x9x11xf32>, tensor<1x3x12xf32>, tensor<1x3x12x10xf32>, tensor<3x9xf32>, tensor<1x3x10x10xf32>
// CHECK-NEXT:  }
func.func @pads(%x: tensor<1x3x8x8xf32>, %s: tensor<1x3x8xf32>, %t: tensor<3x8xf32>) -> (tensor<1x3x9x11xf32>, tensor<1x3x12xf32>, tensor<1x3x12x10xf32>, tensor<3x9xf32>, tensor<1x3x10x10xf32>) {
  %a = aten.constant_pad_nd %x {pad = array<i64: 1, 2, 0, 1>, value = 5.000000e-01 : f32} : (tensor<1x3x8x8xf32>) -> tensor<1x3x9x11xf32>
  %b = aten.reflection_pad1d %s {padding = array<i64: 2, 2>} : (tensor<1x3x8xf32>) -> tensor<1x3x12xf32>
  %c = aten.reflection_pad2d %x {padding = array<i64: 1, 1, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x12x10xf32>
  %d = aten.replication_pad1d %t {padding = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<3x9xf32>
  %e = aten.replication_pad2d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  func.return %a, %b, %c, %d, %e : tensor<1x3x9x11xf32>, tensor<1x3x12xf32>, tensor<1x3x12x10xf32>, tensor<3x9xf32>, tensor<1x3x10x10xf32>
}

// -----
// CHECK-LABEL: func.func @constant_pad_nd_default_value(
// CHECK-NEXT:    %a = aten.constant_pad_nd %x {pad = array<i64: 0, 1>} : (tensor<2x5xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    func.return %a : tensor<2x6xf32>
// CHECK-NEXT:  }
func.func @constant_pad_nd_default_value(%x: tensor<2x5xf32>) -> tensor<2x6xf32> {
  %a = aten.constant_pad_nd %x {pad = array<i64: 0, 1>} : (tensor<2x5xf32>) -> tensor<2x6xf32>
  func.return %a : tensor<2x6xf32>
}

// -----
// CHECK-LABEL: func.func @binary_tensor(
// CHECK-NEXT:    %a = aten.add %x, %y {alpha = 2 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %b = aten.sub %a, %c {alpha = 5.000000e-01 : f32} : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %m = aten.mul %c, %b : (tensor<1x3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %d = aten.div %m, %y {rounding_mode = "floor"} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %p = aten.pow %d, %x : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %hi = aten.maximum %p, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %lo = aten.minimum %hi, %c : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %lo : tensor<2x3x4xf32>
// CHECK-NEXT:  }
func.func @binary_tensor(%x: tensor<2x3x4xf32>, %y: tensor<4xf32>, %c: tensor<1x3x1xf32>) -> tensor<2x3x4xf32> {
  %a = aten.add %x, %y {alpha = 2 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %b = aten.sub %a, %c {alpha = 5.000000e-01 : f32} : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
  %m = aten.mul %c, %b : (tensor<1x3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %d = aten.div %m, %y {rounding_mode = "floor"} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %p = aten.pow %d, %x : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %hi = aten.maximum %p, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %lo = aten.minimum %hi, %c : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
  func.return %lo : tensor<2x3x4xf32>
}

// -----
// CHECK-LABEL: func.func @binary_scalar(
// CHECK-NEXT:    %a = aten.add %x {scalar = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %b = aten.sub %a {scalar = 3 : i64, alpha = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %m = aten.mul %b {scalar = 2.500000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %d = aten.div %m {scalar = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %p = aten.pow %d {scalar = 2.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %hi = aten.maximum %p {scalar = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %lo = aten.minimum %hi {scalar = 6.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %lo : tensor<2x3xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "binary_scalar"
// GENERIC:       %a = "aten.add"(%x) <{scalar = 1.000000e+00 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @binary_scalar(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = aten.add %x {scalar = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = aten.sub %a {scalar = 3 : i64, alpha = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = aten.mul %b {scalar = 2.500000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = aten.div %m {scalar = 8 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = aten.pow %d {scalar = 2.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %hi = aten.maximum %p {scalar = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %lo = aten.minimum %hi {scalar = 6.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %lo : tensor<2x3xf32>
}

// -----
// CHECK-LABEL: func.func @activations(
// CHECK-NEXT:    %0 = aten.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %1 = aten.elu %0 {alpha = 1.000000e+00 : f32, scale = 1.050000e+00 : f32, input_scale = 1.000000e+00 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %2 = aten.gelu %1 {approximate = "tanh"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %3 = aten.gelu %2 : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %4 = aten.sigmoid %3 : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %5 = aten.tanh %4 : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %6 = aten.hardtanh %5 {min_val = -1.000000e+00 : f32, max_val = 1.000000e+00 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %7 = aten.leaky_relu %6 {negative_slope = 1.000000e-02 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %8 = aten.hardswish %7 : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %9 = aten.hardsigmoid %8 : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %10 = aten.silu %9 : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %11 = aten.clamp %10 {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %12 = aten.clamp %11 {min = 0 : i64} : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    func.return %12 : tensor<1x16xf32>
// CHECK-NEXT:  }
func.func @activations(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = aten.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %1 = aten.elu %0 {alpha = 1.000000e+00 : f32, scale = 1.050000e+00 : f32, input_scale = 1.000000e+00 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %2 = aten.gelu %1 {approximate = "tanh"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %3 = aten.gelu %2 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %4 = aten.sigmoid %3 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %5 = aten.tanh %4 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %6 = aten.hardtanh %5 {min_val = -1.000000e+00 : f32, max_val = 1.000000e+00 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %7 = aten.leaky_relu %6 {negative_slope = 0.01 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %8 = aten.hardswish %7 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %9 = aten.hardsigmoid %8 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %10 = aten.silu %9 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %11 = aten.clamp %10 {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %12 = aten.clamp %11 {min = 0 : i64} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  func.return %12 : tensor<1x16xf32>
}

// -----
// CHECK-LABEL: func.func @math(
// CHECK-NEXT:    %0 = aten.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %1 = aten.log %0 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %2 = aten.sqrt %1 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %3 = aten.rsqrt %2 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %4 = aten.reciprocal %3 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %5 = aten.abs %4 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %6 = aten.neg %5 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %7 = aten.floor %6 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %8 = aten.ceil %7 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %9 = aten.sin %8 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %10 = aten.cos %9 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %11 = aten.square %10 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %11 : tensor<4x4xf32>
// CHECK-NEXT:  }
func.func @math(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = aten.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = aten.log %0 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = aten.sqrt %1 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = aten.rsqrt %2 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = aten.reciprocal %3 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %5 = aten.abs %4 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %6 = aten.neg %5 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %7 = aten.floor %6 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %8 = aten.ceil %7 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %9 = aten.sin %8 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %10 = aten.cos %9 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %11 = aten.square %10 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %11 : tensor<4x4xf32>
}

// -----
// CHECK-LABEL: func.func @where(
// CHECK-NEXT:    %r = aten.where %cond, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %r : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @where(%cond: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %r = aten.where %cond, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----
// CHECK-LABEL: func.func @linear(
// CHECK-NEXT:    %y = aten.linear %x, %w, %b : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:    %z = aten.linear %x, %w : (tensor<2x5x16xf32>, tensor<8x16xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<2x5x8xf32>, tensor<2x5x8xf32>
// CHECK-NEXT:  }
func.func @linear(%x: tensor<2x5x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x8xf32>) {
  %y = aten.linear %x, %w, %b : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %z = aten.linear %x, %w : (tensor<2x5x16xf32>, tensor<8x16xf32>) -> tensor<2x5x8xf32>
  func.return %y, %z : tensor<2x5x8xf32>, tensor<2x5x8xf32>
}

// -----
// CHECK-LABEL: func.func @matmuls(
// CHECK-NEXT:    %0 = aten.addmm %bias, %a, %b {beta = 5.000000e-01 : f32, alpha = 2 : i64} : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %1 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %2 = aten.bmm %ba, %bb : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    func.return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>
// CHECK-NEXT:  }
func.func @matmuls(%bias: tensor<8xf32>, %a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %ba: tensor<2x4x16xf32>, %bb: tensor<2x16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %0 = aten.addmm %bias, %a, %b {beta = 5.000000e-01 : f32, alpha = 2 : i64} : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %2 = aten.bmm %ba, %bb : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  func.return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>
}

// -----
// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT:    %0 = aten.mean %x {dim = array<i64: -1, -2>, keepdim = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %1 = aten.sum %x {dim = array<i64: 1>, dtype = f32} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4xf32>
// CHECK-NEXT:    %2 = aten.sum %x : (tensor<1x8x4x4xf32>) -> tensor<f32>
// CHECK-NEXT:    %3 = aten.amax %x {dim = array<i64: 0>, keepdim = false} : (tensor<1x8x4x4xf32>) -> tensor<8x4x4xf32>
// CHECK-NEXT:    func.return %0, %1, %2, %3 : tensor<1x8x1x1xf32>, tensor<1x4x4xf32>, tensor<f32>, tensor<8x4x4xf32>
// CHECK-NEXT:  }
func.func @reductions(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x4x4xf32>, tensor<f32>, tensor<8x4x4xf32>) {
  %0 = aten.mean %x {dim = array<i64: -1, -2>, keepdim = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %1 = aten.sum %x {dim = array<i64: 1>, dtype = f32} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4xf32>
  %2 = aten.sum %x : (tensor<1x8x4x4xf32>) -> tensor<f32>
  %3 = aten.amax %x {dim = array<i64: 0>, keepdim = false} : (tensor<1x8x4x4xf32>) -> tensor<8x4x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x8x1x1xf32>, tensor<1x4x4xf32>, tensor<f32>, tensor<8x4x4xf32>
}

// -----
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %0 = aten._softmax %x {dim = -1 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %1 = aten._log_softmax %x {dim = 1 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    func.return %0, %1 : tensor<2x10xf32>, tensor<2x10xf32>
// CHECK-NEXT:  }
func.func @softmax(%x: tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>) {
  %0 = aten._softmax %x {dim = -1 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %1 = aten._log_softmax %x {dim = 1 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return %0, %1 : tensor<2x10xf32>, tensor<2x10xf32>
}

// -----
// CHECK-LABEL: func.func @batch_norm(
// CHECK-NEXT:    %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : tensor<1x8x4x4xf32> weight %w : tensor<8xf32> bias %b : tensor<8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} -> tensor<1x8x4x4xf32>, tensor<0xf32>, tensor<0xf32>
// CHECK-NEXT:    func.return %y : tensor<1x8x4x4xf32>
// CHECK-NEXT:  }
func.func @batch_norm(%x: tensor<1x8x4x4xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : tensor<1x8x4x4xf32> weight %w : tensor<8xf32> bias %b : tensor<8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} -> tensor<1x8x4x4xf32>, tensor<0xf32>, tensor<0xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----
// CHECK-LABEL: func.func @batch_norm_no_affine(
// CHECK-NEXT:    %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : tensor<2x8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 1.000000e-01 : f64, eps = 1.000000e-03 : f64} -> tensor<2x8xf32>, tensor<0xf32>, tensor<0xf32>
// CHECK-NEXT:    func.return %y : tensor<2x8xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "batch_norm_no_affine"
// GENERIC:       %y, %sm, %sr = "aten._native_batch_norm_legit_no_training"(%x, %m, %v) <{momentum = 1.000000e-01 : f64, eps = 1.000000e-03 : f64, operandSegmentSizes = array<i32: 1, 0, 0, 1, 1>}> : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<0xf32>, tensor<0xf32>)
func.func @batch_norm_no_affine(%x: tensor<2x8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<2x8xf32> {
  %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : tensor<2x8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 1.000000e-01 : f64, eps = 1.000000e-03 : f64} -> tensor<2x8xf32>, tensor<0xf32>, tensor<0xf32>
  func.return %y : tensor<2x8xf32>
}

// -----
// CHECK-LABEL: func.func @batch_norm_bias_only(
// CHECK-NEXT:    %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : tensor<1x8x4x4xf32> bias %b : tensor<8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} -> tensor<1x8x4x4xf32>, tensor<0xf32>, tensor<0xf32>
// CHECK-NEXT:    func.return %y : tensor<1x8x4x4xf32>
// CHECK-NEXT:  }
func.func @batch_norm_bias_only(%x: tensor<1x8x4x4xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : tensor<1x8x4x4xf32> bias %b : tensor<8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} -> tensor<1x8x4x4xf32>, tensor<0xf32>, tensor<0xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----
// CHECK-LABEL: func.func @layer_norm(
// CHECK-NEXT:    %y, %mean, %rstd = aten.native_layer_norm %x : tensor<2x5x16xf32> weight %w : tensor<16xf32> bias %b : tensor<16xf32> {normalized_shape = array<i64: 16>, eps = 1.000000e-05 : f64} -> tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>
// CHECK-NEXT:    %z, %mean2, %rstd2 = aten.native_layer_norm %x : tensor<2x5x16xf32> {normalized_shape = array<i64: 5, 16>, eps = 1.000000e-05 : f64} -> tensor<2x5x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<2x5x16xf32>, tensor<2x5x16xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "layer_norm"
// GENERIC:       %y, %mean, %rstd = "aten.native_layer_norm"(%x, %w, %b) <{normalized_shape = array<i64: 16>, eps = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>)
// GENERIC:       %z, %mean2, %rstd2 = "aten.native_layer_norm"(%x) <{normalized_shape = array<i64: 5, 16>, eps = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x5x16xf32>) -> (tensor<2x5x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
func.func @layer_norm(%x: tensor<2x5x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<2x5x16xf32>) {
  %y, %mean, %rstd = aten.native_layer_norm %x : tensor<2x5x16xf32> weight %w : tensor<16xf32> bias %b : tensor<16xf32> {normalized_shape = array<i64: 16>, eps = 1.000000e-05 : f64} -> tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>
  %z, %mean2, %rstd2 = aten.native_layer_norm %x : tensor<2x5x16xf32> {normalized_shape = array<i64: 5, 16>, eps = 1.000000e-05 : f64} -> tensor<2x5x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
  func.return %y, %z : tensor<2x5x16xf32>, tensor<2x5x16xf32>
}

// -----
// CHECK-LABEL: func.func @group_norm(
// CHECK-NEXT:    %y, %mean, %rstd = aten.native_group_norm %x : tensor<2x8x5xf32> weight %w : tensor<8xf32> bias %b : tensor<8xf32> {N = 2 : i64, C = 8 : i64, hxw = 5 : i64, group = 4 : i64, eps = 1.000000e-05 : f64} -> tensor<2x8x5xf32>, tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:    func.return %y : tensor<2x8x5xf32>
func.func @group_norm(%x: tensor<2x8x5xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x5xf32> {
  %y, %mean, %rstd = aten.native_group_norm %x : tensor<2x8x5xf32> weight %w : tensor<8xf32> bias %b : tensor<8xf32> {N = 2 : i64, C = 8 : i64, hxw = 5 : i64, group = 4 : i64, eps = 1.000000e-05 : f64} -> tensor<2x8x5xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  func.return %y : tensor<2x8x5xf32>
}

// -----
// CHECK-LABEL: func.func @var_and_safe_softmax(
// CHECK-NEXT:    %v = aten.var %x {dim = array<i64: -1>, correction = 0 : i64, keepdim = true} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %s = aten._safe_softmax %x {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
func.func @var_and_safe_softmax(%x: tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x5xf32>) {
  %v = aten.var %x {dim = array<i64: -1>, correction = 0 : i64, keepdim = true} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %s = aten._safe_softmax %x {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %v, %s : tensor<2x1xf32>, tensor<2x5xf32>
}

// -----
// CHECK-LABEL: func.func @embedding(
// CHECK-NEXT:    %y = aten.embedding %w, %i {padding_idx = 0 : i64} : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    func.return %y : tensor<2x5x16xf32>
// CHECK-NEXT:  }
func.func @embedding(%w: tensor<100x16xf32>, %i: tensor<2x5xi64>) -> tensor<2x5x16xf32> {
  %y = aten.embedding %w, %i {padding_idx = 0 : i64} : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
  func.return %y : tensor<2x5x16xf32>
}

// -----
// CHECK-LABEL: func.func @max_pool2d_ceil_mode(
// CHECK-NEXT:    %y, %i = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x8x10x10xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xi64>)
// CHECK-NEXT:    func.return %y : tensor<1x8x5x5xf32>
// CHECK-NEXT:  }
func.func @max_pool2d_ceil_mode(%x: tensor<1x8x10x10xf32>) -> tensor<1x8x5x5xf32> {
  %y, %i = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x8x10x10xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xi64>)
  func.return %y : tensor<1x8x5x5xf32>
}

// -----
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK-NEXT:    %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true, divisor_override = 3 : i64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %1 = aten.avg_pool2d %u {kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, count_include_pad = false} : (tensor<8x7x7xf32>) -> tensor<8x4x4xf32>
// CHECK-NEXT:    func.return %0, %1 : tensor<1x8x4x4xf32>, tensor<8x4x4xf32>
// CHECK-NEXT:  }
func.func @avg_pool2d(%x: tensor<1x8x8x8xf32>, %u: tensor<8x7x7xf32>) -> (tensor<1x8x4x4xf32>, tensor<8x4x4xf32>) {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true, divisor_override = 3 : i64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %1 = aten.avg_pool2d %u {kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, count_include_pad = false} : (tensor<8x7x7xf32>) -> tensor<8x4x4xf32>
  func.return %0, %1 : tensor<1x8x4x4xf32>, tensor<8x4x4xf32>
}

// -----
// CHECK-LABEL: func.func @adaptive_avg_pool2d(
// CHECK-NEXT:    %y = aten._adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    func.return %y : tensor<1x8x1x1xf32>
// CHECK-NEXT:  }
func.func @adaptive_avg_pool2d(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
  %y = aten._adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  func.return %y : tensor<1x8x1x1xf32>
}

// -----
// CHECK-LABEL: func.func @upsample(
// CHECK-NEXT:    %0 = aten.upsample_nearest2d %x {output_size = array<i64: 8, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    %1 = aten.upsample_bilinear2d %x {scale_factors = array<f64: 2.000000e+00, 2.000000e+00>, align_corners = false} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    %2 = aten.upsample_nearest1d %w {scale_factors = array<f64: 3.000000e+00>} : (tensor<1x3x4xf32>) -> tensor<1x3x12xf32>
// CHECK-NEXT:    func.return %0, %1, %2 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x12xf32>
// CHECK-NEXT:  }
func.func @upsample(%x: tensor<1x3x4x4xf32>, %w: tensor<1x3x4xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x12xf32>) {
  %0 = aten.upsample_nearest2d %x {output_size = array<i64: 8, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  %1 = aten.upsample_bilinear2d %x {scale_factors = array<f64: 2.0, 2.0>, align_corners = false} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  %2 = aten.upsample_nearest1d %w {scale_factors = array<f64: 3.0>} : (tensor<1x3x4xf32>) -> tensor<1x3x12xf32>
  func.return %0, %1, %2 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x12xf32>
}

// -----
// CHECK-LABEL: func.func @pixel_shuffle(
// CHECK-NEXT:    %y = aten.pixel_shuffle %x {upscale_factor = 2 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    func.return %y : tensor<1x2x8x8xf32>
// CHECK-NEXT:  }
func.func @pixel_shuffle(%x: tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %y = aten.pixel_shuffle %x {upscale_factor = 2 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}

// -----
// CHECK-LABEL: func.func @pixel_unshuffle(
// CHECK-NEXT:    %y = aten.pixel_unshuffle %x {downscale_factor = 2 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    func.return %y : tensor<1x8x4x4xf32>
// CHECK-NEXT:  }
func.func @pixel_unshuffle(%x: tensor<1x2x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %y = aten.pixel_unshuffle %x {downscale_factor = 2 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----
// CHECK-LABEL: func.func @shapes(
// CHECK-NEXT:    %0 = aten.view %x {size = array<i64: 1, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
// CHECK-NEXT:    %1 = aten.permute %x {dims = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %2 = aten.squeeze %s {dim = array<i64: 2, -1>} : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %3 = aten.unsqueeze %x {dim = -1 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4x1xf32>
// CHECK-NEXT:    %4 = aten.expand %e {size = array<i64: 2, -1, 4>} : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4 : tensor<1x128xf32>, tensor<1x4x4x8xf32>, tensor<1x8xf32>, tensor<1x8x4x4x1xf32>, tensor<2x3x4xf32>
// CHECK-NEXT:  }
func.func @shapes(%x: tensor<1x8x4x4xf32>, %s: tensor<1x8x1x1xf32>, %e: tensor<1x3x1xf32>) -> (tensor<1x128xf32>, tensor<1x4x4x8xf32>, tensor<1x8xf32>, tensor<1x8x4x4x1xf32>, tensor<2x3x4xf32>) {
  %0 = aten.view %x {size = array<i64: 1, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %1 = aten.permute %x {dims = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %2 = aten.squeeze %s {dim = array<i64: 2, -1>} : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  %3 = aten.unsqueeze %x {dim = -1 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4x1xf32>
  %4 = aten.expand %e {size = array<i64: 2, -1, 4>} : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
  func.return %0, %1, %2, %3, %4 : tensor<1x128xf32>, tensor<1x4x4x8xf32>, tensor<1x8xf32>, tensor<1x8x4x4x1xf32>, tensor<2x3x4xf32>
}

// -----
// CHECK-LABEL: func.func @slice(
// CHECK-NEXT:    %0 = aten.slice %x {dim = 1 : i64, start = 1 : i64, end = 7 : i64, step = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = aten.slice %x {start = -1 : i64, end = 9223372036854775807 : i64} : (tensor<2x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %2 = aten.slice %x {dim = 1 : i64, start = 0 : i64, end = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x0xf32>
// CHECK-NEXT:    func.return %0, %1, %2 : tensor<2x3xf32>, tensor<1x8xf32>, tensor<2x0xf32>
// CHECK-NEXT:  }
func.func @slice(%x: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<1x8xf32>, tensor<2x0xf32>) {
  %0 = aten.slice %x {dim = 1 : i64, start = 1 : i64, end = 7 : i64, step = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  %1 = aten.slice %x {start = -1 : i64, end = 9223372036854775807 : i64} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %2 = aten.slice %x {dim = 1 : i64, start = 0 : i64, end = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x0xf32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<1x8xf32>, tensor<2x0xf32>
}

// -----
// CHECK-LABEL: func.func @cat_split(
// CHECK-NEXT:    %x = aten.cat %a, %b, %c {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>) -> tensor<1x6x4xf32>
// CHECK-NEXT:    %p, %q, %r = aten.split_with_sizes %x {split_sizes = array<i64: 2, 3, 1>, dim = -2 : i64} : (tensor<1x6x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>)
// CHECK-NEXT:    %y = aten.cat %a, %a, %a : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT:    func.return %p, %q, %r, %y : tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>, tensor<3x2x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "cat_split"
// GENERIC:       %p, %q, %r = "aten.split_with_sizes"(%x) <{split_sizes = array<i64: 2, 3, 1>, dim = -2 : i64}> : (tensor<1x6x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>)
func.func @cat_split(%a: tensor<1x2x4xf32>, %b: tensor<1x3x4xf32>, %c: tensor<1x1x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>, tensor<3x2x4xf32>) {
  %x = aten.cat %a, %b, %c {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>) -> tensor<1x6x4xf32>
  %p, %q, %r = aten.split_with_sizes %x {split_sizes = array<i64: 2, 3, 1>, dim = -2 : i64} : (tensor<1x6x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>)
  %y = aten.cat %a, %a, %a : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<3x2x4xf32>
  func.return %p, %q, %r, %y : tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>, tensor<3x2x4xf32>
}

// -----
// CHECK-LABEL: func.func @casts(
// CHECK-NEXT:    %0 = aten._to_copy %x {dtype = f16} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
// CHECK-NEXT:    %1 = aten._to_dim_order_copy %x {dtype = bf16, dim_order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xbf16>
// CHECK-NEXT:    %2 = aten._to_copy %x {dtype = i32, memory_format = "preserve_format"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xi32>
// CHECK-NEXT:    %3 = aten.clone %x {memory_format = "contiguous_format"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %0, %1, %2, %3 : tensor<1x3x4x4xf16>, tensor<1x3x4x4xbf16>, tensor<1x3x4x4xi32>, tensor<1x3x4x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "func.func"() <{sym_name = "casts"
// GENERIC:       %0 = "aten._to_copy"(%x) <{dtype = f16}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
// GENERIC:       %2 = "aten._to_copy"(%x) <{dtype = i32, memory_format = "preserve_format"}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xi32>
func.func @casts(%x: tensor<1x3x4x4xf32>) -> (tensor<1x3x4x4xf16>, tensor<1x3x4x4xbf16>, tensor<1x3x4x4xi32>, tensor<1x3x4x4xf32>) {
  %0 = aten._to_copy %x {dtype = f16} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
  %1 = aten._to_dim_order_copy %x {dtype = bf16, dim_order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xbf16>
  %2 = aten._to_copy %x {dtype = i32, memory_format = "preserve_format"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xi32>
  %3 = aten.clone %x {memory_format = "contiguous_format"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x3x4x4xf16>, tensor<1x3x4x4xbf16>, tensor<1x3x4x4xi32>, tensor<1x3x4x4xf32>
}
