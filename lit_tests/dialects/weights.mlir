// Weights by reference: `#xnnc.weight<"name">` (elided) and `#xnnc.weight<"name", "0x...">`
// (inline little-endian bytes).

// Elided by default, inline with --print-weights; the inline text parses back identically.
// RUN: xnn-opt %s --split-input-file | filecheck %s
// RUN: xnn-opt %s --split-input-file --print-weights | filecheck %s --check-prefix=INLINE
// RUN: xnn-opt %s --split-input-file --print-weights > %t.inline.mlir
// RUN: xnn-opt %t.inline.mlir --split-input-file --print-weights > %t.again.mlir
// RUN: diff %t.inline.mlir %t.again.mlir

// --weights loads the data of elided weights from an .npz, by name.
// RUN: %python -c "import numpy as np; np.savez('%t.npz', **{'fc.weight': np.arange(4, dtype=np.float32).reshape(2, 2), 'fc.bias': np.array([0.5, -1.0], dtype=np.float32)})"
// RUN: xnn-opt %s --split-input-file --weights %t.npz --print-weights | filecheck %s --check-prefix=NPZ

// A weight whose byte count does not match its type fails aten.constant's verifier.
// RUN: %python -c "import numpy as np; np.savez('%t.bad.npz', **{'fc.bias': np.zeros(3, dtype=np.float32)})"
// RUN: not xnn-opt %s --split-input-file --weights %t.bad.npz 2>&1 | filecheck %s --check-prefix=SIZE

// Malformed inline bytes are a one-line parse error at the string.
// RUN: not xnn-opt %S/../tools/inputs/weights_bad_hex.mlir 2>&1 | filecheck %s --check-prefix=HEX
// RUN: not xnn-opt %S/../tools/inputs/weights_odd_hex.mlir 2>&1 | filecheck %s --check-prefix=ODD
// RUN: not xnn-opt %S/../tools/inputs/weights_not_a_string.mlir 2>&1 | filecheck %s --check-prefix=NOSTR

// CHECK-LABEL: func.func @elided(
// CHECK-NEXT:    %w = aten.constant #xnnc.weight<"fc.weight"> : tensor<2x2xf32>
// CHECK-NEXT:    %b = aten.constant #xnnc.weight<"fc.bias"> : tensor<2xf32>

// No data to print: --print-weights leaves them elided.
// INLINE-LABEL: func.func @elided(
// INLINE-NEXT:    %w = aten.constant #xnnc.weight<"fc.weight"> : tensor<2x2xf32>
// INLINE-NEXT:    %b = aten.constant #xnnc.weight<"fc.bias"> : tensor<2xf32>

// arange(4) as f32 and [0.5, -1.0], little-endian.
// NPZ-LABEL: func.func @elided(
// NPZ-NEXT:    %w = aten.constant #xnnc.weight<"fc.weight", "0x000000000000803F0000004000004040"> : tensor<2x2xf32>
// NPZ-NEXT:    %b = aten.constant #xnnc.weight<"fc.bias", "0x0000003F000080BF"> : tensor<2xf32>

// SIZE-NOT: Traceback
// SIZE: {{^}}{{.*}}weights.mlir:[[# @LINE + 4]]:3: error: 'aten.constant' op weight 'fc.bias' has 12 bytes but tensor<2xf32> needs 8{{$}}
// SIZE-NOT: {{.}}
func.func @elided(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = aten.constant #xnnc.weight<"fc.weight"> : tensor<2x2xf32>
  %b = aten.constant #xnnc.weight<"fc.bias"> : tensor<2xf32>
  %y = aten.linear %x, %w, %b : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// Inline bytes are kept (hex in upper case); the default print elides them.
// CHECK-LABEL: func.func @inline(
// CHECK-NEXT:    %s = aten.constant #xnnc.weight<"scale"> : tensor<2xf32>
// CHECK-NEXT:    %q = aten.constant #xnnc.weight<"conv.q"> : tensor<3xi8>
// CHECK-NEXT:    %e = aten.constant #xnnc.weight<"empty"> : tensor<0xf32>

// INLINE-LABEL: func.func @inline(
// INLINE-NEXT:    %s = aten.constant #xnnc.weight<"scale", "0x0000803F00000040"> : tensor<2xf32>
// INLINE-NEXT:    %q = aten.constant #xnnc.weight<"conv.q", "0x01FF7F"> : tensor<3xi8>
// INLINE-NEXT:    %e = aten.constant #xnnc.weight<"empty", "0x"> : tensor<0xf32>

// A name missing from the .npz keeps its inline data.
// NPZ-LABEL: func.func @inline(
// NPZ-NEXT:    %s = aten.constant #xnnc.weight<"scale", "0x0000803F00000040"> : tensor<2xf32>
func.func @inline() -> (tensor<2xf32>, tensor<3xi8>, tensor<0xf32>) {
  %s = aten.constant #xnnc.weight<"scale", "0x0000803f00000040"> : tensor<2xf32>
  %q = aten.constant #xnnc.weight<"conv.q", "0x01FF7F"> : tensor<3xi8>
  %e = aten.constant #xnnc.weight<"empty", "0x"> : tensor<0xf32>
  func.return %s, %q, %e : tensor<2xf32>, tensor<3xi8>, tensor<0xf32>
}

// -----

// An elided reference after an inline one of the same name shares its data.
// CHECK-LABEL: func.func @shared(
// CHECK-NEXT:    %a = aten.constant #xnnc.weight<"k"> : tensor<2xf32>
// CHECK-NEXT:    %b = aten.constant #xnnc.weight<"k"> : tensor<2xf32>

// INLINE-LABEL: func.func @shared(
// INLINE-NEXT:    %a = aten.constant #xnnc.weight<"k", "0x0000C03F0000C0BF"> : tensor<2xf32>
// INLINE-NEXT:    %b = aten.constant #xnnc.weight<"k", "0x0000C03F0000C0BF"> : tensor<2xf32>
func.func @shared() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = aten.constant #xnnc.weight<"k", "0x0000C03F0000C0BF"> : tensor<2xf32>
  %b = aten.constant #xnnc.weight<"k"> : tensor<2xf32>
  func.return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// HEX-NOT: Traceback
// HEX: {{^}}{{.*}}weights_bad_hex.mlir:3:40: error: weight 'w' has malformed hex bytes{{$}}
// HEX-NOT: {{.}}

// ODD-NOT: Traceback
// ODD: {{^}}{{.*}}weights_odd_hex.mlir:3:40: error: weight bytes must be a hex string '0x...'{{$}}
// ODD-NOT: {{.}}

// NOSTR-NOT: Traceback
// NOSTR: {{^}}{{.*}}weights_not_a_string.mlir:3:40: error: string literal expected{{.*}}
// NOSTR-NOT: {{.}}
