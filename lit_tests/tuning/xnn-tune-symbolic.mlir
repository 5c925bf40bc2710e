// xnn-tune on symbolic sizes (issue 13): a layer of a symbolic size is not timed (the
// tuner times one size and the program serves all), nothing enters the database, and the
// pass owning the form decides by its rule over the symbol's range and says so.
// RUN: rm -f %t.json
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{form=conv-as-gemm db="%t.json"},xnn-conv-as-gemm' | filecheck %s
// RUN: not test -e %t.json || %python -c "import json,sys; print(len(json.load(open(sys.argv[1]))['entries']))" %t.json | filecheck %s --check-prefix=NOENTRY

// CHECK-LABEL: func.func @conv_frames
// CHECK:         xnn.decision = {form = "conv-as-gemm", choice = "{{direct|gemm}}", source = "rule", layer = "conv f32 1x1xTx64->32 k1x3 d1x1 p0,1,0,1", why = "symbolic size T in [4, 64]: {{.*}}"}
// CHECK-NOT:     source = "tuned"
// NOENTRY:  0
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @conv_frames(%x: tensor<1x1x?x64xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x32xf32, #xnnc.dims<"T">> {
    %r = xnn.subgraph(%x) : (tensor<1x1x?x64xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x32xf32, #xnnc.dims<"T">> {
    ^bb0(%a: tensor<1x1x?x64xf32, #xnnc.dims<"T">>):
      %w = xnn.constant dense<5.000000e-01> : tensor<32x1x3x64xf32>
      %y = xnn.convolution_2d %a, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 64, group_output_channels = 32} : (tensor<1x1x?x64xf32, #xnnc.dims<"T">>, tensor<32x1x3x64xf32>) -> tensor<1x1x?x32xf32, #xnnc.dims<"T">>
      xnn.output %y : tensor<1x1x?x32xf32, #xnnc.dims<"T">>
    }
    func.return %r : tensor<1x1x?x32xf32, #xnnc.dims<"T">>
  }
}
