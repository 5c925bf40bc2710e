// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn | filecheck %s
// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn | xnn-opt | filecheck %s
// RUN: xnn-opt %s -p xnn-partition,convert-aten-to-xnn,canonicalize -t xnnpack -o %t.xnn
// RUN: %python -c "import sys; from xnnc.backend_xnnpack.blob import read_blob; b = read_blob(open(sys.argv[1], 'rb').read()); print(sorted(set(b.node_kinds)))" %t.xnn | filecheck %s --check-prefix=BLOB
// RUN: xnn-opt %s -p 'xnn-set-target{target=stock},xnn-partition,convert-aten-to-xnn' | filecheck %s --check-prefix=STOCK

// Reflect and replicate pads of a symbolic dim (conversion/aten_to_xnn.py: _pad_mode): the
// pieces at the far end start a fixed distance before it, an xnn.static_slice offset < 0
// (XNNPACK's v3 begin: the extended runtime's XNNStaticSliceV3); the near end's pieces and
// the static dims keep absolute offsets. Channels-last, like the convolutions they feed.
// CHECK-LABEL: func.func @pads
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 2, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32>
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, 1, 0>, sizes = array<i64: 1, 1, 4>}
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, -2, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32>
// CHECK:         xnn.concatenate {{.*}} -> tensor<1x?x4xf32, #xnnc.dims<"T + 3">>
// The replicate pad's right edge: one element starting 1 before the end, three times.
// CHECK:         xnn.static_slice %{{.*}} {offsets = array<i64: 0, -1, 0>, sizes = array<i64: 1, 1, 4>} : (tensor<1x?x4xf32, #xnnc.dims<"T">>) -> tensor<1x1x4xf32>
// CHECK:         xnn.concatenate {{.*}} -> tensor<1x?x4xf32, #xnnc.dims<"T + 3">>
// CHECK-NOT:     aten.
// CHECK:         func.return

// After canonicalize the transposes cancel (the slices sink through them, offsets < 0 too).
// BLOB: ['XNNConcatenate4', 'XNNStaticSlice', 'XNNStaticSliceV3']

// Stock ExecuTorch's XNNStaticSlice has unsigned offsets: the pads stay outside.
// STOCK-LABEL: func.func @pads
// STOCK:         aten.reflection_pad1d
// STOCK:         aten.replication_pad1d
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [4, 64]>} {
  func.func @pads(%x: tensor<1x4x?xf32, #xnnc.dims<"T">>) -> (tensor<1x4x?xf32, #xnnc.dims<"T + 3">>, tensor<1x4x?xf32, #xnnc.dims<"T + 3">>) {
    %a = aten.reflection_pad1d %x {padding = array<i64: 2, 1>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T + 3">>
    %b = aten.replication_pad1d %x {padding = array<i64: 0, 3>} : (tensor<1x4x?xf32, #xnnc.dims<"T">>) -> tensor<1x4x?xf32, #xnnc.dims<"T + 3">>
    func.return %a, %b : tensor<1x4x?xf32, #xnnc.dims<"T + 3">>, tensor<1x4x?xf32, #xnnc.dims<"T + 3">>
  }
}
