// RUN: xnn-opt %s --split-input-file -p 'xnn-fp16-precision{mode=fp32}' | filecheck %s --check-prefixes=CHECK,FP32
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,FP32,AUTO-FP32
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,arm64-fp16-dotprod"},xnn-fp16-precision' | filecheck %s --check-prefixes=CHECK,NATIVE,AUTO-NATIVE
// RUN: xnn-opt %s --split-input-file -p 'xnn-fp16-precision{mode=native}' | filecheck %s --check-prefixes=CHECK,NATIVE

// xnn-fp16-precision on symbolic sizes (issue 13). An fp16 Conv1d -> Linear -> GELU over T
// frames (a torch export of the fp16 model with dynamic_shapes, converted, cut down). fp32:
// converts only at the subgraph's boundary, every node in fp32 with T kept. `auto` decides
// the region as a whole by the target's rule, which reads no size (fp32 on x86, native on
// arm64 with FP16), as for a static region: no converts between its layers.
// CHECK-LABEL: func.func @f16_conv_fc
// FP32:          %[[X:.*]] = xnn.convert %{{.*}} : (tensor<1x1x?x4xf16, #xnnc.dims<"T">>) -> tensor<1x1x?x4xf32, #xnnc.dims<"T">>
// FP32-NOT:      xnn.convert
// FP32:          %[[C:.*]] = xnn.convolution_2d %[[X]],
// AUTO-FP32-SAME: xnn.decision = {form = "fp16-compute", choice = "fp32", source = "rule", layer = "fp16 region of 2 layers from convolution_2d 1x1xTx4,{{.*}}why = "region of 2 fp16 layers, 4 nodes, {{.*}}: no XNNPACK fp16 arithmetic path for this CPU"}
// FP32-SAME:     : (tensor<1x1x?x4xf32, #xnnc.dims<"T">>, tensor<8x1x3x4xf32>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// FP32-NEXT:     %[[R:.*]] = xnn.static_reshape %[[C]] {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x?x8xf32, #xnnc.dims<"T">>
// FP32-NOT:      xnn.convert
// FP32:          %[[F:.*]] = xnn.fully_connected %[[R]],
// AUTO-FP32-SAME: choice = "fp32", source = "rule", layer = "fp16 region of 2 layers
// FP32-SAME:     : (tensor<1x?x8xf32, #xnnc.dims<"T">>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<1x?x16xf32, #xnnc.dims<"T">>
// FP32-NEXT:     %[[G:.*]] = xnn.unary gelu %[[F]] : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf32, #xnnc.dims<"T">>
// FP32-NEXT:     %[[O:.*]] = xnn.convert %[[G]] : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x16xf16, #xnnc.dims<"T">>
// FP32-NEXT:     xnn.output %[[O]]
// NATIVE-NOT:    xnn.convert
// NATIVE:        xnn.convolution_2d
// AUTO-NATIVE-SAME: xnn.decision = {form = "fp16-compute", choice = "native", source = "unmeasured", layer = "fp16 region of 2 layers from convolution_2d 1x1xTx4,{{.*}}: arm64 FP16 arithmetic; unmeasured on arm64"}
// NATIVE-SAME:   -> tensor<1x1x?x8xf16, #xnnc.dims<"T">>
// NATIVE:        xnn.fully_connected
// AUTO-NATIVE-SAME: choice = "native", source = "unmeasured", layer = "fp16 region of 2 layers
// NATIVE-SAME:   -> tensor<1x?x16xf16, #xnnc.dims<"T">>
// NATIVE-NOT:    xnn.convert
// NATIVE:        xnn.output
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @f16_conv_fc(%x: tensor<1x1x?x4xf16, #xnnc.dims<"T">>) -> tensor<1x?x16xf16, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x1x?x4xf16, #xnnc.dims<"T">>) -> tensor<1x?x16xf16, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x1x?x4xf16, #xnnc.dims<"T">>):
      %b1 = xnn.constant dense<0.5> : tensor<8xf16>
      %w1 = xnn.constant dense<0.5> : tensor<8x1x3x4xf16>
      %0 = xnn.convolution_2d %a, %w1, %b1 {kernel_height = 1 : i64, kernel_width = 3 : i64, group_input_channels = 4 : i64, group_output_channels = 8 : i64, padding_right = 1 : i64, padding_left = 1 : i64} : (tensor<1x1x?x4xf16, #xnnc.dims<"T">>, tensor<8x1x3x4xf16>, tensor<8xf16>) -> tensor<1x1x?x8xf16, #xnnc.dims<"T">>
      %1 = xnn.static_reshape %0 {new_shape = array<i64: 1, 0, 8>} : (tensor<1x1x?x8xf16, #xnnc.dims<"T">>) -> tensor<1x?x8xf16, #xnnc.dims<"T">>
      %b2 = xnn.constant dense<0.5> : tensor<16xf16>
      %w2 = xnn.constant dense<0.5> : tensor<16x8xf16>
      %2 = xnn.fully_connected %1, %w2, %b2 : (tensor<1x?x8xf16, #xnnc.dims<"T">>, tensor<16x8xf16>, tensor<16xf16>) -> tensor<1x?x16xf16, #xnnc.dims<"T">>
      %3 = xnn.unary gelu %2 : (tensor<1x?x16xf16, #xnnc.dims<"T">>) -> tensor<1x?x16xf16, #xnnc.dims<"T">>
      xnn.output %3 : tensor<1x?x16xf16, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x?x16xf16, #xnnc.dims<"T">>
  }
}
