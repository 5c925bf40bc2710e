"""The smallest `aten` IR of each op docs/op-coverage.md reports on, which
`tools/op_coverage.py` compiles to read what the op becomes.

A fixture is a function `@f` whose result `%y` is the op's (constants beside it are fine).
Ops with one `input` operand and ones with `input` and `other` get theirs from the op's
fields (`unary`, `binary`); `NAMED` has the others, keyed by op name, and `REWRITTEN` the
`aten.generic` overloads an `aten`-level pass rewrites into ops that lower, keyed by the
overload. Values are f32 and shapes static: the page reports the common case, and each
lowering's own check says when it declines.
"""

from __future__ import annotations

X = "tensor<1x4x8x8xf32>"


def fixture(args: str, body: str, result: str) -> str:
    return f"func.func @f({args}) -> {result} {{\n{body}\n  func.return %y : {result}\n}}\n"


def unary(name: str) -> str:
    return fixture(f"%x: {X}", f"  %y = aten.{name} %x : ({X}) -> {X}", X)


def binary(name: str, scalar: bool, rounding: bool) -> str:
    attrs = ", ".join(
        (["scalar = 3.0 : f64"] if scalar else [])
        + (['rounding_mode = "trunc"'] if rounding else [])
    )
    attrs = f" {{{attrs}}}" if attrs else ""
    if scalar:
        return fixture(f"%x: {X}", f"  %y = aten.{name} %x{attrs} : ({X}) -> {X}", X)
    return fixture(f"%x: {X}, %o: {X}", f"  %y = aten.{name} %x, %o{attrs} : ({X}, {X}) -> {X}", X)


def _one(op: str, attrs: str, result: str, source: str = X) -> str:
    return fixture(f"%x: {source}", f"  %y = {op} %x {{{attrs}}} : ({source}) -> {result}", result)


_W = "tensor<8x4x3x3xf32>"
_B8 = "tensor<8xf32>"
_C4 = "tensor<4xf32>"
_L = "tensor<2x5x16xf32>"
_S = "tensor<1x4x16xf32>"  # a signal: [N, C, W]

NAMED: dict[str, str] = {
    "aten.convolution": fixture(
        f"%x: {X}",
        f"  %w = aten.constant dense<0.5> : {_W}\n  %b = aten.constant dense<0.1> : {_B8}\n"
        "  %y = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, "
        "1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, "
        f"groups = 1 : i64}} : ({X}, {_W}, {_B8}) -> tensor<1x8x8x8xf32>",
        "tensor<1x8x8x8xf32>",
    ),
    "aten.constant_pad_nd": _one(
        "aten.constant_pad_nd", "pad = array<i64: 1, 2>, value = 0.5 : f32", "tensor<1x4x8x11xf32>"
    ),
    "aten.reflection_pad1d": _one(
        "aten.reflection_pad1d", "padding = array<i64: 2, 2>", "tensor<1x4x20xf32>", _S
    ),
    "aten.reflection_pad2d": _one(
        "aten.reflection_pad2d", "padding = array<i64: 1, 1, 2, 2>", "tensor<1x4x12x10xf32>"
    ),
    "aten.replication_pad1d": _one(
        "aten.replication_pad1d", "padding = array<i64: 2, 2>", "tensor<1x4x20xf32>", _S
    ),
    "aten.replication_pad2d": _one(
        "aten.replication_pad2d", "padding = array<i64: 1, 1, 1, 1>", "tensor<1x4x10x10xf32>"
    ),
    "aten._pad_circular": _one(
        "aten._pad_circular", "pad = array<i64: 2, 1>", "tensor<1x4x8x11xf32>"
    ),
    "aten.clamp": _one("aten.clamp", "min = 0.0 : f32, max = 6.0 : f32", X),
    "aten.prelu": fixture(
        f"%x: {X}",
        f"  %w = aten.constant dense<0.25> : {_C4}\n  %y = aten.prelu %x, %w : ({X}, {_C4}) -> {X}",
        X,
    ),
    "aten.where": fixture(
        f"%c: tensor<1x4x8x8xi1>, %x: {X}, %o: {X}",
        f"  %y = aten.where %c, %x, %o : (tensor<1x4x8x8xi1>, {X}, {X}) -> {X}",
        X,
    ),
    "aten.linear": fixture(
        f"%x: {_L}",
        "  %w = aten.constant dense<0.5> : tensor<8x16xf32>\n"
        f"  %b = aten.constant dense<0.1> : {_B8}\n"
        f"  %y = aten.linear %x, %w, %b : ({_L}, tensor<8x16xf32>, {_B8}) -> tensor<2x5x8xf32>",
        "tensor<2x5x8xf32>",
    ),
    "aten.addmm": fixture(
        "%a: tensor<4x16xf32>",
        "  %b = aten.constant dense<0.5> : tensor<16x8xf32>\n"
        f"  %c = aten.constant dense<0.1> : {_B8}\n"
        f"  %y = aten.addmm %c, %a, %b : ({_B8}, tensor<4x16xf32>, tensor<16x8xf32>) -> "
        "tensor<4x8xf32>",
        "tensor<4x8xf32>",
    ),
    "aten.mm": fixture(
        "%a: tensor<4x16xf32>, %b: tensor<16x8xf32>",
        "  %y = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>",
        "tensor<4x8xf32>",
    ),
    "aten.bmm": fixture(
        "%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>",
        "  %y = aten.bmm %a, %b : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>",
        "tensor<2x4x8xf32>",
    ),
    "aten.mean": _one(
        "aten.mean", "dim = array<i64: -1, -2>, keepdim = true", "tensor<1x4x1x1xf32>"
    ),
    "aten.sum": _one("aten.sum", "dim = array<i64: 1>", "tensor<1x8x8xf32>"),
    "aten.amax": _one("aten.amax", "dim = array<i64: -1>", "tensor<1x4x8xf32>"),
    "aten.var": _one(
        "aten.var",
        "dim = array<i64: -1>, correction = 1 : i64, keepdim = true",
        "tensor<1x4x8x1xf32>",
    ),
    "aten._softmax": _one("aten._softmax", "dim = 1 : i64, half_to_float = false", X),
    "aten._log_softmax": _one("aten._log_softmax", "dim = -1 : i64, half_to_float = false", X),
    "aten._safe_softmax": _one("aten._safe_softmax", "dim = -1 : i64", X),
    "aten._native_batch_norm_legit_no_training": fixture(
        f"%x: {X}",
        "".join(f"  %{v} = aten.constant dense<0.5> : {_C4}\n" for v in "wbmv")
        + f"  %y, %sm, %sr = aten._native_batch_norm_legit_no_training %x : {X} weight %w : {_C4}"
        f" bias %b : {_C4} mean %m : {_C4} var %v : {_C4} {{momentum = 0.1 : f64, eps = 1.0e-05 "
        f": f64}} -> {X}, tensor<0xf32>, tensor<0xf32>",
        X,
    ),
    "aten.native_layer_norm": fixture(
        f"%x: {_L}",
        "  %w = aten.constant dense<2.0> : tensor<16xf32>\n"
        "  %b = aten.constant dense<0.5> : tensor<16xf32>\n"
        f"  %y, %m, %r = aten.native_layer_norm %x : {_L} weight %w : tensor<16xf32> bias %b : "
        "tensor<16xf32> {normalized_shape = array<i64: 16>, eps = 1.0e-05 : f64} -> "
        f"{_L}, tensor<2x5x1xf32>, tensor<2x5x1xf32>",
        _L,
    ),
    "aten.native_group_norm": fixture(
        f"%x: {_S}",
        f"  %y, %m, %r = aten.native_group_norm %x : {_S} {{N = 1 : i64, C = 4 : i64, hxw = 16 "
        f": i64, group = 2 : i64, eps = 1.0e-05 : f64}} -> {_S}, tensor<1x2xf32>, tensor<1x2xf32>",
        _S,
    ),
    "aten.embedding": fixture(
        "%i: tensor<2x5xi64>",
        "  %w = aten.constant dense<0.5> : tensor<100x16xf32>\n"
        "  %y = aten.embedding %w, %i : (tensor<100x16xf32>, tensor<2x5xi64>) -> "
        "tensor<2x5x16xf32>",
        "tensor<2x5x16xf32>",
    ),
    "aten.max_pool2d_with_indices": fixture(
        f"%x: {X}",
        "  %y, %i = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = "
        "array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = "
        f"false}} : ({X}) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)",
        "tensor<1x4x4x4xf32>",
    ),
    "aten.avg_pool2d": _one(
        "aten.avg_pool2d",
        "kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, "
        "ceil_mode = false, count_include_pad = true",
        "tensor<1x4x4x4xf32>",
    ),
    "aten._adaptive_avg_pool2d": _one(
        "aten._adaptive_avg_pool2d", "output_size = array<i64: 1, 1>", "tensor<1x4x1x1xf32>"
    ),
    "aten.adaptive_max_pool2d": fixture(
        f"%x: {X}",
        f"  %y, %i = aten.adaptive_max_pool2d %x {{output_size = array<i64: 4, 4>}} : ({X}) -> "
        "(tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)",
        "tensor<1x4x4x4xf32>",
    ),
    "aten.upsample_nearest1d": _one(
        "aten.upsample_nearest1d", "scale_factors = array<f64: 2.0>", "tensor<1x4x32xf32>", _S
    ),
    "aten.upsample_nearest2d": _one(
        "aten.upsample_nearest2d", "output_size = array<i64: 16, 16>", "tensor<1x4x16x16xf32>"
    ),
    "aten.upsample_bilinear2d": _one(
        "aten.upsample_bilinear2d",
        "scale_factors = array<f64: 2.0, 2.0>, align_corners = false",
        "tensor<1x4x16x16xf32>",
    ),
    "aten.pixel_shuffle": _one(
        "aten.pixel_shuffle", "upscale_factor = 2 : i64", "tensor<1x1x16x16xf32>"
    ),
    "aten.pixel_unshuffle": _one(
        "aten.pixel_unshuffle", "downscale_factor = 2 : i64", "tensor<1x16x4x4xf32>"
    ),
    "aten.view": _one("aten.view", "size = array<i64: 1, -1>", "tensor<1x256xf32>"),
    "aten.permute": _one(
        "aten.permute", "dims = array<i64: 0, 2, 3, 1>", X.replace("4x8x8", "8x8x4")
    ),
    "aten.squeeze": _one("aten.squeeze", "dim = array<i64: 0>", "tensor<4x8x8xf32>"),
    "aten.unsqueeze": _one("aten.unsqueeze", "dim = -1 : i64", "tensor<1x4x8x8x1xf32>"),
    "aten.expand": _one(
        "aten.expand", "size = array<i64: 2, -1, 4>", "tensor<2x3x4xf32>", "tensor<1x3x1xf32>"
    ),
    "aten.slice": _one(
        "aten.slice", "dim = 1 : i64, start = 1 : i64, end = 3 : i64", "tensor<1x2x8x8xf32>"
    ),
    "aten.select": _one("aten.select", "dim = 1 : i64, index = 2 : i64", "tensor<1x8x8xf32>"),
    "aten.flip": _one("aten.flip", "dims = array<i64: -1>", X),
    "aten.cat": fixture(
        f"%x: {X}, %o: {X}",
        f"  %y = aten.cat %x, %o {{dim = 1 : i64}} : ({X}, {X}) -> tensor<1x8x8x8xf32>",
        "tensor<1x8x8x8xf32>",
    ),
    "aten.split_with_sizes": fixture(
        f"%x: {X}",
        "  %y, %z = aten.split_with_sizes %x {split_sizes = array<i64: 1, 3>, dim = 1 : i64} : "
        f"({X}) -> (tensor<1x1x8x8xf32>, tensor<1x3x8x8xf32>)",
        "tensor<1x1x8x8xf32>",
    ),
    "aten._to_copy": _one("aten._to_copy", "dtype = f16", X.replace("f32", "f16")),
    "aten._to_dim_order_copy": _one(
        "aten._to_dim_order_copy",
        "dtype = f16, dim_order = array<i64: 0, 1, 2, 3>",
        X.replace("f32", "f16"),
    ),
}

_FRAMES = "tensor<2x7x16xf32>"
# Frame f's sample j at 4·f + j, shifted by 2: what torch.istft's overlap-add indexes.
_POSITIONS = ", ".join(str(2 + 4 * f + j) for f in range(6) for j in range(8))

REWRITTEN: dict[str, str] = {
    "aten::index.Tensor": fixture(
        f"%x: {X}",
        "  %i = aten.constant dense<[0, 0, 1, 2, 3, 3]> : tensor<6xi64>\n"
        '  %y = aten.generic "aten::index.Tensor"(%x, %i) {args = [#aten.operand<0>, [none, '
        f"#aten.operand<1>]]}} : ({X}, tensor<6xi64>) -> tensor<1x6x8x8xf32>",
        "tensor<1x6x8x8xf32>",
    ),
    "aten::unfold": fixture(
        "%x: tensor<2x40xf32>",
        '  %y = aten.generic "aten::unfold"(%x) {args = [#aten.operand<0>, -1, 16, 4]} : '
        f"(tensor<2x40xf32>) -> {_FRAMES}",
        _FRAMES,
    ),
    "aten::index_put": fixture(
        "%f: tensor<1x48xf32>",
        "  %z = aten.constant dense<0.0> : tensor<1x32xf32>\n"
        f"  %i = aten.constant dense<[{_POSITIONS}]> : tensor<48xi64>\n"
        '  %y = aten.generic "aten::index_put"(%z, %i, %f) {args = [#aten.operand<0>, [none, '
        "#aten.operand<1>], #aten.operand<2>, true]} : (tensor<1x32xf32>, tensor<48xi64>, "
        "tensor<1x48xf32>) -> tensor<1x32xf32>",
        "tensor<1x32xf32>",
    ),
    "aten::_fft_r2c": fixture(
        "%x: tensor<4x16xf32>",
        '  %s = aten.generic "aten::_fft_r2c"(%x) {args = [#aten.operand<0>, [1], 0, true]} : '
        "(tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>\n"
        "  %y = aten.abs %s : (tensor<4x9xcomplex<f32>>) -> tensor<4x9xf32>",
        "tensor<4x9xf32>",
    ),
    "aten::_fft_c2r": fixture(
        "%re: tensor<3x5xf32>, %im: tensor<3x5xf32>",
        '  %z = aten.generic "aten::complex"(%re, %im) {args = [#aten.operand<0>, '
        "#aten.operand<1>]} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xcomplex<f32>>\n"
        '  %y = aten.generic "aten::_fft_c2r"(%z) {args = [#aten.operand<0>, [1], 2, 8]} : '
        "(tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>",
        "tensor<3x8xf32>",
    ),
    "aten::_fft_c2c": fixture(
        "%re: tensor<3x8xf32>, %im: tensor<3x8xf32>",
        '  %z = aten.generic "aten::complex"(%re, %im) {args = [#aten.operand<0>, '
        "#aten.operand<1>]} : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xcomplex<f32>>\n"
        '  %s = aten.generic "aten::_fft_c2c"(%z) {args = [#aten.operand<0>, [1], 0, true]} : '
        "(tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>\n"
        '  %y = aten.generic "aten::view_as_real"(%s) {args = [#aten.operand<0>]} : '
        "(tensor<3x8xcomplex<f32>>) -> tensor<3x8x2xf32>",
        "tensor<3x8x2xf32>",
    ),
    # What `decompose` keeps of a static LSTM: `xnnc::lstm` (frontend/symbolic_lstm.py).
    "aten::lstm.input": fixture(
        "%x: tensor<3x1x2xf32>",
        "  %wi = aten.constant dense<0.25> : tensor<8x2xf32>\n"
        "  %wh = aten.constant dense<0.5> : tensor<8x2xf32>\n"
        "  %bi = aten.constant dense<0.125> : tensor<8xf32>\n"
        "  %bh = aten.constant dense<0.125> : tensor<8xf32>\n"
        "  %h0 = aten.constant dense<0.0> : tensor<1x1x2xf32>\n"
        "  %c0 = aten.constant dense<0.0> : tensor<1x1x2xf32>\n"
        '  %y, %h, %c = aten.generic "xnnc::lstm"(%x, %h0, %c0, %wi, %wh, %bi, %bh) {args = '
        "[#aten.operand<0>, [#aten.operand<1>, #aten.operand<2>], [#aten.operand<3>, "
        "#aten.operand<4>, #aten.operand<5>, #aten.operand<6>], true, 1 : i64, 0.0 : f64, false, "
        "false, false]} : (tensor<3x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, "
        "tensor<8x2xf32>, tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<3x1x2xf32>, "
        "tensor<1x1x2xf32>, tensor<1x1x2xf32>)",
        "tensor<3x1x2xf32>",
    ),
}
