// A .pt2's static LSTM imports whole: as one xnnc::lstm, which the pipeline lowers to one
// xnn.lstm (`disable=lstm-loop`'s form: its steps are nodes of the serialized blob alone),
// or, with --loop-lstms, as one aten::lstm.input that the pipeline leaves whole for xnnc's
// recurrent loop, as xnnc.compile does by default.
// RUN: %python %S/inputs/make_lstm_pt2.py %t.pt2 2>/dev/null
// RUN: xnn-opt %t.pt2 | filecheck %s --check-prefix=UNROLLED
// RUN: xnn-opt %t.pt2 -p xnnc-pipeline | filecheck %s --check-prefix=XNN
// RUN: xnn-opt %t.pt2 --loop-lstms | filecheck %s --check-prefix=WHOLE
// RUN: xnn-opt %t.pt2 --loop-lstms -p xnnc-pipeline | filecheck %s --check-prefix=LOOP

// UNROLLED-NOT:  aten.sigmoid
// UNROLLED:      %{{.*}}, %{{.*}}, %{{.*}} = aten.generic "xnnc::lstm"(%x,
// UNROLLED-NOT:  aten.sigmoid

// XNN:           xnn.subgraph
// XNN:           xnn.lstm
// XNN-NOT:       aten.

// WHOLE-NOT:     aten.sigmoid
// WHOLE:         %{{.*}}, %{{.*}}, %{{.*}} = aten.generic "aten::lstm.input"(%x,
// WHOLE-SAME:    -> (tensor<3x1x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>)
// WHOLE-NOT:     aten.sigmoid

// LOOP:          xnn.target = #xnn.target<runtime = "extended"
// LOOP-NOT:      xnn.subgraph
// LOOP:          %[[Y:.*]], %{{.*}}, %{{.*}} = aten.generic "aten::lstm.input"(%x,
// LOOP-NEXT:     func.return %[[Y]] : tensor<3x1x8xf32>
