"""torch dtypes <-> element types: the one table the importer, the interpreter, conversion and
the rewrites read."""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import (
    ComplexType,
    IntegerType,
    Signedness,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, TypeAttribute

from xnnc.dialects.quant import quant_type
from xnnc.errors import ModelImportError

ui8 = IntegerType(8, Signedness.UNSIGNED)

DTYPES: dict[torch.dtype, TypeAttribute] = {
    torch.float32: f32,
    torch.float16: f16,
    torch.bfloat16: bf16,
    torch.float64: f64,
    torch.int64: i64,
    torch.int32: i32,
    torch.int16: i16,
    torch.int8: i8,
    torch.uint8: ui8,
    torch.bool: i1,
    torch.complex64: ComplexType(f32),
    torch.complex128: ComplexType(f64),
}
TORCH_DTYPES: dict[Attribute, torch.dtype] = {v: k for k, v in DTYPES.items()}


def torch_dtype(elem: Attribute) -> torch.dtype:
    """The torch dtype holding tensors of `elem`: its own, or a quantized type's storage."""
    q = quant_type(elem)
    return TORCH_DTYPES[elem if q is None else q.storage_type]


def element_type(dtype: torch.dtype, where: str) -> TypeAttribute:
    """The element type of `dtype`; ModelImportError naming `where` if xnnc has none."""
    if dtype not in DTYPES:
        raise ModelImportError(f"{where}: unsupported dtype {dtype}")
    return DTYPES[dtype]
