"""`aten-recognize-layer-norm`: a layer norm written out as mean/var/rsqrt, raised to
`aten.native_layer_norm`.

    %mu = aten.mean %x {dim = [-1], keepdim}
    %d  = aten.sub %x, %mu
    %v  = aten.var %x {dim = [-1], correction = 0, keepdim}     (or aten.mean of d^2)
    %ve = aten.add %v {scalar = eps}                         ==>  %y, %_, %_ =
    %r  = aten.rsqrt %ve          (or %s = aten.sqrt %ve)           aten.native_layer_norm %x
    %y  = aten.mul %d, %r         (or %y = aten.div %d, %s)         {normalized_shape, eps}

Hand-written LayerNorm-like modules and graphs whose layer norm was decomposed give this
chain. Op by op it is also lowered (mean, var, sub, add, rsqrt, mul are), but as one op x is
read twice instead of four times and the deviation is computed once. The new op's location
fuses the ones it replaces, so `XnncPartitioner` tags all their FX nodes.

Does nothing unless: the reduced dims are the trailing ones, with keepdim; both means and
the variance (biased: correction 0) reduce the same dims of the same x; eps is a scalar;
add and sub have alpha 1. A chain whose intermediate values have other users still has its
result raised; those values stay for their users. A norm over a symbolic size declines
(`xnn.declined`): normalized_shape holds static sizes; other dims may be symbolic.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, ModuleOp, f64
from xdsl.dialects.builtin import i64 as i64_type
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.cost.decision import declined
from xnnc.dialects import aten
from xnnc.dialects.types import ints, shape_of, tensor_type
from xnnc.ir.raising import erase_unused, fused_location

REWRITE = "aten-recognize-layer-norm"


def _num(op: Operation, name: str, default: float | None = None) -> float | None:
    attr = op.properties.get(name)
    return default if attr is None else float(attr.value.data)


def _trailing_dims(op: aten.MeanOp | aten.VarOp) -> int | None:
    """k when op reduces the last k dims of its input with keepdim, else None."""
    rank = len(shape_of(op.input))
    if op.keepdim is None or not op.keepdim.value.data:
        return None
    dims = sorted({d % rank for d in ints(op.dim)} or set(range(rank)))
    return len(dims) if dims == list(range(rank - len(dims), rank)) else None


def _mean_of(value: SSAValue, x: SSAValue | None = None) -> aten.MeanOp | None:
    op = value.owner
    if not isinstance(op, aten.MeanOp) or op.dtype is not None:
        return None
    return op if x is None or op.input == x else None


def _deviation(value: SSAValue) -> tuple[aten.SubOp, aten.MeanOp] | None:
    """(x - mean(x), mean(x)) when value is that."""
    sub = value.owner
    if not isinstance(sub, aten.SubOp) or sub.other is None or _num(sub, "alpha", 1) != 1:
        return None
    mean = _mean_of(sub.other, sub.input)
    return None if mean is None or _trailing_dims(mean) is None else (sub, mean)


def _squared(value: SSAValue) -> SSAValue | None:
    """d when value is d^2 (pow 2, square, or d * d)."""
    op = value.owner
    if isinstance(op, aten.SquareOp):
        return op.input
    if isinstance(op, aten.PowOp) and op.other is None and _num(op, "scalar") == 2:
        return op.input
    if isinstance(op, aten.MulOp) and op.other is not None and op.input == op.other:
        return op.input
    return None


def _variance(value: SSAValue, x: SSAValue, dims: int) -> list[Operation] | None:
    """The ops computing the biased variance of x over its last `dims` dims, or None."""
    op = value.owner
    if isinstance(op, aten.VarOp):
        ok = op.input == x and _num(op, "correction", 1) == 0 and _trailing_dims(op) == dims
        return [op] if ok else None
    mean = _mean_of(value)
    squared = mean and _squared(mean.input)
    dev = squared and _deviation(squared)
    if dev is None or dev[0].input != x or _trailing_dims(mean) != dims:
        return None
    return [mean, mean.input.owner, *dev]


def _rstd(value: SSAValue, through: type[Operation]) -> tuple[list[Operation], SSAValue] | None:
    """([through-op, add], variance) for through(variance + eps)."""
    op = value.owner
    add = op.input.owner if isinstance(op, through) else None
    if not isinstance(add, aten.AddOp) or add.other is not None or _num(add, "alpha", 1) != 1:
        return None
    return [op, add], add.input


class RecognizeLayerNorm(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, aten.MulOp) and op.other is not None:
            candidates = [(op.input, op.other, aten.RsqrtOp), (op.other, op.input, aten.RsqrtOp)]
        elif isinstance(op, aten.DivOp) and op.other is not None and op.rounding_mode is None:
            candidates = [(op.input, op.other, aten.SqrtOp)]
        else:
            return
        for numerator, denominator, through in candidates:
            dev, rstd = _deviation(numerator), _rstd(denominator, through)
            if dev is None or rstd is None or shape_of(op.result) != shape_of(dev[0].input):
                continue
            x, dims = dev[0].input, _trailing_dims(dev[1])
            variance = _variance(rstd[1], x, dims)
            normalized = shape_of(x)[len(shape_of(x)) - dims :] if dims else ()
            if variance is not None and any(isinstance(d, DimExpr) for d in normalized):
                declined(op, REWRITE, "native_layer_norm's normalized_shape holds static sizes")
                return
            if variance is not None:
                eps = _num(rstd[0][1], "scalar")
                self._raise(op, x, dims, eps, [*rstd[0], *variance, *dev], rewriter)
                return

    @staticmethod
    def _raise(op: Operation, x: SSAValue, dims: int, eps: float, chain: list[Operation],
               rewriter: PatternRewriter) -> None:  # fmt: skip
        shape = shape_of(x)
        stats = tensor_type(x.type.element_type, (*shape[: len(shape) - dims], *[1] * dims))
        new = aten.LayerNormOp.build(
            operands=[x, [], []],
            properties={
                "normalized_shape": DenseArrayBase.from_list(i64_type, shape[len(shape) - dims :]),
                "eps": FloatAttr(eps, f64),
            },
            result_types=[op.result.type, stats, stats],
        )
        new.location = fused_location((op, *chain))
        rewriter.replace(op, new, [new.result])
        erase_unused(rewriter, chain)


@dataclass(frozen=True)
class RecognizeLayerNormPass(ModulePass):
    """Raise mean/var/rsqrt layer norm chains to `aten.native_layer_norm`."""

    name = "aten-recognize-layer-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([RecognizeLayerNorm()]), apply_recursively=False
        ).rewrite_module(op)
