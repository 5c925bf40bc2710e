// RUN: xnn-opt %s -p 'xnn-set-target{target="stock,x86-64-avx2,threads=2"}' | filecheck %s
// RUN: xnn-opt %s -p 'xnn-set-target{target="arm64-fp16-dotprod"}' | filecheck %s --check-prefix=ARM
// RUN: not xnn-opt %s -p 'xnn-set-target{target="stock,gpu"}' 2>&1 | filecheck %s --check-prefix=BAD

// The target string becomes the module's #xnn.target, replacing one already there.
// CHECK:      builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 2>} {
// CHECK-NEXT:   func.func @f
// ARM:        builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "arm64", features = ["dotprod", "fp16", "neon"], threads = 1>} {
// BAD:        {{^}}xnn-opt: error: xnn-set-target: unknown word 'gpu' in target 'stock,gpu'; valid: {{.*$}}
// BAD-NOT:    Traceback
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = [], threads = 1>} {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    func.return %x : tensor<2xf32>
  }
}
