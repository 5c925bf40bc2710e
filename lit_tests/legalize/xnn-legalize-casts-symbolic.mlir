// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512bf16"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,NATIVE
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32

// xnn-legalize-casts on symbolic sizes (issue 13). A bf16 Conv1d -> Linear -> GELU over T
// frames (a torch export of the bf16 model with dynamic_shapes, converted, cut down). The
// convolution (no bf16 kernel in XNNPACK) runs in fp32 between converts that keep T; the
// fully-connected's M is T, so its form is the one at T's smallest size (4): native
// bf16 x bf16 -> fp32 with AVX512-BF16, else fp32 between converts.
// CHECK-LABEL: func.func @bf16_conv_fc
// CHECK:         %[[X:.*]] = xnn.convert %{{.*}} : (tensor<1x1x?x4xbf16, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[C:.*]] = xnn.convolution_2d %[[X]], {{.*}} : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x3x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[B:.*]] = xnn.convert %[[C]] : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xbf16, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[R:.*]] = xnn.static_reshape %[[B]] {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
// NATIVE:        %[[F:.*]] = xnn.fully_connected %[[R]], {{.*}}choice = "native"{{.*}}why = "symbolic size T: the form at the smallest size (T = 4): {{.*}} : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<16x8xbf16>, tensor<16xf32>) -> tensor<1x?x16xf32, #xnnc.dims<"T">>
// FP32:          %[[RF:.*]] = xnn.convert %[[R]] : (tensor<1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// FP32-NEXT:     %[[F:.*]] = xnn.fully_connected %[[RF]], {{.*}}choice = "fp32"{{.*}}why = "symbolic size T: the form at the smallest size (T = 4): {{.*}} : (tensor<1x?x8xf32, #xnnc.dims<"T">>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<1x?x16xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[G:.*]] = xnn.convert %[[F]] : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xbf16, #xnnc.dims<"T">>
// CHECK-NEXT:    xnn.unary gelu %[[G]] : (tensor<1x?x16xbf16, #xnnc.dims<"T">>) -> tensor<1x?x16xbf16, #xnnc.dims<"T">>
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @bf16_conv_fc(%x: tensor<1x1x?x4xbf16, #xnnc.dims<"T">>) -> tensor<1x?x16xbf16, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x1x?x4xbf16, #xnnc.dims<"T">>) -> tensor<1x?x16xbf16, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x1x?x4xbf16, #xnnc.dims<"T">>):
      %b1 = xnn.constant dense<0.5> : tensor<8xbf16>
      %w1 = xnn.constant dense<0.5> : tensor<8x1x3x4xbf16>
      %0 = xnn.convolution_2d %a, %w1, %b1 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x4xbf16, #xnnc.dims<"T">>, tensor<8x1x3x4xbf16>, tensor<8xbf16>) -> tensor<1x1x?x8xbf16, #xnnc.dims<"T">>
      %1 = xnn.static_reshape %0 {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xbf16, #xnnc.dims<"T">>) -> tensor<1x?x8xbf16, #xnnc.dims<"T">>
      %b2 = xnn.constant dense<0.5> : tensor<16xbf16>
      %w2 = xnn.constant dense<0.5> : tensor<16x8xbf16>
      %2 = xnn.fully_connected %1, %w2, %b2 : (tensor<1x?x8xbf16, #xnnc.dims<"T">>, tensor<16x8xbf16>, tensor<16xbf16>) -> tensor<1x?x16xbf16, #xnnc.dims<"T">>
      %3 = xnn.unary gelu %2 : (tensor<1x?x16xbf16, #xnnc.dims<"T">>) -> tensor<1x?x16xbf16, #xnnc.dims<"T">>
      xnn.output %3 : tensor<1x?x16xbf16, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x?x16xbf16, #xnnc.dims<"T">>
  }
}
