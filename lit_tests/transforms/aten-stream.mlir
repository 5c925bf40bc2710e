// RUN: xnn-opt %s --split-input-file -p 'aten-stream{frames=2 lookahead=auto}' | filecheck %s
// RUN: not xnn-opt %s --split-input-file -p 'aten-stream{frames=2}' 2>&1 | filecheck %s --check-prefix=NONE
// RUN: not xnn-opt %s --split-input-file -p 'aten-stream{frames=3}' 2>&1 | filecheck %s --check-prefix=PHASE
// RUN: xnn-opt %s --split-input-file -p 'aten-stream{frames=2 lookahead=auto transposed=carry}' | filecheck %s --check-prefix=CARRY

// aten-stream (issue 45): the step of a stream, `frames` input frames per call, with the
// state each op needs recorded on it (`xnnc.stream`).

// A causal convolution keeps (k - 1) * dilation frames of its input's history: the left
// pad goes, history and chunk are concatenated, the last 4 frames go back (channels last).
// Its pad is zeros, as the stream's history starts: the stream is exact (inexact = []).
// CHECK:       builtin.module attributes {xnnc.stream = {{{.*}}inexact = []}}
// CHECK-LABEL: func.func @causal(%x: tensor<1x4x2xf32>, %w: tensor<8x4x3xf32>, %history0: tensor<1x4x4xf32>) -> (tensor<1x8x2xf32>, tensor<1x4x4xf32>)
// CHECK-NEXT:    %0 = aten.permute %history0 {dims = array<i64: 0, 2, 1>}
// CHECK-NEXT:    %1 = aten.cat %0, %x {dim = 2 : i64} : (tensor<1x4x4xf32>, tensor<1x4x2xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT:    %2 = aten.slice %1 {dim = 2 : i64, start = 2 : i64, end = 6 : i64}
// CHECK-NEXT:    %3 = aten.permute %2 {dims = array<i64: 0, 2, 1>}
// CHECK-NEXT:    %4 = aten.convolution %1, %w {xnnc.stream = {rate = "1", delay = 0 : i64, history = 4 : i64}, {{.*}} padding = array<i64: 0>, dilation = array<i64: 2>{{.*}} -> tensor<1x8x2xf32>
// CHECK-NEXT:    func.return %4, %3
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 64]>} {
  func.func @causal(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %p = aten.constant_pad_nd %x {pad = array<i64: 4, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T + 4">>
    %y = aten.convolution %p, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 2>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T + 4">>, tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// A strided causal convolution (k4 s2, 2 frames padded) keeps its phase: 2 frames of
// history, and one output frame per two input frames (rate 1/2).
// CHECK:       builtin.module attributes {xnnc.stream = {axis = 2 : i64, frames = 2 : i64, min_frames = 2 : i64, input = 0 : i64, lookahead = 0 : i64, delays = [0 : i64], tails = [0 : i64], rates = ["1/2"]
// CHECK-LABEL: func.func @strided
// CHECK:         aten.convolution %{{.*}}, %w {xnnc.stream = {rate = "1/2", delay = 0 : i64, history = 2 : i64}, stride = array<i64: 2>{{.*}} : (tensor<1x4x4xf32>, tensor<8x4x4xf32>) -> tensor<1x8x1xf32>
// With 3 frames per call its output would be 3/2 frames a call:
// PHASE: aten-stream.mlir:{{[0-9]+}}:{{[0-9]+}}: error: streaming: aten.convolution makes 3/2 frames of 3 input frame(s) per call: stream a multiple of 2 frames per call
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 32]>} {
  func.func @strided(%x: tensor<1x4x?xf32, #xnnc.dims<"2*T">>, %w: tensor<8x4x4xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %p = aten.constant_pad_nd %x {pad = array<i64: 2, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"2*T">>) -> tensor<1x4x?xf32, #xnnc.dims<"2*T + 2">>
    %y = aten.convolution %p, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"2*T + 2">>, tensor<8x4x4xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// A transposed convolution (k8 s4) trimmed on the right (causal): its outputs overlap the
// next call's by k - s = 4 frames. By default it keeps the one input frame those come
// from and crops its output to the call's 8 frames (xnn-polyphase computes just those).
// CHECK-LABEL: func.func @upsample
// CHECK-SAME:    %history0: tensor<1x1x4xf32>
// CHECK:         %[[W:.*]] = aten.cat %{{.*}}, %x {dim = 2 : i64} : (tensor<1x4x1xf32>, tensor<1x4x2xf32>) -> tensor<1x4x3xf32>
// CHECK:         %[[Z:.*]] = aten.convolution %[[W]], %w, %b {xnnc.stream = {rate = "4", delay = 0 : i64, history = 1 : i64}{{.*}}transposed = true{{.*}} -> tensor<1x2x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = aten.slice %[[Z]] {dim = 2 : i64, start = 4 : i64, end = 12 : i64}
// CHECK-NEXT:    func.return %[[Y]]
// With transposed=carry it runs on the chunk alone and carries the tail of its output,
// without the bias, to the next call, which adds it to its first frames.
// CARRY-LABEL: func.func @upsample
// CARRY-SAME:    %carry0: tensor<1x4x2xf32>
// CARRY:         %[[Z:.*]] = aten.convolution %x, %w, %b {xnnc.stream = {rate = "4", delay = 0 : i64, carry = 4 : i64}{{.*}}transposed = true{{.*}} -> tensor<1x2x12xf32>
// CARRY-NEXT:    %[[C:.*]] = aten.permute %carry0 {dims = array<i64: 0, 2, 1>}
// CARRY-NEXT:    %[[HEAD:.*]] = aten.slice %[[Z]] {dim = 2 : i64, start = 0 : i64, end = 4 : i64}
// CARRY-NEXT:    %[[SUM:.*]] = aten.add %[[HEAD]], %[[C]] : (tensor<1x2x4xf32>, tensor<1x2x4xf32>)
// CARRY-NEXT:    %[[REST:.*]] = aten.slice %[[Z]] {dim = 2 : i64, start = 4 : i64, end = 8 : i64}
// CARRY-NEXT:    %[[OUT:.*]] = aten.cat %[[SUM]], %[[REST]] {dim = 2 : i64}
// CARRY-NEXT:    %[[TAIL:.*]] = aten.slice %[[Z]] {dim = 2 : i64, start = 8 : i64, end = 12 : i64}
// CARRY:         aten.sub %[[TAIL]]
// CARRY:         func.return %[[OUT]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 32]>} {
  func.func @upsample(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<4x2x8xf32>, %b: tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"4*T">> {
    %z = aten.convolution %x, %w, %b {stride = array<i64: 4>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<4x2x8xf32>, tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"4*T + 4">>
    %y = aten.slice %z {dim = 2 : i64, start = 0 : i64, end = -4 : i64} : (tensor<1x2x?xf32, #xnnc.dims<"4*T + 4">>) -> tensor<1x2x?xf32, #xnnc.dims<"4*T">>
    func.return %y : tensor<1x2x?xf32, #xnnc.dims<"4*T">>
  }
}

// -----

// A "same" convolution (k5, padding 2) looks 2 frames ahead: with lookahead=auto its output
// is 2 frames late; the residual add waits for it through a delay line of 2 frames, and
// is frame-local (a rate and a delay, no state).
// With lookahead=none it is refused, naming the convolution.
// CHECK:       builtin.module attributes {xnnc.stream = {{{.*}}lookahead = 2 : i64, delays = [2 : i64]
// CHECK-LABEL: func.func @same
// CHECK:         %[[Y:.*]] = aten.convolution {{.*}}xnnc.stream = {rate = "1", delay = 2 : i64, history = 4 : i64}
// CHECK:         %[[X:.*]] = aten.slice {{.*}}xnnc.stream = {rate = "1", delay = 2 : i64, delay_line = 2 : i64}
// CHECK:         aten.add %[[X]], %[[Y]] {xnnc.stream = {rate = "1", delay = 2 : i64}}
// NONE: aten-stream.mlir:{{[0-9]+}}:{{[0-9]+}}: error: streaming: aten.convolution looks 2 input frame(s) ahead (lookahead='none'); use lookahead='auto' or a number of frames
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 32]>} {
  func.func @same(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<4x4x5xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">> {
    %y = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 2>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<4x4x5xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    %r = aten.add %x, %y : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    func.return %r : tensor<1x4x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// A reflect pad on the left reads the sequence's own first frames, which a stream has not
// seen at its start: zeros stand for them, and the module names the pad in `inexact`.
// CHECK:       builtin.module attributes {xnnc.stream = {{{.*}}inexact = ["{{.*}}aten-stream.mlir:{{[0-9]+}}:{{[0-9]+}}: aten.reflection_pad1d pads the time axis with the sequence's own frames, which a stream has not seen at its start: zeros stand for them, and the stream's first frames differ from the offline model's"]}
// CHECK-LABEL: func.func @reflected
// CHECK:         aten.convolution {{.*}}xnnc.stream = {rate = "1", delay = 0 : i64, history = 2 : i64}
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [3, 32]>} {
  func.func @reflected(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<4x4x3xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">> {
    %p = aten.reflection_pad1d %x {padding = array<i64: 2, 0>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T + 2">>
    %y = aten.convolution %p, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T + 2">>, tensor<4x4x3xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x4x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// Two "same" convolutions: the second reads the first's output, 1 frame late. Its first
// call's chunk holds that output's frame -1, and flush()'s calls its frames past the end;
// the offline model pads with zeros there, so the chunk is masked before the convolution:
// clamp(min(count + j, 1 - j - past), 0, 1) over the call's 2 frames j, where "frames"
// counts the input frames before the call and "past" those after the stream's end (the
// runner sets "live" to 0 in flush(); while it is 1, past - 2^20). The input itself is not
// masked: flush() feeds zeros, its padding.
// CHECK-LABEL: func.func @edges(%x: tensor<1x4x2xf32>, %w: tensor<4x4x3xf32>, %history0: tensor<1x2x4xf32>, %frames1: tensor<1xf32>, %past2: tensor<1xf32>, %live3: tensor<1xf32>, %history4: tensor<1x2x4xf32>)
// CHECK:         %[[Y:.*]] = aten.convolution {{.*}}xnnc.stream = {rate = "1", delay = 1 : i64, history = 2 : i64}
// CHECK:         %[[COUNT:.*]] = aten.clamp %{{.*}} {max = 0x4170000000000000 : f64}
// CHECK-NEXT:    %[[J:.*]] = aten.constant #xnnc.weight<"stream.frames2+0"> : tensor<1x1x2xf32>
// CHECK-NEXT:    %[[COUNT2:.*]] = aten.view %frames1 {size = array<i64: 1, 1, 1>}
// CHECK-NEXT:    %[[BEGUN:.*]] = aten.add %[[J]], %[[COUNT2]]
// CHECK:         %[[FAR:.*]] = aten.mul %live3 {scalar = 0x4130000000000000 : f64}
// CHECK-NEXT:    %[[P:.*]] = aten.sub %past2, %[[FAR]]
// CHECK-NEXT:    %[[K:.*]] = aten.constant #xnnc.weight<"stream.frames2-1"> : tensor<1x1x2xf32>
// CHECK-NEXT:    %[[NP:.*]] = aten.mul %[[P]] {scalar = -1.000000e+00 : f64}
// CHECK-NEXT:    %[[NP2:.*]] = aten.view %[[NP]] {size = array<i64: 1, 1, 1>}
// CHECK-NEXT:    %[[ENDED:.*]] = aten.add %[[K]], %[[NP2]]
// CHECK-NEXT:    %[[LEAST:.*]] = aten.minimum %[[BEGUN]], %[[ENDED]]
// CHECK-NEXT:    %[[M:.*]] = aten.clamp %[[LEAST]] {min = 0.000000e+00 : f64, max = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[KNOWN:.*]] = aten.mul %[[Y]], %[[M]] {xnnc.stream = {rate = "1", delay = 1 : i64, edges = 2 : i64}}
// CHECK:         aten.cat %{{.*}}, %[[KNOWN]] {dim = 2 : i64}
// CHECK:         aten.convolution {{.*}}xnnc.stream = {rate = "1", delay = 2 : i64, history = 2 : i64}
// CHECK:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 32]>} {
  func.func @edges(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %w: tensor<4x4x3xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">> {
    %y = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<4x4x3xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    %z = aten.convolution %y, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<4x4x3xf32>) -> tensor<1x4x?xf32, #xnnc.dims<"T">>
    func.return %z : tensor<1x4x?xf32, #xnnc.dims<"T">>
  }
}
