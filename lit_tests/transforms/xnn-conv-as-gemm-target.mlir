// xnn-conv-as-gemm reads its profitability from the module's #xnn.target: it applies on
// x86-64 with AVX2 and FMA3 and without AVX-512 (the IGEMM kernel it was measured against),
// and does nothing elsewhere unless ignore-target=true.
// RUN: xnn-opt %s --split-input-file -p xnn-conv-as-gemm | filecheck %s
// RUN: xnn-opt %s --split-input-file -p 'xnn-conv-as-gemm{ignore-target=true}' | filecheck %s --check-prefix=IGNORE

// The preset x86-64-avx2: rewritten.
// CHECK-LABEL: func.func @avx2
// CHECK-NOT:     xnn.convolution_2d
// CHECK:         xnn.fully_connected
// IGNORE-LABEL: func.func @avx2
// IGNORE-NOT:     xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>} {
  func.func @avx2(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    func.return %y : tensor<1x1x4x16xf32>
  }
}

// -----

// The preset x86-64-avx512 (measured 6-46% slower on a Zen 4): left alone, both the dense
// conv and the one to a single output channel; ignore-target rewrites them anyway.
// CHECK-LABEL: func.func @avx512
// CHECK-NOT:     xnn.fully_connected
// CHECK-COUNT-2: xnn.convolution_2d
// IGNORE-LABEL: func.func @avx512
// IGNORE-NOT:     xnn.convolution_2d
// IGNORE:         xnn.depthwise_convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "avx512f", "avx512vnni", "f16c", "fma3"], threads = 1>} {
  func.func @avx512(%x: tensor<1x1x6x2xf32>) -> (tensor<1x1x4x16xf32>, tensor<1x1x4x1xf32>) {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    %w1 = xnn.constant dense<5.000000e-01> : tensor<1x1x3x2xf32>
    %z = xnn.convolution_2d %x, %w1 {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 1} : (tensor<1x1x6x2xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x4x1xf32>
    func.return %y, %z : tensor<1x1x4x16xf32>, tensor<1x1x4x1xf32>
  }
}

// -----

// No xnn.target: the default target assumes no CPU feature, so nothing happens.
// CHECK-LABEL: func.func @no_target
// CHECK:         xnn.convolution_2d
// IGNORE-LABEL: func.func @no_target
// IGNORE-NOT:     xnn.convolution_2d
func.func @no_target(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
  %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
  %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
  func.return %y : tensor<1x1x4x16xf32>
}

// -----

// arm64 with NEON: left alone (not measured there).
// CHECK-LABEL: func.func @arm64
// CHECK:         xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "arm64", features = ["neon"], threads = 1>} {
  func.func @arm64(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    func.return %y : tensor<1x1x4x16xf32>
  }
}

// -----

// The nearest enclosing module's target decides: an AVX2 module inside an AVX-512 one is
// rewritten, the outer module's own function is not.
// CHECK-LABEL: func.func @inner_avx2
// CHECK-NOT:     xnn.convolution_2d
// CHECK-LABEL: func.func @outer_avx512
// CHECK:         xnn.convolution_2d
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "avx512f", "f16c", "fma3"], threads = 1>} {
  builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 4>} {
    func.func @inner_avx2(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
      %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
      %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
      func.return %y : tensor<1x1x4x16xf32>
    }
  }
  func.func @outer_avx512(%x: tensor<1x1x6x2xf32>) -> tensor<1x1x4x16xf32> {
    %w = xnn.constant dense<5.000000e-01> : tensor<16x1x3x2xf32>
    %y = xnn.convolution_2d %x, %w {kernel_height = 1, kernel_width = 3, group_input_channels = 2, group_output_channels = 16} : (tensor<1x1x6x2xf32>, tensor<16x1x3x2xf32>) -> tensor<1x1x4x16xf32>
    func.return %y : tensor<1x1x4x16xf32>
  }
}
