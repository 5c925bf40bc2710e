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
has rank 1; a clamp is fused with no bias to carry it; the filter's memory is read by other
nodes too (an unrolled LSTM's steps), recorded as the rule's "fc": XNNPACK 92a7ad50 packs a
batch matmul's constant into the operator, outside the weights cache, so each node would
hold its own packed copy (75 steps x 2 layers x 4 MiB on EnCodec) where the fully-connected
nodes share one.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f16, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.backend_xnnpack.nodes import FLAG_TRANSPOSE_B, FLAG_TRANSPOSE_WEIGHTS
from xnnc.cost.decision import Decision, decide, record, record_moved, recorded
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import STREAMING_ROWS, LinearLayer
from xnnc.dialects import xnn
from xnnc.dialects.types import element_type, shape_of
from xnnc.dialects.weights import WeightAttr
from xnnc.dialects.xnn import BinaryOperator
from xnnc.ir.constants import constant_op
from xnnc.ir.emitter import Emitter

FORM = "fc-or-bmm"


def _finite(bound: float | None) -> float | None:
    return None if bound is None or abs(bound) == float("inf") else bound


def linear_layer(op: xnn.FullyConnectedOp) -> LinearLayer:
    x, y = shape_of(op.input), shape_of(op.output)
    return LinearLayer(str(element_type(op.output)), math.prod(x[:-1]), x[-1], y[-1])


def rewritable(op: xnn.FullyConnectedOp) -> bool:
    """Whether the pass has a decision to make about `op` (the module docstring)."""
    types = {element_type(v) for v in (op.input, op.filter, op.output)}
    if len(types) != 1 or types.pop() not in (f32, f16) or recorded(op, "bf16-gemm"):
        return False
    if constant_op(op.filter) is None or len(shape_of(op.input)) < 2:
        return False
    lo, hi = op.output_range()
    return op.bias is not None or (_finite(lo) is None and _finite(hi) is None)


def tunable(op: xnn.FullyConnectedOp) -> bool:
    """Whether the tuner times `op`'s forms: a decision to make, over at least
    `STREAMING_ROWS` rows (fewer read their weights once a call: `cost.rules.fc_or_bmm`)."""
    rows = linear_layer(op).rows
    return rewritable(op) and not (isinstance(rows, int) and rows < STREAMING_ROWS)


Memory = tuple[int, int]  # a weight's (address, bytes): what serialization shares


def _memory(value: SSAValue) -> Memory | None:
    """Where a constant weight's bytes are, if it has them (not an elided or dense one)."""
    attr = constant_op(value).properties.get("value")  # type: ignore[union-attr]
    if not isinstance(attr, WeightAttr) or not attr.data.has_data:
        return None
    view = attr.data.raw()
    return (np.frombuffer(view, dtype=np.uint8).ctypes.data, view.nbytes) if view.nbytes else None


def readers(module: Operation) -> Counter[Memory]:
    """How many operands read each weight's memory, over every constant in `module`."""
    counts: Counter[Memory] = Counter()
    for op in module.walk():
        if isinstance(op, xnn.ConstantOp) and (memory := _memory(op.results[0])) is not None:
            counts[memory] += len(list(op.results[0].uses))
    return counts


@dataclass(frozen=True, eq=False)
class FullyConnectedAsBatchMatmul(RewritePattern):
    """A fully-connected layer as a batch matmul with a constant right-hand side (+ bias).
    `readers`: how many operands read each weight's memory (`readers`)."""

    readers: Counter[Memory] = field(default_factory=Counter)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.FullyConnectedOp, rewriter: PatternRewriter) -> None:
        if not rewritable(op):
            return
        layer = linear_layer(op)
        decision = decide(op, layer)
        shared = self.readers[_memory(op.filter)]  # 0 for None
        if decision.choice == "bmm" and shared > 1:
            why = (f"its filter is read by {shared} nodes: XNNPACK packs a batch matmul's "
                   "constant once per node")  # fmt: skip
            decision = Decision(FORM, "fc", "rule", layer.key(), why)
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
    # The layers of its form, for `xnn-tune` (`cost.forms`).
    form_layers: ClassVar = FormLayers(
        lambda op: isinstance(op, xnn.FullyConnectedOp) and tunable(op),
        linear_layer,  # type: ignore[arg-type]
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = FullyConnectedAsBatchMatmul(readers(op))
        walker = PatternRewriteWalker(GreedyRewritePatternApplier([pattern]))
        walker.rewrite_module(op)
