// RUN: xnn-opt %s --split-input-file -p xnn-fc-as-bmm | filecheck %s

// xnn-fc-as-bmm on symbolic sizes (issue 13): the forms are timed at one size, so a layer
// of symbolic rows keeps the fully-connected node as converted and says so. A decision
// recorded for a static layer ("linear f32 8x16->4", a previous compile's) is not followed:
// its key is not this layer's (2*S rows).
// CHECK-LABEL: func.func @symbolic_rows
// CHECK-NEXT:    xnn.constant
// CHECK-NEXT:    xnn.constant
// CHECK-NEXT:    %[[Y:.*]] = xnn.fully_connected %x, %w, %b {xnn.decision = {form = "fc-or-bmm", choice = "fc", source = "rule", layer = "linear f32 2*Sx16->4", why = "symbolic size S: the forms are timed at one size"}, output_min = 0.000000e+00 : f32} : (tensor<2x?x16xf32, #xnnc.dims<"S">>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<2x?x4xf32, #xnnc.dims<"S">>
// CHECK-NEXT:    func.return %[[Y]]
builtin.module attributes {xnnc.symbols = #xnnc.symbols<S = [1, 64]>} {
  func.func @symbolic_rows(%x: tensor<2x?x16xf32, #xnnc.dims<"S">>) -> tensor<2x?x4xf32, #xnnc.dims<"S">> {
    %w = xnn.constant dense<5.000000e-01> : tensor<4x16xf32>
    %b = xnn.constant dense<1.000000e+00> : tensor<4xf32>
    %y = xnn.fully_connected %x, %w, %b {output_min = 0.0 : f32, xnn.decision = {form = "fc-or-bmm", choice = "bmm", source = "tuned", layer = "linear f32 8x16->4", times_ms = {fc = 2.0 : f64, bmm = 1.0 : f64}}} : (tensor<2x?x16xf32, #xnnc.dims<"S">>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<2x?x4xf32, #xnnc.dims<"S">>
    func.return %y : tensor<2x?x4xf32, #xnnc.dims<"S">>
  }
}
