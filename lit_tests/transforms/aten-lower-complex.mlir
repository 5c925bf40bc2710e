// RUN: xnn-opt %s --split-input-file -p aten-lower-complex | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-lower-complex,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// rfft then |z|: the real-input transform is two GEMMs with the 16-point bases (the 9 bins
// of a one-sided spectrum), the magnitude sqrt(re² + im²). Nothing complex is left.
// CHECK-LABEL: func.func @rfft_abs
// CHECK:         %[[C:.*]] = aten.constant #xnnc.weight<"dft16.cos"> : tensor<9x16xf32>
// CHECK-NEXT:    %[[RE:.*]] = aten.linear %x, %[[C]] : (tensor<4x16xf32>, tensor<9x16xf32>) -> tensor<4x9xf32>
// CHECK-NEXT:    %[[S:.*]] = aten.constant #xnnc.weight<"dft16.sin"> : tensor<9x16xf32>
// CHECK-NEXT:    %[[IM:.*]] = aten.linear %x, %[[S]]
// CHECK-NEXT:    %[[RR:.*]] = aten.mul %[[RE]], %[[RE]]
// CHECK-NEXT:    %[[II:.*]] = aten.mul %[[IM]], %[[IM]]
// CHECK-NEXT:    %[[SUM:.*]] = aten.add %[[RR]], %[[II]]
// CHECK-NEXT:    %y = aten.sqrt %[[SUM]] : (tensor<4x9xf32>) -> tensor<4x9xf32>
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     complex
// XNN-LABEL: func.func @rfft_abs
// XNN:         xnn.subgraph
// XNN-COUNT-2:   xnn.fully_connected
// XNN:           xnn.unary{{.*}}square_root
// XNN-NOT:     aten.
func.func @rfft_abs(%x: tensor<4x16xf32>) -> tensor<4x9xf32> {
  %s = aten.generic "aten::_fft_r2c"(%x) {args = [#aten.operand<0>, [1], 0, true]} : (tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>
  %y = aten.abs %s : (tensor<4x9xcomplex<f32>>) -> tensor<4x9xf32>
  func.return %y : tensor<4x9xf32>
}

// -----

// z * 1j rotates: (re, im) -> (-im, re), and view_as_real stacks the parts on a new last dim.
// CHECK-LABEL: func.func @rotate
// CHECK:         %[[N:.*]] = aten.neg %im
// CHECK-NEXT:    %[[A:.*]] = aten.unsqueeze %[[N]] {dim = 2 : i64}
// CHECK-NEXT:    %[[B:.*]] = aten.unsqueeze %re {dim = 2 : i64}
// CHECK-NEXT:    %y = aten.cat %[[A]], %[[B]] {dim = 2 : i64} : (tensor<2x8x1xf32>, tensor<2x8x1xf32>) -> tensor<2x8x2xf32>
// CHECK-NOT:     aten.generic
func.func @rotate(%re: tensor<2x8xf32>, %im: tensor<2x8xf32>) -> tensor<2x8x2xf32> {
  %z = aten.generic "aten::complex"(%re, %im) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xcomplex<f32>>
  %r = aten.mul %z {scalar = #aten.complex<0.0, 1.0>} : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
  %y = aten.generic "aten::view_as_real"(%r) {args = [#aten.operand<0>]} : (tensor<2x8xcomplex<f32>>) -> tensor<2x8x2xf32>
  func.return %y : tensor<2x8x2xf32>
}

// -----

// irfft to 8 samples with norm="backward" (normalization 2: by 1/n): y = re·C - im·S over
// the first 8//2 + 1 = 5 bins.
// CHECK-LABEL: func.func @irfft
// CHECK:         aten.constant #xnnc.weight<"idft8.cos"> : tensor<8x5xf32>
// CHECK-NEXT:    %[[A:.*]] = aten.linear %re
// CHECK-NEXT:    aten.constant #xnnc.weight<"idft8.sin"> : tensor<8x5xf32>
// CHECK-NEXT:    %[[B:.*]] = aten.linear %im
// CHECK-NEXT:    %y = aten.sub %[[A]], %[[B]] : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
func.func @irfft(%re: tensor<3x5xf32>, %im: tensor<3x5xf32>) -> tensor<3x8xf32> {
  %z = aten.generic "aten::complex"(%re, %im) {args = [#aten.operand<0>, #aten.operand<1>]} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xcomplex<f32>>
  %y = aten.generic "aten::_fft_c2r"(%z) {args = [#aten.operand<0>, [1], 2, 8]} : (tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>
  func.return %y : tensor<3x8xf32>
}

// -----

// A complex op without a rule (sqrt) keeps its complex operand, so the rfft stays whole for
// it; the magnitude after it reads its parts through aten::real and aten::imag. Those three
// stay on torch, with the reason; the magnitude is converted.
// CHECK-LABEL: func.func @no_rule
// CHECK-NOT:     aten.linear
// CHECK:         %s = aten.generic "aten::_fft_r2c"(%x)
// CHECK-NEXT:    %q = aten.generic "aten::sqrt"(%s)
// CHECK-NEXT:    %[[RE:.*]] = aten.generic "aten::real"(%q) {{.*}} -> tensor<4x9xf32>
// CHECK-NEXT:    %[[IM:.*]] = aten.generic "aten::imag"(%q) {{.*}} -> tensor<4x9xf32>
// CHECK-NEXT:    aten.mul %[[RE]], %[[RE]]
// XNN-LABEL: func.func @no_rule
// XNN:         aten.generic "aten::_fft_r2c"
// XNN-NEXT:    aten.generic "aten::sqrt"
// XNN-NEXT:    aten.generic "aten::real"
// XNN-NEXT:    aten.generic "aten::imag"
// XNN-NEXT:    xnn.subgraph
func.func @no_rule(%x: tensor<4x16xf32>) -> tensor<4x9xf32> {
  %s = aten.generic "aten::_fft_r2c"(%x) {args = [#aten.operand<0>, [1], 0, true]} : (tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>
  %q = aten.generic "aten::sqrt"(%s) {args = [#aten.operand<0>]} : (tensor<4x9xcomplex<f32>>) -> tensor<4x9xcomplex<f32>>
  %y = aten.abs %q : (tensor<4x9xcomplex<f32>>) -> tensor<4x9xf32>
  func.return %y : tensor<4x9xf32>
}

// -----

// torch.stft's windowed frames, transformed: one convolution of the signal per part, with
// the window times the basis as its kernel (out channel k, tap j: w_j cos(2π jk/64)) and
// the hop as its stride; the frames, the window's product and the window itself are gone.
// CHECK-LABEL: func.func @stft
// CHECK-NEXT:    %[[V:.*]] = aten.view %x {size = array<i64: 1, 1, 1088>}
// CHECK-NEXT:    %[[C:.*]] = aten.constant #xnnc.weight<"stft64.cos"> : tensor<33x1x64xf32>
// CHECK-NEXT:    %[[RE:.*]] = aten.convolution %[[V]], %[[C]] {stride = array<i64: 16>, {{.*}}} : (tensor<1x1x1088xf32>, tensor<33x1x64xf32>) -> tensor<1x33x65xf32>
// CHECK-NEXT:    aten.permute %[[RE]] {dims = array<i64: 0, 2, 1>} : (tensor<1x33x65xf32>) -> tensor<1x65x33xf32>
// CHECK-NEXT:    %[[S:.*]] = aten.constant #xnnc.weight<"stft64.sin"> : tensor<33x1x64xf32>
// CHECK-NEXT:    aten.convolution %[[V]], %[[S]]
// CHECK-NOT:     aten.generic
// CHECK-NOT:     dense<5.0
func.func @stft(%x: tensor<1x1088xf32>) -> tensor<1x65x33xf32> {
  %w = aten.constant dense<0.5> : tensor<64xf32>
  %u = aten.generic "aten::unfold"(%x) {args = [#aten.operand<0>, -1, 64, 16]} : (tensor<1x1088xf32>) -> tensor<1x65x64xf32>
  %f = aten.mul %u, %w : (tensor<1x65x64xf32>, tensor<64xf32>) -> tensor<1x65x64xf32>
  %s = aten.generic "aten::_fft_r2c"(%f) {args = [#aten.operand<0>, [2], 0, true]} : (tensor<1x65x64xf32>) -> tensor<1x65x33xcomplex<f32>>
  %y = aten.abs %s : (tensor<1x65x33xcomplex<f32>>) -> tensor<1x65x33xf32>
  func.return %y : tensor<1x65x33xf32>
}
