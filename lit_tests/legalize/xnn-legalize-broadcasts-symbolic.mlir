// RUN: xnn-opt %s --split-input-file -p xnn-legalize-broadcasts | filecheck %s

// xnn-legalize-broadcasts on symbolic sizes (issue 13). A nearest x2 upsample of T frames
// (a reshape to [1, 3, T, 1] and a block broadcast, T as 0: kept) times a scalar: the
// multiply moves above the broadcast, at [1, 3, T, 1], and the broadcast keeps T.
// CHECK-LABEL: func.func @upsample_frames_times_scalar
// CHECK:         %[[U:.*]] = xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 3, 0, 1>} : (tensor<1x3x?xf32, #xnnc.dims<"T">>) -> tensor<1x3x?x1xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[C:.*]] = xnn.constant
// CHECK-NEXT:    %[[M:.*]] = xnn.binary multiply %[[U]], %[[C]] : (tensor<1x3x?x1xf32, #xnnc.dims<"T">>, tensor<1xf32>) -> tensor<1x3x?x1xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_broadcast %[[M]] {new_shape = array<i64: 1, 3, 0, 2>} : (tensor<1x3x?x1xf32, #xnnc.dims<"T">>) -> tensor<1x3x?x2xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.static_reshape %[[B]] {new_shape = array<i64: 1, 3, 0>} : (tensor<1x3x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x3x?xf32, #xnnc.dims<"2*T">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @upsample_frames_times_scalar(%x: tensor<1x3x?xf32, #xnnc.dims<"T">>) -> tensor<1x3x?xf32, #xnnc.dims<"2*T">> {
    %r = xnn.subgraph(%x) : (tensor<1x3x?xf32, #xnnc.dims<"T">>) -> tensor<1x3x?xf32, #xnnc.dims<"2*T">> {
    ^bb0(%a: tensor<1x3x?xf32, #xnnc.dims<"T">>):
      %0 = xnn.static_reshape %a {new_shape = array<i64: 1, 3, 0, 1>} : (tensor<1x3x?xf32, #xnnc.dims<"T">>) -> tensor<1x3x?x1xf32, #xnnc.dims<"T">>
      %1 = xnn.static_broadcast %0 {new_shape = array<i64: 1, 3, 0, 2>} : (tensor<1x3x?x1xf32, #xnnc.dims<"T">>) -> tensor<1x3x?x2xf32, #xnnc.dims<"T">>
      %2 = xnn.constant dense<2.000000e+00> : tensor<1xf32>
      %3 = xnn.binary multiply %1, %2 : (tensor<1x3x?x2xf32, #xnnc.dims<"T">>, tensor<1xf32>) -> tensor<1x3x?x2xf32, #xnnc.dims<"T">>
      %4 = xnn.static_reshape %3 {new_shape = array<i64: 1, 3, 0>} : (tensor<1x3x?x2xf32, #xnnc.dims<"T">>) -> tensor<1x3x?xf32, #xnnc.dims<"2*T">>
      xnn.output %4 : tensor<1x3x?xf32, #xnnc.dims<"2*T">>
    }
    func.return %r : tensor<1x3x?xf32, #xnnc.dims<"2*T">>
  }
}
