// xnn-tune with no form times every form's layers on this machine's XNNPACK: an upsample
// (decision on its last reshape), a strided deconvolution, an fp32 fully-connected layer and
// an fp16 convolution (a region of one layer); the passes owning the forms then follow the
// recorded choices.
// RUN: rm -f %t.json
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{db="%t.json"}' | filecheck %s
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{db="%t.json" cached=true},xnn-fp16-precision,canonicalize,xnn-fc-as-bmm' | filecheck %s --check-prefix=FOLLOWED
// RUN: %python -c "import json,sys; e=json.load(open(sys.argv[1]))['entries']; print(len(e), *sorted(k.split('|')[3] for k in e), sep='\n')" %t.json | filecheck %s --check-prefix=DB

// CHECK-DAG: xnn.static_reshape {{.*}}xnn.decision = {form = "upsample-nearest", choice = "{{broadcast|depth-to-space}}", source = "tuned", layer = "upsample2x f32 1x8x8x16", times_ms = {broadcast = {{.*}}, "depth-to-space" = {{.*}}}}
// CHECK-DAG: xnn.deconvolution_2d {{.*}}xnn.decision = {form = "polyphase", choice = "{{deconvolution|polyphase|per-phase}}", source = "tuned", layer = "deconv f32 1x1x16x32->32 g1 k1x4 s1x2 p0,1,0,1"
// CHECK-DAG: xnn.fully_connected {{.*}}xnn.decision = {form = "fc-or-bmm", choice = "{{fc|bmm}}", source = "tuned", layer = "linear f32 16x64->32"
// CHECK-DAG: xnn.convolution_2d {{.*}}xnn.decision = {form = "fp16-compute", choice = "{{native|fp32}}", source = "tuned", layer = "fp16 region of 1 layer from convolution_2d 1x8x8x16,32x1x1x16->1x8x8x32 group_input_channels=16 group_output_channels=32 kernel_height=1 kernel_width=1 #{{[0-9a-f]+}}", why = "region of 1 fp16 layer, 1 node, from {{.*}}tune-all-forms.mlir:{{[0-9]+}}:{{[0-9]+}}"
// FOLLOWED-DAG: source = "tuned", layer = "upsample2x f32 1x8x8x16"
// FOLLOWED-DAG: source = "tuned", layer = "deconv f32 1x1x16x32->32 g1 k1x4 s1x2 p0,1,0,1"
// FOLLOWED-DAG: source = "tuned", layer = "linear f32 16x64->32"
// FOLLOWED-DAG: source = "tuned", layer = "fp16 region of 1 layer from convolution_2d
// DB:      4
// DB-NEXT: deconv f32 1x1x16x32->32 g1 k1x4 s1x2 p0,1,0,1
// DB-NEXT: fp16 region of 1 layer from convolution_2d 1x8x8x16,32x1x1x16->1x8x8x32
// DB-NEXT: linear f32 16x64->32
// DB-NEXT: upsample2x f32 1x8x8x16
func.func @layers(%x: tensor<1x8x8x16xf32>, %d: tensor<1x1x16x32xf32>, %f: tensor<16x64xf32>, %h: tensor<1x8x8x16xf16>) -> (tensor<1x16x16x16xf32>, tensor<1x1x32x32xf32>, tensor<16x32xf32>, tensor<1x8x8x32xf16>) {
  %r:4 = xnn.subgraph(%x, %d, %f, %h) : (tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>, tensor<16x64xf32>, tensor<1x8x8x16xf16>) -> (tensor<1x16x16x16xf32>, tensor<1x1x32x32xf32>, tensor<16x32xf32>, tensor<1x8x8x32xf16>) {
  ^bb0(%a: tensor<1x8x8x16xf32>, %b: tensor<1x1x16x32xf32>, %c: tensor<16x64xf32>, %e: tensor<1x8x8x16xf16>):
    %u = xnn.static_reshape %a {new_shape = array<i64: 1, 8, 1, 8, 1, 16>} : (tensor<1x8x8x16xf32>) -> tensor<1x8x1x8x1x16xf32>
    %v = xnn.static_broadcast %u {new_shape = array<i64: 1, 8, 2, 8, 2, 16>} : (tensor<1x8x1x8x1x16xf32>) -> tensor<1x8x2x8x2x16xf32>
    %y = xnn.static_reshape %v {new_shape = array<i64: 1, 16, 16, 16>} : (tensor<1x8x2x8x2x16xf32>) -> tensor<1x16x16x16xf32>
    %dw = xnn.constant dense<5.000000e-01> : tensor<32x1x4x32xf32>
    %dy = xnn.deconvolution_2d %b, %dw {padding_left = 1 : i64, padding_right = 1 : i64, kernel_height = 1 : i64, kernel_width = 4 : i64, upsampling_height = 1 : i64, upsampling_width = 2 : i64, group_input_channels = 32 : i64, group_output_channels = 32 : i64} : (tensor<1x1x16x32xf32>, tensor<32x1x4x32xf32>) -> tensor<1x1x32x32xf32>
    %fw = xnn.constant dense<5.000000e-01> : tensor<32x64xf32>
    %fy = xnn.fully_connected %c, %fw : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
    %hw = xnn.constant dense<5.000000e-01> : tensor<32x1x1x16xf16>
    %hy = xnn.convolution_2d %e, %hw {kernel_height = 1 : i64, kernel_width = 1 : i64, group_input_channels = 16 : i64, group_output_channels = 32 : i64} : (tensor<1x8x8x16xf16>, tensor<32x1x1x16xf16>) -> tensor<1x8x8x32xf16>
    xnn.output %y, %dy, %fy, %hy : tensor<1x16x16x16xf32>, tensor<1x1x32x32xf32>, tensor<16x32xf32>, tensor<1x8x8x32xf16>
  }
  func.return %r#0, %r#1, %r#2, %r#3 : tensor<1x16x16x16xf32>, tensor<1x1x32x32xf32>, tensor<16x32xf32>, tensor<1x8x8x32xf16>
}
