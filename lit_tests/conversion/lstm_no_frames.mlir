// An LSTM over no frames stays outside XNNPACK with its reason (xnn.lstm needs a frame and
// a batch row; before, lowering it failed with an internal IndexError).
// RUN: not xnn-opt %s -p 'xnn-set-target{target=stock},xnn-partition{strict=true}' 2>&1 | filecheck %s
// RUN: xnn-opt %s -p 'xnn-set-target{target=stock},xnn-partition' | filecheck %s --check-prefix=KEPT

// CHECK: xnn-opt: error: 1 ops stayed outside XNNPACK: {{.*}}lstm_no_frames.mlir:[[# @LINE + 11]]:3: xnnc.lstm (xnn.lstm needs at least one frame and batch row, got T=0, B=1)
// KEPT-NOT:  xnn.subgraph
// KEPT:      aten.generic "xnnc::lstm"

func.func @f(%x: tensor<0x1x2xf32>) -> tensor<0x1x2xf32> {
  %w_ih = aten.constant dense<0.25> : tensor<8x2xf32>
  %w_hh = aten.constant dense<0.5> : tensor<8x2xf32>
  %b_ih = aten.constant dense<0.125> : tensor<8xf32>
  %b_hh = aten.constant dense<0.125> : tensor<8xf32>
  %h0 = aten.constant dense<0.0> : tensor<1x1x2xf32>
  %c0 = aten.constant dense<0.0> : tensor<1x1x2xf32>
  %y, %h, %c = aten.generic "xnnc::lstm"(%x, %h0, %c0, %w_ih, %w_hh, %b_ih, %b_hh) {args = [#aten.operand<0>, [#aten.operand<1>, #aten.operand<2>], [#aten.operand<3>, #aten.operand<4>, #aten.operand<5>, #aten.operand<6>], true, 1 : i64, 0.000000e+00 : f64, false, false, false]} : (tensor<0x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<0x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  func.return %y : tensor<0x1x2xf32>
}
