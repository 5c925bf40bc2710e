"""`aten._safe_softmax` as XNNPACK nodes, exactly: softmax over the last dim, with 0 (not
NaN) on a row that is all -inf (a fully masked attention row).

XNNPACK has no comparison or select node that stock ExecuTorch 1.5.1 runs, so "the row is
all -inf" is computed with IEEE arithmetic whose results are exact in every float type
(lo is the type's lowest finite value; K the row length):

    e = min(clamp(x, lo) - x, 1)    1 where x = -inf, else 0      (lo - -inf = +inf; x - x = 0)
    m = max(sum(e) + 1 - K, 0)      1 on an all -inf row, else 0  (integers: sum(e) <= K)
    c = -|1 / m|                    -1 on such a row, else -inf   (1 / +-0 = +-inf)
    y = softmax(max(x, c)) * (1 - m)

max(x, -inf) is x, so any other row is softmax(x) times 1; an all -inf row becomes a row of
-1, whose softmax is finite, times 0. The sum runs in fp32 (an integer count up to 2^24);
the per-row values are cast back to x's type, in which 0, 1, -1 and -inf are exact.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.ir import SSAValue

from xnnc.conversion.aten_to_xnn import lowering
from xnnc.conversion.emitter import Emitter
from xnnc.conversion.norms import as_f32, convert_like, reduced_shape
from xnnc.dialects import aten, xnn
from xnnc.dialects.xnn import BinaryOperator as B
from xnnc.dialects.xnn import ReduceOperator as R
from xnnc.dialects.xnn import UnaryOperator as U
from xnnc.frontend.schema import TORCH_DTYPES
from xnnc.ir.shapes import broadcast_shapes
from xnnc.ir.types import element_type, shape_of


def _check(op: aten.SafeSoftmaxOp) -> str | None:
    if op.dtype is not None and op.dtype != element_type(op.input):
        return "_safe_softmax with a dtype"
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
    is_inf = e.node(xnn.ClampOp, _binary(e, clamped, x, B.SUBTRACT), shape=shape, output_max=1.0)
    is_inf = as_f32(e, is_inf)
    rows = reduced_shape(shape, (len(shape) - 1,))
    count = e.node(xnn.StaticReduceOp, is_inf, shape=rows, kind=R.SUM, axes=[len(shape) - 1],
                   flags=xnn.FLAG_KEEP_DIMS)  # fmt: skip
    count = _binary(e, count, e.scalar(1.0 - shape[-1], count), B.ADD)
    return e.node(xnn.ClampOp, count, shape=rows, output_min=0.0)


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
