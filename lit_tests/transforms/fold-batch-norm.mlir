// RUN: xnn-opt %s --split-input-file -p fold-batch-norm | filecheck %s

// The batch norm disappears into new conv weights and bias.
// CHECK-LABEL: func.func @folded
// CHECK:         %[[W:.*]] = aten.constant #xnnc.weight<"const.bn"> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = aten.constant #xnnc.weight<"const.bn_bias"> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = aten.convolution %x, %[[W]], %[[B]]
// CHECK-NOT:     aten._native_batch_norm_legit_no_training
// CHECK:         func.return %[[C]]
func.func @folded(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = aten.constant dense<2.0> : tensor<2x1x1x1xf32>
  %g = aten.constant dense<3.0> : tensor<2xf32>
  %be = aten.constant dense<0.5> : tensor<2xf32>
  %m = aten.constant dense<1.0> : tensor<2xf32>
  %v = aten.constant dense<4.0> : tensor<2xf32>
  %c = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y:3 = aten._native_batch_norm_legit_no_training %c : tensor<1x2x3x3xf32> weight %g : tensor<2xf32> bias %be : tensor<2xf32> mean %m : tensor<2xf32> var %v : tensor<2xf32> {momentum = 0.1 : f64, eps = 0.0 : f64} -> tensor<1x2x3x3xf32>, tensor<0xf32>, tensor<0xf32>
  func.return %y#0 : tensor<1x2x3x3xf32>
}

// -----

// Left alone: the convolution has another user.
// CHECK-LABEL: func.func @conv_used_twice
// CHECK:         aten._native_batch_norm_legit_no_training
func.func @conv_used_twice(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = aten.constant dense<2.0> : tensor<2x1x1x1xf32>
  %m = aten.constant dense<1.0> : tensor<2xf32>
  %v = aten.constant dense<4.0> : tensor<2xf32>
  %c = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y:3 = aten._native_batch_norm_legit_no_training %c : tensor<1x2x3x3xf32> mean %m : tensor<2xf32> var %v : tensor<2xf32> {momentum = 0.1 : f64, eps = 0.0 : f64} -> tensor<1x2x3x3xf32>, tensor<0xf32>, tensor<0xf32>
  func.return %y#0, %c : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
