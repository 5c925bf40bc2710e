// The blob carries XNNQuantizedTensorValues: qint8 activations, qcint8 filter, qcint32 bias.
// RUN: xnn-opt %s -p 'xnn-partition,convert-aten-to-xnn,canonicalize' -t 'xnnpack{target=stock}' -o %t.xnn
// RUN: %python -c "import sys; from xnnc.backend_xnnpack.blob import read_blob, DATATYPE_NAMES; b = read_blob(open(sys.argv[1], 'rb').read()); print(b.node_kinds); print(sorted({(DATATYPE_NAMES[v.xvalueUnion.tensorValue.datatype], type(v.xvalueUnion.quantParams).__name__) for v in b.graph.xvalues if hasattr(v.xvalueUnion, 'quantParams')}))" %t.xnn | filecheck %s --check-prefix=BLOB
// BLOB: ('XNNConvert', 'XNNStaticTranspose', 'XNNConv2d', 'XNNConvert', 'XNNStaticTranspose')
// BLOB-NEXT: [('qcint32', 'PerChannelQuantT'), ('qcint8', 'PerChannelQuantT'), ('qint8', 'PerTensorQuantT')]

func.func @conv_relu(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = aten.constant #xnnc.weight<"w", "0x01FE"> : tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  %b = aten.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %xq = aten.quantize %x : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>
  %c = aten.convolution %xq, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x1x2x2x!xnn.quant.uniform<i8:f32, 0.1:-3>>, tensor<2x1x1x1x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>, tensor<2xf32>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
  %r = aten.relu %c : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>
  %y = aten.dequantize %r : (tensor<1x2x2x2x!xnn.quant.uniform<i8:f32, 0.2:-128>>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}
