"""`Emitter`: builds xnn ops in front of the op a pattern rewrites, at its location.

Conversion, the rewrites and the legalizations all emit through it, so a node, a constant,
a layout change or a concatenate tree is built one way everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType, bf16, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.shapes import relative_begin, relative_end, whole_sizes
from xnnc.dialects import xnn
from xnnc.dialects.types import element_type, shape_of, tensor_type
from xnnc.ir.constants import xnn_constant
from xnnc.ir.dtypes import TORCH_DTYPES

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)


class Emitter:
    """Builds xnn ops before the op being converted."""

    def __init__(self, rewriter: PatternRewriter, op: Operation):
        self.rewriter = rewriter
        self.op = op

    def node(self, cls: type, *operands: Any, shape: Sequence[int], elem: Attribute | None = None,
             **params: Any) -> SSAValue:  # fmt: skip
        if elem is None:
            first = operands[0][0] if isinstance(operands[0], (list, tuple)) else operands[0]
            elem = element_type(first)
        new = cls.make(*operands, result_type=tensor_type(elem, shape), **params)
        new.location = self.op.location
        self.rewriter.insert(new)
        return new.results[0]

    def const(self, tensor: torch.Tensor, name: str, type: TensorType | None = None) -> SSAValue:
        """A constant of `tensor`, typed as its dtype or as `type` (a quantized tensor)."""
        new = xnn_constant(tensor, name, type)
        self.rewriter.insert(new)
        return new.results[0]

    def scalar(self, value: float, like: SSAValue) -> SSAValue:
        """A one-element constant of `value`, of `like`'s element type. A bf16 scalar that
        bf16 cannot hold is an fp32 constant converted at the op's location: eager computes
        with the fp32 value (its opmath), and `xnn-bf16-precision` can too."""
        elem = element_type(like)
        if elem == bf16 and torch.tensor(value, dtype=torch.bfloat16).item() != value:
            exact = self._constant(torch.tensor([value], dtype=torch.float32), f32)
            return self.node(xnn.ConvertOp, exact, shape=[1], elem=elem)
        return self._constant(torch.tensor([value], dtype=TORCH_DTYPES[elem]), elem)

    def _constant(self, data: torch.Tensor, elem: Attribute) -> SSAValue:
        bits = data.view(torch.int16) if data.dtype == torch.bfloat16 else data
        dense = DenseIntOrFPElementsAttr(tensor_type(elem, [1]), BytesAttr(bits.numpy().tobytes()))
        new = xnn.ConstantOp(dense, tensor_type(elem, [1]))
        self.rewriter.insert(new)
        return new.results[0]

    def transpose(self, x: SSAValue, perm: Sequence[int]) -> SSAValue:
        shape = shape_of(x)
        return self.node(xnn.StaticTransposeOp, x, shape=[shape[p] for p in perm], perm=perm)

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        if tuple(shape) == shape_of(x):
            return x
        # XNNPACK infers a 0 in new_shape at run time: the one symbolic dim a reshape may have.
        new_shape = [0 if isinstance(d, DimExpr) else d for d in shape]
        return self.node(xnn.StaticReshapeOp, x, shape=shape, new_shape=new_shape)

    def slice(self, x: SSAValue, axis: int, start: Any, size: Any) -> SSAValue:
        """x[start : start + size] along `axis`; on a symbolic dim, a symbolic `start` a fixed
        distance before its end counts from the end (XNNStaticSliceV3: extended runtime)."""
        offsets = [0] * len(shape_of(x))
        offsets[axis] = relative_begin(shape_of(x)[axis], start)
        shape = list(shape_of(x))
        shape[axis] = size
        sizes = whole_sizes(shape)
        sizes[axis] = relative_end(shape_of(x)[axis], start, size)
        return self.node(xnn.StaticSliceOp, x, shape=shape, offsets=offsets, sizes=sizes)

    def concatenate(self, values: Sequence[SSAValue], axis: int) -> SSAValue:
        """`values` joined along `axis`: one node, or a tree of them, since XNNPACK joins at
        most MAX_CONCATENATE_INPUTS per node (a tree copies each element log5(n) times, a
        left-to-right chain up to n / 4 times)."""
        values = list(values)
        if len(values) == 1:
            return values[0]
        width = xnn.MAX_CONCATENATE_INPUTS
        while len(values) > width:
            values = [self.concatenate(values[i : i + width], axis)
                      for i in range(0, len(values), width)]  # fmt: skip
        shape = list(shape_of(values[0]))
        shape[axis] = sum(shape_of(v)[axis] for v in values)
        return self.node(xnn.ConcatenateOp, values, shape=shape, axis=axis)

    def to_nhwc(self, x: SSAValue) -> SSAValue:
        """NCHW (or NCL as N,C,1,L) to NHWC."""
        if len(shape_of(x)) == 3:
            n, c, length = shape_of(x)
            return self.reshape(self.transpose(x, (0, 2, 1)), (n, 1, length, c))
        return self.transpose(x, NCHW_TO_NHWC)

    def from_nhwc(self, y: SSAValue, rank: int) -> SSAValue:
        if rank == 3:
            n, _, length, c = shape_of(y)
            return self.transpose(self.reshape(y, (n, length, c)), (0, 2, 1))
        return self.transpose(y, NHWC_TO_NCHW)
