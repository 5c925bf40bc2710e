// RUN: xnn-opt %s --split-input-file -p aten-lower-complex | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-lower-complex,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// aten-lower-complex on symbolic sizes (issue 13). A spectrogram's frames are T: the
// transform over the 16 static samples of each frame is two GEMMs whose rows follow T.
// CHECK-LABEL: func.func @rfft_frames
// CHECK:         aten.linear %x, %{{.*}} : (tensor<1x?x16xf32, #xnnc.dims<"T">>, tensor<9x16xf32>) -> tensor<1x?x9xf32, #xnnc.dims<"T">>
// CHECK:         aten.linear %x, %{{.*}} : (tensor<1x?x16xf32, #xnnc.dims<"T">>, tensor<9x16xf32>) -> tensor<1x?x9xf32, #xnnc.dims<"T">>
// CHECK:         %y = aten.sqrt %{{.*}} : (tensor<1x?x9xf32, #xnnc.dims<"T">>) -> tensor<1x?x9xf32, #xnnc.dims<"T">>
// CHECK-NOT:     complex
// XNN-LABEL: func.func @rfft_frames
// XNN:         xnn.subgraph
// XNN-COUNT-2:   xnn.fully_connected
// XNN-NOT:     aten.
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @rfft_frames(%x: tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x9xf32, #xnnc.dims<"T">> {
    %s = aten.generic "aten::_fft_r2c"(%x) {args = [#aten.operand<0>, [2], 0, true]} : (tensor<1x?x16xf32, #xnnc.dims<"T">>) -> tensor<1x?x9xcomplex<f32>, #xnnc.dims<"T">>
    %y = aten.abs %s : (tensor<1x?x9xcomplex<f32>, #xnnc.dims<"T">>) -> tensor<1x?x9xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?x9xf32, #xnnc.dims<"T">>
  }
}

// -----

// A transform over a symbolic length has no fixed basis: it stays whole (on torch), and
// the magnitude reads its parts.
// CHECK-LABEL: func.func @rfft_over_frames
// CHECK:         %s = aten.generic "aten::_fft_r2c"(%x)
// CHECK-NEXT:    aten.generic "aten::real"(%s)
// CHECK-NEXT:    aten.generic "aten::imag"(%s)
// XNN-LABEL: func.func @rfft_over_frames
// XNN:         aten.generic "aten::_fft_r2c"
// XNN:         xnn.subgraph
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @rfft_over_frames(%x: tensor<1x?xf32, #xnnc.dims<"T">>) -> tensor<1x?xf32, #xnnc.dims<"T">> {
    %s = aten.generic "aten::_fft_r2c"(%x) {args = [#aten.operand<0>, [1], 0, false]} : (tensor<1x?xf32, #xnnc.dims<"T">>) -> tensor<1x?xcomplex<f32>, #xnnc.dims<"T">>
    %y = aten.abs %s : (tensor<1x?xcomplex<f32>, #xnnc.dims<"T">>) -> tensor<1x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x?xf32, #xnnc.dims<"T">>
  }
}
