// RUN: xnn-opt %s --split-input-file -p xnn-quantize-early | filecheck %s

// xnn-quantize-early on symbolic sizes (issue 13). A float depthwise transposed conv's
// phases over T frames (XNNPACKQuantizer leaves it float) feeding a qs8 op: the quantizing
// convert climbs past the interleave and the concatenate, one per phase, and every type
// keeps T (the quantized types carry their `#xnnc.dims` too).
// CHECK-LABEL: func.func @phases
// CHECK-NEXT:    %[[A:.*]] = xnn.convert %a : (tensor<1x1x?x3xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x3x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[B:.*]] = xnn.convert %b
// CHECK-NEXT:    %[[C:.*]] = xnn.convert %c
// CHECK-NEXT:    %[[D:.*]] = xnn.convert %d
// CHECK-NEXT:    %[[J:.*]] = xnn.concatenate %[[A]], %[[B]], %[[C]], %[[D]] {axis = 3 : i64} : {{.*}} -> tensor<1x1x?x12x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"T">>
// CHECK-NEXT:    %[[Y:.*]] = xnn.depth_to_space_2d %[[J]] {block_size = 2 : i64} : (tensor<1x1x?x12x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"T">>) -> tensor<1x2x?x3x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"2*T">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @phases(%a: tensor<1x1x?x3xf32, #xnnc.dims<"T">>, %b: tensor<1x1x?x3xf32, #xnnc.dims<"T">>, %c: tensor<1x1x?x3xf32, #xnnc.dims<"T">>, %d: tensor<1x1x?x3xf32, #xnnc.dims<"T">>) -> tensor<1x2x?x3x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"2*T">> {
    %j = xnn.concatenate %a, %b, %c, %d {axis = 3 : i64} : (tensor<1x1x?x3xf32, #xnnc.dims<"T">>, tensor<1x1x?x3xf32, #xnnc.dims<"T">>, tensor<1x1x?x3xf32, #xnnc.dims<"T">>, tensor<1x1x?x3xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x12xf32, #xnnc.dims<"T">>
    %i = xnn.depth_to_space_2d %j {block_size = 2 : i64} : (tensor<1x1x?x12xf32, #xnnc.dims<"T">>) -> tensor<1x2x?x3xf32, #xnnc.dims<"2*T">>
    %q = xnn.convert %i : (tensor<1x2x?x3xf32, #xnnc.dims<"2*T">>) -> tensor<1x2x?x3x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"2*T">>
    func.return %q : tensor<1x2x?x3x!xnn.quant.uniform<i8:f32, 0.1:2>, #xnnc.dims<"2*T">>
  }
}

// -----

// Left alone: a `?` without its expression (no `#xnnc.dims`) has no shape to give the
// converts.
// CHECK-LABEL: func.func @unknown_dim
// CHECK-NEXT:    xnn.concatenate
// CHECK-NEXT:    xnn.convert
func.func @unknown_dim(%a: tensor<1x1x?x3xf32>, %b: tensor<1x1x?x3xf32>) -> tensor<1x1x?x6x!xnn.quant.uniform<i8:f32, 0.1:2>> {
  %j = xnn.concatenate %a, %b {axis = 3 : i64} : (tensor<1x1x?x3xf32>, tensor<1x1x?x3xf32>) -> tensor<1x1x?x6xf32>
  %q = xnn.convert %j : (tensor<1x1x?x6xf32>) -> tensor<1x1x?x6x!xnn.quant.uniform<i8:f32, 0.1:2>>
  func.return %q : tensor<1x1x?x6x!xnn.quant.uniform<i8:f32, 0.1:2>>
}
