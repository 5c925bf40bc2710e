// RUN: XNN_ROUNDTRIP
// RUN: XNN_GENERIC_ROUNDTRIP
// RUN: xnn-opt %s --split-input-file | filecheck %s
// RUN: not xnn-opt %S/../tools/inputs/dynamic_shapes_bad.mlir 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not xnn-opt %S/../tools/inputs/dynamic_dims_not_affine.mlir 2>&1 | filecheck %s --check-prefix=AFFINE
// RUN: not xnn-opt %S/../tools/inputs/dynamic_symbols_bad_range.mlir 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not xnn-opt %S/../tools/inputs/dynamic_size_dependent.mlir 2>&1 | filecheck %s --check-prefix=SIZE

// Symbolic sizes (docs/dynamic-shapes.md): `?` dims whose expressions are the type's
// `#xnnc.dims` encoding, and the module's symbol ranges in `xnnc.symbols`. Verifiers run
// their shape rules on the expressions.

// CHECK:       builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
// CHECK-LABEL:   func.func @audio(
// CHECK-SAME:      %x: tensor<1x4x?xf32, #xnnc.dims<"T">>, %y: tensor<1x4x?xf32, #xnnc.dims<"2*T + 1">>) -> tensor<1x12x?xf32, #xnnc.dims<"T">>
// CHECK:           aten.convolution {{.*}} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
// CHECK:           aten.convolution {{.*}} : (tensor<1x4x?xf32, #xnnc.dims<"2*T + 1">>, tensor<8x4x2xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"2*T">>
// CHECK:           aten.cat %t, %x {dim = 1 : i64} : (tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x12x?xf32, #xnnc.dims<"T">>

// GENERIC: "builtin.module"() ({
// GENERIC: }) {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} : () -> ()
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @audio(%x : tensor<1x4x?xf32, #xnnc.dims<"T">>, %y : tensor<1x4x?xf32, #xnnc.dims<"2*T + 1">>) -> tensor<1x12x?xf32, #xnnc.dims<"T">> {
    %w = aten.constant #xnnc.weight<"c.weight"> : tensor<8x4x3xf32>
    %c = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<8x4x3xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    %w2 = aten.constant #xnnc.weight<"d.weight"> : tensor<8x4x2xf32>
    %d = aten.convolution %y, %w2 {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"2*T + 1">>, tensor<8x4x2xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"2*T">>
    %t = aten.tanh %c : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    %r = aten.cat %t, %x {dim = 1 : i64} : (tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x12x?xf32, #xnnc.dims<"T">>
    func.return %r : tensor<1x12x?xf32, #xnnc.dims<"T">>
  }
}

// Bad input: one line each, at the op or the type.
// BAD: {{^}}{{.*}}dynamic_shapes_bad.mlir:4:3: error: 'aten.convolution' op result shape [1, 8, T + 1] does not match the computed shape [1, 8, T]{{$}}
// AFFINE: {{^}}{{.*}}dynamic_dims_not_affine.mlir:2:1: error: #xnnc.dims: 'T*T' is not an affine dim expression such as 2*T + 1{{$}}
// RANGE: {{^}}{{.*}}dynamic_symbols_bad_range.mlir:2:1: error: #xnnc.symbols: T = [0, 64] is not a range of sizes >= 1{{$}}
// SIZE-NOT: internal error
// SIZE: {{^}}{{.*}}dynamic_size_dependent.mlir:5:3: error: 'aten.convolution' op cannot be checked for every size of its symbolic dims: (T - 1) // 2 is not affine in the symbols{{$}}
