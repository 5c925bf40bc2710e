// RUN: xnn-opt %s --split-input-file -p fold-batch-norm --print-weights | filecheck %s

// fold-batch-norm on symbolic sizes (issue 13). A Conv1d + BatchNorm1d over T frames (a
// torch export with dynamic_shapes, cut down): the fold reads only the channel dim, so the
// batch norm disappears at any T: w * 3 / sqrt(4) = 3.0 (0x40400000), bias
// (1 - 1) * 3 / 2 + 0.5 = 0.5 (0x3F000000), and the convolution keeps T.
// CHECK-LABEL: func.func @conv1d_bn_frames
// CHECK-NEXT:    %[[W:.*]] = aten.constant #xnnc.weight<"const.bn", "0x{{(00004040)+}}"> : tensor<2x4x3xf32>
// CHECK-NEXT:    %[[B:.*]] = aten.constant #xnnc.weight<"const.bn_bias", "0x0000003F0000003F"> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = aten.convolution %x, %[[W]], %[[B]] {{.*}} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<2x4x3xf32>, tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @conv1d_bn_frames(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x2x?xf32, #xnnc.dims<"T">> {
    %w = aten.constant dense<2.0> : tensor<2x4x3xf32>
    %b = aten.constant dense<1.0> : tensor<2xf32>
    %g = aten.constant dense<3.0> : tensor<2xf32>
    %be = aten.constant dense<0.5> : tensor<2xf32>
    %m = aten.constant dense<1.0> : tensor<2xf32>
    %v = aten.constant dense<4.0> : tensor<2xf32>
    %c = aten.convolution %x, %w, %b {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x?xf32, #xnnc.dims<"T">>, tensor<2x4x3xf32>, tensor<2xf32>) -> tensor<1x2x?xf32, #xnnc.dims<"T">>
    %y:3 = aten._native_batch_norm_legit_no_training %c : tensor<1x2x?xf32, #xnnc.dims<"T">> weight %g : tensor<2xf32> bias %be : tensor<2xf32> mean %m : tensor<2xf32> var %v : tensor<2xf32> {momentum = 0.1 : f64, eps = 0.0 : f64} -> tensor<1x2x?xf32, #xnnc.dims<"T">>, tensor<0xf32>, tensor<0xf32>
    func.return %y#0 : tensor<1x2x?xf32, #xnnc.dims<"T">>
  }
}
