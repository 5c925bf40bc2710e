"""Lowerings of max, average and adaptive pooling to XNNPACK's pooling nodes.

    %y = aten.avg_pool2d %x {kernel [3,3], stride [2,2], padding [1,1], ceil_mode}
==> %t = xnn.static_transpose %x {perm [0,2,3,1]}
    %p = xnn.static_constant_pad %t {[0,1,1,0], [0,1,1,0]}      (count_include_pad only)
    %a = xnn.average_pooling_2d %p {3x3 / 2, padding bottom/right = ceil_mode's overhang}
    %y = xnn.static_transpose %a {perm [0,3,1,2]}

XNNPACK pads max pooling with -inf and leaves the padding out of an average's divisor, so:
- ceil_mode's last, partial window is XNNPACK padding at the bottom/right (`overhang`);
- count_include_pad=False is XNNPACK's padding; count_include_pad=True pads zeros first,
  so the zeros count, while the overhang (which PyTorch leaves out too) stays XNNPACK's;
- divisor_override rescales the window sum where every window is whole;
- adaptive pooling whose output divides the input is pooling with kernel = stride =
  input / output. Other adaptive windows overlap by varying amounts: outside (the reason
  in `_check_adaptive`).

XNNPACK 92a7ad50 has no qs8 average pooling (f16/f32 only), so a qs8 average is a qs8
depthwise convolution whose filter is all 1 at scale 1 / (window or divisor), per tensor:
the int32 accumulator sums the window exactly, the requantization divides, and the
convolution's padding is the input's zero point (real 0), counted as count_include_pad
counts it. Partial windows (ceil_mode's overhang, count_include_pad=False with padding)
would need a divisor per window: left float between converts (the reason in `_check_avg_pool`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

from xnnc.backend_xnnpack.dims import DimExpr, NotAffine
from xnnc.conversion.aten_to_xnn import lowering, prop_value
from xnnc.dialects import aten, xnn
from xnnc.dialects.quant import UniformQuantType, is_quantized
from xnnc.dialects.types import ints, shape_of
from xnnc.dialects.xnn import BinaryOperator as B
from xnnc.ir.emitter import Emitter


def _two(v: Sequence[int] | None, default: Sequence[int]) -> tuple[int, int]:
    v = list(v) if v else list(default)
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def overhang(size: int, kernel: int, stride: int, pad: int, dilation: int, out: int) -> int:
    """How far the last of `out` windows reaches past the padded input: the padding
    XNNPACK needs at the end to produce ceil_mode's last, partial window (0 without one)."""
    return max(0, (out - 1) * stride + dilation * (kernel - 1) + 1 - (size + 2 * pad))


class _Window:
    """A 2-D pooling op's window in XNNPACK's terms: kernel, stride, dilation, padding per
    side (top, bottom, left, right), with ceil_mode's overhang at the bottom and right."""

    def __init__(self, op: aten.MaxPool2dWithIndicesOp | aten.AvgPool2dOp, dilation=(1, 1)):
        self.kernel = _two(prop_value(op, "kernel_size"), ())
        self.stride = _two(prop_value(op, "stride"), self.kernel)
        self.pad = _two(prop_value(op, "padding"), (0,))
        self.dilation = dilation
        size, out = shape_of(op.input)[-2:], shape_of(op.result)[-2:]
        self.overhang = tuple(
            overhang(size[i], self.kernel[i], self.stride[i], self.pad[i], dilation[i], out[i])
            for i in range(2)
        )

    def params(self, pad: tuple[int, int]) -> dict[str, int]:
        (kh, kw), (sh, sw), (oh, ow) = self.kernel, self.stride, self.overhang
        return dict(pooling_height=kh, pooling_width=kw, stride_height=sh, stride_width=sw,
                    padding_top=pad[0], padding_bottom=pad[0] + oh, padding_left=pad[1],
                    padding_right=pad[1] + ow)  # fmt: skip


def _nhwc_shape(op: aten.MaxPool2dWithIndicesOp | aten.AvgPool2dOp) -> tuple[int, ...]:
    shape = shape_of(op.result)
    if len(shape) == 3:  # unbatched [C, H, W], pooled as one image
        return (1, *shape[1:], shape[0])
    n, c, oh, ow = shape
    return (n, oh, ow, c)


def _to_nhwc(x: SSAValue, e: Emitter) -> SSAValue:
    if len(shape_of(x)) == 3:
        c, h, w = shape_of(x)
        return e.transpose(e.reshape(x, (1, c, h, w)), (0, 2, 3, 1))
    return e.to_nhwc(x)


def _from_nhwc(y: SSAValue, rank: int, e: Emitter) -> SSAValue:
    if rank == 3:
        _, h, w, c = shape_of(y)
        return e.reshape(e.transpose(y, (0, 3, 1, 2)), (c, h, w))
    return e.from_nhwc(y, 4)


def _symbolic_window(op: aten.MaxPool2dWithIndicesOp | aten.AvgPool2dOp) -> str | None:
    """Why a window over symbolic sizes is not size-generic: XNNPACK computes the output
    size at run time from fixed padding, so ceil_mode's overhang must not depend on it."""
    try:
        window = _Window(op, _two(prop_value(op, "dilation"), (1,)))
    except NotAffine as e:
        return f"pooling whose partial last window depends on the size ({e})"
    if any(isinstance(o, DimExpr) for o in window.overhang):
        return "pooling whose partial last window depends on the size"
    return None


def _check_max_pool(op: aten.MaxPool2dWithIndicesOp) -> str | None:
    if op.indices.uses:
        return "pooling indices are used (XNNPACK's max pooling gives none)"
    return _symbolic_window(op)


@lowering(aten.MaxPool2dWithIndicesOp, check=_check_max_pool)
def _max_pool(op: aten.MaxPool2dWithIndicesOp, e: Emitter) -> Sequence[SSAValue | None]:
    d = _two(prop_value(op, "dilation"), (1,))
    window = _Window(op, d)
    y = e.node(xnn.MaxPooling2dOp, _to_nhwc(op.input, e), shape=_nhwc_shape(op),
               dilation_height=d[0], dilation_width=d[1], **window.params(window.pad))  # fmt: skip
    return [_from_nhwc(y, len(shape_of(op.input)), e), None]  # the indices are unused


def _check_avg_pool(op: aten.AvgPool2dOp) -> str | None:
    if (why := _symbolic_window(op)) is not None:
        return why
    if prop_value(op, "divisor_override") is not None and any(_Window(op).overhang):
        return "divisor_override with ceil_mode's partial windows (a divisor per window)"
    if is_quantized(op.result.type):
        return _qs8_avg_pool_reason(op)
    return None


def _qs8_avg_pool_reason(op: aten.AvgPool2dOp) -> str | None:
    window = _Window(op)
    if any(window.overhang):
        return "qs8 average pooling with ceil_mode's partial windows (a divisor per window)"
    if any(window.pad) and not prop_value(op, "count_include_pad", True):
        if prop_value(op, "divisor_override") is None:
            return "qs8 average pooling with count_include_pad=False (a divisor per window)"
    return None


def _qs8_average(
    op: aten.AvgPool2dOp | aten.AdaptiveAvgPool2dOp, x: SSAValue, e: Emitter, **window: int
) -> SSAValue:
    """The qs8 average of `x` (NHWC) as a depthwise convolution summing each window into
    int32 and requantizing by 1 / divisor (module docstring)."""
    kh, kw = window["kernel_height"], window["kernel_width"]
    divisor = prop_value(op, "divisor_override") or kh * kw
    c = shape_of(x)[3]
    q = UniformQuantType(IntegerType(8), [1.0 / divisor], storage_range=(-127, 127))
    ones = e.const(torch.ones(1, kh, kw, c, dtype=torch.int8), "avg_pool.ones",
                   TensorType(q, [1, kh, kw, c]))  # fmt: skip
    return e.node(xnn.DepthwiseConvolution2dOp, x, ones, None, shape=_nhwc_shape(op),
                  elem=op.result.type.element_type, input_channels=c, **window)  # fmt: skip


def _qs8_avg_pool(op: aten.AvgPool2dOp, x: SSAValue, e: Emitter) -> SSAValue:
    w = _Window(op)
    (kh, kw), (sh, sw), (ph, pw) = w.kernel, w.stride, w.pad
    return _qs8_average(op, x, e, kernel_height=kh, kernel_width=kw, subsampling_height=sh,
                        subsampling_width=sw, padding_top=ph, padding_bottom=ph,
                        padding_left=pw, padding_right=pw)  # fmt: skip


@lowering(aten.AvgPool2dOp, check=_check_avg_pool)
def _avg_pool(op: aten.AvgPool2dOp, e: Emitter) -> Sequence[SSAValue]:
    window = _Window(op)
    x = _to_nhwc(op.input, e)
    if is_quantized(op.result.type):
        return [_from_nhwc(_qs8_avg_pool(op, x, e), len(shape_of(op.input)), e)]
    divisor = prop_value(op, "divisor_override")
    pad = window.pad
    if any(pad) and (prop_value(op, "count_include_pad", True) or divisor is not None):
        # The zeros count in the divisor (or every window is whole, summed and rescaled).
        n, h, w, c = shape_of(x)
        x = e.node(xnn.StaticConstantPadOp, x, shape=(n, h + 2 * pad[0], w + 2 * pad[1], c),
                   pre_paddings=[0, pad[0], pad[1], 0], post_paddings=[0, pad[0], pad[1], 0],
                   padding_value=0.0)  # fmt: skip
        pad = (0, 0)
    y = e.node(xnn.AveragePooling2dOp, x, shape=_nhwc_shape(op), **window.params(pad))
    if divisor is not None:
        kh, kw = window.kernel
        y = e.node(xnn.BinaryOp, y, e.scalar(kh * kw / divisor, y), shape=shape_of(y),
                   kind=B.MULTIPLY)  # fmt: skip
    return [_from_nhwc(y, len(shape_of(op.input)), e)]


def adaptive_window(size: int, out: int) -> int | None:
    """Kernel (= stride) of adaptive pooling from `size` to `out`; None unless `out`
    divides `size`, when torch's windows [floor(i*size/out), ceil((i+1)*size/out)) are
    all that one window, stepped by itself."""
    return size // out if out and size % out == 0 else None


def _check_adaptive(op: aten.AdaptiveAvgPool2dOp | aten.AdaptiveMaxPool2dOp) -> str | None:
    if isinstance(op, aten.AdaptiveMaxPool2dOp) and op.indices.uses:
        return "pooling indices are used (XNNPACK's max pooling gives none)"
    size, out = shape_of(op.input)[-2:], ints(op.output_size)
    if tuple(out) == (1, 1) and isinstance(op, aten.AdaptiveAvgPool2dOp):
        if not is_quantized(op.result.type):
            return None  # global average pooling, of any size
    if any(isinstance(s, DimExpr) for s in size):
        return f"adaptive pooling of symbolic {list(size)} to {list(out)} (a window per size)"
    if any(adaptive_window(s, o) is None for s, o in zip(size, out)):
        return (
            f"adaptive pooling of {list(size)} to {list(out)}: the output does not divide the "
            "input, so torch's windows differ in size and overlap (XNNPACK pools one window)"
        )
    return None


@lowering(aten.AdaptiveAvgPool2dOp, aten.AdaptiveMaxPool2dOp, check=_check_adaptive)
def _adaptive_pool(
    op: aten.AdaptiveAvgPool2dOp | aten.AdaptiveMaxPool2dOp, e: Emitter
) -> Sequence[SSAValue | None]:
    rank = len(shape_of(op.input))
    x = _to_nhwc(op.input, e)
    n, h, w, c = shape_of(x)
    oh, ow = ints(op.output_size)
    quantized = is_quantized(op.result.type)
    if (oh, ow) == (1, 1) and isinstance(op, aten.AdaptiveAvgPool2dOp) and not quantized:
        # global pooling also takes symbolic sizes (no window to compute)
        y = e.node(xnn.GlobalAveragePooling2dOp, x, shape=(n, 1, 1, c), flags=xnn.FLAG_KEEP_DIMS)
        return [e.reshape(y, shape_of(op.result))]
    kh, kw = adaptive_window(h, oh), adaptive_window(w, ow)
    if isinstance(op, aten.AdaptiveAvgPool2dOp) and quantized:
        y = _qs8_average(op, x, e, kernel_height=kh, kernel_width=kw, subsampling_height=kh,
                         subsampling_width=kw)  # fmt: skip
        return [_from_nhwc(y, rank, e)]
    params = dict(pooling_height=kh, pooling_width=kw, stride_height=kh, stride_width=kw)
    if isinstance(op, aten.AdaptiveMaxPool2dOp):
        y = e.node(xnn.MaxPooling2dOp, x, shape=(n, oh, ow, c), **params)
        return [_from_nhwc(y, rank, e), None]  # the indices are unused
    y = e.node(xnn.AveragePooling2dOp, x, shape=(n, oh, ow, c), **params)
    return [_from_nhwc(y, rank, e)]
