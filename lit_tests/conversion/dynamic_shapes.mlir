// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s

// The ops conversion lowers size-generic (conversion/aten_to_xnn.py: SIZE_GENERIC) on
// symbolic sizes: a reshape's symbolic dim is XNNPACK's inferred 0, the other nodes take
// their shapes from their inputs when XNNPACK reshapes the runtime.

// Attention pieces over a sequence S: view with one symbolic dim, permute, softmax over the
// keys, mean over the features (RMSNorm), a cast.
// CHECK-LABEL: func.func @attention
// CHECK:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 0, 4, 16>} : (tensor<1x?x64xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x16xf32, #xnnc.dims<"S">>
// CHECK:         xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x16xf32, #xnnc.dims<"S">>) -> tensor<1x4x?x16xf32, #xnnc.dims<"S">>
// CHECK:         xnn.softmax %{{.*}} : (tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
// CHECK:         xnn.static_reduce mean %{{.*}} {axes = array<i64: 2>, flags = 64 : i32} : (tensor<1x?x64xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
// CHECK:         xnn.convert %{{.*}} : (tensor<1x?x64xf32, #xnnc.dims<"S">>) -> tensor<1x?x64xbf16, #xnnc.dims<"S">>
// CHECK-NOT:     aten.
// CHECK:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @attention(%x: tensor<1x?x64xf32, #xnnc.dims<"S">>, %s: tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>) -> (tensor<1x4x?x16xf32, #xnnc.dims<"S">>, tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>, tensor<1x?x64xbf16, #xnnc.dims<"S">>) {
    %v = aten.view %x {size = array<i64: 1, -9223372036854775808, 4, 16>} : (tensor<1x?x64xf32, #xnnc.dims<"S">>) -> tensor<1x?x4x16xf32, #xnnc.dims<"S">>
    %t = aten.permute %v {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x16xf32, #xnnc.dims<"S">>) -> tensor<1x4x?x16xf32, #xnnc.dims<"S">>
    %p = aten._softmax %s {dim = -1 : i64, half_to_float = false} : (tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
    %m = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<1x?x64xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
    %c = aten._to_copy %x {dtype = bf16} : (tensor<1x?x64xf32, #xnnc.dims<"S">>) -> tensor<1x?x64xbf16, #xnnc.dims<"S">>
    func.return %t, %p, %m, %c : tensor<1x4x?x16xf32, #xnnc.dims<"S">>, tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>, tensor<1x?x64xbf16, #xnnc.dims<"S">>
  }
}

// -----

// Left outside: a view to two symbolic dims (XNNPACK's reshape infers one), and a slice
// of a constant ending at a symbolic size (its size comes from no XNNPACK input).
// CHECK-LABEL: func.func @outside
// CHECK:         aten.slice
// CHECK:         aten.view %{{.*}} : (tensor<4x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @outside(%x: tensor<4x?x?xf32, #xnnc.dims<"S", "S">>) -> (tensor<?x8xf32, #xnnc.dims<"S">>, tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>) {
    %mask = aten.constant dense<0.0> : tensor<512x8xf32>
    %m = aten.slice %mask {end = -9223372036854775808 : i64} : (tensor<512x8xf32>) -> tensor<?x8xf32, #xnnc.dims<"S">>
    %v = aten.view %x {size = array<i64: 1, 4, -9223372036854775808, -9223372036854775808>} : (tensor<4x?x?xf32, #xnnc.dims<"S", "S">>) -> tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
    func.return %m, %v : tensor<?x8xf32, #xnnc.dims<"S">>, tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>
  }
}

// -----

// A conv net's stem with H = 32*h, W = 32*w: the stride-2 convolution's size
// (32*h + 6 - 7)//2 + 1 is 16*h exactly (32 divides by 2), max pooling halves it again, and
// adaptive average pooling to 1x1 is global average pooling of any size.
// CHECK-LABEL: func.func @stem
// CHECK:         xnn.convolution_2d {{.*}} -> tensor<1x?x?x8xf32, #xnnc.dims<"16*h", "16*w">>
// CHECK:         xnn.max_pooling_2d {{.*}} -> tensor<1x?x?x8xf32, #xnnc.dims<"8*h", "8*w">>
// CHECK:         xnn.global_average_pooling_2d {{.*}} : (tensor<1x?x?x8xf32, #xnnc.dims<"8*h", "8*w">>) -> tensor<1x1x1x8xf32>
// CHECK-NOT:     aten.
// CHECK:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<h = [2, 8], w = [2, 8]>} {
  func.func @stem(%x: tensor<1x3x?x?xf32, #xnnc.dims<"32*h", "32*w">>) -> tensor<1x8x1x1xf32> {
    %w = aten.constant dense<0.5> : tensor<8x3x7x7xf32>
    %c = aten.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x3x?x?xf32, #xnnc.dims<"32*h", "32*w">>, tensor<8x3x7x7xf32>) -> tensor<1x8x?x?xf32, #xnnc.dims<"16*h", "16*w">>
    %y, %i = aten.max_pool2d_with_indices %c {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x8x?x?xf32, #xnnc.dims<"16*h", "16*w">>) -> (tensor<1x8x?x?xf32, #xnnc.dims<"8*h", "8*w">>, tensor<1x8x?x?xi64, #xnnc.dims<"8*h", "8*w">>)
    %g = aten._adaptive_avg_pool2d %y {output_size = array<i64: 1, 1>} : (tensor<1x8x?x?xf32, #xnnc.dims<"8*h", "8*w">>) -> tensor<1x8x1x1xf32>
    func.return %g : tensor<1x8x1x1xf32>
  }
}

// -----

// Left outside: adaptive pooling to 2x2 has a window per size.
// CHECK-LABEL: func.func @adaptive_2x2
// CHECK:         aten._adaptive_avg_pool2d
builtin.module attributes {xnnc.symbols = #xnnc.symbols<h = [2, 8]>} {
  func.func @adaptive_2x2(%x: tensor<1x8x?x4xf32, #xnnc.dims<"2*h">>) -> tensor<1x8x2x2xf32> {
    %y = aten._adaptive_avg_pool2d %x {output_size = array<i64: 2, 2>} : (tensor<1x8x?x4xf32, #xnnc.dims<"2*h">>) -> tensor<1x8x2x2xf32>
    func.return %y : tensor<1x8x2x2xf32>
  }
}

// -----

// An RNN cell's `x[t]` of a static step t, the batch B symbolic: a slice that keeps B
// (size 0: to the end) and a reshape inferring it. A select of one index of the symbolic
// dim stays outside with the reason.
// CHECK-LABEL: func.func @select_step
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 0, 4>} : (tensor<3x?x4xf32, #xnnc.dims<"B">>) -> tensor<1x?x4xf32, #xnnc.dims<"B">>
// CHECK-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 0, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"B">>) -> tensor<?x4xf32, #xnnc.dims<"B">>
// CHECK:         aten.select %x {dim = 1 : i64, index = 0 : i64}
builtin.module attributes {xnnc.symbols = #xnnc.symbols<B = [1, 16]>} {
  func.func @select_step(%x: tensor<3x?x4xf32, #xnnc.dims<"B">>) -> (tensor<?x4xf32, #xnnc.dims<"B">>, tensor<3x4xf32>) {
    %s = aten.select %x {dim = 0 : i64, index = 1 : i64} : (tensor<3x?x4xf32, #xnnc.dims<"B">>) -> tensor<?x4xf32, #xnnc.dims<"B">>
    %t = aten.select %x {dim = 1 : i64, index = 0 : i64} : (tensor<3x?x4xf32, #xnnc.dims<"B">>) -> tensor<3x4xf32>
    func.return %s, %t : tensor<?x4xf32, #xnnc.dims<"B">>, tensor<3x4xf32>
  }
}

// -----

// LayerNorm over the static features of S rows: mean, deviation, variance and the affine
// weights follow S (XNNPACK counts the 8 features, the rows reshape).
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK:         xnn.static_reduce mean %{{.*}} {axes = array<i64: 2>, flags = 64 : i32} : (tensor<1x?x8xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
// CHECK:         xnn.unary reciprocal_square_root %{{.*}} : (tensor<1x?x1xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
// CHECK:         xnn.binary add %{{.*}}, %{{.*}} : (tensor<1x?x8xf32, #xnnc.dims<"S">>, tensor<8xf32>) -> tensor<1x?x8xf32, #xnnc.dims<"S">>
// CHECK-NOT:     aten.
// CHECK:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @layer_norm_rows(%x: tensor<1x?x8xf32, #xnnc.dims<"S">>) -> tensor<1x?x8xf32, #xnnc.dims<"S">> {
    %w = aten.constant dense<2.0> : tensor<8xf32>
    %b = aten.constant dense<0.5> : tensor<8xf32>
    %y, %m, %r = aten.native_layer_norm %x : tensor<1x?x8xf32, #xnnc.dims<"S">> weight %w : tensor<8xf32> bias %b : tensor<8xf32> {normalized_shape = array<i64: 8>, eps = 1.000000e-05 : f64} -> tensor<1x?x8xf32, #xnnc.dims<"S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>
    func.return %y : tensor<1x?x8xf32, #xnnc.dims<"S">>
  }
}

// -----

// A split of a tensor with a symbolic dim, along a static one (the verifier has the split
// sizes add up to the split dim, so that dim is static): a slice per piece, the symbolic
// dim whole (size 0: to its end, resolved at each reshape).
// CHECK-LABEL: func.func @split_static_dim
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 0, 64>} : (tensor<1x?x192xf32, #xnnc.dims<"T">>) -> tensor<1x?x64xf32, #xnnc.dims<"T">>
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 0, 64>, sizes = array<i64: 1, 0, 128>} : (tensor<1x?x192xf32, #xnnc.dims<"T">>) -> tensor<1x?x128xf32, #xnnc.dims<"T">>
// CHECK-NOT:     aten.split_with_sizes
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @split_static_dim(%x: tensor<1x?x192xf32, #xnnc.dims<"T">>) -> (tensor<1x?x64xf32, #xnnc.dims<"T">>, tensor<1x?x128xf32, #xnnc.dims<"T">>) {
    %a, %b = aten.split_with_sizes %x {split_sizes = array<i64: 64, 128>, dim = -1 : i64} : (tensor<1x?x192xf32, #xnnc.dims<"T">>) -> (tensor<1x?x64xf32, #xnnc.dims<"T">>, tensor<1x?x128xf32, #xnnc.dims<"T">>)
    func.return %a, %b : tensor<1x?x64xf32, #xnnc.dims<"T">>, tensor<1x?x128xf32, #xnnc.dims<"T">>
  }
}

// -----

// round (bankers rounding) is elementwise: its node takes its shape from its input.
// CHECK-LABEL: func.func @round
// CHECK:         xnn.unary bankers_rounding %{{.*}} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NOT:     aten.
// CHECK:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @round(%x: tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">> {
    %y = aten.round %x : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x8xf32, #xnnc.dims<"T">>
  }
}
