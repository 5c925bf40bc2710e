"""`aten-recognize-prelu`: PReLU as torch decomposes it, raised back to `aten.prelu`.

    %g = aten.generic "aten::gt.Scalar"(%x) {0}
    %m = aten.mul %w, %x                          ==>   %y = aten.prelu %x, %w
    %y = aten.where %g, %x, %m

`_prelu_kernel`'s decomposition (a program decomposed before it reaches xnnc, e.g. by
`run_decompositions()`) gives this chain; its comparison and select have no XNNPACK node
and no bool tensors, while `aten.prelu` lowers to XNNPACK's PReLU. The two agree on every
input: at x = 0 both give 0, NaN stays NaN. The new op's location fuses the three it
replaces, so `XnncPartitioner` tags all their FX nodes.

Does nothing unless the comparison is `x > 0` on the selected x itself, the product is
x times slopes `w` that broadcast along dim 1 only (one slope, or one per channel), and
the product keeps x's shape and dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.dialects import aten
from xnnc.dialects.types import element_type, shape_of
from xnnc.ir.raising import erase_unused, fused_location


def slopes_along_channels(slopes: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """`slopes` broadcasts onto `shape` as PReLU's weight does: one value, or the channels
    of dim 1 with every other dim 1 (right-aligned, as broadcasting aligns)."""
    if math.prod(slopes) == 1:
        return True
    if len(slopes) > len(shape) or len(shape) < 2:
        return False
    aligned = (1,) * (len(shape) - len(slopes)) + slopes
    return aligned[1] == shape[1] and all(d == 1 for i, d in enumerate(aligned) if i != 1)


def _is_positive_test(cond: SSAValue, x: SSAValue) -> bool:
    op = cond.owner
    if not (isinstance(op, aten.GenericOp) and op.target.data == "aten::gt.Scalar"):
        return False
    args = list(op.args.data)
    threshold = args[1] if len(args) > 1 else None
    return (
        op.inputs[0] == x
        and isinstance(threshold, (IntegerAttr, FloatAttr))
        and threshold.value.data == 0
    )


def _slopes(product: SSAValue, x: SSAValue) -> SSAValue | None:
    """w when `product` is w * x (either order) with w broadcasting along channels."""
    mul = product.owner
    if not isinstance(mul, aten.MulOp) or mul.other is None:
        return None
    if mul.input == x and mul.other != x:
        w = mul.other
    elif mul.other == x and mul.input != x:
        w = mul.input
    else:
        return None
    if shape_of(mul.result) != shape_of(x) or element_type(w) != element_type(x):
        return None
    return w if slopes_along_channels(shape_of(w), shape_of(x)) else None


class RecognizePrelu(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.WhereOp, rewriter: PatternRewriter) -> None:
        x = op.input
        w = _slopes(op.other, x)
        if w is None or not _is_positive_test(op.condition, x):
            return
        if shape_of(op.result) != shape_of(x) or element_type(op.result) != element_type(x):
            return
        replaced = [op, op.other.owner, op.condition.owner]
        new = aten.PreluOp.build(operands=[x, w], result_types=[op.result.type])
        new.location = fused_location(replaced)
        rewriter.replace(op, new)
        erase_unused(rewriter, replaced[1:])


@dataclass(frozen=True)
class RecognizePreluPass(ModulePass):
    """Raise PReLU's decomposition (`where(x > 0, x, w * x)`) to `aten.prelu`."""

    name = "aten-recognize-prelu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([RecognizePrelu()]), apply_recursively=False
        ).rewrite_module(op)
