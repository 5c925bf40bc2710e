"""Compile-time tensors: read a constant op's value, make new constants from tensors."""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from xnnc.dialects import aten, xnn
from xnnc.dialects.weights import Blob, WeightAttr
from xnnc.frontend.schema import element_type
from xnnc.interpreter.aten import tensor_of


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
            rewriter.erase(const)


def weight_name(value: SSAValue) -> str:
    op = constant_op(value)
    attr = op.properties["value"] if op is not None else None
    return attr.data.name if isinstance(attr, WeightAttr) else "const"


def _weight(tensor: torch.Tensor, name: str) -> tuple[WeightAttr, TensorType]:
    t = tensor.detach().contiguous()
    bits = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    return WeightAttr(Blob(name, bits.numpy())), TensorType(element_type(t.dtype, name), t.shape)


def xnn_constant(tensor: torch.Tensor, name: str) -> xnn.ConstantOp:
    """An `xnn.constant` holding `tensor` (made contiguous; bf16 kept as its bits)."""
    return xnn.ConstantOp(*_weight(tensor, name))


def aten_constant(tensor: torch.Tensor, name: str) -> aten.ConstantOp:
    """An `aten.constant` holding `tensor`."""
    return aten.ConstantOp(*_weight(tensor, name))
