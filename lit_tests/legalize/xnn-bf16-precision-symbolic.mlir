// RUN: xnn-opt %s --split-input-file -p xnn-bf16-precision | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-bf16-precision{mode=native}' | filecheck %s --check-prefix=NATIVE

// xnn-bf16-precision on symbolic sizes: a residual block over T tokens (the LLaMA block's
// decode and prefill in one compile). The widened nodes keep T; bf16 remains where the
// native GEMM reads it and at the output.
// CHECK-LABEL: func.func @residual_tokens
// CHECK:         %[[X:.*]] = xnn.convert %{{.*}} : (tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK:         %[[M:.*]] = xnn.binary multiply %[[X]], %{{.*}} : (tensor<1x?x8xf32, #xnnc.dims<"T">>, tensor<8xf32>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[MB:.*]] = xnn.convert %[[M]] : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[Y:.*]] = xnn.fully_connected %[[MB]], %{{.*}} : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<8x8xbf16>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[A:.*]] = xnn.binary add %[[X]], %[[Y]] : (tensor<1x?x8xf32, #xnnc.dims<"T">>, tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[O:.*]] = xnn.convert %[[A]] : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.output %[[O]]
// In native mode the GEMM's result rounds to bf16 before the add reads it, as in eager.
// NATIVE-LABEL: func.func @residual_tokens
// NATIVE:         %[[X:.*]] = xnn.convert %{{.*}} : (tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// NATIVE:         %[[Y:.*]] = xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<8x8xbf16>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// NATIVE-NEXT:    %[[YB:.*]] = xnn.convert %[[Y]] : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
// NATIVE-NEXT:    %[[Y32:.*]] = xnn.convert %[[YB]] : (tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// NATIVE-NEXT:    xnn.binary add %[[X]], %[[Y32]] : (tensor<1x?x8xf32, #xnnc.dims<"T">>, tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @residual_tokens(%x: tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x?x8xbf16, #xnnc.dims<"T">>):
      %k = xnn.constant dense<0.5> : tensor<8x8xbf16>
      %w = xnn.constant dense<2.0> : tensor<8xbf16>
      %m = xnn.binary multiply %a, %w : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<8xbf16>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
      %y = xnn.fully_connected %m, %k : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<8x8xbf16>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
      %yb = xnn.convert %y : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
      %o = xnn.binary add %a, %yb : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
      xnn.output %o : tensor<1x?x8xbf16, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x?x8xbf16, #xnnc.dims<"T">>
  }
}
