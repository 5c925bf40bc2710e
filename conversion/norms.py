"""Lowerings of the normalizations XNNPACK has no node for: layer norm, group norm, variance.

XNNPACK 92a7ad50 defines no normalization node (`include/xnnpack.h`: no layer/group/RMS
norm), so each is composed of node kinds stock ExecuTorch 1.5.1 also runs (the mean reduce
becomes a fully connected there, `xnn-legalize-stock`):

    mean = static_reduce mean x {axes, keep_dims}      d = x - mean
    var  = static_reduce mean square(d)               y = d * rsqrt(var + eps)   [* w + b]

Two passes over x, as torch's eager kernels make; d is computed once and serves both the
variance and the output. fp16 and bf16 inputs are normalized in fp32 between converts, as
torch accumulates them in fp32: rounding d or the variance to 8 bits of mantissa would lose
the precision the normalization exists to provide.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import f32
from xdsl.ir import Operation, SSAValue

from xnnc.conversion.aten_to_xnn import constant_data, lowering, prop_value, static_weights_refusal
from xnnc.dialects import aten, xnn
from xnnc.dialects.types import element_type, ints, shape_of
from xnnc.dialects.xnn import BinaryOperator as B
from xnnc.dialects.xnn import ReduceOperator as R
from xnnc.dialects.xnn import UnaryOperator as U
from xnnc.ir.constants import weight_name
from xnnc.ir.emitter import Emitter


def reduced_shape(shape: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
    """`shape` with the `axes` kept as 1s: the shape of a keep-dims reduction."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _mean(e: Emitter, x: SSAValue, axes: Sequence[int], keep: bool = True) -> SSAValue:
    shape = shape_of(x)
    out = reduced_shape(shape, axes) if keep else tuple(d for i, d in enumerate(shape)
                                                         if i not in axes)  # fmt: skip
    return e.node(xnn.StaticReduceOp, x, shape=out, kind=R.MEAN, axes=sorted(axes),
                  flags=xnn.FLAG_KEEP_DIMS if keep else 0)  # fmt: skip


def _deviation(e: Emitter, x: SSAValue, axes: Sequence[int]) -> tuple[SSAValue, SSAValue]:
    """(x - mean(x), mean((x - mean(x))^2)) over `axes`, the variance with keep-dims."""
    shape = shape_of(x)
    d = e.node(xnn.BinaryOp, x, _mean(e, x, axes), shape=shape, kind=B.SUBTRACT)
    return d, _mean(e, e.node(xnn.UnaryOp, d, shape=shape, kind=U.SQUARE), axes)


def normalize(e: Emitter, x: SSAValue, axes: Sequence[int], eps: float) -> SSAValue:
    """(x - mean) * rsqrt(var + eps) over `axes` (biased variance), in x's element type."""
    d, var = _deviation(e, x, axes)
    var = e.node(xnn.BinaryOp, var, e.scalar(eps, var), shape=shape_of(var), kind=B.ADD)
    rstd = e.node(xnn.UnaryOp, var, shape=shape_of(var), kind=U.RECIPROCAL_SQUARE_ROOT)
    return e.node(xnn.BinaryOp, d, rstd, shape=shape_of(x), kind=B.MULTIPLY)


def as_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """x, converted to fp32 unless it is."""
    if element_type(x) == f32:
        return x
    return e.node(xnn.ConvertOp, x, shape=shape_of(x), elem=f32)


def convert_like(e: Emitter, y: SSAValue, like: SSAValue) -> SSAValue:
    """y, converted to the element type of `like` unless it has it."""
    if element_type(y) == element_type(like):
        return y
    return e.node(xnn.ConvertOp, y, shape=shape_of(y), elem=element_type(like))


def _affine(e: Emitter, y: SSAValue, op: Operation, shape: Sequence[int]) -> SSAValue:
    """y * weight + bias, each (when present) an fp32 constant reshaped to `shape`."""
    for operand, kind in ((op.weight, B.MULTIPLY), (op.bias, B.ADD)):
        if operand is not None:
            const = e.const(
                constant_data(operand).float().reshape(shape), f"{weight_name(operand)}.f32"
            )
            y = e.node(xnn.BinaryOp, y, const, shape=shape_of(y), kind=kind)
    return y


def _check_norm(op: Operation) -> str | None:
    if op.mean.uses or op.rstd.uses:
        return "the mean or rstd result is used"
    return static_weights_refusal(op.weight, op.bias)


@lowering(aten.LayerNormOp, check=_check_norm)
def _layer_norm(op: aten.LayerNormOp, e: Emitter) -> Sequence[SSAValue | None]:
    """Normalized over the trailing len(normalized_shape) dims."""
    rank, norm = len(shape_of(op.input)), ints(op.normalized_shape)
    y = normalize(e, as_f32(e, op.input), range(rank - len(norm), rank), op.eps.value.data)
    return [convert_like(e, _affine(e, y, op, norm), op.input), None, None]


@lowering(aten.GroupNormOp, check=_check_norm)
def _group_norm(op: aten.GroupNormOp, e: Emitter) -> Sequence[SSAValue | None]:
    """[N, C, *] as [N, G, C / G, HxW], normalized over its last two dims, then per channel
    scaled as [N, C, HxW] against [C, 1] weights. The reshapes only split C and merge the
    spatial dims, which stay together in NHWC too, so xnn-layout moves the convolutions'
    transposes through them and the norm runs channels-last."""
    shape = shape_of(op.input)
    n, c, hxw, g = (a.value.data for a in (op.N, op.C, op.hxw, op.group))
    x = e.reshape(as_f32(e, op.input), (n, g, c // g, hxw))
    y = e.reshape(normalize(e, x, (2, 3), op.eps.value.data), (n, c, hxw))
    return [convert_like(e, e.reshape(_affine(e, y, op, (c, 1)), shape), op.input), None, None]


def _var_axes(op: aten.VarOp) -> list[int]:
    rank = len(shape_of(op.input))
    return sorted({d % rank for d in ints(op.dim)} or set(range(rank)))


def _check_var(op: aten.VarOp) -> str | None:
    if not shape_of(op.result):
        return "a 0-d result (XNNPACK gives reductions at least one dim)"
    count = 1
    for a in _var_axes(op):
        count *= shape_of(op.input)[a]
    if float(prop_value(op, "correction", 1)) >= count:
        return f"correction {prop_value(op, 'correction', 1)} leaves no degrees of freedom"
    return None


@lowering(aten.VarOp, check=_check_var)
def _var(op: aten.VarOp, e: Emitter) -> Sequence[SSAValue]:
    """mean((x - mean x)^2) * count / (count - correction)."""
    axes = _var_axes(op)
    x = as_f32(e, op.input)
    d = e.node(xnn.BinaryOp, x, _mean(e, x, axes), shape=shape_of(x), kind=B.SUBTRACT)
    square = e.node(xnn.UnaryOp, d, shape=shape_of(x), kind=U.SQUARE)
    var = _mean(e, square, axes, keep=bool(prop_value(op, "keepdim", False)))
    count = torch.Size(shape_of(op.input)[a] for a in axes).numel()
    correction = float(prop_value(op, "correction", 1))
    if correction:
        scale = e.scalar(count / (count - correction), var)
        var = e.node(xnn.BinaryOp, var, scale, shape=shape_of(var), kind=B.MULTIPLY)
    return [convert_like(e, var, op.input)]
