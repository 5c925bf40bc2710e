"""Shapes and element types of tensor-typed values."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.ir import Attribute, SSAValue


def shape_of(value: SSAValue) -> tuple[int, ...]:
    """The static shape of a tensor-typed value."""
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def element_type(value: SSAValue) -> Attribute:
    """The element type of a tensor-typed value."""
    t = value.type
    assert isinstance(t, TensorType)
    return t.element_type


def has_element_type(value: SSAValue, elem: Attribute) -> bool:
    """Whether `value` is a tensor of `elem`."""
    return isinstance(value.type, TensorType) and value.type.element_type == elem


def tensor_type(elem: Attribute, shape: Sequence[int]) -> TensorType:
    return TensorType(elem, list(shape))


def ints(attr: DenseArrayBase | None, default: Sequence[int] = ()) -> tuple[int, ...]:
    """An integer array property as a tuple (`default` when absent)."""
    return tuple(default) if attr is None else tuple(int(v) for v in attr.get_values())


def tensor_nbytes(shape: Sequence[int], elem: Attribute) -> int:
    """Bytes of a tensor's storage: elements below a byte (XNNPACK's 4-bit weights) pack
    into whole bytes per innermost row, as XNNPACK and stock ExecuTorch store them."""
    width = getattr(elem, "bitwidth", None)
    if width is not None and width < 8 and shape:
        rows = math.prod(shape[:-1])
        return rows * ((shape[-1] * width + 7) // 8)
    return math.prod(shape) * element_nbytes(elem)


def element_nbytes(elem: Attribute) -> int:
    """Bytes per element in torch's storage of a builtin element type (i1 is a byte)."""
    width = getattr(elem, "bitwidth", None)
    if width is None:
        raise ValueError(f"unsupported element type {elem}")
    return max(1, width // 8)
