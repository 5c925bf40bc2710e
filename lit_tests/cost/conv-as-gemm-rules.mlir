// The cost model's decision for each convolution xnn-conv-as-gemm could rewrite: the static
// rule of the pinned target (cost.rules.conv_as_gemm), recorded as xnn.decision on the op
// that computes the layer; a decision already recorded (by xnn-tune) is followed on any target.
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,AVX2
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx2,threads=2"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,AVX2
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,AVX512
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512fp16,threads=2"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,THREADS
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512bf16"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,ZEN
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="extended,x86-64-avx512bf16,threads=2"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,ZENTHREADS
// RUN: xnn-opt %s --split-input-file -p 'xnn-set-target{target="stock,arm64-fp16-dotprod"},xnn-conv-as-gemm' | filecheck %s --check-prefixes=CHECK,ARM

// 512 input channels: GEMM with AVX2, with AVX-512 at one thread (>= 384 channels), and at two
// threads on Intel's AVX512-FP16/AMX CPUs (Sapphire Rapids class); direct on Zen 4-class CPUs
// (AVX512-BF16 without either: GEMM from 1024 channels there).
// CHECK-LABEL: func.func @wide
// AVX2:        xnn.binary add {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule", layer = "conv f32 1x1x8x512->32 k1x3 d1x1 p0,1,0,1", why = "AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)"}}
// AVX512:      xnn.binary add {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule", layer = "conv f32 1x1x8x512->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (AMX/FP16), 1 thread, 512 >= 384 input channels"}}
// THREADS:     xnn.binary add {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "rule", layer = "conv f32 1x1x8x512->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (AMX/FP16), 2 threads, 512 >= 384 input channels"}}
// ZEN:         xnn.convolution_2d {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "rule", layer = "conv f32 1x1x8x512->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (Zen 4 class), 1 thread, 512 < 1024 input channels"}
// ZENTHREADS:  xnn.convolution_2d {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "rule", layer = "conv f32 1x1x8x512->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (Zen 4 class), 2 threads, 512 < 1024 input channels"}
// ARM:         xnn.convolution_2d {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "unmeasured", layer = "conv f32 1x1x8x512->32 k1x3 d1x1 p0,1,0,1", why = "conv-as-gemm measured on x86-64 AVX2/FMA3 and AVX-512 only; unmeasured on arm64"}
func.func @wide(%x: tensor<1x1x8x512xf32>) -> tensor<1x1x8x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x3x512xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 512, group_output_channels = 32} : (tensor<1x1x8x512xf32>, tensor<32x1x3x512xf32>) -> tensor<1x1x8x32xf32>
  func.return %y : tensor<1x1x8x32xf32>
}

// -----

// 1024 input channels: GEMM on Zen 4-class CPUs too, at one and two threads.
// CHECK-LABEL: func.func @widest
// AVX2:        xnn.binary add {{.*}}choice = "gemm", source = "rule"
// AVX512:      xnn.binary add {{.*}}choice = "gemm", source = "rule"
// THREADS:     xnn.binary add {{.*}}choice = "gemm", source = "rule"
// ZEN:         xnn.binary add {{.*}}choice = "gemm", source = "rule", layer = "conv f32 1x1x8x1024->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (Zen 4 class), 1 thread, 1024 >= 1024 input channels: 1.2-1.4x"
// ZENTHREADS:  xnn.binary add {{.*}}choice = "gemm", source = "rule", layer = "conv f32 1x1x8x1024->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (Zen 4 class), 2 threads, 1024 >= 1024 input channels: 1.2-1.4x"
// ARM:         xnn.convolution_2d {{.*}}choice = "direct", source = "unmeasured"
func.func @widest(%x: tensor<1x1x8x1024xf32>) -> tensor<1x1x8x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x3x1024xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 1024, group_output_channels = 32} : (tensor<1x1x8x1024xf32>, tensor<32x1x3x1024xf32>) -> tensor<1x1x8x32xf32>
  func.return %y : tensor<1x1x8x32xf32>
}

// -----

// 256 input channels: direct with AVX-512 at any thread count.
// CHECK-LABEL: func.func @narrow
// AVX2:        xnn.binary add {{.*}}choice = "gemm", source = "rule"
// AVX512:      xnn.convolution_2d {{.*}}choice = "direct", source = "rule", layer = "conv f32 1x1x8x256->32 k1x3 d1x1 p0,1,0,1", why = "AVX-512 (AMX/FP16), 1 thread, 256 < 384 input channels"
// THREADS:     xnn.convolution_2d {{.*}}choice = "direct", source = "rule"
// ZEN:         xnn.convolution_2d {{.*}}choice = "direct", source = "rule"
// ZENTHREADS:  xnn.convolution_2d {{.*}}choice = "direct", source = "rule"
// ARM:         xnn.convolution_2d {{.*}}choice = "direct", source = "unmeasured"
func.func @narrow(%x: tensor<1x1x8x256xf32>) -> tensor<1x1x8x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x3x256xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 256, group_output_channels = 32} : (tensor<1x1x8x256xf32>, tensor<32x1x3x256xf32>) -> tensor<1x1x8x32xf32>
  func.return %y : tensor<1x1x8x32xf32>
}

// -----

// One output channel: the depthwise + channel-sum form (a sum reduction on the extended
// runtime), measured on AVX2, on Intel AVX-512 (a gain at one thread only) and on Zen 4
// (at one and two threads).
// CHECK-LABEL: func.func @one_output_channel
// AVX2:        xnn.depthwise_convolution_2d
// AVX2:        xnn.static_reduce sum {{.*}}choice = "gemm", source = "rule", layer = "conv f32 1x1x16x64->1 k1x7 d1x1 p0,3,0,3"
// AVX512:      xnn.depthwise_convolution_2d
// AVX512:      xnn.static_reduce sum {{.*}}choice = "gemm", source = "rule", layer = "conv f32 1x1x16x64->1 k1x7 d1x1 p0,3,0,3", why = "AVX-512 (AMX/FP16), 1 thread, one output channel: 1.46-2.5x"
// THREADS:     xnn.convolution_2d {{.*}}choice = "direct", source = "rule", layer = "conv f32 1x1x16x64->1 k1x7 d1x1 p0,3,0,3", why = "AVX-512 (AMX/FP16), 2 threads, one output channel: 0.92-1.43x, no clear gain"
// ZEN:         xnn.depthwise_convolution_2d
// ZEN:         xnn.static_reduce sum {{.*}}choice = "gemm", source = "rule", layer = "conv f32 1x1x16x64->1 k1x7 d1x1 p0,3,0,3", why = "AVX-512 (Zen 4 class), 1 thread, one output channel: 1.0-3.8x"
// ZENTHREADS:  xnn.depthwise_convolution_2d
// ZENTHREADS:  xnn.static_reduce sum {{.*}}choice = "gemm", source = "rule", layer = "conv f32 1x1x16x64->1 k1x7 d1x1 p0,3,0,3", why = "AVX-512 (Zen 4 class), 2 threads, one output channel: 1.0-3.8x"
// ARM:         xnn.convolution_2d {{.*}}choice = "direct"
func.func @one_output_channel(%x: tensor<1x1x16x64xf32>) -> tensor<1x1x16x1xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<1x1x7x64xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 3, padding_left = 3, kernel_height = 1, kernel_width = 7, group_input_channels = 64, group_output_channels = 1} : (tensor<1x1x16x64xf32>, tensor<1x1x7x64xf32>) -> tensor<1x1x16x1xf32>
  func.return %y : tensor<1x1x16x1xf32>
}

// -----

// A recorded (tuned) decision is followed whatever the target, and moves to the layer's
// result: nothing is timed again.
// CHECK-LABEL: func.func @recorded_gemm
// CHECK-NOT:   xnn.convolution_2d
// CHECK:       xnn.binary add {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "tuned", layer = "conv f32 1x1x8x8->32 k1x2 d1x1 p0,0,0,0", times_ms = {direct = 2.000000e+00 : f64, gemm = 1.000000e+00 : f64}}}
func.func @recorded_gemm(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x2x8xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, group_input_channels = 8, group_output_channels = 32, xnn.decision = {form = "conv-as-gemm", choice = "gemm", source = "tuned", layer = "conv f32 1x1x8x8->32 k1x2 d1x1 p0,0,0,0", times_ms = {direct = 2.0 : f64, gemm = 1.0 : f64}}} : (tensor<1x1x8x8xf32>, tensor<32x1x2x8xf32>) -> tensor<1x1x7x32xf32>
  func.return %y : tensor<1x1x7x32xf32>
}

// -----

// CHECK-LABEL: func.func @recorded_direct
// CHECK:       xnn.convolution_2d {{.*}} {xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "tuned", layer = "conv f32 1x1x8x8->32 k1x2 d1x1 p0,0,0,0", times_ms = {direct = 1.000000e+00 : f64, gemm = 1.040000e+00 : f64}}
// CHECK-NOT:   xnn.fully_connected
func.func @recorded_direct(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x32xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x2x8xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 2, group_input_channels = 8, group_output_channels = 32, xnn.decision = {form = "conv-as-gemm", choice = "direct", source = "tuned", layer = "conv f32 1x1x8x8->32 k1x2 d1x1 p0,0,0,0", times_ms = {direct = 1.0 : f64, gemm = 1.04 : f64}}} : (tensor<1x1x8x8xf32>, tensor<32x1x2x8xf32>) -> tensor<1x1x7x32xf32>
  func.return %y : tensor<1x1x7x32xf32>
}

// -----

// A symbolic length, T in [4, 64]: one form for every size, the rule evaluated at both ends
// of the range (it reads channels and threads: the ends agree). The extended runtime's taps
// end before the symbolic end (from-end slices); the stock one (ARM here) cannot write them.
// CHECK-LABEL: func.func @symbolic_wide
// AVX2:        xnn.binary add {{.*}}why = "symbolic size T in [4, 64]: gemm by the rule at both ends: AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)"
// AVX512:      xnn.binary add {{.*}}why = "symbolic size T in [4, 64]: gemm by the rule at both ends: AVX-512 (AMX/FP16), 1 thread, 512 >= 384 input channels"
// THREADS:     xnn.binary add {{.*}}why = "symbolic size T in [4, 64]: gemm by the rule at both ends: AVX-512 (AMX/FP16), 2 threads, 512 >= 384 input channels"
// ZEN:         xnn.convolution_2d {{.*}}why = "symbolic size T in [4, 64]: direct by the rule at both ends: AVX-512 (Zen 4 class), 1 thread, 512 < 1024 input channels"
// ZENTHREADS:  xnn.convolution_2d {{.*}}why = "symbolic size T in [4, 64]: direct by the rule at both ends: AVX-512 (Zen 4 class), 2 threads, 512 < 1024 input channels"
// ARM:         xnn.convolution_2d {{.*}}why = "symbolic size T: the taps' slices end before the end of a symbolic dim, and stock ExecuTorch's XNNStaticSlice takes only absolute unsigned sizes (a slice to the end is the most it can follow)"
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
func.func @symbolic_wide(%x: tensor<1x1x?x512xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x32xf32, #xnnc.dims<"T">> {
  %w = xnn.constant dense<5.000000e-01> : tensor<32x1x3x512xf32>
  %y = xnn.convolution_2d %x, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 512, group_output_channels = 32} : (tensor<1x1x?x512xf32, #xnnc.dims<"T">>, tensor<32x1x3x512xf32>) -> tensor<1x1x?x32xf32, #xnnc.dims<"T">>
  func.return %y : tensor<1x1x?x32xf32, #xnnc.dims<"T">>
}
}
