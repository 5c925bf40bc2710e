"""`AtenBuilder`: builds `aten` ops before the op an aten-level rewrite replaces, at its
location, computing each result type from the operands (as `Emitter` does for xnn ops)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.shapes import broadcast_shapes
from xnnc.dialects import aten
from xnnc.dialects.types import element_type, shape_of, tensor_type
from xnnc.ir.constants import aten_constant
from xnnc.ir.dtypes import TORCH_DTYPES

Shape = Sequence[int | DimExpr]


def int_array(values: Sequence[int]) -> DenseArrayBase:
    """An aten op's int list property."""
    return DenseArrayBase.from_list(i64, list(values))


class AtenBuilder:
    """Inserts ops through `insert` (a rewriter's, or a block's before `at`), each at `at`'s
    location; `made` lists them in order."""

    def __init__(self, insert: Callable[[Operation], Any], at: Operation):
        self._insert, self.at = insert, at
        self.made: list[Operation] = []

    def op(
        self, cls: type, operands: Sequence[Any], result: TensorType, **props: Attribute
    ) -> SSAValue:
        new = cls.build(operands=list(operands), properties=props, result_types=[result])
        return self.insert(new)

    def insert(self, new: Operation) -> SSAValue:
        new.location = self.at.location
        self._insert(new)
        self.made.append(new)
        return new.results[0]

    def constant(self, tensor: torch.Tensor, name: str) -> SSAValue:
        return self.insert(aten_constant(tensor, name))

    # --- elementwise ----------------------------------------------------------------------

    def binary(self, cls: type, a: SSAValue, b: SSAValue | float | int) -> SSAValue:
        """a op b, broadcast; b a tensor or a scalar (an int scalar on an integer `a` stays
        an int: a float one would make torch's result float)."""
        if isinstance(b, SSAValue):
            shape = broadcast_shapes(shape_of(a), shape_of(b))
            return self.op(cls, [a, b], tensor_type(element_type(a), shape))
        integral = isinstance(b, int) and isinstance(element_type(a), IntegerType)
        scalar = IntegerAttr(b, i64) if integral else FloatAttr(float(b), f64)
        return self.op(cls, [a, None], a.type, scalar=scalar)  # type: ignore[arg-type]

    def unary(self, cls: type, a: SSAValue) -> SSAValue:
        return self.op(cls, [a], a.type)  # type: ignore[arg-type]

    # --- layout ---------------------------------------------------------------------------

    def view(self, x: SSAValue, shape: Shape) -> SSAValue:
        if tuple(shape) == shape_of(x):
            return x
        return self.op(aten.ViewOp, [x], tensor_type(element_type(x), shape), size=int_array(shape))

    def permute(self, x: SSAValue, dims: Sequence[int]) -> SSAValue:
        if list(dims) == list(range(len(dims))):
            return x
        shape = shape_of(x)
        result = tensor_type(element_type(x), [shape[d] for d in dims])
        return self.op(aten.PermuteOp, [x], result, dims=int_array(dims))

    def expand(self, x: SSAValue, shape: Shape) -> SSAValue:
        """x broadcast to `shape` (static)."""
        if tuple(shape) == shape_of(x):
            return x
        result = tensor_type(element_type(x), shape)
        return self.op(aten.ExpandOp, [x], result, size=int_array([int(d) for d in shape]))

    def unsqueeze(self, x: SSAValue, dim: int) -> SSAValue:
        shape = list(shape_of(x))
        shape.insert(dim, 1)
        result = tensor_type(element_type(x), shape)
        return self.op(aten.UnsqueezeOp, [x], result, dim=IntegerAttr(dim, i64))

    def cat(self, parts: Sequence[SSAValue], dim: int) -> SSAValue:
        shape = list(shape_of(parts[0]))
        shape[dim] = sum(shape_of(p)[dim] for p in parts)  # type: ignore[misc]
        result = tensor_type(element_type(parts[0]), shape)
        return self.op(aten.CatOp, [list(parts)], result, dim=IntegerAttr(dim, i64))

    def select(self, x: SSAValue, dim: int, index: int) -> SSAValue:
        shape = shape_of(x)
        result = tensor_type(element_type(x), (*shape[:dim], *shape[dim + 1 :]))
        return self.op(
            aten.SelectOp, [x], result, dim=IntegerAttr(dim, i64), index=IntegerAttr(index, i64)
        )

    def slice(self, x: SSAValue, dim: int, start: int, end: int) -> SSAValue:
        shape = list(shape_of(x))
        shape[dim] = end - start
        props = {"dim": IntegerAttr(dim, i64), "start": IntegerAttr(start, i64),
                 "end": IntegerAttr(end, i64)}  # fmt: skip
        return self.op(aten.SliceOp, [x], tensor_type(element_type(x), shape), **props)

    def pad_last(self, x: SSAValue, left: int, right: int) -> SSAValue:
        """x with `left` and `right` zeros on its last dim."""
        if left == right == 0:
            return x
        shape = shape_of(x)
        result = tensor_type(element_type(x), (*shape[:-1], shape[-1] + left + right))
        value = FloatAttr(0.0, f64)
        return self.op(aten.ConstantPadNdOp, [x], result, pad=int_array([left, right]), value=value)

    # --- products -------------------------------------------------------------------------

    def linear(self, x: SSAValue, weight: torch.Tensor, name: str) -> SSAValue:
        """x @ weight^T over x's last dim: weight [out, in], stored in x's element type."""
        w = self.constant(weight.to(TORCH_DTYPES[element_type(x)]).contiguous(), name)
        result = tensor_type(element_type(x), (*shape_of(x)[:-1], weight.shape[0]))
        return self.op(aten.LinearOp, [x, w, None], result)

    def conv1d(
        self, x: SSAValue, weight: torch.Tensor, name: str, stride: int, transposed: bool
    ) -> SSAValue:
        """A 1-D convolution of x [N, C, L] with no padding, or a transposed one: weight
        [out, in, k], or [in, out, k] when transposed; stored in x's element type."""
        w = self.constant(weight.to(TORCH_DTYPES[element_type(x)]).contiguous(), name)
        n, _, length = shape_of(x)
        k = weight.shape[-1]
        if transposed:
            out = (weight.shape[1], (length - 1) * stride + k)
        else:
            out = (weight.shape[0], (length - k) // stride + 1)
        return self.op(
            aten.ConvolutionOp,
            [x, w, None],
            tensor_type(element_type(x), (n, *out)),
            stride=int_array([stride]),
            padding=int_array([0]),
            dilation=int_array([1]),
            transposed=BoolAttr(int(transposed), i1),
            output_padding=int_array([0]),
            groups=IntegerAttr(1, i64),
        )
