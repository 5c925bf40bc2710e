"""`xnn-fuse-activation`: an `xnn.clamp` (relu, relu6, hardtanh, clamp) folds into the
output_min/output_max of the node that produces its input, so XNNPACK clamps while it writes
the output instead of reading and writing the tensor again.

Conversion puts the clamp after the transpose (and reshape, in 1-D) that brings a conv's NHWC
result back to PyTorch's layout, and xnn-polyphase ends a deconv in depth_to_space + slice.
A clamp is elementwise, so it commutes with ops that only move or drop elements:
clamp(transpose(conv)) is transpose(clamp(conv)), and the clamp fuses through such a chain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, f32
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.dialects import xnn
from xnnc.dialects.xnn import BinaryOperator
from xnnc.transforms.fold_pad import through_layout

Range = tuple[float, float]

# Ops that only move or drop elements: an elementwise clamp commutes with them.
ELEMENT_MOVES = (
    xnn.StaticTransposeOp,
    xnn.StaticReshapeOp,
    xnn.DepthToSpace2dOp,
    xnn.StaticSliceOp,
)

# The nodes whose define call takes output_min/output_max and computes something (a clamp
# after a clamp merges too).
PRODUCERS = (
    xnn.Convolution2dOp,
    xnn.DepthwiseConvolution2dOp,
    xnn.Deconvolution2dOp,
    xnn.FullyConnectedOp,
    xnn.BinaryOp,
    xnn.ClampOp,
)


# Binary nodes whose stock ExecuTorch 1.5.1 define call takes no output range
# (`xnn_define_minimum2`, `xnn_define_maximum2`, `xnn_define_prelu`): a clamp fused into
# one would be dropped on the stock runtime, so it stays a node of its own there.
STOCK_UNCLAMPED = (BinaryOperator.MINIMUM, BinaryOperator.MAXIMUM, BinaryOperator.PRELU)


def intersect(a: Range, b: Range) -> Range | None:
    """clamp(clamp(x, a), b) == clamp(x, a & b) when the ranges overlap; None otherwise
    (the result would be a constant, which XNNPACK's bounds cannot express)."""
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else None


def bounds(r: Range) -> dict[str, float | None]:
    """output_min/output_max parameters; an infinite bound is left absent."""
    return {
        "output_min": r[0] if math.isfinite(r[0]) else None,
        "output_max": r[1] if math.isfinite(r[1]) else None,
    }


class FuseClampIntoProducer(RewritePattern):
    """
        %y = xnn.convolution_2d %x, %w                      %y = xnn.convolution_2d %x, %w
        %t = xnn.static_transpose %y {perm = [0,3,1,2]}  ==>       {output_min = 0.0}
        %r = xnn.clamp %t {output_min = 0.0}                %t = xnn.static_transpose %y ...

    The producer is a conv, depthwise conv, deconv, fully_connected, binary op or clamp;
    bounds it already has are intersected with the clamp's. Does nothing when the producer
    or an op of the chain (transposes, reshapes, depth_to_space, slices) has another user,
    when there is a chain and `through_layout` is off, or when the ranges do not overlap.
    """

    def __init__(self, through_layout: bool = True):
        self.through_layout = through_layout

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.ClampOp, rewriter: PatternRewriter) -> None:
        source, chain = through_layout(op.input, ELEMENT_MOVES)
        producer = source.owner
        if chain and not self.through_layout:
            return
        if not isinstance(producer, PRODUCERS) or not source.has_one_use():
            return
        if (
            isinstance(producer, xnn.BinaryOp)
            and producer.kind.data in STOCK_UNCLAMPED
            and xnn.target_of(op).runtime == "stock"
        ):
            return
        fused = intersect(producer.output_range(), op.output_range())
        if fused is None:
            return
        new = producer.clone()
        for name, value in bounds(fused).items():
            if value is None:
                new.properties.pop(name, None)
            else:
                new.properties[name] = FloatAttr(value, f32)
        rewriter.replace(producer, new)
        rewriter.replace(op, [], [op.input])


CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]] = {
    xnn.ClampOp: (FuseClampIntoProducer(),),
}


@dataclass(frozen=True)
class FuseActivationPass(ModulePass):
    """Fuse clamps into the output bounds of the nodes that produce their inputs.

    through_layout: also through the transposes, reshapes, depth_to_spaces and slices
    between them."""

    name = "xnn-fuse-activation"
    through_layout: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = FuseClampIntoProducer(through_layout=self.through_layout)
        PatternRewriteWalker(GreedyRewritePatternApplier([pattern])).rewrite_module(op)
