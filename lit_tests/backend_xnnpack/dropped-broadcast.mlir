// XNNPACK 92a7ad50 drops a static broadcast that feeds a binary node, so serializing one the
// other operand does not cover is refused, naming the binary op; xnn-legalize-broadcasts
// makes the same subgraph serializable.
// RUN: not xnn-opt %s -t xnnpack -o %t.xnn 2>&1 | filecheck %s
// RUN: xnn-opt %s -p xnn-legalize-broadcasts -t xnnpack -o %t.legal.xnn
// RUN: %python -c "import sys; from xnnc.backend_xnnpack.blob import read_blob; print(read_blob(open(sys.argv[1], 'rb').read()).node_kinds)" %t.legal.xnn | filecheck %s --check-prefix=LEGAL

// CHECK-NOT: Traceback
// CHECK: {{^}}{{.*}}dropped-broadcast.mlir:20:{{[0-9]+}}: error: xnn.binary reads an xnn.static_broadcast, which XNNPACK 92a7ad50 drops before a binary node, leaving it a smaller shape than its result's [1, 3, 8, 2, 8, 2] (run xnn-legalize-broadcasts){{$}}
// CHECK-NOT: {{.}}

// LEGAL: ('XNNStaticReshape', 'XNNMultiply', 'XNNStaticBroadcast', 'XNNStaticReshape')

func.func @upsample_times_scalar(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %0 = xnn.static_reshape %a {new_shape = array<i64: 1, 3, 8, 1, 8, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x1x8x1xf32>
    %1 = xnn.static_broadcast %0 {new_shape = array<i64: 1, 3, 8, 2, 8, 2>} : (tensor<1x3x8x1x8x1xf32>) -> tensor<1x3x8x2x8x2xf32>
    %2 = xnn.constant dense<2.000000e+00> : tensor<1xf32>
    %3 = xnn.binary multiply %1, %2 : (tensor<1x3x8x2x8x2xf32>, tensor<1xf32>) -> tensor<1x3x8x2x8x2xf32>
    %4 = xnn.static_reshape %3 {new_shape = array<i64: 1, 3, 16, 16>} : (tensor<1x3x8x2x8x2xf32>) -> tensor<1x3x16x16xf32>
    xnn.output %4 : tensor<1x3x16x16xf32>
  }
  func.return %r : tensor<1x3x16x16xf32>
}
