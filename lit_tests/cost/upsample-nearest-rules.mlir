// The cost model's decision for each nearest x2 upsample: the static rule of the pinned
// target (cost.rules.upsample_nearest, measured on x86-64; the same at any thread count),
// recorded on the op computing the upsample; a recorded (tuned) decision is followed.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},canonicalize' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-upsample-nearest' | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},xnn-upsample-nearest' | filecheck %s --check-prefix=ARM

// 8 channels, 640 bytes: the copies.
// CHECK-LABEL: func.func @small
// ARM-LABEL:   func.func @small
// CHECK:       xnn.concatenate
// CHECK:       xnn.depth_to_space_2d {{.*}}xnn.decision = {form = "upsample-nearest", choice = "depth-to-space", source = "rule", layer = "upsample2x f32 1x4x5x8", why = "8 channels, 640 <= 524288 input bytes (1.0-1.9x, Sapphire Rapids)"}
// ARM:         xnn.depth_to_space_2d {{.*}}xnn.decision = {form = "upsample-nearest", choice = "depth-to-space", source = "unmeasured", layer = "upsample2x f32 1x4x5x8", why = "8 channels, 640 <= 524288 input bytes (1.0-1.9x, Sapphire Rapids); unmeasured on arm64"}
func.func @small(%x: tensor<1x4x5x8xf32>) -> tensor<1x8x10x8xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 8>} : (tensor<1x4x5x8xf32>) -> tensor<1x4x1x5x1x8xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 2, 8>} : (tensor<1x4x1x5x1x8xf32>) -> tensor<1x4x2x5x2x8xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 8>} : (tensor<1x4x2x5x2x8xf32>) -> tensor<1x8x10x8xf32>
  func.return %y : tensor<1x8x10x8xf32>
}

// -----

// 1 MiB of fp16 input: the broadcast.
// CHECK-LABEL: func.func @large
// ARM-LABEL:   func.func @large
// CHECK:       xnn.static_broadcast
// CHECK:       xnn.static_reshape {{.*}}xnn.decision = {form = "upsample-nearest", choice = "broadcast", source = "rule", layer = "upsample2x f16 1x64x128x64", why = "1048576 > 524288 input bytes: the copies write the output twice"}
// ARM:         xnn.static_reshape {{.*}}xnn.decision = {form = "upsample-nearest", choice = "broadcast", source = "unmeasured", layer = "upsample2x f16 1x64x128x64", why = "1048576 > 524288 input bytes: the copies write the output twice; unmeasured on arm64"}
func.func @large(%x: tensor<1x64x128x64xf16>) -> tensor<1x128x256x64xf16> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 64, 1, 128, 1, 64>} : (tensor<1x64x128x64xf16>) -> tensor<1x64x1x128x1x64xf16>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 64, 2, 128, 2, 64>} : (tensor<1x64x1x128x1x64xf16>) -> tensor<1x64x2x128x2x64xf16>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 128, 256, 64>} : (tensor<1x64x2x128x2x64xf16>) -> tensor<1x128x256x64xf16>
  func.return %y : tensor<1x128x256x64xf16>
}

// -----

// A tuned "broadcast" is followed where the rule would take the copies.
// CHECK-LABEL: func.func @tuned
// ARM-LABEL:   func.func @tuned
// CHECK-NOT:   xnn.depth_to_space_2d
// CHECK:       xnn.static_reshape {{.*}}choice = "broadcast", source = "tuned"
func.func @tuned(%x: tensor<1x4x5x8xf32>) -> tensor<1x8x10x8xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 8>} : (tensor<1x4x5x8xf32>) -> tensor<1x4x1x5x1x8xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 2, 8>} : (tensor<1x4x1x5x1x8xf32>) -> tensor<1x4x2x5x2x8xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 8>, xnn.decision = {form = "upsample-nearest", choice = "broadcast", source = "tuned", layer = "upsample2x f32 1x4x5x8", times_ms = {broadcast = 1.0 : f64, "depth-to-space" = 1.2 : f64}}} : (tensor<1x4x2x5x2x8xf32>) -> tensor<1x8x10x8xf32>
  func.return %y : tensor<1x8x10x8xf32>
}
