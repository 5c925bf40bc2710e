"""`aten-recognize-matmul`: torch.matmul's decomposition of N-D operands raised back.

    %a3 = aten.view %a {[H, S, K]}       (through a no-op aten.expand)
    %b3 = aten.view %b {[H, K, S]}       ==>   %y = aten.matmul %a, %b : [1, H, S, S]
    %y3 = aten.bmm %a3, %b3
    %y  = aten.view %y3 {[1, H, S, S]}

XNNPACK's batch matrix multiply takes the batch dims as they are, so the views that fold
and unfold them are copies, and with a symbolic size they cannot be expressed at all: a view
of `[4, S, S]` as `[1, 4, S, S]` has two symbolic dims, and XNNPACK's reshape infers one.

Does nothing unless both operands are views (of no-op expands) of tensors of one rank >= 3
with equal batch dims whose product is the bmm's batch, and the bmm's only user views it
back to those batch dims.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.dialects import aten
from xnnc.dialects.types import shape_of
from xnnc.ir.raising import erase_unused, fused_location


def _unfolded(value: SSAValue) -> tuple[SSAValue, list[Operation]] | None:
    """(x, the ops between) when `value` is x viewed with its batch dims folded into one."""
    view = value.owner
    if not isinstance(view, aten.ViewOp):
        return None
    x, ops = view.input, [view]
    if isinstance(x.owner, aten.ExpandOp) and shape_of(x.owner.input) == shape_of(x):
        ops.append(x.owner)
        x = x.owner.input
    full, folded = shape_of(x), shape_of(value)
    if len(full) < 3 or full[-2:] != folded[-2:] or folded[0] != math.prod(full[:-2]):
        return None
    return x, ops


class RecognizeMatmul(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.BmmOp, rewriter: PatternRewriter) -> None:
        a, b = _unfolded(op.input), _unfolded(op.mat2)
        uses = list(op.result.uses)
        if a is None or b is None or len(uses) != 1:
            return
        (x, x_ops), (w, w_ops) = a, b
        out = uses[0].operation
        batch = shape_of(x)[:-2]
        if len(shape_of(x)) != len(shape_of(w)) or shape_of(w)[:-2] != batch:
            return
        if not isinstance(out, aten.ViewOp) or shape_of(out.result) != (
            *batch,
            *shape_of(op.result)[1:],
        ):
            return
        new = aten.MatmulOp.build(operands=[x, w], result_types=[out.result.type])
        new.location = fused_location([out, op, *x_ops, *w_ops])
        rewriter.replace(out, new)
        erase_unused(rewriter, [op, *x_ops, *w_ops])


@dataclass(frozen=True)
class RecognizeMatmulPass(ModulePass):
    """Raise torch.matmul's view -> bmm -> view decomposition to `aten.matmul`."""

    name = "aten-recognize-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([RecognizeMatmul()]), apply_recursively=False
        ).rewrite_module(op)
