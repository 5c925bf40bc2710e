"""What conversion needs to lower ops on quantized types to XNNPACK's qs8 nodes.

XNNPACK's static int8 nodes read qint8 activations (one scale and zero point per tensor,
the whole [-128, 127] range), qcint8 or symmetric qint8 filters (per output channel, zero
point 0) and int32 biases whose scale is input scale x filter scale, per channel. The checks
here say which quantized ops fit, with the reason when one does not; the helpers build the
filter and bias types.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue

from xnnc.dialects import aten
from xnnc.dialects.locations import op_label
from xnnc.dialects.quant import UniformQuantType, is_quantized, quant_type

QS8_RANGE = (-128, 127)
INT32_RANGE = (-(2**31), 2**31 - 1)


def qtype(value: SSAValue) -> UniformQuantType | None:
    return quant_type(value.type.element_type) if isinstance(value.type, TensorType) else None


def activation_reason(value: SSAValue, role: str) -> str | None:
    """Why `value` cannot be a qs8 activation of an XNNPACK node, or None."""
    q = qtype(value)
    if q is None:
        return f"{role} is {value.type}, not quantized, among quantized operands"
    if not q.per_tensor:
        return f"{role} is quantized per channel; XNNPACK's qs8 activations are per tensor"
    if q.storage_type != IntegerType(8) or q.storage_range != QS8_RANGE:
        lo, hi = q.storage_range
        return (
            f"{role} is {q.storage_type} in [{lo}, {hi}]; the qs8 lowering takes int8 "
            "activations over the whole [-128, 127]"
        )
    return None


def filter_reason(value: SSAValue, channel_axis: int) -> str | None:
    """Why `value` cannot be a static qs8 filter with channels along `channel_axis`."""
    q = qtype(value)
    if q is None:
        return f"the weight is {value.type}, not quantized, with quantized activations"
    if q.storage_type != IntegerType(8) or q.blockwise:
        return f"the weight's quantization {q} has no static int8 XNNPACK filter"
    if not q.symmetric:
        kind = "per-tensor" if q.per_tensor else "per-channel"
        return (
            f"asymmetric {kind} weight (zero points not all 0): XNNPACK's int8 filters are "
            "symmetric"
        )
    if not q.per_tensor and q.axis.data != channel_axis:
        return f"the weight is quantized along axis {q.axis.data}, not the output channels"
    return None


def quantized_operands(op: Operation) -> bool:
    return any(is_quantized(v.type) for v in (*op.operands, *op.results))


def filter_type(q: UniformQuantType, shape: tuple[int, ...], axis: int) -> TensorType:
    """The filter's type after a layout change that moved its channels to `axis`."""
    if q.per_tensor:
        return TensorType(q, shape)
    moved = UniformQuantType(
        q.storage_type, q.scales.data, q.zero_points.data, axis=axis,
        storage_range=q.storage_range, expressed_type=q.expressed_type,
    )  # fmt: skip
    return TensorType(moved, shape)


def quantized_bias(
    bias: torch.Tensor, input_q: UniformQuantType, filter_q: UniformQuantType
) -> tuple[torch.Tensor, TensorType]:
    """A float bias as XNNPACK's int32 bias: scale input x filter scale (per channel when
    the filter is), zero point 0. PT2E adds the float bias; rounding it to this grid
    moves the accumulator by at most half a step of it, far below an output step.

    Rounded in fp32 as ExecuTorch's XNNPACK backend rounds it (torch's quantize_per_channel
    on fp32 scales x the input scale; quantize_per_tensor by the f64 scale's reciprocal), so
    both lowerings hold the same integers: one bias of MobileNetV2's 53 rounded in f64
    instead moved its 224x224 output by up to 6 steps."""
    scales = torch.tensor(filter_q.scales.data, dtype=torch.float64) * input_q.scale
    if filter_q.per_tensor:
        inverse = torch.tensor(1.0 / (filter_q.scale * input_q.scale), dtype=torch.float32)
    else:
        inverse = 1.0 / (torch.tensor(filter_q.scales.data, dtype=torch.float32) * input_q.scale)
    rounded = torch.round(bias.to(torch.float32) * inverse).to(torch.float64)
    values = rounded.clamp(*INT32_RANGE).to(torch.int32)
    axis = -1 if filter_q.per_tensor else 0
    q = UniformQuantType(IntegerType(32), scales.tolist(), axis=axis)
    return values, TensorType(q, list(bias.shape))


def same_quantization_reason(op: Operation, values: list[SSAValue]) -> str | None:
    """XNNPACK's qs8 pooling and concatenate keep the input's scale and zero point."""
    types = {qtype(v) for v in values} | {qtype(op.results[0])}
    if len(types) > 1:
        return f"{op_label(op)} changes the scale or zero point; XNNPACK's keeps them"
    return None


def _first(*reasons: str | None) -> str | None:
    return next((r for r in reasons if r is not None), None)


def _float_bias(op: Operation) -> str | None:
    if op.bias is not None and is_quantized(op.bias.type):
        return "the bias is quantized; the qs8 lowering quantizes a float bias itself"
    return None


def _conv_reason(op: aten.ConvolutionOp) -> str | None:
    if op.transposed.value.data:
        return _transposed_conv_reason(op)
    return _gemm_reason(op)


def _gemm_reason(op: Operation) -> str | None:
    return _first(
        activation_reason(op.input, "the input"),
        activation_reason(op.result, "the result"),
        filter_reason(op.weight, 0),
        _float_bias(op),
    )


def _add_reason(op: aten.AddOp) -> str | None:
    if op.other is None:
        return "adds a scalar to a quantized tensor"
    alpha = op.properties.get("alpha")
    if alpha is not None and alpha.value.data != 1:
        return "alpha is not 1"
    return _first(
        activation_reason(op.input, "the input"),
        activation_reason(op.other, "the other operand"),
        activation_reason(op.result, "the result"),
    )


def _elementwise_reason(op: Operation) -> str | None:
    return _first(
        activation_reason(op.input, "the input"), activation_reason(op.results[0], "the result")
    )


def _same_reason(op: Operation) -> str | None:
    """Pooling and data movement: XNNPACK keeps the quantization, so must the op."""
    values = list(op.tensors) if isinstance(op, aten.CatOp) else [op.input]
    return _first(
        *(activation_reason(v, "an input") for v in values),
        activation_reason(op.results[0], "the result"),
        same_quantization_reason(op, values),
    )


def _quantize_reason(op: aten.QuantizeOp) -> str | None:
    if op.input.type.element_type != op.result.type.element_type.expressed_type:
        return "quantizes from a type other than f32"
    return activation_reason(op.result, "the result")


def _dequantize_reason(op: aten.DequantizeOp) -> str | None:
    if isinstance(op.input.owner, aten.ConstantOp):
        return "a dequantized weight feeds a float op (no quantized op to take it)"
    return activation_reason(op.input, "the input")


# --- transposed convolutions and multiply (issue 14) ------------------------------------------


def _transposed_conv_reason(op: aten.ConvolutionOp) -> str | None:
    """A transposed conv's torch weight is [G * Cin_g, Cout_g, KH, KW]: PT2E quantizes it
    per output channel along axis 1 (XNNPACKQuantizer's conv_transpose annotation)."""
    return _first(
        activation_reason(op.input, "the input"),
        activation_reason(op.result, "the result"),
        filter_reason(op.weight, 1),
        _float_bias(op),
    )


def deconvolution_filter_type(
    q: UniformQuantType, shape: tuple[int, ...], groups: int
) -> TensorType:
    """A transposed conv's filter type in XNNPACK's layout [G * Cout_g, KH, KW, Cin_g]:
    per-channel scales (one per Cout_g, shared by the groups) repeated for each group along
    axis 0, where XNNPACK's qcint8 deconvolution filter keeps them."""
    return repeated_type(q, shape, groups, 0)


def repeated_type(q: UniformQuantType, shape: Sequence[int], repeats: int, axis: int) -> TensorType:
    """A tensor of `shape` quantized as `q`, whose per-channel parameters (if any) are
    repeated `repeats` times along `axis` (groups, or polyphase's phase-major channels)."""
    if q.per_tensor:
        return TensorType(q, shape)
    tiled = UniformQuantType(
        q.storage_type, q.scales.data * repeats, q.zero_points.data * repeats, axis=axis,
        storage_range=q.storage_range, expressed_type=q.expressed_type,
    )  # fmt: skip
    return TensorType(tiled, shape)


def _mul_reason(op: aten.MulOp) -> str | None:
    """XNNPACK's qs8 multiply: two qs8 tensors (broadcast), any scales, per-tensor."""
    if op.other is None:
        return "multiplies a quantized tensor by a scalar"
    return _first(
        activation_reason(op.input, "the input"),
        activation_reason(op.other, "the other operand"),
        activation_reason(op.result, "the result"),
    )


QS8_UNARY = (
    aten.SigmoidOp, aten.TanhOp, aten.HardswishOp, aten.LeakyReluOp, aten.EluOp, aten.GeluOp,
)  # fmt: skip

QUANTIZED_CHECKS = {
    aten.ConvolutionOp: _conv_reason,
    aten.LinearOp: _gemm_reason,
    aten.AddOp: _add_reason,
    aten.MulOp: _mul_reason,
    aten.ReluOp: _same_reason,
    aten.HardtanhOp: _same_reason,
    aten.ClampOp: _same_reason,
    aten.MeanOp: _elementwise_reason,
    # XNNPACK computes its unary ops on qs8 through a lookup table of the 256 inputs.
    **dict.fromkeys(QS8_UNARY, _elementwise_reason),
    aten.MaxPool2dWithIndicesOp: _same_reason,
    # qs8 averages are depthwise convolutions (conversion/pooling.py): they may requantize.
    aten.AvgPool2dOp: _elementwise_reason,
    aten.AdaptiveAvgPool2dOp: _elementwise_reason,
    aten.CatOp: _same_reason,
    aten.ConstantPadNdOp: _same_reason,
    aten.SliceOp: _same_reason,
    aten.ViewOp: _same_reason,
    aten.PermuteOp: _same_reason,
    aten.CloneOp: _same_reason,  # an inference-mode dropout
    aten.QuantizeOp: _quantize_reason,
    aten.DequantizeOp: _dequantize_reason,
    aten.ConstantOp: lambda op: None,
}


def quantized_reason(op: Operation) -> str | None:
    """None when `op` takes no quantized tensors or fits XNNPACK's qs8 nodes, else why not."""
    if not quantized_operands(op):
        return None
    check = QUANTIZED_CHECKS.get(type(op))
    if check is None:
        return f"{op_label(op)} on quantized tensors has no qs8 lowering yet"
    return check(op)
