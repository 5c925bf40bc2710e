// RUN: xnn-opt %s --split-input-file --print-weights -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn,xnn-legalize-stock | filecheck %s --check-prefix=STOCK

// convert-aten-to-xnn on dynamically quantized linears (conversion/dynamic_quant_to_xnn.py): the
// dynamic quantize is XNNPACK's convert to qd8, the linear its fully-connected over qd8 and
// a quantized weight, with an f32 bias and output. Stock ExecuTorch 1.5.1 runs both kinds.

// qc8w: the int8 weight as it is, one scale per output channel.
// CHECK-LABEL: func.func @qc8w
// CHECK:         xnn.subgraph
// CHECK:         %[[Q:.*]] = xnn.convert %{{.*}} : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"w", "0x01FE03817F0005FA0708F70A"> : tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>
// CHECK:         %{{.*}} = xnn.fully_connected %[[Q]], %[[W]], %{{.*}} : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x4x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<2x3xf32>
// STOCK-LABEL: func.func @qc8w
// STOCK:         xnn.convert
// STOCK:         xnn.fully_connected %{{.*}} : (tensor<2x4x!xnn.quant.dynamic
func.func @qc8w(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x01FE03817F0005FA0708F70A"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
  %b = aten.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %q = aten.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %y = aten.linear %q, %w, %b : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// qb4w: int8 storage in [-8, 7] packed as XNNPACK's 4-bit values (value + 8, two per byte,
// the even input channel in the low nibble), typed i4 blockwise.
// CHECK-LABEL: func.func @qb4w
// CHECK:         %[[Q:.*]] = xnn.convert %{{.*}} : (tensor<1x2x64xf32>) -> tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>
// CHECK-NEXT:    %[[W:.*]] = xnn.constant #xnnc.weight<"w.int4", "0x1032547698BADCFE1032547698BADCFE1032547698BADCFE1032547698BADCFE1032547698BADCFE1032547698BADCFE1032547698BADCFE1032547698BADCFE"> : tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>
// CHECK:         %{{.*}} = xnn.fully_connected %[[Q]], %[[W]] : (tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>, tensor<2x64x!xnn.quant.uniform<i4:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<1x2x2xf32>
func.func @qb4w(%x: tensor<1x2x64xf32>) -> tensor<1x2x2xf32> {
  %w = aten.constant #xnnc.weight<"w", "0xF8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607F8F9FAFBFCFDFEFF0001020304050607"> : tensor<2x64x!xnn.quant.uniform<i8<-8:7>:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>
  %q = aten.quantize %x : (tensor<1x2x64xf32>) -> tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>
  %y = aten.linear %q, %w : (tensor<1x2x64x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>>, tensor<2x64x!xnn.quant.uniform<i8<-8:7>:f32:0, block 32, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<1x2x2xf32>
  func.return %y : tensor<1x2x2xf32>
}

// -----

// Kept outside, with the reason: an asymmetric weight, and a 2-bit one.
// CHECK-LABEL: func.func @outside
// CHECK-NOT:     xnn.subgraph
// CHECK:         aten.quantize
// CHECK:         aten.linear
// CHECK:         aten.linear
func.func @outside(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = aten.constant #xnnc.weight<"w", "0x01FE03817F0005FA0708F70A"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5:3, 0.25, 1.0}>>
  %w2 = aten.constant #xnnc.weight<"w2", "0x01FE0301000001FE0001FE00"> : tensor<3x4x!xnn.quant.uniform<i8<-2:1>:f32:0, {0.5, 0.25, 1.0}>>
  %q = aten.quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %y = aten.linear %q, %w : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5:3, 0.25, 1.0}>>) -> tensor<2x3xf32>
  %z = aten.linear %q, %w2 : (tensor<2x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x4x!xnn.quant.uniform<i8<-2:1>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<2x3xf32>
  func.return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A symbolic token count: the qd8 convert computes each token's parameters at run time, so
// the convert and the fully-connected lower on `?` tokens, their types keeping the dims.
// CHECK-LABEL: func.func @qc8w_tokens
// CHECK:         xnn.subgraph
// CHECK:         %[[Q:.*]] = xnn.convert %{{.*}} : (tensor<?x4xf32, #xnnc.dims<"T">>) -> tensor<?x4x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>, #xnnc.dims<"T">>
// CHECK:         xnn.fully_connected %[[Q]], %{{.*}} -> tensor<?x3xf32, #xnnc.dims<"T">>
// CHECK-NOT:     aten.
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @qc8w_tokens(%x: tensor<?x4xf32, #xnnc.dims<"T">>) -> tensor<?x3xf32, #xnnc.dims<"T">> {
    %w = aten.constant #xnnc.weight<"w", "0x01FE03817F0005FA0708F70A"> : tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
    %q = aten.quantize %x : (tensor<?x4xf32, #xnnc.dims<"T">>) -> tensor<?x4x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>, #xnnc.dims<"T">>
    %y = aten.linear %q, %w : (tensor<?x4x!xnn.quant.dynamic<i8:f32, token, eps 1.1754943508222875e-38>, #xnnc.dims<"T">>, tensor<3x4x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<?x3xf32, #xnnc.dims<"T">>
    func.return %y : tensor<?x3xf32, #xnnc.dims<"T">>
  }
}

// -----

// A 2-D convolution over a dynamic activation: the f32 input moves to NHWC and is quantized
// there (XNNPACK's qd8 convolution takes one scale and zero point per image, and a qd8
// tensor cannot be transposed); the NCHW quantize is erased. The bias stays f32.
// CHECK-LABEL: func.func @conv2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[Q:.*]] = xnn.convert %[[T]] : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
// CHECK:         xnn.convolution_2d %[[Q]], %{{.*}}, %{{.*}} {{.*}} : (tensor<1x4x4x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x3x3x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.output
// STOCK-LABEL: func.func @conv2d
// STOCK:         xnn.convolution_2d %{{.*}} : (tensor<1x4x4x2x!xnn.quant.dynamic
func.func @conv2d(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x00070E151C232A31383F464D545B626970777E858C939AA1A8AFB6BDC4CBD2D9E0E7EEF5020910171E252C333A41484F565D646B7279"> : tensor<3x2x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>
  %b = aten.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %q = aten.quantize %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %y = aten.convolution %q, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x4x4x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<3x2x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}

// -----

// A transposed 2-D convolution over a dynamic activation: XNNPACK's qd8 deconvolution, its
// filter [Cout, KH, KW, Cin] per output channel (torch's [Cin, Cout, KH, KW] along axis 1),
// the input moved to NHWC before it is quantized, as for a convolution.
// CHECK-LABEL: func.func @conv_transpose2d
// CHECK:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x3x3x2xf32>
// CHECK-NEXT:    %[[Q:.*]] = xnn.convert %[[T]] : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"w.deconv", "0x0054075B0E6215691C7023772A7E3185388C3F93469A4DA1"> : tensor<3x2x2x2x!xnn.quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>
// CHECK-NEXT:    xnn.deconvolution_2d %[[Q]], %[[W]], %{{.*}} {kernel_height = 2 : i64, kernel_width = 2 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, group_input_channels = 2 : i64, group_output_channels = 3 : i64} : ({{.*}}) -> tensor<1x6x6x3xf32>
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.output
// STOCK-LABEL: func.func @conv_transpose2d
// STOCK:         xnn.deconvolution_2d %{{.*}} : (tensor<1x3x3x2x!xnn.quant.dynamic
func.func @conv_transpose2d(%x: tensor<1x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x00070E151C232A31383F464D545B626970777E858C939AA1"> : tensor<2x3x2x2x!xnn.quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25, 1.0}>>
  %b = aten.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %q = aten.quantize %x : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>
  %y = aten.convolution %q, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x3x3x!xnn.quant.dynamic<i8:f32, tensor, eps 0.000244140625>>, tensor<2x3x2x2x!xnn.quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25, 1.0}>>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}
