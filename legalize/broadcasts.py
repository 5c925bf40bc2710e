"""`xnn-legalize-broadcasts`: a broadcast that feeds a binary node moves below it when the
binary node's other operand does not cover the broadcast shape.

    %b = xnn.static_broadcast %x {new_shape = [1, 3, 8, 2, 8, 2]}   (x: 1x3x8x1x8x1)
    %y = xnn.binary multiply %b, %c                                  (c: 1)
  ==>
    %m = xnn.binary multiply %x, %c : 1x3x8x1x8x1
    %y = xnn.static_broadcast %m {new_shape = [1, 3, 8, 2, 8, 2]}

XNNPACK 92a7ad50's subgraph optimizer drops a static broadcast whose consumer is a binary
node (the binary node broadcasts its inputs itself), so the binary node computes the shape
of its un-broadcast inputs: 1x3x8x1x8x1 above, which the runtime reports as a shape
mismatch (or XNNPACK as an invalid reshape further down). Elementwise operators commute
with broadcasting, so computing first and broadcasting after is exact, and cheaper. Runs
for both runtimes (the stock legalization then turns the broadcast into an add of zeros),
after every rewrite that may create a broadcast.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.nodes import broadcast_drop_misshapes
from xnnc.backend_xnnpack.shapes import broadcast_shapes
from xnnc.dialects import xnn
from xnnc.dialects.types import shape_of, tensor_type
from xnnc.ir.rebuild import rebuilt


def _source(value: SSAValue) -> SSAValue:
    """The input of the broadcast computing `value`, else `value`."""
    owner = value.owner
    return owner.input if isinstance(owner, xnn.StaticBroadcastOp) else value


class SinkBroadcastBelowBinary(RewritePattern):
    """binary(broadcast(x), y) -> broadcast(binary(x, y)) where XNNPACK's dropping of the
    broadcast would change the binary node's shape (either operand may be the broadcast)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.BinaryOp, rewriter: PatternRewriter) -> None:
        a, b = _source(op.input1), _source(op.input2)
        if (a, b) == (op.input1, op.input2):
            return
        out = shape_of(op.output)
        if not broadcast_drop_misshapes([shape_of(a), shape_of(b)], out):
            return  # XNNPACK's own broadcasting gives the same shape
        inner = broadcast_shapes(shape_of(a), shape_of(b))
        if inner is None:
            return
        # "0 keeps the input's dim": the only way to name a symbolic size in new_shape.
        new_shape = []
        for i, d in enumerate(out):
            j = i - (len(out) - len(inner))
            if not isinstance(d, DimExpr):
                new_shape.append(d)
            elif j >= 0 and inner[j] == d:
                new_shape.append(0)
            else:
                return  # a 1 broadcast to a symbolic size: not expressible
        assert isinstance(op.output.type, TensorType)
        binary = rebuilt(
            op, operands=[a, b], result_types=[tensor_type(op.output.type.element_type, inner)]
        )
        broadcast = xnn.StaticBroadcastOp.make(
            binary.results[0], result_type=op.output.type, new_shape=new_shape
        )
        broadcast.location = op.location
        dropped = {v.owner for v in (op.input1, op.input2) if _source(v) is not v}
        rewriter.replace_op(op, [binary, broadcast], [broadcast.output])
        for old in dropped:
            if not old.output.uses:
                rewriter.erase_op(old)


@dataclass(frozen=True)
class LegalizeBroadcastsPass(ModulePass):
    """Move broadcasts below the binary nodes XNNPACK would otherwise compute wrong."""

    name = "xnn-legalize-broadcasts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SinkBroadcastBelowBinary()).rewrite_module(op)
