// `#xnn.target<...>` on a builtin.module: the runtime flavour, the CPU features XNNPACK's
// kernel choice depends on, and the thread count (xnnc/target.py). Features print sorted.
// RUN: XNN_ROUNDTRIP
// RUN: XNN_GENERIC_ROUNDTRIP

// A target that is not one is a one-line parse error at the attribute.
// RUN: not xnn-opt %S/../tools/inputs/xnn_target_bad_runtime.mlir 2>&1 | filecheck %s --check-prefix=RUNTIME
// RUN: not xnn-opt %S/../tools/inputs/xnn_target_bad_feature.mlir 2>&1 | filecheck %s --check-prefix=FEATURE
// RUN: not xnn-opt %S/../tools/inputs/xnn_target_bad_threads.mlir 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not xnn-opt %S/../tools/inputs/xnn_target_missing_field.mlir 2>&1 | filecheck %s --check-prefix=MISSING

// CHECK:      builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 2>} {
// CHECK-NEXT:   func.func @f
// GENERIC:    "builtin.module"() ({
// GENERIC:    }) {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 2>} : () -> ()
builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["fma3", "avx2", "f16c"], threads = 2>} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    func.return %x : tensor<4xf32>
  }
}

// -----

// No feature assumed (the default target's CPU), on arm64.
// CHECK: builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "arm64", features = [], threads = 1>} {
// GENERIC: {xnn.target = #xnn.target<runtime = "extended", arch = "arm64", features = [], threads = 1>}
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "arm64", features = [], threads = 1>} {
}

// RUNTIME-NOT: Traceback
// RUNTIME: {{^}}{{.*}}xnn_target_bad_runtime.mlir:2:52: error: #xnn.target: unknown runtime 'stocky'; valid: stock, extended{{$}}
// RUNTIME-NOT: {{.}}

// FEATURE-NOT: Traceback
// FEATURE: {{^}}{{.*}}xnn_target_bad_feature.mlir:2:52: error: #xnn.target: unknown x86_64 feature 'neon'; valid: avx2, fma3, f16c, avx512f, avx512vnni, avx512bf16, avx512fp16, amx{{$}}
// FEATURE-NOT: {{.}}

// THREADS-NOT: Traceback
// THREADS: {{^}}{{.*}}xnn_target_bad_threads.mlir:2:52: error: #xnn.target: target threads must be an integer >= 1, got 0{{$}}
// THREADS-NOT: {{.}}

// MISSING-NOT: Traceback
// MISSING: {{^}}{{.*}}xnn_target_missing_field.mlir:2:{{[0-9]+}}: error: Expected 'arch'{{$}}
// MISSING-NOT: {{.}}
