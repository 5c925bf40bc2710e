"""`xnn-fold-channel-scale`: a multiply by a per-channel constant folds into the weights of the
convolution or fully-connected node next to it, and the snake activation is rewritten so that
its two scales do.

    %y = xnn.binary multiply %x, %s           // s: a constant along the channel (last) dim
    %z = xnn.convolution_2d %y, %w, %b        // y read by this node alone
  ==>
    %z = xnn.convolution_2d %x, %w * s[in], %b

    %x = xnn.convolution_2d %a, %w, %b        // x read by the multiply alone, no clamp
    %y = xnn.binary multiply %x, %s
  ==>
    %y = xnn.convolution_2d %a, %w * s[out], %b * s

Both are exact in real arithmetic: a node of this kind is linear in its input and its output
is linear in its filter and bias, and the zeros of its padding stay zeros when scaled. In
fp32 the folded product rounds once more (a relative 2^-24 per weight). The first fold also
reaches its node through transposes and reshapes read by nothing else, following the scaled
dim to the node's channel dim (conversion's NCL -> NLC -> N1LC chains, with a symbolic
length on one side).

Snake (DAC, BigVGAN: y = x + sin(a*x)^2 / a, `a` per channel, its reciprocal usually taken as
1 / (a + 1e-9)) is five passes over the activation: multiply, sine, square, multiply, add.
Written as y = b * (u + sin(u)^2) with u = a*x and b the reciprocal, its multiply by `b` folds
into the node reading y, and the multiply by `a` into the node producing x when nothing else
reads x: three passes remain (sine, square, add), four when x is read elsewhere too (a
residual stream). The rewrite takes the reciprocal as given: it needs b*a == 1 within 4 ulp
for every channel (so b*u == x to fp32 rounding), and applies only when y feeds a node the
first fold takes, so it never adds a pass. DAC's decoder at 1 thread spent ~12% of its time
in its snakes' elementwise nodes; the rewrite removes 42 of its 58 multiplies.

Does nothing on other element types than f32 (quantized tensors included), a multiply with a
fused clamp, a node with a fused clamp (for the output fold), weights that are not constants
with data, or a filter or bias other nodes read too (an unrolled LSTM's shared weights: the
fold would copy them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xnnc.dialects import xnn
from xnnc.dialects.types import ints, shape_of
from xnnc.dialects.xnn import BinaryOperator, UnaryOperator
from xnnc.ir.constants import (
    constant_op,
    constant_tensor,
    drop_constant,
    mapped_empty,
    replace_dropping_weights,
    weight_name,
    xnn_constant,
)
from xnnc.transforms.fold_pad import LAYOUT_OPS

LINEAR_NODES = (
    xnn.Convolution2dOp,
    xnn.DepthwiseConvolution2dOp,
    xnn.Deconvolution2dOp,
    xnn.FullyConnectedOp,
)
Linear = (
    xnn.Convolution2dOp
    | xnn.DepthwiseConvolution2dOp
    | xnn.Deconvolution2dOp
    | xnn.FullyConnectedOp
)
# b * a may differ from 1 by this much (relative) for the snake rewrite: fp32 rounding of
# 1 / (a + 1e-9) for every a the reciprocal's epsilon does not move.
SNAKE_ULPS = 4 * 2.0**-23


def _unclamped(op: xnn.ClampedNode) -> bool:
    return op.output_range() == (-math.inf, math.inf)


def channel_scale(mul: Operation) -> tuple[SSAValue, torch.Tensor, int] | None:
    """(x, s, axis) when `mul` is `x * s` (either order) without a clamp, x an f32 tensor and
    s a constant f32 that varies along one dim of x at most (`axis`, the last dim when s has
    one element); s is returned as a vector of that dim's size."""
    if not isinstance(mul, xnn.BinaryOp) or mul.kind.data != BinaryOperator.MULTIPLY:
        return None
    if not _unclamped(mul):
        return None
    for x, s in ((mul.input1, mul.input2), (mul.input2, mul.input1)):
        scale = constant_tensor(s)
        if scale is None or constant_op(x) is not None or x.type != mul.output.type:
            continue
        shape = shape_of(x)
        if x.type.element_type != f32 or scale.dtype != torch.float32 or not shape:
            return None
        if scale.dim() > len(shape):
            return None
        varying = [i for i, d in enumerate(scale.shape) if d != 1]
        axis = len(shape) - 1 if not varying else len(shape) - scale.dim() + varying[0]
        size = shape[axis]
        if len(varying) > 1 or not isinstance(size, int) or scale.numel() not in (1, size):
            return None
        return x, scale.reshape(-1).expand(size), axis
    return None


def _moved_axis(op: Operation, axis: int) -> int | None:
    """Where dim `axis` of a layout op's input is in its output (None: split or merged)."""
    if isinstance(op, xnn.StaticTransposeOp):
        return ints(op.perm).index(axis)
    before, after = shape_of(op.input), shape_of(op.output)
    # The dim keeps its size and the elements before it (or after it) keep their count: read
    # whichever side is static (a symbolic time axis sits on one side of the channels).
    for flip in (False, True):
        dims_in, dims_out = (before[::-1], after[::-1]) if flip else (before, after)
        at = len(before) - 1 - axis if flip else axis
        lead = dims_in[:at]
        if not all(isinstance(d, int) for d in (*lead, dims_in[at])):
            continue
        for j, d in enumerate(dims_out):
            if not all(isinstance(e, int) for e in dims_out[: j + 1]):
                break
            if math.prod(dims_out[:j]) == math.prod(lead) and d == dims_in[at]:
                return len(after) - 1 - j if flip else j
    return None


def _consumer(value: SSAValue, axis: int) -> Linear | None:
    """The linear node reading `value` (through transposes and reshapes read by nothing
    else) as its input, when nothing else reads it and dim `axis` of `value` becomes its
    channel dim."""
    while value.has_one_use():
        use = next(iter(value.uses))
        node = use.operation
        if isinstance(node, LAYOUT_OPS):
            moved = _moved_axis(node, axis)
            if moved is None:
                return None
            value, axis = node.output, moved
            continue
        if not isinstance(node, LINEAR_NODES) or use.index != 0:
            return None
        return node if axis == len(shape_of(value)) - 1 else None
    return None


def _weights(node: Linear) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    """The node's filter and bias tensors, when they are f32 constants with data."""
    if node.input.type.element_type != f32:
        return None
    w = constant_tensor(node.filter)
    b = None if node.bias is None else constant_tensor(node.bias)
    if w is None or w.dtype != torch.float32 or (node.bias is not None and b is None):
        return None
    # A filter other nodes read too (an unrolled LSTM's steps) would be copied: not folded.
    if not node.filter.has_one_use() or (node.bias is not None and not node.bias.has_one_use()):
        return None
    return w, b


def _mul(w: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """w * s (s broadcast), in pages of its own when large (`mapped_empty`)."""
    return torch.mul(w, s, out=mapped_empty(w.shape, w.dtype))


def _input_scaled(node: Linear, w: torch.Tensor, s: torch.Tensor) -> torch.Tensor | None:
    """`w` for input channels scaled by `s` (None when the layout does not match)."""
    if isinstance(node, xnn.FullyConnectedOp):
        if node.has_flag(xnn.FLAG_TRANSPOSE_WEIGHTS):
            return _mul(w, s[:, None]) if w.shape[0] == len(s) else None
        return _mul(w, s[None, :]) if w.shape[1] == len(s) else None
    if isinstance(node, xnn.DepthwiseConvolution2dOp):
        if node.input_channels.value.data != len(s):
            return None
        return _mul(w, s.repeat_interleave(node.depth_multiplier.value.data))
    groups, per_group = node.groups.value.data, node.group_input_channels.value.data
    if groups * per_group != len(s):
        return None
    out = w.shape[0] // groups
    grouped = w.reshape(groups, out, *w.shape[1:3], per_group)
    return _mul(grouped, s.reshape(groups, 1, 1, 1, per_group)).reshape(w.shape)


def _output_scaled(
    node: Linear, w: torch.Tensor, b: torch.Tensor | None, s: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    if isinstance(node, xnn.DepthwiseConvolution2dOp):
        if w.shape[-1] != len(s):
            return None
        w = _mul(w, s)
    elif isinstance(node, xnn.FullyConnectedOp) and node.has_flag(xnn.FLAG_TRANSPOSE_WEIGHTS):
        if w.shape[1] != len(s):
            return None
        w = _mul(w, s[None, :])
    else:
        if w.shape[0] != len(s):
            return None
        w = _mul(w, s.reshape(-1, *([1] * (w.dim() - 1))))
    return w, None if b is None else b * s


def _rebuilt(
    node: Linear, rewriter: PatternRewriter, x: SSAValue, w: torch.Tensor,
    b: torch.Tensor | None,
) -> Linear:  # fmt: skip
    """`node` on input `x` with filter `w` and bias `b` (new constants), replacing it."""
    filt = xnn_constant(w.contiguous(), weight_name(node.filter) + "_scaled", node.filter.type)
    rewriter.insert(filt, InsertPoint.before(node))
    bias = None
    if b is not None:
        new_bias = xnn_constant(b.contiguous(), weight_name(node.bias) + "_scaled", node.bias.type)
        rewriter.insert(new_bias, InsertPoint.before(node))
        bias = new_bias.output
    new = type(node).make(x, filt.output, bias, result_type=node.output.type, **node.properties)
    new.attributes.update(node.attributes)
    new.location = node.location
    rewriter.insert(new, InsertPoint.before(node))
    replace_dropping_weights(rewriter, node, new.output)
    return new


@dataclass(frozen=True)
class ScaleIntoConsumer(RewritePattern):
    """x * s read only by a convolution or fully-connected node: s scales its filter's input
    channels instead."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.BinaryOp, rewriter: PatternRewriter) -> None:
        found = channel_scale(op)
        node = None if found is None else _consumer(op.output, found[2])
        if node is None or (weights := _weights(node)) is None:
            return
        x, s, _ = found
        w = _input_scaled(node, weights[0], s)
        if w is None:
            return
        consts = _constants(op)
        rewriter.replace(op, [], [x])  # the layout ops between now read x
        _rebuilt(node, rewriter, node.input, w, weights[1])
        _drop_unused(consts, rewriter)


@dataclass(frozen=True)
class ScaleIntoProducer(RewritePattern):
    """A convolution or fully-connected node's output, read only by `* s`, without a clamp:
    s scales its filter's output channels and its bias instead."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.BinaryOp, rewriter: PatternRewriter) -> None:
        found = channel_scale(op)
        if found is None:
            return
        x, s, axis = found
        node = x.owner
        if not isinstance(node, LINEAR_NODES) or not x.has_one_use() or not _unclamped(node):
            return
        if axis != len(shape_of(x)) - 1:
            return
        weights = _weights(node)
        scaled = None if weights is None else _output_scaled(node, *weights, s)
        if scaled is None:
            return
        consts = _constants(op)
        new = _rebuilt(node, rewriter, node.input, *scaled)
        rewriter.replace(op, [], [new.output])
        _drop_unused(consts, rewriter)


def _constants(op: Operation) -> list[Operation]:
    return [c for v in op.operands if (c := constant_op(v)) is not None]


def _drop_unused(consts: list[Operation], rewriter: PatternRewriter) -> None:
    for const in consts:
        if const.parent is not None and not const.results[0].uses:
            drop_constant(rewriter, const)


def _single(value: SSAValue, kind: type[Operation]) -> Operation | None:
    owner = value.owner
    return owner if isinstance(owner, kind) and value.has_one_use() else None


@dataclass(frozen=True)
class SnakeAsScaledSum(RewritePattern):
    """x + b * sin(a * x)^2, with b the reciprocal of a and the sum read only by a node that
    takes a scale, as b * (a*x + sin(a*x)^2) (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.BinaryOp, rewriter: PatternRewriter) -> None:
        if op.kind.data != BinaryOperator.ADD or not _unclamped(op):
            return
        for x, t in ((op.input1, op.input2), (op.input2, op.input1)):
            scaled = _single(t, xnn.BinaryOp)
            found = None if scaled is None else channel_scale(scaled)
            if found is None:
                continue
            q, b, axis = found
            consumer = _consumer(op.output, axis)
            if consumer is None or _weights(consumer) is None:
                return
            square = _single(q, xnn.UnaryOp)
            if square is None or square.kind.data != UnaryOperator.SQUARE:
                continue
            sine = _single(square.input, xnn.UnaryOp)
            if sine is None or sine.kind.data != UnaryOperator.SINE:
                continue
            u = sine.input
            inner = channel_scale(u.owner) if isinstance(u.owner, xnn.BinaryOp) else None
            if inner is None or inner[0] is not x or inner[2] != axis:
                continue
            if not _reciprocal(b, inner[1]):
                continue
            summed = xnn.BinaryOp.make(u, q, result_type=op.output.type, kind=BinaryOperator.ADD)
            rewriter.insert(summed, InsertPoint.before(op))
            b_value = scaled.input1 if constant_op(scaled.input1) is not None else scaled.input2
            result = xnn.BinaryOp.make(
                summed.output, b_value, result_type=op.output.type, kind=BinaryOperator.MULTIPLY
            )
            for new in (summed, result):
                new.location = op.location
            rewriter.replace(op, result)
            rewriter.erase(scaled)
            return


def _reciprocal(b: torch.Tensor, a: torch.Tensor) -> bool:
    """b * a == 1 within SNAKE_ULPS for every channel, a finite and nonzero."""
    a64, b64 = a.double().numpy(), b.double().numpy()
    if not (np.isfinite(a64).all() and np.isfinite(b64).all()) or (a64 == 0).any():
        return False
    return bool((np.abs(a64 * b64 - 1) <= SNAKE_ULPS).all())


CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]] = {
    xnn.BinaryOp: (SnakeAsScaledSum(), ScaleIntoConsumer(), ScaleIntoProducer()),
}


@dataclass(frozen=True)
class FoldChannelScalePass(ModulePass):
    """Fold per-channel multiplies into the weights of the convolution or fully-connected
    node next to them; rewrite snake activations so that theirs fold."""

    name = "xnn-fold-channel-scale"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = list(CANONICALIZATION[xnn.BinaryOp])
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
