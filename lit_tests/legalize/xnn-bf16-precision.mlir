// RUN: xnn-opt %s --split-input-file -p 'xnn-bf16-precision{mode=fp32}' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-bf16-precision | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-bf16-precision{mode=native}' | filecheck %s --check-prefix=NATIVE
// RUN: not xnn-opt %s -p 'xnn-bf16-precision{mode=bf16}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not xnn-opt %s -p 'xnnc-pipeline{bf16=eager}' 2>&1 | filecheck %s --check-prefix=PIPELINE
// MODE:     xnn-opt: error: xnn-bf16-precision: unknown mode 'bf16'; expected one of fp32, native
// PIPELINE: xnn-opt: error: xnnc-pipeline: bf16: unknown mode 'eager'; valid: fp32, native

// A LLaMA-style residual block as `xnn-legalize-casts` leaves it: RMSNorm in fp32 (the
// user's `x.float()` and `type_as(x)`), the bf16 weight multiply, a native bf16 GEMM with its
// convert to bf16, the residual add in bf16. The input is converted once and read by the
// norm and the residual add; the weight is widened at compile time; bf16 remains where the
// GEMM reads it and at the output.
// CHECK-LABEL: func.func @residual_block
// CHECK:         ^bb0(%[[X:.*]]: tensor<4x8xbf16>):
// CHECK-NEXT:      %[[X32:.*]] = xnn.convert %[[X]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// CHECK-NEXT:      %[[K:.*]] = xnn.constant dense<{{.*}}> : tensor<8x8xbf16>
// CHECK-NEXT:      %[[S:.*]] = xnn.unary square %[[X32]]
// CHECK-NEXT:      %[[R:.*]] = xnn.static_reduce mean %[[S]]
// CHECK-NEXT:      %[[Q:.*]] = xnn.unary reciprocal_square_root %[[R]]
// CHECK-NEXT:      %[[H:.*]] = xnn.binary multiply %[[X32]], %[[Q]] : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %[[W:.*]] = xnn.constant dense<[1.000000e+00, 2.000000e+00, 5.000000e-01, 2.500000e-01, 1.000000e+00, 2.000000e+00, 5.000000e-01, 2.500000e-01]> : tensor<8xf32>
// CHECK-NEXT:      %[[M:.*]] = xnn.binary multiply %[[H]], %[[W]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %[[MB:.*]] = xnn.convert %[[M]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// CHECK-NEXT:      %[[Y:.*]] = xnn.fully_connected %[[MB]], %[[K]] : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xf32>
// CHECK-NEXT:      %[[A:.*]] = xnn.binary add %[[X32]], %[[Y]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %[[O:.*]] = xnn.convert %[[A]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// CHECK-NEXT:      xnn.output %[[O]] : tensor<4x8xbf16>
// In native mode each bf16 result rounds where a node reads it, as in eager: the user's
// type_as(x), the weight multiply, the GEMM's result (ops without locations are distinct).
// NATIVE-LABEL: func.func @residual_block
// NATIVE:         ^bb0(%[[X:.*]]: tensor<4x8xbf16>):
// NATIVE-NEXT:      %[[X32:.*]] = xnn.convert %[[X]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// NATIVE:           %[[N:.*]] = xnn.binary multiply %[[X32]], %{{.*}} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// NATIVE-NEXT:      %[[NB:.*]] = xnn.convert %[[N]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// NATIVE-NEXT:      %[[NW:.*]] = xnn.convert %[[NB]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// NATIVE-NEXT:      %[[W:.*]] = xnn.constant {{.*}} : tensor<8xf32>
// NATIVE-NEXT:      %[[M:.*]] = xnn.binary multiply %[[NW]], %[[W]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// NATIVE-NEXT:      %[[MB:.*]] = xnn.convert %[[M]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// NATIVE-NEXT:      %[[Y:.*]] = xnn.fully_connected %[[MB]], %{{.*}} : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xf32>
// NATIVE-NEXT:      %[[YB:.*]] = xnn.convert %[[Y]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// NATIVE-NEXT:      %[[Y32:.*]] = xnn.convert %[[YB]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// NATIVE-NEXT:      %[[A:.*]] = xnn.binary add %[[X32]], %[[Y32]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// NATIVE-NEXT:      %[[O:.*]] = xnn.convert %[[A]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// NATIVE-NEXT:      xnn.output %[[O]] : tensor<4x8xbf16>
func.func @residual_block(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %r = xnn.subgraph(%x) : (tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  ^bb0(%a: tensor<4x8xbf16>):
    %k = xnn.constant dense<0.5> : tensor<8x8xbf16>
    %w = xnn.constant dense<[1.0, 2.0, 0.5, 0.25, 1.0, 2.0, 0.5, 0.25]> : tensor<8xbf16>
    %h = xnn.convert %a : (tensor<4x8xbf16>) -> tensor<4x8xf32>
    %s = xnn.unary square %h : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = xnn.static_reduce mean %s {axes = array<i64: 1>, flags = 64 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %q = xnn.unary reciprocal_square_root %m : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %n = xnn.binary multiply %h, %q : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %nb = xnn.convert %n : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %nw = xnn.binary multiply %nb, %w : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
    %y = xnn.fully_connected %nw, %k : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xf32>
    %yb = xnn.convert %y : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %o = xnn.binary add %a, %yb : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
    xnn.output %o : tensor<4x8xbf16>
  }
  func.return %r : tensor<4x8xbf16>
}

// -----

// A bf16 GEMM that kept bf16 output (`xnn-legalize-casts` not run) is left to XNNPACK: its
// operands computed in fp32 round to bf16 for it, its result widens for the next node.
// CHECK-LABEL: func.func @bf16_gemm_kept
// CHECK:         %[[T:.*]] = xnn.unary tanh %{{.*}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[TB:.*]] = xnn.convert %[[T]] : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// CHECK-NEXT:    %[[F:.*]] = xnn.fully_connected %[[TB]], %{{.*}} : (tensor<2x4xbf16>, tensor<3x4xbf16>) -> tensor<2x3xbf16>
// CHECK-NEXT:    %[[F32:.*]] = xnn.convert %[[F]] : (tensor<2x3xbf16>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = xnn.unary elu %[[F32]] {{.*}}: (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    xnn.output %[[E]] : tensor<2x3xf32>
func.func @bf16_gemm_kept(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %r = xnn.subgraph(%x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %k = xnn.constant dense<0.5> : tensor<3x4xbf16>
    %ab = xnn.convert %a : (tensor<2x4xf32>) -> tensor<2x4xbf16>
    %t = xnn.unary tanh %ab : (tensor<2x4xbf16>) -> tensor<2x4xbf16>
    %f = xnn.fully_connected %t, %k : (tensor<2x4xbf16>, tensor<3x4xbf16>) -> tensor<2x3xbf16>
    %e = xnn.unary elu %f {alpha = 1.0 : f32} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
    %o = xnn.convert %e : (tensor<2x3xbf16>) -> tensor<2x3xf32>
    xnn.output %o : tensor<2x3xf32>
  }
  func.return %r : tensor<2x3xf32>
}

// -----

// A cast the user wrote through bf16 inside a subgraph (`x.bfloat16().float()`) is x: the
// rounding is what fp32 mode leaves out. fp16 nodes are not this pass's.
// CHECK-LABEL: func.func @round_trip
// CHECK:         ^bb0(%[[A:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[H:.*]] = xnn.convert %[[A]] : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NEXT:      %[[T:.*]] = xnn.unary tanh %[[H]] : (tensor<8xf16>) -> tensor<8xf16>
// CHECK-NEXT:      xnn.output %[[A]], %[[T]] : tensor<8xf32>, tensor<8xf16>
// NATIVE-LABEL: func.func @round_trip
// NATIVE-COUNT-3: xnn.convert
func.func @round_trip(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf16>) {
  %r:2 = xnn.subgraph(%x) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf16>) {
  ^bb0(%a: tensor<8xf32>):
    %b = xnn.convert %a : (tensor<8xf32>) -> tensor<8xbf16>
    %c = xnn.convert %b : (tensor<8xbf16>) -> tensor<8xf32>
    %h = xnn.convert %a : (tensor<8xf32>) -> tensor<8xf16>
    %t = xnn.unary tanh %h : (tensor<8xf16>) -> tensor<8xf16>
    xnn.output %c, %t : tensor<8xf32>, tensor<8xf16>
  }
  func.return %r#0, %r#1 : tensor<8xf32>, tensor<8xf16>
}

// -----

// Native mode on nodes from torch ops (locations): floor(x * 3) rounds the product to bf16
// between the two ops; hardswish's expansion (one location) computes in fp32 and rounds
// once; a transpose of a bf16 value needs no rounding. fp32 mode rounds nowhere inside.
// CHECK-LABEL: func.func @torch_ops
// CHECK:         %[[M:.*]] = xnn.binary multiply
// CHECK-NEXT:    %[[F:.*]] = xnn.unary floor %[[M]]
// CHECK-NEXT:    xnn.constant
// CHECK-NEXT:    xnn.binary add %[[F]]
// NATIVE-LABEL: func.func @torch_ops
// NATIVE:         ^bb0(%[[X:.*]]: tensor<2x4xbf16>):
// NATIVE-NEXT:      %[[X32:.*]] = xnn.convert %[[X]] : (tensor<2x4xbf16>) -> tensor<2x4xf32>
// NATIVE:           %[[M:.*]] = xnn.binary multiply %[[X32]], %{{.*}} : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
// NATIVE-NEXT:      %[[MB:.*]] = xnn.convert %[[M]] : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// NATIVE-NEXT:      %[[M32:.*]] = xnn.convert %[[MB]] : (tensor<2x4xbf16>) -> tensor<2x4xf32>
// NATIVE-NEXT:      %[[F:.*]] = xnn.unary floor %[[M32]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// NATIVE-NEXT:      %[[FB:.*]] = xnn.convert %[[F]] : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// NATIVE-NEXT:      %[[F32:.*]] = xnn.convert %[[FB]] : (tensor<2x4xbf16>) -> tensor<2x4xf32>
// NATIVE:           %[[H1:.*]] = xnn.binary add %[[F32]], %{{.*}} : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
// NATIVE-NEXT:      %[[H2:.*]] = xnn.clamp %[[H1]] {{.*}}: (tensor<2x4xf32>) -> tensor<2x4xf32>
// NATIVE-NEXT:      %[[H3:.*]] = xnn.binary multiply %[[F32]], %[[H2]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// NATIVE:           %[[H4:.*]] = xnn.binary divide %[[H3]], %{{.*}} : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
// NATIVE-NEXT:      %[[HB:.*]] = xnn.convert %[[H4]] : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// NATIVE-NEXT:      %[[T:.*]] = xnn.static_transpose %[[X32]] {{.*}}: (tensor<2x4xf32>) -> tensor<4x2xf32>
// NATIVE-NEXT:      %[[TB:.*]] = xnn.convert %[[T]] : (tensor<4x2xf32>) -> tensor<4x2xbf16>
// NATIVE-NEXT:      %[[N:.*]] = xnn.unary negate %[[T]] : (tensor<4x2xf32>) -> tensor<4x2xf32>
// NATIVE-NEXT:      %[[NB:.*]] = xnn.convert %[[N]] : (tensor<4x2xf32>) -> tensor<4x2xbf16>
// NATIVE-NEXT:      xnn.output %[[HB]], %[[TB]], %[[NB]] : tensor<2x4xbf16>, tensor<4x2xbf16>, tensor<4x2xbf16>
func.func @torch_ops(%x: tensor<2x4xbf16>) -> (tensor<2x4xbf16>, tensor<4x2xbf16>, tensor<4x2xbf16>) {
  %r:3 = xnn.subgraph(%x) : (tensor<2x4xbf16>) -> (tensor<2x4xbf16>, tensor<4x2xbf16>, tensor<4x2xbf16>) {
  ^bb0(%a: tensor<2x4xbf16>):
    %three = xnn.constant dense<3.0> : tensor<1xbf16> loc("mul")
    %m = xnn.binary multiply %a, %three : (tensor<2x4xbf16>, tensor<1xbf16>) -> tensor<2x4xbf16> loc("mul")
    %f = xnn.unary floor %m : (tensor<2x4xbf16>) -> tensor<2x4xbf16> loc("floor")
    %c3 = xnn.constant dense<3.0> : tensor<1xbf16> loc("hardswish")
    %h1 = xnn.binary add %f, %c3 : (tensor<2x4xbf16>, tensor<1xbf16>) -> tensor<2x4xbf16> loc("hardswish")
    %h2 = xnn.clamp %h1 {output_min = 0.0 : f32, output_max = 6.0 : f32} : (tensor<2x4xbf16>) -> tensor<2x4xbf16> loc("hardswish")
    %h3 = xnn.binary multiply %f, %h2 : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16> loc("hardswish")
    %c6 = xnn.constant dense<6.0> : tensor<1xbf16> loc("hardswish")
    %h4 = xnn.binary divide %h3, %c6 : (tensor<2x4xbf16>, tensor<1xbf16>) -> tensor<2x4xbf16> loc("hardswish")
    %t = xnn.static_transpose %a {perm = array<i64: 1, 0>} : (tensor<2x4xbf16>) -> tensor<4x2xbf16> loc("t")
    %n = xnn.unary negate %t : (tensor<4x2xbf16>) -> tensor<4x2xbf16> loc("neg")
    xnn.output %h4, %t, %n : tensor<2x4xbf16>, tensor<4x2xbf16>, tensor<4x2xbf16>
  }
  func.return %r#0, %r#1, %r#2 : tensor<2x4xbf16>, tensor<4x2xbf16>, tensor<4x2xbf16>
}
