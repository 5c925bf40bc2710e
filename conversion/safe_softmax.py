"""`aten._safe_softmax` as XNNPACK nodes, exactly: softmax over the last dim, with 0 (not
NaN) on a row that is all -inf (a fully masked attention row).

XNNPACK has no comparison or select node that stock ExecuTorch 1.5.1 runs, so "the row is
all -inf" is computed with IEEE arithmetic whose results are exact in every float type
(lo is the type's lowest finite value; K <= 2^24 the row length):

    f = max(x - clamp(x, lo) + 1, 0)    1 where x is finite, else 0   (-inf - lo = -inf)
    m = max(1 - 2^25 * mean(f), 0)      1 on an all -inf row, else 0  (else mean(f) >= 2^-24)
    c = -|1 / m|                        -1 on such a row, else -inf   (1 / +-0 = +-inf)
    y = softmax(max(x, c)) * (1 - m)

max(x, -inf) is x, so any other row is softmax(x) times 1; an all -inf row becomes a row of
-1, whose softmax is finite, times 0. The mean runs in fp32 and names no K, so K may be a
symbolic size (attention over S keys); XNNPACK counts the row at each reshape. The per-row
values are cast back to x's type, in which 0, 1, -1 and -inf are exact.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.ir import SSAValue

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.shapes import broadcast_shapes
from xnnc.conversion.aten_to_xnn import lowering
from xnnc.conversion.norms import as_f32, convert_like, reduced_shape
from xnnc.dialects import aten, xnn
from xnnc.dialects.types import element_type, shape_of
from xnnc.dialects.xnn import BinaryOperator as B
from xnnc.dialects.xnn import ReduceOperator as R
from xnnc.dialects.xnn import UnaryOperator as U
from xnnc.dialects.xnn import target_of
from xnnc.ir.dtypes import TORCH_DTYPES
from xnnc.ir.emitter import Emitter


def _check(op: aten.SafeSoftmaxOp) -> str | None:
    if op.dtype is not None and op.dtype != element_type(op.input):
        return "_safe_softmax with a dtype"
    shape = shape_of(op.input)
    dim = op.dim.value.data % len(shape)
    rows = [d for i, d in enumerate(shape) if i != dim and isinstance(d, DimExpr)]
    if isinstance(shape[dim], DimExpr) and rows and target_of(op).runtime == "stock":
        # xnn-legalize-stock pools the per-row mean as [rows, K, 1, 1]: one symbolic dim only.
        why = "its pooled per-row mean would need two symbolic dims"
        return (
            f"_safe_softmax over {shape[dim]} values in {rows[0]} rows: stock ExecuTorch has no "
            f"reduce node, and {why}"
        )
    return None


def _binary(e: Emitter, a: SSAValue, b: SSAValue, kind: B) -> SSAValue:
    return e.node(xnn.BinaryOp, a, b, shape=broadcast_shapes(shape_of(a), shape_of(b)), kind=kind)


def _unary(e: Emitter, x: SSAValue, kind: U) -> SSAValue:
    return e.node(xnn.UnaryOp, x, shape=shape_of(x), kind=kind)


def _fully_masked(e: Emitter, x: SSAValue) -> SSAValue:
    """m: 1.0 per last-dim row of x that is all -inf, else 0.0, keep-dims, in fp32."""
    shape = shape_of(x)
    lo = torch.finfo(TORCH_DTYPES[element_type(x)]).min
    clamped = e.node(xnn.ClampOp, x, shape=shape, output_min=lo)
    gap = _binary(e, x, clamped, B.SUBTRACT)
    finite = e.node(xnn.BinaryOp, gap, e.scalar(1.0, gap), shape=shape, kind=B.ADD,
                    output_min=0.0)  # fmt: skip
    finite = as_f32(e, finite)
    rows = reduced_shape(shape, (len(shape) - 1,))
    share = e.node(xnn.StaticReduceOp, finite, shape=rows, kind=R.MEAN, axes=[len(shape) - 1],
                   flags=xnn.FLAG_KEEP_DIMS)  # fmt: skip
    scaled = _binary(e, share, e.scalar(2.0**25, share), B.MULTIPLY)
    return e.node(xnn.BinaryOp, e.scalar(1.0, scaled), scaled, shape=rows, kind=B.SUBTRACT,
                  output_min=0.0)  # fmt: skip


def safe_softmax_last(e: Emitter, x: SSAValue) -> SSAValue:
    """_safe_softmax over x's last dim (the composition in the module docstring)."""
    m = _fully_masked(e, x)
    c = _unary(e, _unary(e, _binary(e, e.scalar(1.0, m), m, B.DIVIDE), U.ABS), U.NEGATE)
    keep = _binary(e, e.scalar(1.0, m), m, B.SUBTRACT)
    lifted = _binary(e, x, convert_like(e, c, x), B.MAXIMUM)
    y = e.node(xnn.SoftmaxOp, lifted, shape=shape_of(x))
    return _binary(e, y, convert_like(e, keep, x), B.MULTIPLY)


@lowering(aten.SafeSoftmaxOp, check=_check)
def _safe_softmax(op: aten.SafeSoftmaxOp, e: Emitter) -> Sequence[SSAValue]:
    rank = len(shape_of(op.input))
    dim = op.dim.value.data % rank
    if dim == rank - 1:
        return [safe_softmax_last(e, op.input)]
    perm = [d for d in range(rank) if d != dim] + [dim]
    y = safe_softmax_last(e, e.transpose(op.input, perm))
    return [e.transpose(y, [perm.index(d) for d in range(rank)])]
