// RUN: not xnn-opt %s --split-input-file -p 'aten-stream{frames=1 max-frames=8 lookahead=auto}' 2>&1 | filecheck %s
// RUN: not xnn-opt %s --split-input-file -p 'aten-stream{frames=2}' 2>&1 | filecheck %s --check-prefix=ATTN
// The ATTN lines check the attention cases at the end, streamed 2 frames a call.

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

// -----

// aten-stream on attention (issue 45): a product of queries and keys keeps the keys of the
// window (a KV cache state), the mask of frame positions becomes the constant of the call's
// 2 queries by 2 + 2 keys, keys before the stream's start get -inf from a state that the
// call's frames push out, and the product with the values keeps the values of the window.

// ATTN:       builtin.module attributes {xnnc.stream = {{.*}} states = ["keys", "valid_keys", "values"], fills = [0.000000e+00 : f64, 0xfff0000000000000 : f64, 0.000000e+00 : f64]
// ATTN-LABEL: func.func @attend(%x: tensor<1x2x4xf32>, %keys0: tensor<1x4x2xf32>, %valid_keys1: tensor<1x1x2xf32>, %values2: tensor<1x2x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x4x2xf32>, tensor<1x1x2xf32>, tensor<1x2x4xf32>)
// ATTN:         %[[K:.*]] = aten.cat %keys0, %{{.*}} {dim = 2 : i64} : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x4xf32>
// ATTN:         %[[S:.*]] = aten.bmm %x, %[[K]] {xnnc.stream = {rate = "1", delay = 0 : i64, history = 2 : i64}} : (tensor<1x2x4xf32>, tensor<1x4x4xf32>) -> tensor<1x2x4xf32>
// ATTN-NOT:     aten::arange
// ATTN:         %[[M:.*]] = aten.constant #xnnc.weight<"stream.mask2"> : tensor<2x4xf32>
// ATTN-NEXT:    %[[SM:.*]] = aten.add %[[S]], %[[M]]
// ATTN:         %[[V:.*]] = aten.cat %valid_keys1, %{{.*}} {dim = 2 : i64} : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x4xf32>
// ATTN:         %[[A:.*]] = aten.add %[[SM]], %[[V]] : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
// ATTN-NEXT:    %[[P:.*]] = aten._safe_softmax %[[A]]
// ATTN:         %[[VV:.*]] = aten.cat %values2, %x {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
// ATTN:         aten.bmm %[[P]], %[[VV]] {xnnc.stream = {rate = "1", delay = 0 : i64, history = 2 : i64}} : (tensor<1x2x4xf32>, tensor<1x4x4xf32>) -> tensor<1x2x4xf32>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @attend(%x: tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">> {
    %kt = aten.permute %x {dims = array<i64: 0, 2, 1>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    %s = aten.bmm %x, %kt : (tensor<1x?x4xf32, #xnnc.dims<"T">>, tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T", "T">>
    %pos = aten.generic "aten::arange.start_step"() {args = [0 : i64, -9223372036854775808 : i64], kwargs = {}} : () -> tensor<?xi64, #xnnc.dims<"T">>
    %pq = aten.unsqueeze %pos {dim = 1 : i64} : (tensor<?xi64, #xnnc.dims<"T">>) -> tensor<?x1xi64, #xnnc.dims<"T">>
    %pk = aten.unsqueeze %pos {dim = 0 : i64} : (tensor<?xi64, #xnnc.dims<"T">>) -> tensor<1x?xi64, #xnnc.dims<"T">>
    %d = aten.sub %pq, %pk : (tensor<?x1xi64, #xnnc.dims<"T">>, tensor<1x?xi64, #xnnc.dims<"T">>) -> tensor<?x?xi64, #xnnc.dims<"T", "T">>
    %ge = aten.generic "aten::ge.Scalar"(%d) {args = [#aten.operand<0>, 0 : i64]} : (tensor<?x?xi64, #xnnc.dims<"T", "T">>) -> tensor<?x?xi1, #xnnc.dims<"T", "T">>
    %lt = aten.generic "aten::lt.Scalar"(%d) {args = [#aten.operand<0>, 3 : i64]} : (tensor<?x?xi64, #xnnc.dims<"T", "T">>) -> tensor<?x?xi1, #xnnc.dims<"T", "T">>
    %m = aten.generic "aten::bitwise_and.Tensor"(%ge, %lt) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<?x?xi1, #xnnc.dims<"T", "T">>, tensor<?x?xi1, #xnnc.dims<"T", "T">>) -> tensor<?x?xi1, #xnnc.dims<"T", "T">>
    %ninf = aten.generic "aten::scalar_tensor"() {args = [0xFFF0000000000000 : f64], kwargs = {dtype = f32}} : () -> tensor<f32>
    %zero = aten.generic "aten::scalar_tensor"() {args = [0.000000e+00 : f64], kwargs = {dtype = f32}} : () -> tensor<f32>
    %bias = aten.where %m, %zero, %ninf : (tensor<?x?xi1, #xnnc.dims<"T", "T">>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32, #xnnc.dims<"T", "T">>
    %a = aten.add %s, %bias : (tensor<1x?x?xf32, #xnnc.dims<"T", "T">>, tensor<?x?xf32, #xnnc.dims<"T", "T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T", "T">>
    %p = aten._safe_softmax %a {dim = -1 : i64} : (tensor<1x?x?xf32, #xnnc.dims<"T", "T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T", "T">>
    %y = aten.bmm %p, %x : (tensor<1x?x?xf32, #xnnc.dims<"T", "T">>, tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x4xf32, #xnnc.dims<"T">>
  }
}

// -----

// Frame positions elsewhere (rotary embeddings): a counter state, the offline position of the
// call's first frame, plus the call's offsets; the counter moves on by 2 a call.
// ATTN-LABEL: func.func @positions(%x: tensor<1x2x4xf32>, %position0: tensor<1xf32>)
// ATTN:         %[[O:.*]] = aten.constant #xnnc.weight<"stream.frames2"> : tensor<2xf32>
// ATTN-NEXT:    %[[P:.*]] = aten.add %position0, %[[O]] {xnnc.stream = {rate = "1", delay = 0 : i64, position = 1 : i64}} : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
// ATTN-NEXT:    %[[N:.*]] = aten.add %position0 {scalar = 2.000000e+00 : f64} : (tensor<1xf32>) -> tensor<1xf32>
// ATTN:         %[[C:.*]] = aten.cos
// ATTN:         func.return %{{.*}}, %[[N]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @positions(%x: tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">> {
    %pos = aten.generic "aten::arange.start_step"() {args = [0 : i64, -9223372036854775808 : i64], kwargs = {dtype = f32}} : () -> tensor<?xf32, #xnnc.dims<"T">>
    %col = aten.view %pos {size = array<i64: -9223372036854775808, 1>} : (tensor<?xf32, #xnnc.dims<"T">>) -> tensor<?x1xf32, #xnnc.dims<"T">>
    %cos = aten.cos %col : (tensor<?x1xf32, #xnnc.dims<"T">>) -> tensor<?x1xf32, #xnnc.dims<"T">>
    %y = aten.mul %x, %cos : (tensor<1x?x4xf32, #xnnc.dims<"T">>, tensor<?x1xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x4xf32, #xnnc.dims<"T">>
  }
}

// -----

// A causal mask with no window: its keys would grow without bound.
// ATTN: aten-stream-symbolic.mlir:{{[0-9]+}}:5: error: streaming: aten.add lets attention see every earlier frame (a causal mask with no window): its keys would grow without bound
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @unbounded(%x: tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">> {
    %kt = aten.permute %x {dims = array<i64: 0, 2, 1>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    %s = aten.bmm %x, %kt : (tensor<1x?x4xf32, #xnnc.dims<"T">>, tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T", "T">>
    %pos = aten.generic "aten::arange.start_step"() {args = [0 : i64, -9223372036854775808 : i64], kwargs = {}} : () -> tensor<?xi64, #xnnc.dims<"T">>
    %pq = aten.unsqueeze %pos {dim = 1 : i64} : (tensor<?xi64, #xnnc.dims<"T">>) -> tensor<?x1xi64, #xnnc.dims<"T">>
    %pk = aten.unsqueeze %pos {dim = 0 : i64} : (tensor<?xi64, #xnnc.dims<"T">>) -> tensor<1x?xi64, #xnnc.dims<"T">>
    %d = aten.sub %pq, %pk : (tensor<?x1xi64, #xnnc.dims<"T">>, tensor<1x?xi64, #xnnc.dims<"T">>) -> tensor<?x?xi64, #xnnc.dims<"T", "T">>
    %ge = aten.generic "aten::ge.Scalar"(%d) {args = [#aten.operand<0>, 0 : i64]} : (tensor<?x?xi64, #xnnc.dims<"T", "T">>) -> tensor<?x?xi1, #xnnc.dims<"T", "T">>
    %lt = aten.generic "aten::lt.Scalar"(%d) {args = [#aten.operand<0>, 3 : i64]} : (tensor<?x?xi64, #xnnc.dims<"T", "T">>) -> tensor<?x?xi1, #xnnc.dims<"T", "T">>
    %m = aten.generic "aten::bitwise_and.Tensor"(%ge, %ge) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<?x?xi1, #xnnc.dims<"T", "T">>, tensor<?x?xi1, #xnnc.dims<"T", "T">>) -> tensor<?x?xi1, #xnnc.dims<"T", "T">>
    %ninf = aten.generic "aten::scalar_tensor"() {args = [0xFFF0000000000000 : f64], kwargs = {dtype = f32}} : () -> tensor<f32>
    %zero = aten.generic "aten::scalar_tensor"() {args = [0.000000e+00 : f64], kwargs = {dtype = f32}} : () -> tensor<f32>
    %bias = aten.where %m, %zero, %ninf : (tensor<?x?xi1, #xnnc.dims<"T", "T">>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32, #xnnc.dims<"T", "T">>
    %a = aten.add %s, %bias : (tensor<1x?x?xf32, #xnnc.dims<"T", "T">>, tensor<?x?xf32, #xnnc.dims<"T", "T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T", "T">>
    %p = aten._safe_softmax %a {dim = -1 : i64} : (tensor<1x?x?xf32, #xnnc.dims<"T", "T">>) -> tensor<1x?x?xf32, #xnnc.dims<"T", "T">>
    %y = aten.bmm %p, %x : (tensor<1x?x?xf32, #xnnc.dims<"T", "T">>, tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x?x4xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x4xf32, #xnnc.dims<"T">>
  }
}
