// RUN: xnn-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One case per verifier message of the aten dialect (dialects/aten.py): each prints
// `file:line:col: error: 'op' op message`, pointing at the op that fails.

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.constant' op dense value of type tensor<4xf32> does not match result tensor<2x2xf32>
func.func @constant_dense_type() {
  %c = "aten.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<2x2xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.constant' op unsupported element type index
func.func @constant_weight_index_type() {
  %c = aten.constant #xnnc.weight<"w", "0x0100000000000000"> : tensor<1xindex>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.constant' op weight 'w' has 8 bytes but tensor<3xf32> needs 12
func.func @constant_weight_size() {
  %c = aten.constant #xnnc.weight<"w", "0x0000803F00000040"> : tensor<3xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.generic' op target 'sin' is not a qualified overload like 'aten::sin'
func.func @generic_unqualified(%x: tensor<4xf32>) {
  %0 = aten.generic "sin"(%x) {args = [#aten.operand<0>]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.generic' op arguments reference operands [0, 0] but the op has 2 operands; each operand must be referenced exactly once
func.func @generic_operand_refs(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  %0 = aten.generic "aten::atan2"(%x, %y) {args = [#aten.operand<0>, #aten.operand<0>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op expects a 3-D, 4-D or 5-D input and a weight of the same rank, got (1, 4, 16), (8, 4, 3, 3)
func.func @conv_rank(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x14xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op padding has 1 values but the convolution has 2 spatial dims
func.func @conv_padding_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op stride [0, 1] and dilation [1, 1] must be positive
func.func @conv_zero_stride(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 0, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op groups must be positive, got 0
func.func @conv_zero_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op output_padding has 1 values, expected 2
func.func @conv_transposed_output_padding(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1>, groups = 1 : i64} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op input has 4 channels but the transposed weight expects 8
func.func @conv_transposed_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op input has 8 channels but weight expects 2 per group x 2 groups = 4
func.func @conv_group_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<16x2x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x8x8x8xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op channels (8 in, 6 out) are not divisible by groups=4
func.func @conv_groups_divide_out(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op bias has shape [4], expected [8]
func.func @conv_bias(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3xf32>, %b: tensor<4xf32>) {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<4xf32>) -> tensor<1x8x16xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.convolution' op result shape [1, 8, 16] does not match the computed shape [1, 8, 8]
func.func @conv_result(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>) -> tensor<1x8x16xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.constant_pad_nd' op pad has 3 values; it needs pairs for at most 2 dims
func.func @constant_pad_odd(%x: tensor<2x5xf32>) {
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 1, 1>} : (tensor<2x5xf32>) -> tensor<2x7xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.reflection_pad1d' op padding has 4 values, expected 2
func.func @reflection_pad1d_padding(%x: tensor<1x3x8xf32>) {
  %0 = aten.reflection_pad1d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8xf32>) -> tensor<1x5x10xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._pad_circular' op result shape [1, 3, 4, 5] does not match the padded shape [1, 3, 4, 8]
func.func @pad_circular_result(%x: tensor<1x3x4x5xf32>) {
  %0 = aten._pad_circular %x {pad = array<i64: 2, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.replication_pad2d' op result shape [1, 3, 8, 8] does not match the padded shape [1, 3, 10, 10]
func.func @replication_pad2d_result(%x: tensor<1x3x8x8xf32>) {
  %0 = aten.replication_pad2d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.reflection_pad2d' op expects a 3-D or 4-D input, got [8, 8]
func.func @reflection_pad2d_rank(%x: tensor<8x8xf32>) {
  %0 = aten.reflection_pad2d %x {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x8xf32>) -> tensor<10x10xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.add' op needs exactly one of a tensor `other` operand and a `scalar` property
func.func @add_other_and_scalar(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) {
  %0 = aten.add %x, %y {scalar = 1.0 : f32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.mul' op operand shapes {{\[\[}}2, 3], [4]] do not broadcast
func.func @mul_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  %0 = aten.mul %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.sub' op result shape [2, 1] is not the broadcast [2, 3]
func.func @sub_scalar_result(%x: tensor<2x3xf32>) {
  %0 = aten.sub %x {scalar = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.relu' op result shape [3, 2] differs from input shape [2, 3]
func.func @relu_result(%x: tensor<2x3xf32>) {
  %0 = aten.relu %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.where' op operand shapes {{\[\[}}2, 1], [2, 3], [1, 3]] do not broadcast to the result
func.func @where_result(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<1x3xf32>) {
  %0 = aten.where %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.linear' op input [2, 16] and weight [8, 12] do not multiply: need weight [N, 16]
func.func @linear_weight(%x: tensor<2x16xf32>, %w: tensor<8x12xf32>) {
  %0 = aten.linear %x, %w : (tensor<2x16xf32>, tensor<8x12xf32>) -> tensor<2x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.linear' op bias has shape [16], expected [8]
func.func @linear_bias(%x: tensor<2x16xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) {
  %0 = aten.linear %x, %w, %b : (tensor<2x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<2x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.linear' op result shape [2, 16] should be [2, 8]
func.func @linear_result(%x: tensor<2x16xf32>, %w: tensor<8x16xf32>) {
  %0 = aten.linear %x, %w : (tensor<2x16xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.addmm' op mat1 [4, 16] and mat2 [8, 16] do not multiply
func.func @addmm_mats(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<8x16xf32>) {
  %0 = aten.addmm %b, %x, %w : (tensor<8xf32>, tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.addmm' op input [4] does not broadcast to [4, 8]
func.func @addmm_input(%b: tensor<4xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) {
  %0 = aten.addmm %b, %x, %w : (tensor<4xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.addmm' op result shape [8, 4] should be [4, 8]
func.func @addmm_result(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) {
  %0 = aten.addmm %b, %x, %w : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<8x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.mm' op [4, 16] and [4, 16] do not multiply
func.func @mm_shapes(%x: tensor<4x16xf32>) {
  %0 = aten.mm %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.mm' op result shape [4, 16] should be [4, 8]
func.func @mm_result(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) {
  %0 = aten.mm %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.bmm' op [2, 4, 16] and [3, 16, 8] are not batched [B, M, K] x [B, K, N]
func.func @bmm_batch(%x: tensor<2x4x16xf32>, %w: tensor<3x16x8xf32>) {
  %0 = aten.bmm %x, %w : (tensor<2x4x16xf32>, tensor<3x16x8xf32>) -> tensor<2x4x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.bmm' op result shape [4, 8] should be [2, 4, 8]
func.func @bmm_result(%x: tensor<2x4x16xf32>, %w: tensor<2x16x8xf32>) {
  %0 = aten.bmm %x, %w : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<4x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.mean' op reduction dims [1, 4] are out of range for rank 4
func.func @mean_dims(%x: tensor<1x8x4x4xf32>) {
  %0 = aten.mean %x {dim = array<i64: 1, 4>} : (tensor<1x8x4x4xf32>) -> tensor<1x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.mean' op result shape [1, 8] should be [1, 8, 1, 1]
func.func @mean_keepdim_result(%x: tensor<1x8x4x4xf32>) {
  %0 = aten.mean %x {dim = array<i64: -1, -2>, keepdim = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._softmax' op dim 2 is out of range for rank 2
func.func @softmax_dim(%x: tensor<2x10xf32>) {
  %0 = aten._softmax %x {dim = 2 : i64, half_to_float = false} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._native_batch_norm_legit_no_training' op expects at least [N, C], got [8]
func.func @batch_norm_rank(%x: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  %0, %1, %2 = aten._native_batch_norm_legit_no_training %x : tensor<8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 0.1 : f64, eps = 1.0e-05 : f64} -> tensor<8xf32>, tensor<0xf32>, tensor<0xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._native_batch_norm_legit_no_training' op running_var has shape [4], expected [8] (channels)
func.func @batch_norm_var(%x: tensor<1x8x4x4xf32>, %m: tensor<8xf32>, %v: tensor<4xf32>) {
  %0, %1, %2 = aten._native_batch_norm_legit_no_training %x : tensor<1x8x4x4xf32> mean %m : tensor<8xf32> var %v : tensor<4xf32> {momentum = 0.1 : f64, eps = 1.0e-05 : f64} -> tensor<1x8x4x4xf32>, tensor<0xf32>, tensor<0xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._native_batch_norm_legit_no_training' op result shape [1, 8, 2, 2] differs from input [1, 8, 4, 4]
func.func @batch_norm_result(%x: tensor<1x8x4x4xf32>, %w: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  %0, %1, %2 = aten._native_batch_norm_legit_no_training %x : tensor<1x8x4x4xf32> weight %w : tensor<8xf32> mean %m : tensor<8xf32> var %v : tensor<8xf32> {momentum = 0.1 : f64, eps = 1.0e-05 : f64} -> tensor<1x8x2x2xf32>, tensor<0xf32>, tensor<0xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.native_layer_norm' op normalized_shape [5] is not a suffix of the input shape [2, 5, 16]
func.func @layer_norm_suffix(%x: tensor<2x5x16xf32>) {
  %0, %1, %2 = aten.native_layer_norm %x : tensor<2x5x16xf32> {normalized_shape = array<i64: 5>, eps = 1.0e-05 : f64} -> tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.native_layer_norm' op weight has shape [5, 16], expected [16]
func.func @layer_norm_weight(%x: tensor<2x5x16xf32>, %w: tensor<5x16xf32>) {
  %0, %1, %2 = aten.native_layer_norm %x : tensor<2x5x16xf32> weight %w : tensor<5x16xf32> {normalized_shape = array<i64: 16>, eps = 1.0e-05 : f64} -> tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.native_group_norm' op 8 channels do not split into 3 groups
func.func @group_norm_groups(%x: tensor<1x8x5xf32>) {
  %0, %1, %2 = aten.native_group_norm %x : tensor<1x8x5xf32> {N = 1 : i64, C = 8 : i64, hxw = 5 : i64, group = 3 : i64, eps = 1.0e-05 : f64} -> tensor<1x8x5xf32>, tensor<1x3xf32>, tensor<1x3xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.native_group_norm' op N=1, C=8, HxW=4 do not describe the input shape [1, 8, 5]
func.func @group_norm_sizes(%x: tensor<1x8x5xf32>) {
  %0, %1, %2 = aten.native_group_norm %x : tensor<1x8x5xf32> {N = 1 : i64, C = 8 : i64, hxw = 4 : i64, group = 2 : i64, eps = 1.0e-05 : f64} -> tensor<1x8x5xf32>, tensor<1x2xf32>, tensor<1x2xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._safe_softmax' op dim 2 is out of range for rank 2
func.func @safe_softmax_dim(%x: tensor<2x5xf32>) {
  %0 = aten._safe_softmax %x {dim = 2 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.native_layer_norm' op result shape [2, 5, 1] differs from input [2, 5, 16]
func.func @layer_norm_result(%x: tensor<2x5x16xf32>) {
  %0, %1, %2 = aten.native_layer_norm %x : tensor<2x5x16xf32> {normalized_shape = array<i64: 16>, eps = 1.0e-05 : f64} -> tensor<2x5x1xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.embedding' op weight must be [num_embeddings, dim], got [1600]
func.func @embedding_weight(%w: tensor<1600xf32>, %i: tensor<2x5xi64>) {
  %0 = aten.embedding %w, %i : (tensor<1600xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.embedding' op result shape [2, 16] should be [2, 5, 16]
func.func @embedding_result(%w: tensor<100x16xf32>, %i: tensor<2x5xi64>) {
  %0 = aten.embedding %w, %i {padding_idx = 0 : i64} : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x16xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.max_pool2d_with_indices' op expects a 3-D or 4-D input, got [8, 8]
func.func @max_pool_rank(%x: tensor<8x8xf32>) {
  %0, %1 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>} : (tensor<8x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xi64>)
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.max_pool2d_with_indices' op kernel_size, stride, padding and dilation need 1 or 2 values
func.func @max_pool_dilation_values(%x: tensor<1x8x8x8xf32>) {
  %0, %1 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>)
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.avg_pool2d' op stride [0, 0] and dilation [1, 1] must be positive
func.func @avg_pool_zero_stride(%x: tensor<1x8x8x8xf32>) {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 0>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.avg_pool2d' op padding 2 is more than half the kernel 3
func.func @avg_pool_padding(%x: tensor<1x8x8x8xf32>) {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 2, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x10x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.max_pool2d_with_indices' op result shape [1, 8, 5, 5] does not match the computed shape [1, 8, 4, 4]
func.func @max_pool_result(%x: tensor<1x8x10x10xf32>) {
  %0, %1 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x8x10x10xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xi64>)
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._adaptive_avg_pool2d' op result [1, 8, 2, 2] is not input [1, 8, 7, 7] pooled to (1, 1)
func.func @adaptive_avg_pool_result(%x: tensor<1x8x7x7xf32>) {
  %0 = aten._adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x2x2xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.upsample_nearest2d' op expects 4-D [N, C, H, W] input and result, got [1, 3, 4] -> [1, 3, 8]
func.func @upsample_rank(%x: tensor<1x3x4xf32>) {
  %0 = aten.upsample_nearest2d %x {output_size = array<i64: 8>} : (tensor<1x3x4xf32>) -> tensor<1x3x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.upsample_nearest1d' op expects 3-D [N, C, W] input and result, got [1, 3, 4, 4] -> [1, 3, 8, 8]
func.func @upsample_1d_rank(%x: tensor<1x3x4x4xf32>) {
  %0 = aten.upsample_nearest1d %x {output_size = array<i64: 8, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.upsample_bilinear2d' op needs output_size or scale_factors
func.func @upsample_no_size(%x: tensor<1x3x4x4xf32>) {
  %0 = aten.upsample_bilinear2d %x {align_corners = false} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.upsample_nearest2d' op output_size [8, 8] differs from result [1, 3, 8, 4]
func.func @upsample_output_size(%x: tensor<1x3x4x4xf32>) {
  %0 = aten.upsample_nearest2d %x {output_size = array<i64: 8, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.pixel_shuffle' op input [1, 6, 4, 4] channels are not divisible by upscale_factor^2 = 4
func.func @pixel_shuffle_channels(%x: tensor<1x6x4x4xf32>) {
  %0 = aten.pixel_shuffle %x {upscale_factor = 2 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.pixel_shuffle' op result shape [1, 8, 4, 4] should be [1, 2, 8, 8]
func.func @pixel_shuffle_result(%x: tensor<1x8x4x4xf32>) {
  %0 = aten.pixel_shuffle %x {upscale_factor = 2 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.view' op cannot view [1, 8, 4, 4] (128 elements) as [1, 100] (100)
func.func @view_numel(%x: tensor<1x8x4x4xf32>) {
  %0 = aten.view %x {size = array<i64: 1, 100>} : (tensor<1x8x4x4xf32>) -> tensor<1x100xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.permute' op dims [0, 1, -3, 3] are not a permutation of 4 dims
func.func @permute_dims(%x: tensor<1x8x4x4xf32>) {
  %0 = aten.permute %x {dims = array<i64: 0, 1, -3, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.permute' op result shape [1, 8, 4, 4] should be [1, 4, 4, 8]
func.func @permute_result(%x: tensor<1x8x4x4xf32>) {
  %0 = aten.permute %x {dims = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.squeeze' op dims [4] are out of range for rank 4
func.func @squeeze_dims(%x: tensor<1x8x1x1xf32>) {
  %0 = aten.squeeze %x {dim = array<i64: 4>} : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.squeeze' op result shape [8] should be [1, 8]
func.func @squeeze_result(%x: tensor<1x8x1x1xf32>) {
  %0 = aten.squeeze %x {dim = array<i64: 2, 3>} : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.unsqueeze' op dim 3 is out of range for rank 3
func.func @unsqueeze_dim(%x: tensor<2x3xf32>) {
  %0 = aten.unsqueeze %x {dim = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.unsqueeze' op result shape [2, 3, 1] should be [2, 1, 3]
func.func @unsqueeze_result(%x: tensor<2x3xf32>) {
  %0 = aten.unsqueeze %x {dim = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.expand' op cannot expand [2, 3] to [2, 6]
func.func @expand_shape(%x: tensor<2x3xf32>) {
  %0 = aten.expand %x {size = array<i64: 2, 6>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.slice' op dim is out of range for rank 2
func.func @slice_dim(%x: tensor<2x8xf32>) {
  %0 = aten.slice %x {dim = -3 : i64, start = 0 : i64, end = 1 : i64} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.slice' op step must be positive, got 0
func.func @slice_step(%x: tensor<2x8xf32>) {
  %0 = aten.slice %x {dim = 1 : i64, step = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.slice' op result shape [2, 4] should be [2, 3]
func.func @slice_result(%x: tensor<2x8xf32>) {
  %0 = aten.slice %x {dim = 1 : i64, start = 1 : i64, end = 7 : i64, step = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.cat' op needs at least one tensor
func.func @cat_empty() {
  %0 = aten.cat : () -> tensor<2xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.cat' op dim is out of range for rank 2
func.func @cat_dim(%a: tensor<1x4xf32>, %b: tensor<2x4xf32>) {
  %0 = aten.cat %a, %b {dim = 2 : i64} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.cat' op shapes {{\[\[}}1, 4], [2, 5]] differ outside dim 0
func.func @cat_shapes(%a: tensor<1x4xf32>, %b: tensor<2x5xf32>) {
  %0 = aten.cat %a, %b : (tensor<1x4xf32>, tensor<2x5xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.cat' op result shape [3, 8] should be [3, 4]
func.func @cat_result(%a: tensor<1x4xf32>, %b: tensor<2x4xf32>) {
  %0 = aten.cat %a, %b {dim = 0 : i64} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<3x8xf32>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.split_with_sizes' op split_sizes [2, 3] do not add up to dim of size 6
func.func @split_sizes_sum(%x: tensor<1x6x4xf32>) {
  %0, %1 = aten.split_with_sizes %x {split_sizes = array<i64: 2, 3>, dim = 1 : i64} : (tensor<1x6x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>)
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.split_with_sizes' op has 2 results for 3 split sizes
func.func @split_result_count(%x: tensor<1x6x4xf32>) {
  %0, %1 = aten.split_with_sizes %x {split_sizes = array<i64: 2, 3, 1>, dim = 1 : i64} : (tensor<1x6x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x4x4xf32>)
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.split_with_sizes' op result shape [1, 4, 4] should be [1, 3, 4]
func.func @split_result_shape(%x: tensor<1x6x4xf32>) {
  %0, %1, %2 = aten.split_with_sizes %x {split_sizes = array<i64: 2, 3, 1>, dim = 1 : i64} : (tensor<1x6x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x4x4xf32>, tensor<1x1x4xf32>)
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten._to_copy' op dtype f16 differs from the result element type bf16
func.func @to_copy_dtype(%x: tensor<2x3xf32>) {
  %0 = aten._to_copy %x {dtype = f16} : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  func.return
}

// -----

// CHECK: {{.*}}aten_verify.mlir:[[# @LINE + 2]]:3: error: 'aten.prelu' op weight has 2 slopes; expected 1 or the 3 channels of dim 1
func.func @prelu_slopes(%x: tensor<1x3x5xf32>, %w: tensor<2xf32>) {
  %0 = aten.prelu %x, %w : (tensor<1x3x5xf32>, tensor<2xf32>) -> tensor<1x3x5xf32>
  func.return
}
