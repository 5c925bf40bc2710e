// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,x86-64-avx2"},xnn-space-to-depth' | filecheck %s
// RUN: xnn-opt %s -p 'xnn-space-to-depth{ignore-target=true}' | filecheck %s

// xnn-space-to-depth on a symbolic size (issue 13): the pad and the blocks are built for one
// size, so a stem over a symbolic width stays direct, says why, and records no decision.
// CHECK-LABEL: func.func @symbolic_width
// CHECK-NOT:     xnn.static_reshape
// CHECK:         xnn.convolution_2d %x, %w {xnn.declined = {"xnn-space-to-depth" = "symbolic size W: the pad and the blocks have fixed sizes"}
// CHECK-NOT:     xnn.decision
// CHECK:         func.return
builtin.module attributes {xnnc.symbols = #xnnc.symbols<W = [8, 64]>} {
  func.func @symbolic_width(%x: tensor<1x6x?x1x!xnn.quant.uniform<i8:f32, 0.1:3>, #xnnc.dims<"2*W">>) -> tensor<1x3x?x2x!xnn.quant.uniform<i8:f32, 0.2:-1>, #xnnc.dims<"W">> {
    %w = xnn.constant #xnnc.weight<"w", "0x0102030405060708090a0b0c0d0e0f101112"> : tensor<2x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
    %y = xnn.convolution_2d %x, %w {kernel_height = 3 : i64, kernel_width = 3 : i64, subsampling_height = 2 : i64, subsampling_width = 2 : i64, padding_top = 1 : i64, padding_right = 1 : i64, padding_bottom = 1 : i64, padding_left = 1 : i64, group_input_channels = 1 : i64, group_output_channels = 2 : i64} : (tensor<1x6x?x1x!xnn.quant.uniform<i8:f32, 0.1:3>, #xnnc.dims<"2*W">>, tensor<2x3x3x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>) -> tensor<1x3x?x2x!xnn.quant.uniform<i8:f32, 0.2:-1>, #xnnc.dims<"W">>
    func.return %y : tensor<1x3x?x2x!xnn.quant.uniform<i8:f32, 0.2:-1>, #xnnc.dims<"W">>
  }
}
