// The cost model's decision for each fp32/fp16 fully-connected layer xnn-fc-as-bmm could
// rewrite: the static rule (cost.rules.fc_or_bmm: the fully-connected node on every ISA),
// recorded on the op; bf16 GEMMs are left to their own decision.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-fc-as-bmm' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-fc-as-bmm' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},xnn-fc-as-bmm' | filecheck %s --check-prefix=ARM

// CHECK-LABEL: func.func @linear
// ARM-LABEL:   func.func @linear
// CHECK:       xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "rule", layer = "linear f32 8x16->4", why = "same GEMM kernels; the fully-connected node fuses bias and clamp"}
// ARM:         xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "unmeasured", layer = "linear f32 8x16->4", why = "same GEMM kernels; the fully-connected node fuses bias and clamp; unmeasured on arm64"}
// CHECK:       xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "rule", layer = "linear f16 8x16->4"
// ARM:         xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "unmeasured", layer = "linear f16 8x16->4"
// CHECK-NOT:   xnn.decision
// CHECK:       func.return
func.func @linear(%x: tensor<2x4x16xf32>, %h: tensor<8x16xf16>, %b: tensor<8x16xbf16>) -> (tensor<2x4x4xf32>, tensor<8x4xf16>, tensor<8x4xbf16>) {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x16xf32>
  %y = xnn.fully_connected %x, %w : (tensor<2x4x16xf32>, tensor<4x16xf32>) -> tensor<2x4x4xf32>
  %v = xnn.constant dense<5.000000e-01> : tensor<4x16xf16>
  %z = xnn.fully_connected %h, %v : (tensor<8x16xf16>, tensor<4x16xf16>) -> tensor<8x4xf16>
  %u = xnn.constant dense<5.000000e-01> : tensor<4x16xbf16>
  %t = xnn.fully_connected %b, %u : (tensor<8x16xbf16>, tensor<4x16xbf16>) -> tensor<8x4xbf16>
  func.return %y, %z, %t : tensor<2x4x4xf32>, tensor<8x4xf16>, tensor<8x4xbf16>
}

// -----
// Fewer than 8 rows (cost.rules.STREAMING_ROWS): the layer's time is its weights' read, so
// the rule keeps the fully-connected node and says why; xnn-tune does not time it.
// CHECK-LABEL: func.func @decode
// ARM-LABEL:   func.func @decode
// CHECK:       xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "rule", layer = "linear f32 1x16->4", why = "1 < 8 rows: the weights' read, from memory in a model larger than the cache (not timed alone)"}
// ARM:         xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "unmeasured", layer = "linear f32 1x16->4", why = "1 < 8 rows: the weights' read, from memory in a model larger than the cache (not timed alone); unmeasured on arm64"}
func.func @decode(%x: tensor<1x16xf32>) -> tensor<1x4xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<4x16xf32>
  %y = xnn.fully_connected %x, %w : (tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}
