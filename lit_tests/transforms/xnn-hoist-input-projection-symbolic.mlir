// RUN: xnn-opt %s --split-input-file -p xnn-hoist-input-projection | filecheck %s

// xnn-hoist-input-projection on symbolic sizes (issue 13). An RNN cell unrolled over 3
// steps of a [T, B, C] input with the batch B symbolic (a torch export with
// dynamic_shapes, converted, cut down): the slices cut the static time axis and keep B
// whole (size 0: to the end), so the hoisted product and its slices follow B.
// CHECK-LABEL: func.func @cell_loop_symbolic_batch
// CHECK:         %[[Y:.*]] = xnn.fully_connected %x, %w, %b : (tensor<2x?x4xf32, #xnnc.dims<"B">>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<2x?x8xf32, #xnnc.dims<"B">>
// CHECK-NEXT:    %[[S0:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 0, 8>} : (tensor<2x?x8xf32, #xnnc.dims<"B">>) -> tensor<1x?x8xf32, #xnnc.dims<"B">>
// CHECK-NEXT:    %[[G0:.*]] = xnn.static_reshape %[[S0]] {new_shape = array<i64: 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"B">>) -> tensor<?x8xf32, #xnnc.dims<"B">>
// CHECK-NEXT:    %[[S1:.*]] = xnn.static_slice %[[Y]] {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 0, 8>} : (tensor<2x?x8xf32, #xnnc.dims<"B">>) -> tensor<1x?x8xf32, #xnnc.dims<"B">>
// CHECK-NEXT:    %[[G1:.*]] = xnn.static_reshape %[[S1]] {new_shape = array<i64: 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"B">>) -> tensor<?x8xf32, #xnnc.dims<"B">>
// CHECK-NEXT:    func.return %[[G0]], %[[G1]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<B = [1, 16]>} {
  func.func @cell_loop_symbolic_batch(%x: tensor<2x?x4xf32, #xnnc.dims<"B">>) -> (tensor<?x8xf32, #xnnc.dims<"B">>, tensor<?x8xf32, #xnnc.dims<"B">>) {
    %w = xnn.constant dense<5.000000e-01> : tensor<8x4xf32>
    %b = xnn.constant dense<1.000000e-01> : tensor<8xf32>
    %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 0, 4>} : (tensor<2x?x4xf32, #xnnc.dims<"B">>) -> tensor<1x?x4xf32, #xnnc.dims<"B">>
    %r0 = xnn.static_reshape %x0 {new_shape = array<i64: 0, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"B">>) -> tensor<?x4xf32, #xnnc.dims<"B">>
    %g0 = xnn.fully_connected %r0, %w, %b : (tensor<?x4xf32, #xnnc.dims<"B">>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32, #xnnc.dims<"B">>
    %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 0, 4>} : (tensor<2x?x4xf32, #xnnc.dims<"B">>) -> tensor<1x?x4xf32, #xnnc.dims<"B">>
    %r1 = xnn.static_reshape %x1 {new_shape = array<i64: 0, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"B">>) -> tensor<?x4xf32, #xnnc.dims<"B">>
    %g1 = xnn.fully_connected %r1, %w, %b : (tensor<?x4xf32, #xnnc.dims<"B">>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32, #xnnc.dims<"B">>
    func.return %g0, %g1 : tensor<?x8xf32, #xnnc.dims<"B">>, tensor<?x8xf32, #xnnc.dims<"B">>
  }
}

// -----

// Declined: rows at fixed offsets of a symbolic axis cover it at no size. The nodes are
// static themselves; the decision names the symbol of the axis they slice.
// CHECK-LABEL: func.func @rows_of_a_symbolic_axis
// CHECK:         xnn.fully_connected %{{.*}}, %w {xnn.declined = {"xnn-hoist-input-projection" = "symbolic size T: its slices sit at fixed rows"}} : (tensor<1x4xf32>, tensor<8x4xf32>) -> tensor<1x8xf32>
// CHECK:         xnn.fully_connected %{{.*}}, %w {xnn.declined = {"xnn-hoist-input-projection" = "symbolic size T: its slices sit at fixed rows"}} : (tensor<1x4xf32>, tensor<8x4xf32>) -> tensor<1x8xf32>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [2, 16]>} {
  func.func @rows_of_a_symbolic_axis(%x: tensor<?x1x4xf32, #xnnc.dims<"T">>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
    %w = xnn.constant dense<5.000000e-01> : tensor<8x4xf32>
    %x0 = xnn.static_slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<?x1x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32>
    %r0 = xnn.static_reshape %x0 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
    %g0 = xnn.fully_connected %r0, %w : (tensor<1x4xf32>, tensor<8x4xf32>) -> tensor<1x8xf32>
    %x1 = xnn.static_slice %x {offsets = array<i64: 1, 0, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<?x1x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32>
    %r1 = xnn.static_reshape %x1 {new_shape = array<i64: 1, 4>} : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
    %g1 = xnn.fully_connected %r1, %w : (tensor<1x4xf32>, tensor<8x4xf32>) -> tensor<1x8xf32>
    func.return %g0, %g1 : tensor<1x8xf32>, tensor<1x8xf32>
  }
}
