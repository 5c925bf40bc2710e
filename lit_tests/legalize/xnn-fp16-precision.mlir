// RUN: xnn-opt %s --split-input-file -p 'xnn-fp16-precision{mode=fp32}' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-fp16-precision | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-fp16-precision{mode=native}' | filecheck %s --check-prefix=NATIVE

// fp32 in and out, an fp16 body: everything runs in fp32, the weights are widened at
// compile time and both casts disappear.
// CHECK-LABEL: func.func @fp16_body
// CHECK:         ^bb0(%[[A:.*]]: tensor<1x4x4x2xf32>):
// CHECK-NEXT:      %[[W:.*]] = xnn.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]]], {{\[\[\[}}5.000000e-01, -1.000000e+00]]]]> : tensor<2x1x1x2xf32>
// CHECK-NEXT:      %[[B:.*]] = xnn.constant dense<[2.500000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK-NEXT:      %[[Y:.*]] = xnn.convolution_2d %[[A]], %[[W]], %[[B]] {{.*}} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:      %[[Z:.*]] = xnn.unary sigmoid %[[Y]] : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:      xnn.output %[[Z]] : tensor<1x4x4x2xf32>
// NATIVE-LABEL: func.func @fp16_body
// NATIVE:         xnn.convert %{{.*}} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
// NATIVE:         xnn.constant dense<{{.*}}> : tensor<2x1x1x2xf16>
// NATIVE:         xnn.convolution_2d {{.*}} -> tensor<1x4x4x2xf16>
// NATIVE:         xnn.unary sigmoid %{{.*}} : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf16>
// NATIVE:         xnn.convert %{{.*}} : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
func.func @fp16_body(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>):
    %h = xnn.convert %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf16>
    %w = xnn.constant dense<[[[[1.0, 2.0]]], [[[0.5, -1.0]]]]> : tensor<2x1x1x2xf16>
    %b = xnn.constant dense<[0.25, -0.25]> : tensor<2xf16>
    %y = xnn.convolution_2d %h, %w, %b {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 2 : i64, group_output_channels = 2 : i64} : (tensor<1x4x4x2xf16>, tensor<2x1x1x2xf16>, tensor<2xf16>) -> tensor<1x4x4x2xf16>
    %z = xnn.unary sigmoid %y : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf16>
    %o = xnn.convert %z : (tensor<1x4x4x2xf16>) -> tensor<1x4x4x2xf32>
    xnn.output %o : tensor<1x4x4x2xf32>
  }
  func.return %r : tensor<1x4x4x2xf32>
}

// -----

// fp16 in and out: the input is converted to fp32 once at entry however many nodes read it,
// and the output converted back to fp16; an output also read inside converts once.
// CHECK-LABEL: func.func @fp16_boundary
// CHECK:         ^bb0(%[[A:.*]]: tensor<8xf16>):
// CHECK-NEXT:      %[[W:.*]] = xnn.convert %[[A]] : (tensor<8xf16>) -> tensor<8xf32>
// CHECK-NOT:       xnn.convert
// CHECK:           %[[S:.*]] = xnn.binary add %[[W]], %[[W]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %[[SN:.*]] = xnn.convert %[[S]] : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NEXT:      %[[T:.*]] = xnn.unary tanh %[[W]] : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %[[P:.*]] = xnn.binary multiply %[[S]], %[[T]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %[[PN:.*]] = xnn.convert %[[P]] : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NEXT:      xnn.output %[[SN]], %[[PN]] : tensor<8xf16>, tensor<8xf16>
func.func @fp16_boundary(%x: tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>) {
  %r:2 = xnn.subgraph(%x) : (tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>) {
  ^bb0(%a: tensor<8xf16>):
    %s = xnn.binary add %a, %a : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
    %t = xnn.unary tanh %a : (tensor<8xf16>) -> tensor<8xf16>
    %p = xnn.binary multiply %s, %t : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
    xnn.output %s, %p : tensor<8xf16>, tensor<8xf16>
  }
  func.return %r#0, %r#1 : tensor<8xf16>, tensor<8xf16>
}

// -----

// A cast to fp16 and back that the user wrote inside the subgraph no longer rounds; the
// output keeps its fp16 dtype.
// CHECK-LABEL: func.func @user_round_trip
// CHECK:         ^bb0(%[[A:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[E:.*]] = xnn.unary exp %[[A]] : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %[[N:.*]] = xnn.convert %[[E]] : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NEXT:      xnn.output %[[N]] : tensor<8xf16>
func.func @user_round_trip(%x: tensor<8xf32>) -> tensor<8xf16> {
  %r = xnn.subgraph(%x) : (tensor<8xf32>) -> tensor<8xf16> {
  ^bb0(%a: tensor<8xf32>):
    %h = xnn.convert %a : (tensor<8xf32>) -> tensor<8xf16>
    %f = xnn.convert %h : (tensor<8xf16>) -> tensor<8xf32>
    %e = xnn.unary exp %f : (tensor<8xf32>) -> tensor<8xf32>
    %o = xnn.convert %e : (tensor<8xf32>) -> tensor<8xf16>
    xnn.output %o : tensor<8xf16>
  }
  func.return %r : tensor<8xf16>
}

// -----

// Mixed operands (an fp16 deconvolution takes fp32 weights) and variadic ones.
// CHECK-LABEL: func.func @mixed_and_variadic
// CHECK:         ^bb0(%[[A:.*]]: tensor<1x2x2x2xf32>):
// CHECK-NEXT:      %[[W:.*]] = xnn.constant dense<{{.*}}> : tensor<2x2x2x1xf32>
// CHECK-NEXT:      %[[D:.*]] = xnn.deconvolution_2d %[[A]], %[[W]] {{.*}} : (tensor<1x2x2x2xf32>, tensor<2x2x2x1xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:      %[[C:.*]] = xnn.concatenate %[[D]], %[[D]] {axis = 3 : i64} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:      xnn.output %[[C]] : tensor<1x4x4x4xf32>
func.func @mixed_and_variadic(%x: tensor<1x2x2x2xf32>) -> tensor<1x4x4x4xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x2x2x2xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%a: tensor<1x2x2x2xf32>):
    %h = xnn.convert %a : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf16>
    %w = xnn.constant dense<1.0> : tensor<2x2x2x1xf32>
    %d = xnn.deconvolution_2d %h, %w {kernel_height = 2 : i64, kernel_width = 2 : i64, upsampling_height = 2 : i64, upsampling_width = 2 : i64, groups = 2 : i64, group_input_channels = 1 : i64, group_output_channels = 1 : i64} : (tensor<1x2x2x2xf16>, tensor<2x2x2x1xf32>) -> tensor<1x4x4x2xf16>
    %c = xnn.concatenate %d, %d {axis = 3 : i64} : (tensor<1x4x4x2xf16>, tensor<1x4x4x2xf16>) -> tensor<1x4x4x4xf16>
    %o = xnn.convert %c : (tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf32>
    xnn.output %o : tensor<1x4x4x4xf32>
  }
  func.return %r : tensor<1x4x4x4xf32>
}

// -----

// Left alone: a cast to bf16 keeps its fp16 step (bf16 is not this pass's business), and a
// weight without data, which XNNPACK converts when it loads the subgraph.
// CHECK-LABEL: func.func @bf16_and_elided_weight
// CHECK:           %[[W:.*]] = xnn.constant #xnnc.weight<"w"> : tensor<8xf16>
// CHECK-NEXT:      %[[WW:.*]] = xnn.convert %[[W]] : (tensor<8xf16>) -> tensor<8xf32>
// CHECK-NEXT:      %[[S:.*]] = xnn.binary add %{{.*}}, %[[WW]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %[[N:.*]] = xnn.convert %[[S]] : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NEXT:      %[[B:.*]] = xnn.convert %[[N]] : (tensor<8xf16>) -> tensor<8xbf16>
// CHECK-NEXT:      xnn.output %[[B]] : tensor<8xbf16>
func.func @bf16_and_elided_weight(%x: tensor<8xf32>) -> tensor<8xbf16> {
  %r = xnn.subgraph(%x) : (tensor<8xf32>) -> tensor<8xbf16> {
  ^bb0(%a: tensor<8xf32>):
    %h = xnn.convert %a : (tensor<8xf32>) -> tensor<8xf16>
    %w = xnn.constant #xnnc.weight<"w"> : tensor<8xf16>
    %s = xnn.binary add %h, %w : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
    %b = xnn.convert %s : (tensor<8xf16>) -> tensor<8xbf16>
    xnn.output %b : tensor<8xbf16>
  }
  func.return %r : tensor<8xbf16>
}

// -----

// Left alone: an fp32-only subgraph, a bf16 node, and an fp16 input passed straight through.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.binary add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    xnn.unary abs %{{.*}} : (tensor<4xbf16>) -> tensor<4xbf16>
// CHECK-NEXT:    xnn.output %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>
func.func @left_alone(%x: tensor<4xf32>, %y: tensor<4xbf16>, %z: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>) {
  %r:3 = xnn.subgraph(%x, %y, %z) : (tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xbf16>, %c: tensor<4xf16>):
    %s = xnn.binary add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = xnn.unary abs %b : (tensor<4xbf16>) -> tensor<4xbf16>
    xnn.output %s, %t, %c : tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>
  }
  func.return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>
}
