// A bf16 GEMM over a symbolic row count in a module that records no range for its symbol
// (hand-written IR without `xnnc.symbols`): the form at one row, saying so (was a KeyError).
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,x86-64-avx512bf16"},xnn-legalize-casts' | filecheck %s

// CHECK-LABEL: func.func @fc
// CHECK:         xnn.fully_connected {{.*}}why = "symbolic size S: the form at the smallest size (S = 1, no recorded range):
func.func @fc(%x: tensor<?x64xbf16, #xnnc.dims<"S">>) -> tensor<?x32xbf16, #xnnc.dims<"S">> {
  %w = xnn.constant dense<1.000000e+00> : tensor<32x64xbf16>
  %y = xnn.fully_connected %x, %w : (tensor<?x64xbf16, #xnnc.dims<"S">>, tensor<32x64xbf16>) -> tensor<?x32xbf16, #xnnc.dims<"S">>
  func.return %y : tensor<?x32xbf16, #xnnc.dims<"S">>
}
