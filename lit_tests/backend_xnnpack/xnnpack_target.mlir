// The binary target writes one subgraph as an ExecuTorch XNNPACK blob.
// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn -t 'xnnpack{target=stock}' -o %t.xnn
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); o = int.from_bytes(d[10:14], 'little'); print(d[4:8], d[o + 4:o + 8], o % 16)" %t.xnn | filecheck %s
// CHECK: b'XH00' b'XN01' 0
// RUN: %python -c "import sys; from xnnc.backend_xnnpack.blob import read_blob; b = read_blob(open(sys.argv[1], 'rb').read()); print(b.node_kinds, b.inputs, b.outputs)" %t.xnn | filecheck %s --check-prefix=KINDS
// KINDS: ('XNNFullyConnected', 'XNNClamp') (0,) (3,)
// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn -t 'xnnpack{target=extended}' -o %t.ext.xnn
// RUN: not xnn-opt %s -t xnnpack -o %t.none.xnn 2>&1 | filecheck %s --check-prefix=NONE
// NONE: xnn-opt: error: -t xnnpack writes one blob, but the module has 0 xnn.subgraph ops
// RUN: not xnn-opt %s -p xnn-partition,convert-aten-to-xnn -t xnnpack 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: xnn-opt: error: -t xnnpack writes a binary blob: give a file with -o
// A kind stock ExecuTorch 1.5.1 lacks is refused for the stock target, naming the operator.
// RUN: not xnn-opt %S/../tools/inputs/xnn_unary_sign.mlir -t 'xnnpack{target=stock}' -o %t.sign.xnn 2>&1 | filecheck %s --check-prefix=STOCK
// STOCK: xnn_unary_sign.mlir:5:5: error: xnn.unary sign encodes to XNNUnary, which stock ExecuTorch 1.5.1 lacks: give it a stock form in xnn-legalize-stock or keep it outside on the stock target (docs/adding-an-op.md), or compile for the extended runtime
// STOCK-NOT: Traceback
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = aten.constant dense<0.5> : tensor<3x4xf32>
  %y = aten.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %r = aten.relu %y : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
