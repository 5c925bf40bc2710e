// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: not xnn-opt %s --split-input-file -p 'xnn-partition{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// XNNPACK's resize samples at the size ratio: 1.5 on 6 pixels (9 = 6 * 1.5 exactly) is the
// same scale; align_corners uses (in - 1) / (out - 1) on both sides, whatever the factor.
// 1.5 on 5 pixels gives 7 outputs, which torch samples at 1 / 1.5 and XNNPACK at 5 / 7.
// CHECK-LABEL: func.func @bilinear
// CHECK:         aten.upsample_bilinear2d %z {scale_factors = array<f64: 1.500000e+00, 1.500000e+00>, align_corners = false}
// CHECK:         xnn.subgraph
// CHECK:           xnn.static_resize_bilinear_2d %{{.*}} {new_height = 9 : i64, new_width = 9 : i64} : (tensor<1x6x6x3xf32>) -> tensor<1x9x9x3xf32>
// CHECK:           xnn.static_resize_bilinear_2d %{{.*}} {new_height = 7 : i64, new_width = 7 : i64, flags = 8 : i32} : (tensor<1x5x5x3xf32>) -> tensor<1x7x7x3xf32>
// CHECK-NOT:     aten.upsample_bilinear2d
// STRICT: xnn-opt: error: 1 ops stayed outside XNNPACK: aten.upsample_bilinear2d (scale factor sampling differs from XNNPACK's size ratio 5/7 on the height (by up to 0.262 pixels))
func.func @bilinear(%x: tensor<1x3x6x6xf32>, %z: tensor<1x3x5x5xf32>) -> (tensor<1x3x9x9xf32>, tensor<1x3x7x7xf32>, tensor<1x3x7x7xf32>) {
  %y = aten.upsample_bilinear2d %x {scale_factors = array<f64: 1.5, 1.5>, align_corners = false} : (tensor<1x3x6x6xf32>) -> tensor<1x3x9x9xf32>
  %a = aten.upsample_bilinear2d %z {scale_factors = array<f64: 1.5, 1.5>, align_corners = false} : (tensor<1x3x5x5xf32>) -> tensor<1x3x7x7xf32>
  %b = aten.upsample_bilinear2d %z {scale_factors = array<f64: 1.5, 1.5>, align_corners = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x7x7xf32>
  func.return %y, %a, %b : tensor<1x3x9x9xf32>, tensor<1x3x7x7xf32>, tensor<1x3x7x7xf32>
}
