"""Compile-time tensors: read a constant op's value, make new constants from tensors."""

from __future__ import annotations

import math
import mmap
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from xnnc.dialects import aten, xnn
from xnnc.dialects.weights import Blob, WeightAttr
from xnnc.ir.dtypes import element_type, torch_dtype


def constant_op(value: SSAValue) -> Operation | None:
    """The `aten.constant`/`xnn.constant` producing `value`, if any."""
    owner = value.owner
    return owner if isinstance(owner, (aten.ConstantOp, xnn.ConstantOp)) else None


def constant_tensor(value: SSAValue) -> torch.Tensor | None:
    """The compile-time tensor behind `value`, or None when it is not a constant with data."""
    op = constant_op(value)
    if op is None:
        return None
    attr = op.properties["value"]
    if isinstance(attr, WeightAttr) and not attr.data.has_data:
        return None
    assert isinstance(value.type, TensorType)
    return tensor_of(attr, value.type)


def replace_dropping_weights(rewriter: PatternRewriter, op: Operation, y: SSAValue) -> None:
    """Replace `op` by `y` and erase its filter and bias constants once nothing reads them."""
    weights = [constant_op(v) for v in (op.filter, op.bias) if v is not None]
    rewriter.replace(op, [], [y])
    for const in weights:
        if const is not None and not const.results[0].uses:
            drop_constant(rewriter, const)


def drop_constant(rewriter: PatternRewriter, const: Operation) -> None:
    """Erase an unused constant and let go of its weight now: the rewrite walker keeps
    erased ops in its worklist until the pass ends, and with them their data."""
    rewriter.erase(const)
    const.properties.clear()


def weight_name(value: SSAValue) -> str:
    op = constant_op(value)
    attr = op.properties["value"] if op is not None else None
    return attr.data.name if isinstance(attr, WeightAttr) else "const"


# Copies this large get pages of their own (see `mapped_copy`).
MAPPED_BYTES = 1 << 20


def mapped_copy(tensor: torch.Tensor) -> torch.Tensor:
    """A contiguous copy of `tensor`, in an anonymous mmap of its own when large: freeing it
    returns the memory at once, where a malloc'd copy would leave a hole in the heap that
    later, differently sized weights reuse badly (ResNet-18's folded and permuted filters
    left ~0.5x the weights of the heap unused, and the compile peak with it)."""
    t = tensor.detach()
    return mapped_empty(t.shape, t.dtype).copy_(t)


def mapped_empty(shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    """An uninitialized contiguous tensor, in an anonymous mmap of its own when large (see
    `mapped_copy`)."""
    size = math.prod(shape) * dtype.itemsize
    if size < MAPPED_BYTES:
        return torch.empty(tuple(shape), dtype=dtype)
    pages = np.frombuffer(mmap.mmap(-1, size), dtype=np.uint8)
    return torch.from_numpy(pages).view(dtype).view(tuple(shape))


def _weight(
    tensor: torch.Tensor, name: str, type: TensorType | None = None
) -> tuple[WeightAttr, TensorType]:
    # A contiguous tensor is taken in place (a model's parameter stays the model's).
    t = tensor.detach()
    t = t if t.is_contiguous() else mapped_copy(t)
    bits = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    type = type or TensorType(element_type(t.dtype, name), t.shape)
    return WeightAttr(Blob(name, bits.numpy())), type


def xnn_constant(tensor: torch.Tensor, name: str, type: TensorType | None = None) -> xnn.ConstantOp:
    """An `xnn.constant` holding `tensor` (made contiguous; bf16 kept as its bits), typed
    as its dtype or as `type` (a quantized tensor of its storage dtype)."""
    return xnn.ConstantOp(*_weight(tensor, name, type))


def aten_constant(tensor: torch.Tensor, name: str) -> aten.ConstantOp:
    """An `aten.constant` holding `tensor`."""
    return aten.ConstantOp(*_weight(tensor, name))


def tensor_of(value_attr: Any, type: TensorType) -> torch.Tensor:
    """The tensor an `aten.constant`/`xnn.constant` value holds."""
    dtype = torch_dtype(type.element_type)
    shape = tuple(type.get_shape())
    if isinstance(value_attr, DenseIntOrFPElementsAttr):
        raw = memoryview(value_attr.data.data)
        if value_attr.is_splat() and raw.nbytes < torch.empty(shape, dtype=dtype).nbytes:
            one = torch.frombuffer(bytearray(raw), dtype=dtype)[:1]
            return one.reshape(()).expand(shape).clone()
    else:
        raw = value_attr.data.raw()
    if raw.nbytes == 0:
        return torch.empty(shape, dtype=dtype)
    if raw.readonly:
        raw = memoryview(bytearray(raw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.frombuffer(raw, dtype=dtype).reshape(shape)
