// RUN: xnn-opt %s --split-input-file -p aten-recognize-prelu | filecheck %s
// RUN: xnn-opt %s --split-input-file -p aten-recognize-prelu,fold-constants,xnn-partition,convert-aten-to-xnn | filecheck %s --check-prefix=XNN

// aten-recognize-prelu on symbolic sizes (issue 13). nn.PReLU(8) decomposed over T frames:
// raised with T kept; it lowers channels-last (8 slopes), T as the reshapes' 0.
// CHECK-LABEL: func.func @per_channel_frames
// CHECK:         %[[Y:.*]] = aten.prelu %x, %{{.*}} : (tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x8x1xf32>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
// CHECK-NEXT:    func.return %[[Y]]
// XNN-LABEL: func.func @per_channel_frames
// XNN:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 1, 0, 8>} : (tensor<1x?x8xf32, #xnnc.dims<"T">>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// XNN:         xnn.binary prelu %{{.*}}, %{{.*}} : (tensor<1x1x?x8xf32, #xnnc.dims<"T">>, tensor<8xf32>) -> tensor<1x1x?x8xf32, #xnnc.dims<"T">>
// XNN-NOT:     aten.
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @per_channel_frames(%x: tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">> {
    %w = aten.constant dense<[-0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25]> : tensor<8xf32>
    %v = aten.view %w {size = array<i64: 1, 8, 1>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
    %g = aten.generic "aten::gt.Scalar"(%x) {args = [#aten.operand<0>, 0 : i64]} : (tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xi1, #xnnc.dims<"T">>
    %m = aten.mul %v, %x : (tensor<1x8x1xf32>, tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    %y = aten.where %g, %x, %m : (tensor<1x8x?xi1, #xnnc.dims<"T">>, tensor<1x8x?xf32, #xnnc.dims<"T">>, tensor<1x8x?xf32, #xnnc.dims<"T">>) -> tensor<1x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<1x8x?xf32, #xnnc.dims<"T">>
  }
}

// -----

// One shared slope over [2, 8, T]: the innermost dim is T, which no constant of slopes
// has, so it runs channels-last too (8 copies of the slope).
// CHECK-LABEL: func.func @shared_frames
// CHECK:         aten.prelu %x, %{{.*}} : (tensor<2x8x?xf32, #xnnc.dims<"T">>, tensor<1x1x1xf32>) -> tensor<2x8x?xf32, #xnnc.dims<"T">>
// CHECK-NOT:     aten.where
// XNN-LABEL: func.func @shared_frames
// XNN:         xnn.binary prelu %{{.*}}, %{{.*}} : (tensor<2x1x?x8xf32, #xnnc.dims<"T">>, tensor<8xf32>) -> tensor<2x1x?x8xf32, #xnnc.dims<"T">>
// XNN-NOT:     aten.
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
  func.func @shared_frames(%x: tensor<2x8x?xf32, #xnnc.dims<"T">>) -> tensor<2x8x?xf32, #xnnc.dims<"T">> {
    %w = aten.constant dense<0.25> : tensor<1x1x1xf32>
    %g = aten.generic "aten::gt.Scalar"(%x) {args = [#aten.operand<0>, 0.0 : f64]} : (tensor<2x8x?xf32, #xnnc.dims<"T">>) -> tensor<2x8x?xi1, #xnnc.dims<"T">>
    %m = aten.mul %x, %w : (tensor<2x8x?xf32, #xnnc.dims<"T">>, tensor<1x1x1xf32>) -> tensor<2x8x?xf32, #xnnc.dims<"T">>
    %y = aten.where %g, %x, %m : (tensor<2x8x?xi1, #xnnc.dims<"T">>, tensor<2x8x?xf32, #xnnc.dims<"T">>, tensor<2x8x?xf32, #xnnc.dims<"T">>) -> tensor<2x8x?xf32, #xnnc.dims<"T">>
    func.return %y : tensor<2x8x?xf32, #xnnc.dims<"T">>
  }
}
