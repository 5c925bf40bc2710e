// RUN: xnn-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One case per verifier message of xnn.lstm (dialects/xnn.py), each at the failing op.

// CHECK: {{.*}}xnn_lstm_verify.mlir:[[# @LINE + 4]]:5: error: 'xnn.lstm' op expected 3 weights (1 layers x 1 directions x 3), got 2
func.func @weight_count(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>) {
  %r = xnn.subgraph(%x, %w) : (tensor<3x1x2xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32> {
  ^bb0(%a: tensor<3x1x2xf32>, %b: tensor<8x2xf32>):
    %y, %h, %c = xnn.lstm %a state() weights(%b, %b) {layers = 1 : i64} : tensor<3x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
    xnn.output %y : tensor<3x1x2xf32>
  }
  func.return
}

// -----

// CHECK: {{.*}}xnn_lstm_verify.mlir:[[# @LINE + 4]]:5: error: 'xnn.lstm' op cell 0: weight of shape [8, 3], expected [8, 2]
func.func @weight_shape(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>, %v: tensor<8x3xf32>) {
  %r = xnn.subgraph(%x, %w, %v) : (tensor<3x1x2xf32>, tensor<8x2xf32>, tensor<8x3xf32>) -> tensor<3x1x2xf32> {
  ^bb0(%a: tensor<3x1x2xf32>, %b: tensor<8x2xf32>, %d: tensor<8x3xf32>):
    %y, %h, %c = xnn.lstm %a state() weights(%d, %b) {layers = 1 : i64, has_bias = 0 : i64} : tensor<3x1x2xf32> state() weights(tensor<8x3xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
    xnn.output %y : tensor<3x1x2xf32>
  }
  func.return
}

// -----

// CHECK: {{.*}}xnn_lstm_verify.mlir:[[# @LINE + 4]]:5: error: 'xnn.lstm' op output of shape [3, 1, 4], expected [3, 1, 2]
func.func @output_shape(%x: tensor<3x1x2xf32>, %w: tensor<8x2xf32>) {
  %r = xnn.subgraph(%x, %w) : (tensor<3x1x2xf32>, tensor<8x2xf32>) -> tensor<3x1x4xf32> {
  ^bb0(%a: tensor<3x1x2xf32>, %b: tensor<8x2xf32>):
    %y, %h, %c = xnn.lstm %a state() weights(%b, %b) {layers = 1 : i64, has_bias = 0 : i64} : tensor<3x1x2xf32> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x4xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
    xnn.output %y : tensor<3x1x4xf32>
  }
  func.return
}

// -----

// CHECK: {{.*}}xnn_lstm_verify.mlir:[[# @LINE + 4]]:5: error: 'xnn.lstm' op xnn.lstm takes static f32 tensors, got tensor<3x1x2xf16>
func.func @dtype(%x: tensor<3x1x2xf16>, %w: tensor<8x2xf32>) {
  %r = xnn.subgraph(%x, %w) : (tensor<3x1x2xf16>, tensor<8x2xf32>) -> tensor<3x1x2xf32> {
  ^bb0(%a: tensor<3x1x2xf16>, %b: tensor<8x2xf32>):
    %y, %h, %c = xnn.lstm %a state() weights(%b, %b) {layers = 1 : i64, has_bias = 0 : i64} : tensor<3x1x2xf16> state() weights(tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
    xnn.output %y : tensor<3x1x2xf32>
  }
  func.return
}
