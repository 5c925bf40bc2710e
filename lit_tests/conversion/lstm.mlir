// An LSTM the .pte path takes whole (`xnnc::lstm`) lowers to one xnn.lstm: the two biases
// folded into one, a state of zeros left out; the blob holds its steps as nodes.
// RUN: xnn-opt %s -p 'xnn-set-target{target=stock},xnn-partition,convert-aten-to-xnn' | filecheck %s
// RUN: xnn-opt %s -p 'xnn-set-target{target=stock},xnnc-pipeline' -t 'xnnpack{target=stock}' -o %t.xnn
// RUN: %python -c "import sys, collections; from xnnc.backend_xnnpack.blob import read_blob; b = read_blob(open(sys.argv[1], 'rb').read()); print(sorted(collections.Counter(b.node_kinds).items()), b.inputs, b.outputs)" %t.xnn | filecheck %s --check-prefix=BLOB

// CHECK:      xnn.subgraph
// CHECK:        %[[B:.*]] = xnn.constant #xnnc.weight<"const+const"> : tensor<8xf32>
// CHECK:        %{{.*}}, %{{.*}}, %{{.*}} = xnn.lstm %{{.*}} state() weights(%{{.*}}, %{{.*}}, %[[B]]) {layers = 1 : i64}
// CHECK-SAME:     : tensor<3x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8x2xf32>, tensor<8xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
// CHECK-NOT:    aten.

// 3 frames from zeros: one projection, a slice per frame, 10 nodes for the first step and
// 15 for each other, the outputs joined along time.
// BLOB: [('XNNAdd', 4), ('XNNConcatenate3', 1), ('XNNFullyConnected', 3), ('XNNMultiply', 8), ('XNNSigmoid', 8), ('XNNStaticSlice', 14), ('XNNTanh', 6)] (0,) ({{[0-9]+}},)

func.func @f(%x: tensor<3x1x2xf32>) -> tensor<3x1x2xf32> {
  %w_ih = aten.constant dense<0.25> : tensor<8x2xf32>
  %w_hh = aten.constant dense<0.5> : tensor<8x2xf32>
  %b_ih = aten.constant dense<0.125> : tensor<8xf32>
  %b_hh = aten.constant dense<0.125> : tensor<8xf32>
  %h0 = aten.constant dense<0.0> : tensor<1x1x2xf32>
  %c0 = aten.constant dense<0.0> : tensor<1x1x2xf32>
  %y, %h, %c = aten.generic "xnnc::lstm"(%x, %h0, %c0, %w_ih, %w_hh, %b_ih, %b_hh) {args = [#aten.operand<0>, [#aten.operand<1>, #aten.operand<2>], [#aten.operand<3>, #aten.operand<4>, #aten.operand<5>, #aten.operand<6>], true, 1 : i64, 0.000000e+00 : f64, false, false, false]} : (tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  func.return %y : tensor<3x1x2xf32>
}
