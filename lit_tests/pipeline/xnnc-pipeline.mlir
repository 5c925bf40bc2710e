// The default pipeline as one pass reads everything from the module's #xnn.target, so
// xnn-opt reproduces xnnc.compile. The stock runtime legalizes xnnc's depth-to-space
// (nearest x2 upsampling) into stock kinds; the extended one keeps it.
// RUN: xnn-opt %s -p 'xnnc-pipeline{target="stock,x86-64-avx2"}' | filecheck %s --check-prefix=STOCK
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,x86-64-avx512,threads=2"},xnnc-pipeline' | filecheck %s --check-prefix=EXT
// RUN: xnn-opt %s -p 'xnnc-pipeline{target="extended,x86-64-avx2" disable="xnn-upsample-nearest"}' | filecheck %s --check-prefix=OFF
// RUN: not xnn-opt %s -p 'xnnc-pipeline{disable="xnn-polyfase"}' 2>&1 | filecheck %s --check-prefix=BAD-DISABLE
// RUN: not xnn-opt %s -p 'xnnc-pipeline{target="stock" disable="xnn-legalize-casts"}' 2>&1 | filecheck %s --check-prefix=NEEDED
// RUN: not xnn-opt %s -p 'xnnc-pipeline{target="stock,avx9"}' 2>&1 | filecheck %s --check-prefix=BAD-TARGET
// RUN: not xnn-opt %s -p 'canonicalize{disabled-patterns="Bogus"}' 2>&1 | filecheck %s --check-prefix=BAD-PATTERN

// STOCK:       builtin.module attributes {xnn.target = #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], threads = 1>}
// STOCK-LABEL: func.func @upsample
// STOCK:         xnn.subgraph
// STOCK-NOT:     xnn.depth_to_space_2d
// STOCK:         xnn.concatenate
// STOCK:         xnn.static_transpose
// STOCK:         xnn.output

// EXT:       builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "avx512f", "avx512vnni", "f16c", "fma3"], threads = 2>}
// EXT-LABEL: func.func @upsample
// EXT:         xnn.concatenate
// EXT-NEXT:    xnn.depth_to_space_2d

// OFF-LABEL: func.func @upsample
// OFF-NOT:     xnn.depth_to_space_2d
// OFF:         xnn.static_broadcast

// BAD-DISABLE: {{^}}xnn-opt: error: xnnc-pipeline: disable: unknown pass or pattern 'xnn-polyfase'; valid: {{.*}}xnn-polyphase{{.*$}}
// BAD-DISABLE-NOT: {{.}}
// NEEDED: {{^}}xnn-opt: error: xnnc-pipeline: disable: xnn-legalize-casts cannot be disabled for the stock runtime: {{.*$}}
// BAD-TARGET: {{^}}xnn-opt: error: {{.*}}avx9{{.*$}}
// BAD-TARGET-NOT: Traceback
// BAD-PATTERN: {{^}}xnn-opt: error: canonicalize: unknown pattern 'Bogus' in disabled-patterns; valid names: {{.*}}FoldPadIntoConv{{.*$}}
// BAD-PATTERN-NOT: {{.}}
func.func @upsample(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32> {
  %y = aten.upsample_nearest2d %x {scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
  func.return %y : tensor<1x3x8x10xf32>
}
