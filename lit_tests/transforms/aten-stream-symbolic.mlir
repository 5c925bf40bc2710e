// RUN: not xnn-opt %s --split-input-file -p 'aten-stream{frames=1 max-frames=8 lookahead=auto}' 2>&1 | filecheck %s

// aten-stream with a frame count per call that changes (issue 45): 1 to 8 frames, the
// symbol F. States keep their fixed sizes; slices count from the end where F sits between.

// CHECK:       builtin.module attributes {xnnc.symbols = #xnnc.symbols<F = [1, 8]>, xnnc.stream = {axis = 2 : i64, frames = 8 : i64, min_frames = 1 : i64
// CHECK-LABEL: func.func @causal(%x: tensor<1x4x?xf32, #xnnc.dims<"F">>, %w: tensor<8x4x3xf32>, %history0: tensor<1x4x4xf32>) -> (tensor<1x8x?xf32, #xnnc.dims<"F">>, tensor<1x4x4xf32>)
// CHECK:         %[[W:.*]] = aten.cat %{{.*}}, %x {dim = 2 : i64} : (tensor<1x4x4xf32>, tensor<1x4x?xf32, #xnnc.dims<"F">>) -> tensor<1x4x?xf32, #xnnc.dims<"F + 4">>
// CHECK-NEXT:    aten.slice %[[W]] {dim = 2 : i64, start = -4 : i64, end = 9223372036854775807 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"F + 4">>) -> tensor<1x4x4xf32>
// CHECK:         aten.convolution %[[W]], %w {{.*}} -> tensor<1x8x?xf32, #xnnc.dims<"F">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @causal(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %p = aten.constant_pad_nd %x {pad = array<i64: 4, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T + 4">>
    %y = aten.convolution %p, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 2>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T + 4">>, tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// The transposed convolution's crop keeps a fixed distance from the symbolic end.
// CHECK-LABEL: func.func @upsample
// CHECK:         %[[Z:.*]] = aten.convolution {{.*}} -> tensor<1x2x?xf32, #xnnc.dims<"4*F + 8">>
// CHECK-NEXT:    aten.slice %[[Z]] {dim = 2 : i64, start = 4 : i64, end = -4 : i64} : (tensor<1x2x?xf32, #xnnc.dims<"4*F + 8">>) -> tensor<1x2x?xf32, #xnnc.dims<"4*F">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 32]>} {
  func.func @upsample(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<4x2x8xf32>, %b: tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"4*T">> {
    %z = aten.convolution %x, %w, %b {stride = array<i64: 4>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<4x2x8xf32>, tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"4*T + 4">>
    %y = aten.slice %z {dim = 2 : i64, start = 0 : i64, end = -4 : i64} : (tensor<1x2x?xf32, #xnnc.dims<"4*T + 4">>) -> tensor<1x2x?xf32, #xnnc.dims<"4*T">>
    func.return %y : tensor<1x2x?xf32, #xnnc.dims<"4*T">>
  }
}

// -----

// A strided convolution would make half a frame of some calls: refused.
// CHECK: aten-stream-symbolic.mlir:{{[0-9]+}}:{{[0-9]+}}: error: streaming: aten.convolution makes 1/2 frames per input frame: a frame count per call that changes needs whole frames per input frame
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 32]>} {
  func.func @strided(%x: tensor<1x4x?xf32, #xnnc.dims<"2*T">>, %w: tensor<8x4x4xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %p = aten.constant_pad_nd %x {pad = array<i64: 2, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"2*T">>) -> tensor<1x4x?xf32, #xnnc.dims<"2*T + 2">>
    %y = aten.convolution %p, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"2*T + 2">>, tensor<8x4x4xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}
