"""`xnn-legalize-stock`: rewrite xnn ops that encode to xnnc-only node kinds into ops stock
ExecuTorch 1.5.1 can run.

    xnn.depth_to_space_2d %x {block_size = b}   ==>  reshape [N,H,W,b,b,C] ; transpose
                                                      [0,1,3,2,4,5] ; reshape [N,H*b,W*b,C]
    xnn.space_to_depth_2d %x {block_size = b}   ==>  reshape [N,H/b,b,W/b,b,C] ; transpose
                                                      [0,1,3,2,4,5] ; reshape [N,H/b,W/b,b*b*C]
    xnn.static_reduce mean %x {axes}, kept dims ==>  reshape [A, K, 1, C] ;
      after the first reduced ones                    global_average_pooling_2d ; reshape
                                                      (a mean over what remains)
    xnn.static_reduce mean/sum %x {axes}        ==>  (transpose axes last) ; reshape [M, K] ;
                                                      fully_connected with a [1, K] filter of
                                                      1/K (mean) or 1 (sum) ; reshape
    xnn.static_broadcast %x                     ==>  xnn.binary add %x, zeros(output shape)
    xnn.static_reduce max/min %x {axes}         ==>  (transpose axes first) ; reshape [1,1,K,M] ;
                                                      max_pooling_2d 1xK ; reshape (min: negated
                                                      before and after)
    xnn.unary approxgelu %x                     ==>  x * sigmoid(x * (a + b * x^2))
    xnn.binary pow %x, n (a scalar constant)    ==>  multiplications (whole n), clamp to
                                                      [1, 1] (n = 0), else exp(n * log x)

Left alone: everything stock already has. The other xnnc-only unary and binary operators
have no stock equivalent: serializing them for `stock` fails with a message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.cost.decision import declined
from xnnc.dialects import xnn
from xnnc.dialects.quant import UniformQuantType, is_quantized
from xnnc.dialects.types import element_type, ints, shape_of
from xnnc.dialects.xnn import BinaryOperator, ReduceOperator, UnaryOperator
from xnnc.ir.constants import constant_tensor
from xnnc.ir.dtypes import TORCH_DTYPES
from xnnc.ir.emitter import Emitter

REWRITE = "xnn-legalize-stock"
_NO_REDUCE = "and stock ExecuTorch has no reduce node"


def _blocks_as_transpose(op: Operation, rewriter: PatternRewriter, six_d: tuple) -> None:
    """Depth-to-space and space-to-depth (block-major) as reshape to `six_d`, a swap of its
    dims 2 and 3, and a reshape to the op's output."""
    e = Emitter(rewriter, op)
    x = e.transpose(e.reshape(op.input, six_d), (0, 1, 3, 2, 4, 5))
    rewriter.replace(op, [], [e.reshape(x, shape_of(op.output))])


class DepthToSpaceAsTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.DepthToSpace2dOp, rewriter: PatternRewriter) -> None:
        n, h, w, c = shape_of(op.input)
        b = op.block_size.value.data
        _blocks_as_transpose(op, rewriter, (n, h, w, b, b, c // (b * b)))


class SpaceToDepthAsTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.SpaceToDepth2dOp, rewriter: PatternRewriter) -> None:
        n, h, w, c = shape_of(op.input)
        b = op.block_size.value.data
        _blocks_as_transpose(op, rewriter, (n, h // b, b, w // b, b, c))


def _reduction(op: xnn.StaticReduceOp) -> tuple[list[int], list[int], int, int]:
    """(reduced axes, kept dims, K values reduced per result, M results)."""
    x = shape_of(op.input)
    axes = sorted({a % len(x) for a in ints(op.axes)})
    kept = [d for d in range(len(x)) if d not in axes]
    return axes, kept, math.prod(x[a] for a in axes), math.prod(x[d] for d in kept)


def pooled_block(dims: Sequence[tuple[int, bool]]) -> tuple[int, int] | None:
    """Of `dims` ((size, reduced) each, sizes > 1), the block [i, j) of reduced dims global
    average pooling takes, with the dims after it as channels: the first reduced run when
    kept dims follow it; else, of a trailing run of 2+ dims, all but its last (left for a
    short mean). None when only one trailing dim is reduced."""
    i = next((k for k, (_, r) in enumerate(dims) if r), None)
    if i is None:
        return None
    j = next((k for k in range(i, len(dims)) if not dims[k][1]), len(dims))
    if j < len(dims):
        return i, j
    return (i, j - 1) if j - i >= 2 else None


class MeanAsGlobalAveragePooling(RewritePattern):
    """A mean as stock's global average pooling, without a transpose: NHWC
    [before, K, 1, after] with the `after` values as channels. Reduced dims that remain
    stay a mean over the much smaller result, for the patterns here (the mean of
    equal-sized means is the mean).

        static_reduce mean [A, K, C] {axes [1]}  ==>  reshape [A, K, 1, C] ;
                                                       global_average_pooling_2d ; reshape
    Does nothing for a mean over one trailing dim (a [M, K] x [1, K] fully_connected)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReduceOp, rewriter: PatternRewriter) -> None:
        if op.kind.data != ReduceOperator.MEAN:
            return
        axes = _reduction(op)[0]
        dims = [(d, i in axes) for i, d in enumerate(shape_of(op.input)) if d != 1]
        block = pooled_block(dims)
        if block is None and any(r and isinstance(d, DimExpr) for d, r in dims):
            # One trailing symbolic dim: no [1, K] filter has its size; pool it, one channel.
            block = (next(n for n, (_, r) in enumerate(dims) if r), len(dims))
        if block is None:
            return
        i, j = block
        before, k = math.prod(d for d, _ in dims[:i]), math.prod(d for d, _ in dims[i:j])
        after = math.prod(d for d, _ in dims[j:])
        if sum(isinstance(d, DimExpr) for d in (before, k, after)) > 1:
            declined(op, REWRITE, "the pooled view [A, K, 1, C] would have two symbolic dims, "
                     "and XNNPACK's reshape infers one")  # fmt: skip
            return
        e = Emitter(rewriter, op)
        value = e.reshape(op.input, (before, k, 1, after))
        value = e.node(xnn.GlobalAveragePooling2dOp, value, shape=(before, 1, 1, after),
                       flags=xnn.FLAG_KEEP_DIMS)  # fmt: skip
        rest = dims[:i] + dims[j:]
        value = e.reshape(value, [d for d, _ in rest] or [1])
        left = [n for n, (_, r) in enumerate(rest) if r]
        if left:
            value = e.node(xnn.StaticReduceOp, value, shape=[d for d, r in rest if not r] or [1],
                           kind=ReduceOperator.MEAN, axes=left, flags=0)  # fmt: skip
        rewriter.replace(op, [], [e.reshape(value, shape_of(op.output))])


class ReduceAsFullyConnected(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReduceOp, rewriter: PatternRewriter) -> None:
        kind = op.kind.data
        if kind not in (ReduceOperator.MEAN, ReduceOperator.SUM):
            return
        axes, kept, k, m = _reduction(op)
        if isinstance(k, DimExpr):
            why = "the [1, K] filter of a fully-connected node has a fixed K"
            declined(op, REWRITE, f"a {kind.value} over it: {why}, {_NO_REDUCE}")
            return
        e = Emitter(rewriter, op)
        value = op.input
        x = shape_of(value)
        if [d for d in kept + axes if x[d] != 1] != [d for d in range(len(x)) if x[d] != 1]:
            value = e.transpose(value, kept + axes)
        value = e.reshape(value, (m, k))
        scale = 1.0 / k if kind == ReduceOperator.MEAN else 1.0
        if is_quantized(op.input.type):
            # qs8: a filter of ones whose (per-tensor, symmetric) scale is the 1/K.
            filt = torch.ones((1, k), dtype=torch.int8)
            filt_type = TensorType(UniformQuantType(IntegerType(8), [scale]), [1, k])
            filt_value = e.const(filt, "reduce.filter", filt_type)
        else:
            filt = torch.full((1, k), scale, dtype=TORCH_DTYPES[element_type(op.input)])
            filt_value = e.const(filt, "reduce.filter")
        value = e.node(xnn.FullyConnectedOp, value, filt_value, None, shape=(m, 1),
                       elem=element_type(op.output))  # fmt: skip
        rewriter.replace(op, [], [e.reshape(value, shape_of(op.output))])


class BroadcastAsAdd(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticBroadcastOp, rewriter: PatternRewriter) -> None:
        e = Emitter(rewriter, op)
        shape = shape_of(op.output)
        dtype = TORCH_DTYPES[element_type(op.input)]
        # A broadcast keeps a symbolic dim (new_shape 0): the zeros take 1 there.
        zeros_shape = [1 if isinstance(d, DimExpr) else d for d in shape]
        zeros = e.const(torch.zeros(zeros_shape, dtype=dtype), "broadcast.zeros")
        rewriter.replace(op, [], [e.node(xnn.BinaryOp, op.input, zeros, shape=shape,
                                         kind=xnn.BinaryOperator.ADD)])  # fmt: skip


class ReduceMaxAsMaxPooling(RewritePattern):
    """A max (or, negated, min) over the reduced dims as one max-pooling window: NHWC
    [1, 1, K, M] with the M kept values as channels, so the window slides over K rows of M
    contiguous values. Exact: a max only picks one of its inputs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReduceOp, rewriter: PatternRewriter) -> None:
        kind = op.kind.data
        if kind not in (ReduceOperator.MAX, ReduceOperator.MIN):
            return
        x = shape_of(op.input)
        axes, kept, k, m = _reduction(op)
        if isinstance(k, DimExpr):
            why = "a max-pooling window has a fixed size"
            declined(op, REWRITE, f"a {kind.value} over it: {why}, {_NO_REDUCE}")
            return
        e = Emitter(rewriter, op)
        if k == 1:  # nothing to reduce (and XNNPACK's max pooling wants a window of 2+)
            value = e.node(xnn.CopyOp, op.input, shape=x)
            rewriter.replace(op, [], [e.reshape(value, shape_of(op.output))])
            return
        value = op.input
        if [d for d in axes + kept if x[d] != 1] != [d for d in range(len(x)) if x[d] != 1]:
            value = e.transpose(value, axes + kept)
        value = e.reshape(value, (1, 1, k, m))
        if kind == ReduceOperator.MIN:
            value = _negate(e, value)
        value = e.node(xnn.MaxPooling2dOp, value, shape=(1, 1, 1, m), pooling_height=1,
                       pooling_width=k)  # fmt: skip
        if kind == ReduceOperator.MIN:
            value = _negate(e, value)
        rewriter.replace(op, [], [e.reshape(value, shape_of(op.output))])


def _negate(e: Emitter, x: SSAValue) -> SSAValue:
    return e.node(xnn.UnaryOp, x, shape=shape_of(x), kind=UnaryOperator.NEGATE)


# gelu_tanh(x) = x * (1 + tanh(z)) / 2 = x * sigmoid(2z), z = sqrt(2/pi) * (x + 0.044715 x^3)
_GELU_A = 2 * math.sqrt(2 / math.pi)
_GELU_B = _GELU_A * 0.044715


class ApproxGeluAsSigmoid(RewritePattern):
    """tanh-approximated GELU (`xnn.unary approxgelu`, an XNNUnary) from stock kinds:
    x * sigmoid(x * (a + b * x^2)). Its sigmoid form also avoids 1 + tanh(z)'s cancellation
    for negative x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.UnaryOp, rewriter: PatternRewriter) -> None:
        if op.kind.data != UnaryOperator.APPROXGELU:
            return
        e = Emitter(rewriter, op)
        x, shape = op.input, shape_of(op.output)

        def binary(a: SSAValue, b: SSAValue, kind: BinaryOperator) -> SSAValue:
            return e.node(xnn.BinaryOp, a, b, shape=shape, kind=kind)

        square = e.node(xnn.UnaryOp, x, shape=shape, kind=UnaryOperator.SQUARE)
        poly = binary(binary(square, e.scalar(_GELU_B, x), BinaryOperator.MULTIPLY),
                      e.scalar(_GELU_A, x), BinaryOperator.ADD)  # fmt: skip
        z = binary(poly, x, BinaryOperator.MULTIPLY)
        gate = e.node(xnn.UnaryOp, z, shape=shape, kind=UnaryOperator.SIGMOID)
        rewriter.replace(op, [], [binary(x, gate, BinaryOperator.MULTIPLY)])


class PowAsStockKinds(RewritePattern):
    """`xnn.binary pow` by a scalar constant exponent n (stock has no XNNPACK binary pow):
    n a whole number up to 64 in size -> multiplications by repeated squaring (a division
    of 1 by it for n < 0), as torch's CPU kernel computes integer powers; n = 0 -> a clamp
    to [1, 1] (1 everywhere, as torch gives); any other n -> exp(n * log(x)) (torch's powf
    within a few ulp of n * log(x); NaN for x < 0, 0 or inf at x = 0, like powf). A tensor
    exponent is left alone (serializing it for stock fails with a message)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.BinaryOp, rewriter: PatternRewriter) -> None:
        if op.kind.data != BinaryOperator.POW:
            return
        exponent = constant_tensor(op.input2)
        if exponent is None or exponent.numel() != 1:
            return
        n = float(exponent.reshape(()).float())
        e = Emitter(rewriter, op)
        x, shape = op.input1, shape_of(op.output)
        if shape_of(x) != shape:
            return  # a broadcasting pow: leave it

        def binary(a: SSAValue, b: SSAValue, kind: BinaryOperator) -> SSAValue:
            return e.node(xnn.BinaryOp, a, b, shape=shape, kind=kind)

        if n == 0:
            result = e.node(xnn.ClampOp, x, shape=shape, output_min=1.0, output_max=1.0)
        elif n.is_integer() and abs(n) <= 64:
            result = _power(x, int(abs(n)), lambda a, b: binary(a, b, BinaryOperator.MULTIPLY))
            if n < 0:
                result = binary(e.scalar(1.0, x), result, BinaryOperator.DIVIDE)
        else:
            log = e.node(xnn.UnaryOp, x, shape=shape, kind=UnaryOperator.LOG)
            scaled = binary(log, e.scalar(n, x), BinaryOperator.MULTIPLY)
            result = e.node(xnn.UnaryOp, scaled, shape=shape, kind=UnaryOperator.EXP)
        rewriter.replace(op, [], [result])


def _power(x: SSAValue, n: int, multiply: Callable[[SSAValue, SSAValue], SSAValue]) -> SSAValue:
    """x ** n (n >= 1) by repeated squaring: about 2 log2(n) multiplications."""
    result, square = None, x
    while True:
        if n & 1:
            result = square if result is None else multiply(result, square)
        n >>= 1
        if not n:
            return result
        square = multiply(square, square)


STOCK_PATTERNS = (
    DepthToSpaceAsTranspose(),
    SpaceToDepthAsTranspose(),
    MeanAsGlobalAveragePooling(),
    ReduceAsFullyConnected(),
    ReduceMaxAsMaxPooling(),
    BroadcastAsAdd(),
    ApproxGeluAsSigmoid(),
    PowAsStockKinds(),
)


@dataclass(frozen=True)
class LegalizeStockPass(ModulePass):
    """Rewrite xnnc-only node kinds into ones stock ExecuTorch 1.5.1 runs."""

    name = "xnn-legalize-stock"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(STOCK_PATTERNS))).rewrite_module(op)
