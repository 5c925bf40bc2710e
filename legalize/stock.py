"""`xnn-legalize-stock`: rewrite xnn ops that encode to xnnc-only node kinds into ops stock
ExecuTorch 1.5.1 can run.

    xnn.depth_to_space_2d %x {block_size = b}   ==>  reshape [N,H,W,b,b,C] ; transpose
                                                      [0,1,3,2,4,5] ; reshape [N,H*b,W*b,C]
    xnn.space_to_depth_2d %x {block_size = b}   ==>  reshape [N,H/b,b,W/b,b,C] ; transpose
                                                      [0,1,3,2,4,5] ; reshape [N,H/b,W/b,b*b*C]
    xnn.static_reduce mean/sum %x {axes}        ==>  (transpose axes last) ; reshape [M, K] ;
                                                      fully_connected with a [1, K] filter of
                                                      1/K (mean) or 1 (sum) ; reshape
    xnn.static_broadcast %x                     ==>  xnn.binary add %x, zeros(output shape)

Left alone: everything stock already has. Max/min reductions and the xnnc-only unary and
binary operators have no stock equivalent: serializing them for `stock` fails with a message.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.conversion.emitter import Emitter
from xnnc.dialects import xnn
from xnnc.dialects.xnn import ReduceOperator
from xnnc.frontend.schema import TORCH_DTYPES
from xnnc.ir.types import element_type, ints, shape_of


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


class ReduceAsFullyConnected(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReduceOp, rewriter: PatternRewriter) -> None:
        kind = op.kind.data
        if kind not in (ReduceOperator.MEAN, ReduceOperator.SUM):
            return
        x = shape_of(op.input)
        axes = sorted({a % len(x) for a in ints(op.axes)})
        kept = [d for d in range(len(x)) if d not in axes]
        e = Emitter(rewriter, op)
        value = op.input
        if kept + axes != list(range(len(x))):
            value = e.transpose(value, kept + axes)
        k = 1
        for a in axes:
            k *= x[a]
        m = 1
        for d in kept:
            m *= x[d]
        value = e.reshape(value, (m, k))
        scale = 1.0 / k if kind == ReduceOperator.MEAN else 1.0
        filt = torch.full((1, k), scale, dtype=TORCH_DTYPES[element_type(op.input)])
        value = e.node(
            xnn.FullyConnectedOp, value, e.const(filt, "reduce.filter"), None, shape=(m, 1)
        )
        rewriter.replace(op, [], [e.reshape(value, shape_of(op.output))])


class BroadcastAsAdd(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticBroadcastOp, rewriter: PatternRewriter) -> None:
        e = Emitter(rewriter, op)
        shape = shape_of(op.output)
        dtype = TORCH_DTYPES[element_type(op.input)]
        zeros = e.const(torch.zeros(shape, dtype=dtype), "broadcast.zeros")
        rewriter.replace(op, [], [e.node(xnn.BinaryOp, op.input, zeros, shape=shape,
                                         kind=xnn.BinaryOperator.ADD)])  # fmt: skip


STOCK_PATTERNS = (
    DepthToSpaceAsTranspose(),
    SpaceToDepthAsTranspose(),
    ReduceAsFullyConnected(),
    BroadcastAsAdd(),
)


@dataclass(frozen=True)
class LegalizeStockPass(ModulePass):
    """Rewrite xnnc-only node kinds into ones stock ExecuTorch 1.5.1 runs."""

    name = "xnn-legalize-stock"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(STOCK_PATTERNS))).rewrite_module(op)
