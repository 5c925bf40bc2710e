"""Dynamically quantized linears as XNNPACK's qd8 fully-connected (2-D convolutions as its qd8
convolution and deconvolution: `aten_to_xnn._conv`, which quantizes the NHWC input).

    %xq = aten.quantize %x : f32 -> dyn        %xq = xnn.convert %x : f32 -> dyn (qdint8)
    %y = aten.linear %xq, %wq, %b      ==>     %y = xnn.fully_connected %xq, %w, %b
           : (dyn, q8w | q4w, f32) -> f32           : (dyn, qc8w | qc4w | qb4w, f32) -> f32

XNNPACK quantizes the activation per token (its qdint8 has one asymmetric scale and zero
point per row of the innermost dim), multiplies in integers against a symmetric weight, and
writes f32. The weights it takes (`xnn_define_*_quantized_tensor_value` at 92a7ad50, as
stock ExecuTorch 1.5.1 defines them):
- qc8w: int8, one scale per output channel, zero point 0;
- qc4w: 4-bit per output channel, and qb4w: 4-bit with a scale per block of the input
  channels (blocks a multiple of 32, as stock's partitioner requires), both stored as
  `value + 8`, two per byte, the even input channel in the low nibble; qb4w scales are bf16.
Anything else is kept outside with its reason (`dynamic_reason`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue

from xnnc.dialects import aten, xnn
from xnnc.dialects.dynamic_quant import is_dynamic
from xnnc.dialects.quant import UniformQuantType, quant_type
from xnnc.dialects.types import shape_of
from xnnc.ir.constants import constant_op, weight_name
from xnnc.ir.emitter import Emitter

QB4W_BLOCK_MULTIPLE = 32


def uses_dynamic(op: Operation) -> bool:
    """Whether `op` reads or writes a dynamically quantized tensor."""
    return any(is_dynamic(v.type) for v in (*op.operands, *op.results))


def storage_bits(q: UniformQuantType) -> int:
    """The bits the storage range needs (a [-8, 7] range in int8 is 4-bit)."""
    lo, hi = q.storage_range
    return max(1, math.ceil(math.log2(hi - lo + 1)))


def weight_reason(value: SSAValue) -> str | None:
    """Why `value` cannot be the weight of XNNPACK's qd8 fully-connected, or None."""
    q = quant_type(value.type.element_type) if isinstance(value.type, TensorType) else None
    if q is None:
        return f"the weight is {value.type}, not quantized (XNNPACK's qd8 GEMM needs qc8w/qb4w)"
    if constant_op(value) is None:
        return "the quantized weight is not a constant"
    if not q.symmetric:
        return (
            "asymmetric weight (zero points not all 0): XNNPACK's qc8w/qc4w/qb4w weights "
            "are symmetric"
        )
    bits = storage_bits(q)
    lo, hi = q.storage_range
    if bits not in (4, 8) or lo < -(1 << (bits - 1)):
        return (
            f"{bits}-bit weight (range [{lo}, {hi}]): XNNPACK's qd8 fully-connected takes "
            "8-bit or 4-bit weights"
        )
    if not q.per_tensor and q.axis.data != 0:
        return f"the weight is quantized along axis {q.axis.data}, not the output channels"
    if q.blockwise and (bits != 4 or q.block_size.data % QB4W_BLOCK_MULTIPLE):
        return (
            f"{bits}-bit weight in blocks of {q.block_size.data}: XNNPACK's blockwise weights "
            f"are 4-bit in blocks of a multiple of {QB4W_BLOCK_MULTIPLE}"
        )
    return None


def _linear_reason(op: aten.LinearOp) -> str | None:
    if not is_dynamic(op.input.type):
        return "a dynamically quantized value feeds the weight or bias of a linear"
    if is_dynamic(op.result.type) or quant_type(op.result.type.element_type) is not None:
        return "XNNPACK's qd8 fully-connected writes f32, not a quantized result"
    if op.bias is not None and (constant_op(op.bias) is None or op.bias.type.element_type
                                != op.result.type.element_type):  # fmt: skip
        return "the bias is not an f32 constant"
    return weight_reason(op.weight)


def qd8_convolution(op: aten.ConvolutionOp) -> bool:
    """A kind XNNPACK's qd8 convolution and deconvolution run (those stock ExecuTorch's
    partitioner takes): 2-D; grouped only when not transposed, and not depthwise (one input
    channel per group)."""
    if len(shape_of(op.input)) != 4:
        return False
    groups = op.groups.value.data
    if groups == 1:
        return True
    return not op.transposed.value.data and shape_of(op.weight)[1] > 1


def _conv_reason(op: aten.ConvolutionOp) -> str | None:
    """XNNPACK's qd8 convolution and deconvolution (`qd8_convolution`): an 8-bit weight per
    output channel (any scale), an f32 bias, an f32 result."""
    if not is_dynamic(op.input.type):
        return "a dynamically quantized value feeds the weight or bias of a convolution"
    if not qd8_convolution(op):
        return (
            "XNNPACK's qd8 convolutions are 2-D, not depthwise, and grouped only when not "
            "transposed"
        )
    if quant_type(op.result.type.element_type) is not None or is_dynamic(op.result.type):
        return "XNNPACK's qd8 convolution writes f32, not a quantized result"
    if op.bias is not None and (constant_op(op.bias) is None or op.bias.type.element_type
                                != op.result.type.element_type):  # fmt: skip
        return "the bias is not an f32 constant"
    q = quant_type(op.weight.type.element_type) if isinstance(op.weight.type, TensorType) else None
    if q is None or constant_op(op.weight) is None:
        return "the weight is not a quantized constant"
    if storage_bits(q) != 8 or q.blockwise or not q.symmetric:
        return f"the weight is {q}: XNNPACK's qd8 convolutions take symmetric 8-bit weights"
    out_axis = 1 if op.transposed.value.data else 0
    if not q.per_tensor and q.axis.data != out_axis:
        return f"the weight is quantized along axis {q.axis.data}, not the output channels"
    return None


# The ops XNNPACK reads a qd8 input into, and why each one would not.
_QD8_READERS: dict[type[Operation], Callable[[Any], str | None]] = {
    aten.LinearOp: _linear_reason,
    aten.ConvolutionOp: _conv_reason,
}


def _quantize_reason(op: aten.QuantizeOp) -> str | None:
    users = [u.operation for u in op.result.uses]
    for user in users:
        reader = _QD8_READERS.get(type(user))
        if reader is None or user.operands[0] is not op.result:
            return (
                f"the dynamically quantized value feeds {user.name}; XNNPACK reads qd8 only "
                "as a fully-connected or convolution input"
            )
        if (reason := reader(user)) is not None:
            what = user.name.removeprefix("aten.")
            return f"the {what} it feeds stays outside ({reason})"
    return None


def dynamic_reason(op: Operation) -> str | None:
    """None when `op` (which reads or writes a dynamically quantized tensor) lowers to
    XNNPACK's qd8 nodes, else why not."""
    if isinstance(op, aten.QuantizeOp):
        return _quantize_reason(op)
    if isinstance(op, aten.LinearOp):
        return _linear_reason(op)
    if isinstance(op, aten.ConvolutionOp):
        return _conv_reason(op)
    if isinstance(op, aten.DequantizeOp):
        return (
            "XNNPACK has no convert from qd8 back to f32 (only its fully-connected and "
            "convolutions read qd8)"
        )
    return f"{op.name} on a dynamically quantized tensor has no XNNPACK node"


def pack_int4(values: torch.Tensor) -> torch.Tensor:
    """[N, K] integers in [-8, 7] as XNNPACK's 4-bit weights: `value + 8`, two per byte, the
    even column in the low nibble, each row padded to whole bytes ([N, ceil(K / 2)] uint8)."""
    n, k = values.shape
    nibbles = (values.to(torch.int16) + 8).to(torch.uint8)
    if k % 2:
        nibbles = torch.nn.functional.pad(nibbles, (0, 1), value=8)
    return nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)


def filter_type(q: UniformQuantType, shape: Sequence[int]) -> TensorType:
    """The weight's type as XNNPACK takes it: per output channel (a per-tensor scale
    repeated) or blockwise, 4-bit when its range is."""
    scales = q.scales.data * (shape[0] if q.per_tensor else 1)
    bits = storage_bits(q)
    filt = UniformQuantType(IntegerType(bits), scales, axis=0, block_size=q.block_size.data)
    return TensorType(filt, list(shape))


def lower_dynamic_linear(
    op: aten.LinearOp, e: Emitter, weight: torch.Tensor, bias_data: torch.Tensor | None
) -> Sequence[SSAValue]:
    """`aten.linear` on (dyn, quantized weight, f32 bias) as XNNPACK's fully-connected;
    `weight` and `bias_data` are the constants' tensors."""
    q = quant_type(op.weight.type.element_type)
    data, name = weight, weight_name(op.weight)
    ftype = filter_type(q, data.shape)
    if storage_bits(q) == 4:
        data, name = pack_int4(data), f"{name}.int4"
    w = e.const(data, name, ftype)
    bias = None
    if op.bias is not None:
        bias = e.const(bias_data, weight_name(op.bias))
    return [e.node(xnn.FullyConnectedOp, op.input, w, bias, shape=shape_of(op.result),
                   elem=op.result.type.element_type)]  # fmt: skip


__all__ = [
    "dynamic_reason",
    "filter_type",
    "lower_dynamic_linear",
    "pack_int4",
    "qd8_convolution",
    "storage_bits",
    "uses_dynamic",
    "weight_reason",
]
