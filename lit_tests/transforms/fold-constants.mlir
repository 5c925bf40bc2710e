// RUN: xnn-opt %s --split-input-file -p 'fold-constants{max-bytes=64}' --print-weights | filecheck %s
// RUN: xnn-opt %s --split-input-file -p fold-constants | filecheck %s --check-prefix=DEFAULT
// RUN: xnn-opt %s --split-input-file -p 'fold-constants{shapes-only=true}' | filecheck %s --check-prefix=SHAPES

// Snake's 1 / (alpha + 1e-9): both ops become one weight, computed by the interpreter.
// 1 / (2 + 2) = 0.25 = 0x3E800000.
// CHECK-LABEL: func.func @reciprocal_of_add
// CHECK-NEXT:    %[[R:.*]] = aten.constant #xnnc.weight<"r.folded", "0x0000803E0000803E"> : tensor<1x2x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = aten.mul %x, %[[R]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @reciprocal_of_add(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %a = aten.constant dense<2.0> : tensor<1x2x1xf32>
  %s = aten.add %a {scalar = 2.0 : f64} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %r = aten.reciprocal %s : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %y = aten.mul %x, %r : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// -----

// Ops without operands fold too: an LSTM's zero initial state, and an arange.
// CHECK-LABEL: func.func @full_and_arange
// CHECK-NEXT:    %[[H:.*]] = aten.constant #xnnc.weight<"h.folded", "0x0000000000000000"> : tensor<2xf32>
// CHECK-NEXT:    %[[P:.*]] = aten.constant #xnnc.weight<"p.folded", "0x000000000000803F"> : tensor<2xf32>
// CHECK-NEXT:    func.return %[[H]], %[[P]]
func.func @full_and_arange() -> (tensor<2xf32>, tensor<2xf32>) {
  %h = aten.generic "aten::full"() {args = [[2 : i64], 0.0 : f64], kwargs = {dtype = f32, layout = "torch.strided", device = "cpu", pin_memory = false}} : () -> tensor<2xf32>
  %p = aten.generic "aten::arange.start"() {args = [0 : i64, 2 : i64], kwargs = {dtype = f32}} : () -> tensor<2xf32>
  func.return %h, %p : tensor<2xf32>, tensor<2xf32>
}

// -----

// An op with several results gives one weight per used result.
// CHECK-LABEL: func.func @split
// CHECK-NEXT:    %[[B:.*]] = aten.constant #xnnc.weight<"s.folded.1", "0x00000040"> : tensor<1xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @split() -> tensor<1xf32> {
  %c = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s:2 = aten.split_with_sizes %c {split_sizes = array<i64: 1, 1>} : (tensor<2xf32>) -> (tensor<1xf32>, tensor<1xf32>)
  func.return %s#1 : tensor<1xf32>
}

// -----

// New weight names do not collide with existing ones.
// CHECK-LABEL: func.func @unique_names
// CHECK-NEXT:    aten.constant #xnnc.weight<"n.folded", "0x0000803F">
// CHECK-NEXT:    aten.constant #xnnc.weight<"n.folded.1", "0x0000803F">
func.func @unique_names() -> (tensor<1xf32>, tensor<1xf32>) {
  %c = aten.constant dense<[-1.0]> : tensor<1xf32>
  %n = aten.neg %c : (tensor<1xf32>) -> tensor<1xf32>
  %m = aten.abs %c : (tensor<1xf32>) -> tensor<1xf32> loc("n")
  func.return %n, %m : tensor<1xf32>, tensor<1xf32>
}

// -----

// Left alone: an operand is a function argument.
// CHECK-LABEL: func.func @non_constant_operand
// CHECK-NEXT:    %[[C:.*]] = aten.constant dense<1.000000e+00>
// CHECK-NEXT:    aten.add %x, %[[C]]
func.func @non_constant_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = aten.constant dense<1.0> : tensor<4xf32>
  %y = aten.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// Left alone: the result (4 x 8 x f32 = 128 bytes) is over max-bytes=64.
// CHECK-LABEL: func.func @over_max_bytes
// CHECK-NEXT:    %[[C:.*]] = aten.constant dense<1.000000e+00>
// CHECK-NEXT:    aten.expand %[[C]]
// The default bound (64 MiB) lets it fold.
// DEFAULT-LABEL: func.func @over_max_bytes
// DEFAULT-NEXT:    aten.constant #xnnc.weight<"e.folded"> : tensor<4x8xf32>
func.func @over_max_bytes() -> tensor<4x8xf32> {
  %c = aten.constant dense<1.0> : tensor<1x1xf32>
  %e = aten.expand %c {size = array<i64: 4, 8>} : (tensor<1x1xf32>) -> tensor<4x8xf32>
  func.return %e : tensor<4x8xf32>
}

// -----

// Left alone: a random op.
// CHECK-LABEL: func.func @random
// CHECK-NEXT:    aten.generic "aten::rand"()
func.func @random() -> tensor<2xf32> {
  %r = aten.generic "aten::rand"() {args = [[2 : i64]], kwargs = {dtype = f32, device = "cpu", pin_memory = false}} : () -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Left alone: a weight printed elided and parsed without --weights has no data.
// With shapes-only (what XncPartitioner runs on a fake-tensor program), the ops on it
// fold into one constant known by shape only, and the random op still stays.
// CHECK-LABEL: func.func @elided_weight
// CHECK-NEXT:    %[[W:.*]] = aten.constant #xnnc.weight<"w"> : tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = aten.neg %[[W]]
// CHECK-NEXT:    aten.view %[[N]]
// SHAPES-LABEL: func.func @elided_weight
// SHAPES-NEXT:    %[[T:.*]] = aten.constant #xnnc.weight<"t.folded"> : tensor<4x1xf32>
// SHAPES-NEXT:    %[[R:.*]] = aten.generic "aten::rand"()
// SHAPES-NEXT:    aten.mul %[[T]], %[[R]]
func.func @elided_weight() -> tensor<4x1xf32> {
  %w = aten.constant #xnnc.weight<"w"> : tensor<4xf32>
  %n = aten.neg %w : (tensor<4xf32>) -> tensor<4xf32>
  %v = aten.view %n {size = array<i64: 1, 4>} : (tensor<4xf32>) -> tensor<1x4xf32>
  %t = aten.permute %v {dims = array<i64: 1, 0>} : (tensor<1x4xf32>) -> tensor<4x1xf32>
  %r = aten.generic "aten::rand"() {args = [[4, 1]], kwargs = {dtype = f32, device = "cpu", pin_memory = false}} : () -> tensor<4x1xf32>
  %m = aten.mul %t, %r : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  func.return %m : tensor<4x1xf32>
}
