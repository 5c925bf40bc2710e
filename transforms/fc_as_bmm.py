"""`xnn-fc-as-bmm`: a fully-connected layer with a constant filter as a batch matmul whose
right-hand side is that constant (XNNPACK packs it once, as it does the filter).

    %y = xnn.fully_connected %x, %w, %b : ([M..., K], [N, K], [N]) -> [M..., N]
  ==>
    %p = xnn.batch_matrix_multiply %x, %w {flags = XNN_FLAG_TRANSPOSE_B}  // [N, K] broadcast
    %y = xnn.binary add %p, %b                                            // clamp kept here

The two forms are the two xnnc emits for a matrix product (conversion: `fully_connected`
where the right-hand side is constant, `batch_matrix_multiply` where it is not). Which one
runs faster is the cost model's decision per layer ("fc" or "bmm"; `xnn.decision` on the op,
by `xnn-tune{form=fc-or-bmm}`), else the static rule `cost.rules.fc_or_bmm` (the
fully-connected node everywhere); the pass records the decision it followed on the op
computing the result.

Does nothing when: the decision is "fc"; the layer is not fp32 or fp16 throughout (bf16
GEMMs have their own decision, `xnn-legalize-casts`); the filter is not a constant; the input
has rank 1; a clamp is fused with no bias to carry it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f16, f32
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.backend_xnnpack.nodes import FLAG_TRANSPOSE_B, FLAG_TRANSPOSE_WEIGHTS
from xnnc.conversion.constants import constant_op
from xnnc.conversion.emitter import Emitter
from xnnc.cost.decision import decide, linear_layer, record, record_moved, recorded
from xnnc.dialects import xnn
from xnnc.dialects.xnn import BinaryOperator
from xnnc.ir.types import element_type, shape_of

FORM = "fc-or-bmm"


def _finite(bound: float | None) -> float | None:
    return None if bound is None or abs(bound) == float("inf") else bound


def rewritable(op: xnn.FullyConnectedOp) -> bool:
    """Whether the pass has a decision to make about `op` (the module docstring)."""
    types = {element_type(v) for v in (op.input, op.filter, op.output)}
    if len(types) != 1 or types.pop() not in (f32, f16) or recorded(op, "bf16-gemm"):
        return False
    if constant_op(op.filter) is None or len(shape_of(op.input)) < 2:
        return False
    lo, hi = op.output_range()
    return op.bias is not None or (_finite(lo) is None and _finite(hi) is None)


class FullyConnectedAsBatchMatmul(RewritePattern):
    """A fully-connected layer as a batch matmul with a constant right-hand side (+ bias)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.FullyConnectedOp, rewriter: PatternRewriter) -> None:
        if not rewritable(op):
            return
        decision = decide(op, linear_layer(op))
        if decision.choice == "fc":
            record(op, decision)
            return
        # The filter is [N, K] (bmm's B transposed) unless the FC takes it transposed.
        transposed = op.flags.value.data & FLAG_TRANSPOSE_WEIGHTS
        e = Emitter(rewriter, op)
        shape = shape_of(op.output)
        y = e.node(xnn.BatchMatrixMultiplyOp, op.input, op.filter, shape=shape,
                   flags=0 if transposed else FLAG_TRANSPOSE_B)  # fmt: skip
        if op.bias is not None:
            lo, hi = op.output_range()
            y = e.node(xnn.BinaryOp, y, op.bias, shape=shape, kind=BinaryOperator.ADD,
                       output_min=_finite(lo), output_max=_finite(hi))  # fmt: skip
        record_moved(op, y.owner, decision)  # type: ignore[arg-type]
        rewriter.replace(op, [], [y])


@dataclass(frozen=True)
class FcAsBmmPass(ModulePass):
    """Fully-connected layers as batch matmuls where the cost model chooses "bmm"."""

    name = "xnn-fc-as-bmm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier([FullyConnectedAsBatchMatmul()]))
        walker.rewrite_module(op)
