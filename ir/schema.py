"""Python values <-> attributes, by ATen schema argument type, and ATen overloads by name.

The importer and the reference interpreter share these two directions, so an op's
properties mean exactly what the ATen argument meant.
"""

from __future__ import annotations

from typing import Any

import torch
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute

from xnnc.dialects.aten import ComplexAttr, OperandRefAttr
from xnnc.errors import ModelImportError
from xnnc.ir.dtypes import TORCH_DTYPES, element_type


def qualified_name(target: Any) -> str:
    """ "aten::add.Tensor" for `torch.ops.aten.add.Tensor`."""
    schema = target._schema
    return schema.name + (f".{schema.overload_name}" if schema.overload_name else "")


def torch_overload(qualified: str) -> Any:
    """`torch.ops` object for "aten::add.Tensor"."""
    namespace, rest = qualified.split("::")
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, namespace), name), overload or "default")


def _torch_enum_name(value: Any) -> str:
    return "torch." + str(value).removeprefix("torch.")


def to_attr(value: Any, operand_index: dict[Any, int] | None = None) -> Attribute:
    """Any non-tensor argument as an attribute; fx nodes become `#aten.operand<i>`."""
    if operand_index is not None and type(value).__name__ == "Node":
        return OperandRefAttr(operand_index[value])
    if value is None:
        return NoneAttr()
    if isinstance(value, bool):
        return BoolAttr(int(value), i1)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, complex):
        return ComplexAttr((value.real, value.imag))
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, torch.dtype):
        return element_type(value, "argument")
    if isinstance(value, (torch.memory_format, torch.layout)):
        return StringAttr(_torch_enum_name(value))
    if isinstance(value, torch.device):
        return StringAttr(str(value))
    if isinstance(value, (list, tuple)):
        return ArrayAttr([to_attr(v, operand_index) for v in value])
    raise ModelImportError(f"unsupported argument {value!r} of type {type(value).__name__}")


def from_attr(attr: Attribute, operands: list[Any] | None = None) -> Any:
    """The inverse of `to_attr`; `#aten.operand<i>` becomes `operands[i]`."""
    if isinstance(attr, OperandRefAttr):
        assert operands is not None
        return operands[attr.data]
    if isinstance(attr, NoneAttr):
        return None
    if isinstance(attr, IntegerAttr):
        v = attr.value.data
        return bool(v) if attr.type == i1 else v
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, ComplexAttr):
        return complex(*attr.data)
    if isinstance(attr, StringAttr):
        s = attr.data
        return getattr(torch, s.removeprefix("torch.")) if s.startswith("torch.") else s
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return [from_attr(a, operands) for a in attr.data]
    if attr in TORCH_DTYPES:
        return TORCH_DTYPES[attr]
    raise ValueError(f"cannot turn attribute {attr} into a Python value")


def prop_for(schema_type: str, value: Any) -> Attribute:
    """A property for a value of an ATen schema type (`List[int]`, `number`, ...)."""
    t = (
        schema_type.removeprefix("Optional[").removesuffix("]")
        if schema_type.startswith("Optional[")
        else schema_type
    )
    if t in ("List[int]", "List[SymInt]"):
        return DenseArrayBase.from_list(i64, [int(v) for v in value])
    if t == "List[float]":
        return DenseArrayBase.from_list(f64, [float(v) for v in value])
    if t in ("int", "SymInt") and isinstance(value, torch.dtype):
        return element_type(value, "dtype")  # ScalarType prints as int in schemas
    if t in ("int", "SymInt") and isinstance(value, torch.memory_format):
        return StringAttr(_torch_enum_name(value))
    if t in ("number", "Tensor", "float", "int", "SymInt", "bool", "str"):
        return to_attr(float(value) if t == "float" else value)
    raise ModelImportError(f"unsupported schema argument type {schema_type}")
