// bf16 GEMMs follow the module's #xnn.target (Target.bf16_gemm_pays): bf16 x bf16 -> fp32
// where XNNPACK's bf16 GEMM beats its fp32 one (AVX512-BF16; on Sapphire Rapids-class cores,
// AMX or AVX512-FP16, only for one row), fp32 between converts elsewhere, for both runtimes.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512bf16"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,BF16,ONE-BF16
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,x86-64-avx512bf16"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,BF16,ONE-BF16
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32,ONE-BF16
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,x86_64+avx512f+avx512bf16+amx"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32,ONE-BF16
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32,ONE-FP32
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,x86-64-avx2"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32,ONE-FP32
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86_64+amx"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32,ONE-FP32
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,arm64+neon+bf16"},xnn-legalize-casts' | filecheck %s --check-prefixes=CHECK,FP32,ONE-FP32
// A module without #xnn.target assumes no CPU feature.
// RUN: xnn-opt %s --split-input-file -p xnn-legalize-casts | filecheck %s --check-prefixes=CHECK,FP32,ONE-FP32

// A bf16 mean runs in fp32 between converts.
// CHECK-LABEL: func.func @bf16_mean
// CHECK:         %[[A:.*]] = xnn.convert %{{.*}} : (tensor<2x8xbf16>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.static_reduce mean %[[A]] {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[C:.*]] = xnn.convert %[[B]] : (tensor<2x1xf32>) -> tensor<2x1xbf16>
// CHECK-NEXT:    xnn.output %[[C]]
func.func @bf16_mean(%x: tensor<2x8xbf16>) -> tensor<2x1xbf16> {
  %r = xnn.subgraph(%x) : (tensor<2x8xbf16>) -> tensor<2x1xbf16> {
  ^bb0(%a: tensor<2x8xbf16>):
    %m = xnn.static_reduce mean %a {axes = array<i64: 1>, flags = 64 : i32} : (tensor<2x8xbf16>) -> tensor<2x1xbf16>
    xnn.output %m : tensor<2x1xbf16>
  }
  func.return %r : tensor<2x1xbf16>
}

// -----

// bf16 softmax likewise.
// CHECK-LABEL: func.func @bf16_softmax
// CHECK:         xnn.convert %{{.*}} : (tensor<4x16xbf16>) -> tensor<4x16xf32>
// CHECK-NEXT:    xnn.softmax %{{.*}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    xnn.convert %{{.*}} : (tensor<4x16xf32>) -> tensor<4x16xbf16>
func.func @bf16_softmax(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %r = xnn.subgraph(%x) : (tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  ^bb0(%a: tensor<4x16xbf16>):
    %s = xnn.softmax %a : (tensor<4x16xbf16>) -> tensor<4x16xbf16>
    xnn.output %s : tensor<4x16xbf16>
  }
  func.return %r : tensor<4x16xbf16>
}

// -----

// A bf16 fully-connected on a bf16-GEMM target keeps its bf16 operands (XNNPACK's bf16 x bf16
// -> fp32 GEMM): the bias is widened at compile time and the fp32 output converted back.
// Elsewhere it runs in fp32: filter and bias widened, input converted.
// CHECK-LABEL: func.func @bf16_fully_connected
// BF16:          %[[B:.*]] = xnn.constant #xnnc.weight<"const.f32"> : tensor<2xf32>
// BF16-NEXT:     %[[F:.*]] = xnn.fully_connected %{{.*}}, %{{.*}}, %[[B]] {xnn.decision = {form = "bf16-gemm", choice = "native", source = "rule", layer = "fc bf16 1x3x4->2", why = "{{.*}}"}} : (tensor<3x4xbf16>, tensor<2x4xbf16>, tensor<2xf32>) -> tensor<3x2xf32>
// BF16-NEXT:     %[[C:.*]] = xnn.convert %[[F]] : (tensor<3x2xf32>) -> tensor<3x2xbf16>
// BF16-NEXT:     xnn.output %[[C]]
// FP32:          %[[W:.*]] = xnn.constant #xnnc.weight<"const.f32"> : tensor<2x4xf32>
// FP32-NEXT:     %[[B:.*]] = xnn.constant #xnnc.weight<"const.f32"> : tensor<2xf32>
// FP32-NEXT:     %[[X:.*]] = xnn.convert %{{.*}} : (tensor<3x4xbf16>) -> tensor<3x4xf32>
// FP32-NEXT:     %[[F:.*]] = xnn.fully_connected %[[X]], %[[W]], %[[B]] {xnn.decision = {form = "bf16-gemm", choice = "fp32", source = "rule", layer = "fc bf16 1x3x4->2", why = "{{.*}}"}} : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// FP32-NEXT:     %[[C:.*]] = xnn.convert %[[F]] : (tensor<3x2xf32>) -> tensor<3x2xbf16>
// FP32-NEXT:     xnn.output %[[C]]
func.func @bf16_fully_connected(%x: tensor<3x4xbf16>) -> tensor<3x2xbf16> {
  %r = xnn.subgraph(%x) : (tensor<3x4xbf16>) -> tensor<3x2xbf16> {
  ^bb0(%a: tensor<3x4xbf16>):
    %w = xnn.constant dense<1.0> : tensor<2x4xbf16>
    %b = xnn.constant dense<[1.0, -2.0]> : tensor<2xbf16>
    %f = xnn.fully_connected %a, %w, %b : (tensor<3x4xbf16>, tensor<2x4xbf16>, tensor<2xbf16>) -> tensor<3x2xbf16>
    xnn.output %f : tensor<3x2xbf16>
  }
  func.return %r : tensor<3x2xbf16>
}

// -----

// A single-row (decode) fully-connected: bf16 also pays on Sapphire Rapids-class cores.
// CHECK-LABEL: func.func @bf16_fully_connected_one_row
// ONE-BF16:      %[[F:.*]] = xnn.fully_connected %{{.*}}, %{{.*}} {xnn.decision = {form = "bf16-gemm", choice = "native", source = "rule", layer = "fc bf16 1x1x4->2", why = "{{.*}}"}} : (tensor<1x1x4xbf16>, tensor<2x4xbf16>) -> tensor<1x1x2xf32>
// ONE-BF16-NEXT: xnn.convert %[[F]] : (tensor<1x1x2xf32>) -> tensor<1x1x2xbf16>
// ONE-FP32:      %[[X:.*]] = xnn.convert %{{.*}} : (tensor<1x1x4xbf16>) -> tensor<1x1x4xf32>
// ONE-FP32-NEXT: %[[F:.*]] = xnn.fully_connected %[[X]], %{{.*}} {xnn.decision = {form = "bf16-gemm", choice = "fp32", source = "rule", layer = "fc bf16 1x1x4->2", why = "{{.*}}"}} : (tensor<1x1x4xf32>, tensor<2x4xf32>) -> tensor<1x1x2xf32>
// ONE-FP32-NEXT: xnn.convert %[[F]] : (tensor<1x1x2xf32>) -> tensor<1x1x2xbf16>
func.func @bf16_fully_connected_one_row(%x: tensor<1x1x4xbf16>) -> tensor<1x1x2xbf16> {
  %r = xnn.subgraph(%x) : (tensor<1x1x4xbf16>) -> tensor<1x1x2xbf16> {
  ^bb0(%a: tensor<1x1x4xbf16>):
    %w = xnn.constant dense<1.0> : tensor<2x4xbf16>
    %f = xnn.fully_connected %a, %w : (tensor<1x1x4xbf16>, tensor<2x4xbf16>) -> tensor<1x1x2xbf16>
    xnn.output %f : tensor<1x1x2xbf16>
  }
  func.return %r : tensor<1x1x2xbf16>
}

// -----

// A bf16 batch matmul likewise (no bias; both inputs converted on the fp32 targets).
// CHECK-LABEL: func.func @bf16_batch_matrix_multiply
// BF16:          %[[M:.*]] = xnn.batch_matrix_multiply %{{.*}}, %{{.*}} {xnn.decision = {form = "bf16-gemm", choice = "native", source = "rule", layer = "bmm bf16 2x3x4->5", why = "{{.*}}"}} : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xf32>
// BF16-NEXT:     xnn.convert %[[M]] : (tensor<2x3x5xf32>) -> tensor<2x3x5xbf16>
// FP32:          %[[A:.*]] = xnn.convert %{{.*}} : (tensor<2x3x4xbf16>) -> tensor<2x3x4xf32>
// FP32-NEXT:     %[[B:.*]] = xnn.convert %{{.*}} : (tensor<2x4x5xbf16>) -> tensor<2x4x5xf32>
// FP32-NEXT:     %[[M:.*]] = xnn.batch_matrix_multiply %[[A]], %[[B]] {xnn.decision = {form = "bf16-gemm", choice = "fp32", source = "rule", layer = "bmm bf16 2x3x4->5", why = "{{.*}}"}} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// FP32-NEXT:     xnn.convert %[[M]] : (tensor<2x3x5xf32>) -> tensor<2x3x5xbf16>
func.func @bf16_batch_matrix_multiply(%x: tensor<2x3x4xbf16>, %y: tensor<2x4x5xbf16>) -> tensor<2x3x5xbf16> {
  %r = xnn.subgraph(%x, %y) : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xbf16> {
  ^bb0(%a: tensor<2x3x4xbf16>, %b: tensor<2x4x5xbf16>):
    %m = xnn.batch_matrix_multiply %a, %b : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xbf16>
    xnn.output %m : tensor<2x3x5xbf16>
  }
  func.return %r : tensor<2x3x5xbf16>
}

// -----

// A fully-connected whose bf16 filter has no data (elided weights): the bf16 form needs no
// widening; the fp32 form cannot be made, so the node is left alone (the runtime legalizes it).
// CHECK-LABEL: func.func @bf16_fully_connected_elided
// BF16:          %[[F:.*]] = xnn.fully_connected %{{.*}}, %{{.*}} {xnn.decision = {form = "bf16-gemm", choice = "native", source = "rule", layer = "fc bf16 1x3x4->2", why = "{{.*}}"}} : (tensor<3x4xbf16>, tensor<2x4xbf16>) -> tensor<3x2xf32>
// BF16-NEXT:     xnn.convert %[[F]] : (tensor<3x2xf32>) -> tensor<3x2xbf16>
// FP32-NOT:      xnn.convert
// FP32:          xnn.fully_connected %{{.*}}, %{{.*}} : (tensor<3x4xbf16>, tensor<2x4xbf16>) -> tensor<3x2xbf16>
func.func @bf16_fully_connected_elided(%x: tensor<3x4xbf16>) -> tensor<3x2xbf16> {
  %r = xnn.subgraph(%x) : (tensor<3x4xbf16>) -> tensor<3x2xbf16> {
  ^bb0(%a: tensor<3x4xbf16>):
    %w = xnn.constant #xnnc.weight<"w"> : tensor<2x4xbf16>
    %f = xnn.fully_connected %a, %w : (tensor<3x4xbf16>, tensor<2x4xbf16>) -> tensor<3x2xbf16>
    xnn.output %f : tensor<3x2xbf16>
  }
  func.return %r : tensor<3x2xbf16>
}

// -----

// A bf16 convolution runs in fp32: its filter widened at compile time, its input converted.
// CHECK-LABEL: func.func @bf16_conv
// CHECK:         %[[W:.*]] = xnn.constant #xnnc.weight<"const.f32"> : tensor<2x1x1x3xf32>
// CHECK-NEXT:    %[[B:.*]] = xnn.constant #xnnc.weight<"const.f32"> : tensor<2xf32>
// CHECK-NEXT:    %[[X:.*]] = xnn.convert %{{.*}} : (tensor<1x4x4x3xbf16>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = xnn.convolution_2d %[[X]], %[[W]], %[[B]]
// CHECK-SAME:      -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    xnn.convert %[[Y]] : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xbf16>
func.func @bf16_conv(%x: tensor<1x4x4x3xbf16>) -> tensor<1x4x4x2xbf16> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x3xbf16>) -> tensor<1x4x4x2xbf16> {
  ^bb0(%a: tensor<1x4x4x3xbf16>):
    %w = xnn.constant dense<0.5> : tensor<2x1x1x3xbf16>
    %b = xnn.constant dense<0.25> : tensor<2xbf16>
    %c = xnn.convolution_2d %a, %w, %b {kernel_height = 1, kernel_width = 1, group_input_channels = 3, group_output_channels = 2} : (tensor<1x4x4x3xbf16>, tensor<2x1x1x3xbf16>, tensor<2xbf16>) -> tensor<1x4x4x2xbf16>
    xnn.output %c : tensor<1x4x4x2xbf16>
  }
  func.return %r : tensor<1x4x4x2xbf16>
}

// -----

// Left alone: a bf16 convolution whose filter has no data (elided weights).
// CHECK-LABEL: func.func @bf16_conv_elided
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.convolution_2d {{.*}} -> tensor<1x4x4x2xbf16>
func.func @bf16_conv_elided(%x: tensor<1x4x4x3xbf16>) -> tensor<1x4x4x2xbf16> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x3xbf16>) -> tensor<1x4x4x2xbf16> {
  ^bb0(%a: tensor<1x4x4x3xbf16>):
    %w = xnn.constant #xnnc.weight<"w"> : tensor<2x1x1x3xbf16>
    %b = xnn.constant dense<0.25> : tensor<2xbf16>
    %c = xnn.convolution_2d %a, %w, %b {kernel_height = 1, kernel_width = 1, group_input_channels = 3, group_output_channels = 2} : (tensor<1x4x4x3xbf16>, tensor<2x1x1x3xbf16>, tensor<2xbf16>) -> tensor<1x4x4x2xbf16>
    xnn.output %c : tensor<1x4x4x2xbf16>
  }
  func.return %r : tensor<1x4x4x2xbf16>
}

// -----

// Left alone: fp16 and fp32 reductions, and bf16 ops XNNPACK runs natively.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     xnn.convert
// CHECK:         xnn.static_reduce sum %{{.*}} : (tensor<4x16xf16>) -> tensor<4xf16>
// CHECK-NEXT:    xnn.binary add %{{.*}}, %{{.*}} : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
func.func @left_alone(%x: tensor<4x16xf16>, %y: tensor<4x16xbf16>) -> (tensor<4xf16>, tensor<4x16xbf16>) {
  %r:2 = xnn.subgraph(%x, %y) : (tensor<4x16xf16>, tensor<4x16xbf16>) -> (tensor<4xf16>, tensor<4x16xbf16>) {
  ^bb0(%a: tensor<4x16xf16>, %b: tensor<4x16xbf16>):
    %s = xnn.static_reduce sum %a {axes = array<i64: 1>} : (tensor<4x16xf16>) -> tensor<4xf16>
    %t = xnn.binary add %b, %b : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
    xnn.output %s, %t : tensor<4xf16>, tensor<4x16xbf16>
  }
  func.return %r#0, %r#1 : tensor<4xf16>, tensor<4x16xbf16>
}
