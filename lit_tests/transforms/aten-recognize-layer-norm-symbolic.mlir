// RUN: xnn-opt %s --split-input-file -p aten-recognize-layer-norm | filecheck %s

// aten-recognize-layer-norm on symbolic sizes (issue 13). A hand-written LayerNorm over
// the features of S rows: raised, the statistics' types keep S and normalized_shape holds
// the static features.
// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    %[[Y:.*]], %{{.*}}, %{{.*}} = aten.native_layer_norm %x : tensor<1x?x8xf32, #xnnc.dims<"S">> {normalized_shape = array<i64: 8>, eps = 1.000000e-05 : f64} -> tensor<1x?x8xf32, #xnnc.dims<"S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @rows(%x: tensor<1x?x8xf32, #xnnc.dims<"S">>) -> tensor<1x?x8xf32, #xnnc.dims<"S">> {
    %mu = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<1x?x8xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
    %d = aten.sub %x, %mu : (tensor<1x?x8xf32, #xnnc.dims<"S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>) -> tensor<1x?x8xf32, #xnnc.dims<"S">>
    %v = aten.var %x {dim = array<i64: -1>, correction = 0 : i64, keepdim = true} : (tensor<1x?x8xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
    %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<1x?x1xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
    %s = aten.sqrt %ve : (tensor<1x?x1xf32, #xnnc.dims<"S">>) -> tensor<1x?x1xf32, #xnnc.dims<"S">>
    %y = aten.div %d, %s : (tensor<1x?x8xf32, #xnnc.dims<"S">>, tensor<1x?x1xf32, #xnnc.dims<"S">>) -> tensor<1x?x8xf32, #xnnc.dims<"S">>
    func.return %y : tensor<1x?x8xf32, #xnnc.dims<"S">>
  }
}

// -----

// Declined: a norm over the frames, whose count is symbolic (it crashed building
// normalized_shape); the chain stays as written.
// CHECK-LABEL: func.func @over_frames
// CHECK:         aten.var
// CHECK:         aten.div %d, %s {xnn.declined = {"aten-recognize-layer-norm" = "symbolic size S: native_layer_norm's normalized_shape holds static sizes"}}
// CHECK-NOT:     aten.native_layer_norm
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 511]>} {
  func.func @over_frames(%x: tensor<1x8x?xf32, #xnnc.dims<"S">>) -> tensor<1x8x?xf32, #xnnc.dims<"S">> {
    %mu = aten.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<1x8x?xf32, #xnnc.dims<"S">>) -> tensor<1x8x1xf32>
    %d = aten.sub %x, %mu : (tensor<1x8x?xf32, #xnnc.dims<"S">>, tensor<1x8x1xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"S">>
    %v = aten.var %x {dim = array<i64: -1>, correction = 0 : i64, keepdim = true} : (tensor<1x8x?xf32, #xnnc.dims<"S">>) -> tensor<1x8x1xf32>
    %ve = aten.add %v {scalar = 1.0e-05 : f64} : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
    %s = aten.sqrt %ve : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
    %y = aten.div %d, %s : (tensor<1x8x?xf32, #xnnc.dims<"S">>, tensor<1x8x1xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"S">>
    func.return %y : tensor<1x8x?xf32, #xnnc.dims<"S">>
  }
}
