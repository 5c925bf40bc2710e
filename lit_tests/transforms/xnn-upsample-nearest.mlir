// RUN: xnn-opt %s --split-input-file -p xnn-upsample-nearest | filecheck %s
// RUN: xnn-opt %s --split-input-file -p xnn-partition,convert-aten-to-xnn,xnn-upsample-nearest | filecheck %s --check-prefix=LOWER
// RUN: xnn-opt %s --split-input-file -p 'xnn-upsample-nearest{max-input-bytes=4194304}' | filecheck %s --check-prefix=LARGE

// The block broadcast conversion lowers a nearest x2 upsample to (in NHWC) becomes 4 copies
// of the input on the channels + depth_to_space_2d(2).
// CHECK-LABEL: func.func @x2
// CHECK-NEXT:    %[[C:.*]] = xnn.concatenate %x, %x, %x, %x {axis = 3 : i64} : (tensor<1x4x5x3xf16>, tensor<1x4x5x3xf16>, tensor<1x4x5x3xf16>, tensor<1x4x5x3xf16>) -> tensor<1x4x5x12xf16>
// CHECK-NEXT:    %[[D:.*]] = xnn.depth_to_space_2d %[[C]] {xnn.decision = {form = "upsample-nearest", choice = "depth-to-space", source = "rule", layer = "upsample2x f16 1x4x5x3", why = "3 channels, 120 <= 524288 input bytes (1.0-1.9x, Sapphire Rapids)"}, block_size = 2 : i64} : (tensor<1x4x5x12xf16>) -> tensor<1x8x10x3xf16>
// CHECK-NEXT:    func.return %[[D]]
func.func @x2(%x: tensor<1x4x5x3xf16>) -> tensor<1x8x10x3xf16> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 3>} : (tensor<1x4x5x3xf16>) -> tensor<1x4x1x5x1x3xf16>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 2, 3>} : (tensor<1x4x1x5x1x3xf16>) -> tensor<1x4x2x5x2x3xf16>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 3>} : (tensor<1x4x2x5x2x3xf16>) -> tensor<1x8x10x3xf16>
  func.return %y : tensor<1x8x10x3xf16>
}

// -----

// Left alone: x3 (9 copies would take more than one concatenate) keeps the broadcast.
// CHECK-LABEL: func.func @x3
// CHECK-NEXT:    xnn.static_reshape
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape
func.func @x3(%x: tensor<1x4x5x3xf32>) -> tensor<1x12x15x3xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 3>} : (tensor<1x4x5x3xf32>) -> tensor<1x4x1x5x1x3xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 3, 5, 3, 3>} : (tensor<1x4x1x5x1x3xf32>) -> tensor<1x4x3x5x3x3xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 12, 15, 3>} : (tensor<1x4x3x5x3x3xf32>) -> tensor<1x12x15x3xf32>
  func.return %y : tensor<1x12x15x3xf32>
}

// -----

// Left alone: x2 in height only (depth_to_space blocks are square).
// CHECK-LABEL: func.func @x2_height_only
// CHECK-NEXT:    xnn.static_reshape
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape
func.func @x2_height_only(%x: tensor<1x4x5x3xf32>) -> tensor<1x8x5x3xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 3>} : (tensor<1x4x5x3xf32>) -> tensor<1x4x1x5x1x3xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 1, 3>} : (tensor<1x4x1x5x1x3xf32>) -> tensor<1x4x2x5x1x3xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 5, 3>} : (tensor<1x4x2x5x1x3xf32>) -> tensor<1x8x5x3xf32>
  func.return %y : tensor<1x8x5x3xf32>
}

// -----

// Left alone: a broadcast that is not a block repeat (it repeats whole rows).
// CHECK-LABEL: func.func @not_blocks
// CHECK-NEXT:    xnn.static_reshape
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape
func.func @not_blocks(%x: tensor<1x4x5x3xf32>) -> tensor<1x8x10x3xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 1, 4, 1, 5, 3>} : (tensor<1x4x5x3xf32>) -> tensor<1x1x4x1x5x3xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 2, 4, 2, 5, 3>} : (tensor<1x1x4x1x5x3xf32>) -> tensor<1x2x4x2x5x3xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 3>} : (tensor<1x2x4x2x5x3xf32>) -> tensor<1x8x10x3xf32>
  func.return %y : tensor<1x8x10x3xf32>
}

// -----

// Left alone: the broadcast has another user.
// CHECK-LABEL: func.func @broadcast_has_other_user
// CHECK-NEXT:    xnn.static_reshape
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape
func.func @broadcast_has_other_user(%x: tensor<1x4x5x3xf32>) -> (tensor<1x8x10x3xf32>, tensor<1x4x2x5x2x3xf32>) {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 3>} : (tensor<1x4x5x3xf32>) -> tensor<1x4x1x5x1x3xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 2, 3>} : (tensor<1x4x1x5x1x3xf32>) -> tensor<1x4x2x5x2x3xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 3>} : (tensor<1x4x2x5x2x3xf32>) -> tensor<1x8x10x3xf32>
  func.return %y, %b : tensor<1x8x10x3xf32>, tensor<1x4x2x5x2x3xf32>
}

// -----

// Left alone: one channel (depth_to_space would gather single elements: the broadcast is
// faster). The static rule's decision is recorded on the op computing the upsample.
// CHECK-LABEL: func.func @one_channel
// CHECK-NEXT:    xnn.static_reshape
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape {{.*}}xnn.decision = {form = "upsample-nearest", choice = "broadcast", source = "rule", layer = "upsample2x f32 1x4x5x1", why = "1 channel: depth-to-space moves single elements"}
func.func @one_channel(%x: tensor<1x4x5x1xf32>) -> tensor<1x8x10x1xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 5, 1, 1>} : (tensor<1x4x5x1xf32>) -> tensor<1x4x1x5x1x1xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 5, 2, 1>} : (tensor<1x4x1x5x1x1xf32>) -> tensor<1x4x2x5x2x1xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 10, 1>} : (tensor<1x4x2x5x2x1xf32>) -> tensor<1x8x10x1xf32>
  func.return %y : tensor<1x8x10x1xf32>
}

// -----

// Left alone: an input above 512 KiB (the copies write twice the output's size), unless
// the max-input-bytes option lets it in.
// CHECK-LABEL: func.func @large_input
// CHECK-NEXT:    xnn.static_reshape
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape {{.*}}choice = "broadcast", source = "rule", layer = "upsample2x f32 1x128x128x32", why = "2097152 > 524288 input bytes: the copies write the output twice"
// LARGE-LABEL: func.func @large_input
// LARGE-NEXT:    xnn.concatenate
// LARGE-NEXT:    xnn.depth_to_space_2d {{.*}}choice = "depth-to-space", source = "option"
func.func @large_input(%x: tensor<1x128x128x32xf32>) -> tensor<1x256x256x32xf32> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 128, 1, 128, 1, 32>} : (tensor<1x128x128x32xf32>) -> tensor<1x128x1x128x1x32xf32>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 128, 2, 128, 2, 32>} : (tensor<1x128x1x128x1x32xf32>) -> tensor<1x128x2x128x2x32xf32>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 256, 256, 32>} : (tensor<1x128x2x128x2x32xf32>) -> tensor<1x256x256x32xf32>
  func.return %y : tensor<1x256x256x32xf32>
}

// -----

// From aten: conversion lowers an integer-scale nearest upsample exactly, in NHWC; x2
// then becomes concatenate + depth_to_space_2d.
// LOWER-LABEL: func.func @aten_x2
// LOWER:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
// LOWER-NEXT:    %[[C:.*]] = xnn.concatenate %[[T]], %[[T]], %[[T]], %[[T]] {axis = 3 : i64}
// LOWER-NEXT:    %[[D:.*]] = xnn.depth_to_space_2d %[[C]] {{.*}}block_size = 2 : i64} : (tensor<1x4x5x12xf32>) -> tensor<1x8x10x3xf32>
// LOWER-NEXT:    xnn.static_transpose %[[D]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x10x3xf32>) -> tensor<1x3x8x10xf32>
func.func @aten_x2(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32> {
  %y = aten.upsample_nearest2d %x {scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
  func.return %y : tensor<1x3x8x10xf32>
}

// -----

// LOWER-LABEL: func.func @aten_x3_by_output_size
// LOWER:         xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// LOWER-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 4, 1, 5, 1, 3>}
// LOWER-NEXT:    xnn.static_broadcast %{{.*}} {new_shape = array<i64: 1, 4, 3, 5, 2, 3>}
// LOWER-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 12, 10, 3>}
// LOWER-NEXT:    xnn.static_transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>}
func.func @aten_x3_by_output_size(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x12x10xf32> {
  %y = aten.upsample_nearest2d %x {output_size = array<i64: 12, 10>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x12x10xf32>
  func.return %y : tensor<1x3x12x10xf32>
}

// -----

// A non-integer scale: torch's index map floor(j / 1.5) = 0, 0, 1, 2, 2, 3 repeats every
// 3 outputs and 2 inputs, so the dim splits into [2, 2] and the inner 2 are gathered to 3
// by a slice and a concatenate (x0 | x0 x1), per dim.
// LOWER-LABEL: func.func @aten_non_integer_scale
// LOWER:         %[[T:.*]] = xnn.static_transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// LOWER-NEXT:    %[[S:.*]] = xnn.static_reshape %[[T]] {new_shape = array<i64: 1, 2, 2, 4, 3>}
// LOWER-NEXT:    %[[A:.*]] = xnn.static_slice %[[S]] {offsets = array<i64: 0, 0, 0, 0, 0>, sizes = array<i64: 1, 2, 1, 4, 3>}
// LOWER-NEXT:    %[[C:.*]] = xnn.concatenate %[[A]], %[[S]] {axis = 2 : i64} : (tensor<1x2x1x4x3xf32>, tensor<1x2x2x4x3xf32>) -> tensor<1x2x3x4x3xf32>
// LOWER-NEXT:    %[[H:.*]] = xnn.static_reshape %[[C]] {new_shape = array<i64: 1, 6, 4, 3>}
// LOWER-NEXT:    %[[S2:.*]] = xnn.static_reshape %[[H]] {new_shape = array<i64: 1, 6, 2, 2, 3>}
// LOWER-NEXT:    %[[A2:.*]] = xnn.static_slice %[[S2]] {offsets = array<i64: 0, 0, 0, 0, 0>, sizes = array<i64: 1, 6, 2, 1, 3>}
// LOWER-NEXT:    %[[C2:.*]] = xnn.concatenate %[[A2]], %[[S2]] {axis = 3 : i64} : (tensor<1x6x2x1x3xf32>, tensor<1x6x2x2x3xf32>) -> tensor<1x6x2x3x3xf32>
// LOWER-NEXT:    xnn.static_reshape %[[C2]] {new_shape = array<i64: 1, 6, 6, 3>}
func.func @aten_non_integer_scale(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32> {
  %y = aten.upsample_nearest2d %x {scale_factors = array<f64: 1.5, 1.5>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}

// -----

// An integer scale on one dim is its broadcast, a non-integer one on the other its gather.
// LOWER-LABEL: func.func @aten_mixed
// LOWER:         xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 5, 1, 4, 3>}
// LOWER-NEXT:    xnn.static_broadcast %{{.*}} {new_shape = array<i64: 1, 5, 2, 4, 3>}
// LOWER-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 10, 4, 3>}
// LOWER-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 10, 2, 2, 3>}
// LOWER-NEXT:    xnn.static_slice
// LOWER-NEXT:    xnn.concatenate %{{.*}}, %{{.*}} {axis = 3 : i64}
// LOWER-NEXT:    xnn.static_reshape %{{.*}} {new_shape = array<i64: 1, 10, 6, 3>}
func.func @aten_mixed(%x: tensor<1x3x5x4xf32>) -> tensor<1x3x10x6xf32> {
  %y = aten.upsample_nearest2d %x {scale_factors = array<f64: 2.0, 1.5>} : (tensor<1x3x5x4xf32>) -> tensor<1x3x10x6xf32>
  func.return %y : tensor<1x3x10x6xf32>
}

// -----

// A scale factor of 2.1 giving out = 2 * in: PyTorch's kernel then indexes with j // 2 (its
// out == 2 * in shortcut, not floor(j / 2.1)), so it is the x2 upsample.
// LOWER-LABEL: func.func @aten_scale_not_the_size_ratio
// LOWER:         xnn.concatenate %[[T:.*]], %[[T]], %[[T]], %[[T]] {axis = 3 : i64}
// LOWER-NEXT:    xnn.depth_to_space_2d %{{.*}} {{.*}}block_size = 2 : i64} : (tensor<1x5x5x12xf32>) -> tensor<1x10x10x3xf32>
func.func @aten_scale_not_the_size_ratio(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x10x10xf32> {
  %y = aten.upsample_nearest2d %x {scale_factors = array<f64: 2.1, 2.1>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x10x10xf32>
  func.return %y : tensor<1x3x10x10xf32>
}

// -----

// Left outside: 1.7 on 33 pixels has no period shorter than the whole map, which needs
// more than 16 slices.
// LOWER-LABEL: func.func @aten_too_many_slices
// LOWER-NOT:     xnn.subgraph
// LOWER:         aten.upsample_nearest2d
func.func @aten_too_many_slices(%x: tensor<1x3x33x33xf32>) -> tensor<1x3x56x56xf32> {
  %y = aten.upsample_nearest2d %x {scale_factors = array<f64: 1.7, 1.7>} : (tensor<1x3x33x33xf32>) -> tensor<1x3x56x56xf32>
  func.return %y : tensor<1x3x56x56xf32>
}

// -----

// Left alone: a symbolic width (whether the copies are faster is decided at one size).
// CHECK-LABEL: func.func @symbolic_width
// CHECK-NEXT:    xnn.static_reshape %x {xnn.declined = {"xnn-upsample-nearest" = "symbolic size T: its profitability is decided at one size"}
// CHECK-NEXT:    xnn.static_broadcast
// CHECK-NEXT:    xnn.static_reshape
func.func @symbolic_width(%x: tensor<1x4x?x3xf16, #xnnc.dims<"T">>) -> tensor<1x8x?x3xf16, #xnnc.dims<"2*T">> {
  %u = xnn.static_reshape %x {new_shape = array<i64: 1, 4, 1, 0, 1, 3>} : (tensor<1x4x?x3xf16, #xnnc.dims<"T">>) -> tensor<1x4x1x?x1x3xf16, #xnnc.dims<"T">>
  %b = xnn.static_broadcast %u {new_shape = array<i64: 1, 4, 2, 0, 2, 3>} : (tensor<1x4x1x?x1x3xf16, #xnnc.dims<"T">>) -> tensor<1x4x2x?x2x3xf16, #xnnc.dims<"T">>
  %y = xnn.static_reshape %b {new_shape = array<i64: 1, 8, 0, 3>} : (tensor<1x4x2x?x2x3xf16, #xnnc.dims<"T">>) -> tensor<1x8x?x3xf16, #xnnc.dims<"2*T">>
  func.return %y : tensor<1x8x?x3xf16, #xnnc.dims<"2*T">>
}
