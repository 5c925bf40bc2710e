"""`aten-recognize-safe-softmax`: the masked-softmax guard, decomposed, back to
`aten._safe_softmax`.

    %p = aten._softmax %s {dim = -1}
    %e = aten.generic "aten::eq.Scalar"(%s) {-inf}
    %n = aten.generic "aten::logical_not"(%e)
    %a = aten.generic "aten::any.dim"(%n) {-1, keepdim}     ==>   %y = aten._safe_softmax %s
    %m = aten.generic "aten::logical_not"(%a)                           {dim = -1}
    %z = aten.generic "aten::full_like"(%p) {0}
    %y = aten.where %m, %z, %p

The decomposition of `_safe_softmax` (SDPA's math path, MultiheadAttention) gives this: a
softmax whose rows that are all -inf come out 0 instead of NaN. Its booleans have no
XNNPACK type; `_safe_softmax` has an exact XNNPACK lowering (`conversion.safe_softmax`).
The new op's location fuses the seven it replaces, so an ExecuTorch partitioner that maps
ops back to FX nodes by location (`XnncPartitioner`) tags them all.

Does nothing unless every piece matches: eq against -inf on the softmax's own input, `any`
over the softmax's dim with keepdim, a zero fill, and the guard values used only here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, NoneAttr
from xdsl.ir import Attribute, Operation, SSAValue
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


def _generic(value: SSAValue, target: str) -> aten.GenericOp | None:
    """value's producer when it is `aten.generic` of `target` with one use (this guard)."""
    op = value.owner
    if isinstance(op, aten.GenericOp) and op.target.data == target and value.has_one_use():
        return op
    return None


def _number(attr: Attribute) -> float | None:
    return float(attr.value.data) if isinstance(attr, (IntegerAttr, FloatAttr)) else None


def _args(op: aten.GenericOp) -> list[Attribute]:
    return list(op.args.data)


def _row_test(cond: SSAValue, scores: SSAValue, dim: int) -> list[Operation] | None:
    """[logical_not, any, logical_not, eq] when cond = !any(!(scores == -inf), dim)."""
    outer = _generic(cond, "aten::logical_not")
    any_ = outer and _generic(outer.inputs[0], "aten::any.dim")
    inner = any_ and _generic(any_.inputs[0], "aten::logical_not")
    eq = inner and _generic(inner.inputs[0], "aten::eq.Scalar")
    if eq is None or eq.inputs[0] != scores or _number(_args(eq)[1]) != -math.inf:
        return None
    rank = len(shape_of(scores))
    any_args = _args(any_)
    if len(any_args) < 3 or _number(any_args[1]) is None or not _number(any_args[2]):
        return None  # no keepdim: the where would not broadcast row-wise
    if int(_number(any_args[1])) % rank != dim:
        return None
    return [outer, any_, inner, eq]


def _zero_fill(value: SSAValue, like: SSAValue) -> aten.GenericOp | None:
    fill = _generic(value, "aten::full_like")
    if fill is None or fill.inputs[0] != like or _number(_args(fill)[1]) != 0:
        return None
    dtype = fill.kwargs.data.get("dtype")
    if dtype is not None and not isinstance(dtype, NoneAttr) and dtype != value.type.element_type:
        return None
    return fill


class RecognizeSafeSoftmax(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.WhereOp, rewriter: PatternRewriter) -> None:
        softmax = op.other.owner
        if not isinstance(softmax, aten.SoftmaxOp) or softmax.half_to_float.value.data:
            return
        scores = softmax.input
        dim = softmax.dim.value.data % len(shape_of(scores))
        guard = _row_test(op.condition, scores, dim)
        fill = _zero_fill(op.input, softmax.result)
        if guard is None or fill is None or shape_of(op.result) != shape_of(scores):
            return
        replaced = [op, fill, *guard, softmax]
        new = aten.SafeSoftmaxOp.build(
            operands=[scores],
            properties={"dim": IntegerAttr(dim, 64)},
            result_types=[op.result.type],
        )
        new.location = fused_location(replaced)
        rewriter.replace(op, new)
        erase_unused(rewriter, replaced[1:])


@dataclass(frozen=True)
class RecognizeSafeSoftmaxPass(ModulePass):
    """Raise the decomposed masked-softmax guard to `aten._safe_softmax`."""

    name = "aten-recognize-safe-softmax"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([RecognizeSafeSoftmax()]), apply_recursively=False
        ).rewrite_module(op)
