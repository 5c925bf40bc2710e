"""The arithmetic of quantized types, as PT2E's quantized_decomposed ops compute it
(torch/ao/quantization/fx/_decomposed.py), so the reference matches the PT2E model bit for
bit: `quantize` is `clamp(round(x * (1 / scale)) + zero_point, min, max)`, `dequantize` is
`(q - zero_point) * scale`.

Per tensor and per channel they are those ops themselves, so that a program torch.export
records from the reference (a stream's step for stock ExecuTorch, `xnnc.pte.stream`) holds
PT2E's quantize/dequantize pattern, which ExecuTorch's partitioners take as quantized ops,
not the arithmetic spelled out. Blockwise types keep the arithmetic (PT2E has no op for
them)."""

from __future__ import annotations

import warnings

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

from xnnc.dialects.quant import UniformQuantType
from xnnc.ir.dtypes import TORCH_DTYPES

_OPS = torch.ops.quantized_decomposed


def _constant(values: tuple, dtype: torch.dtype) -> torch.Tensor:
    """`values` as a tensor made from a buffer, which torch.export's tracing records as a
    constant of the program (a `torch.tensor` made inside it is copied in by an op)."""
    data = np.asarray(values, {torch.float32: np.float32, torch.int64: np.int64}[dtype])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.frombuffer on a fresh bytearray
        return torch.frombuffer(bytearray(data.tobytes()), dtype=dtype)


def _per_axis(values: tuple, q: UniformQuantType, rank: int, dtype: torch.dtype) -> torch.Tensor:
    """Per-channel parameters shaped to broadcast along the type's axis."""
    shape = [1] * rank
    shape[q.axis.data] = len(values)
    return torch.tensor(values, dtype=dtype).reshape(shape)


def _blockwise_scales(q: UniformQuantType, shape: torch.Size) -> tuple[torch.Tensor, torch.Tensor]:
    """Scales and zero points repeated over each block of the innermost dim."""
    rows, blocks = shape[q.axis.data], shape[-1] // q.block_size.data
    view = [1] * len(shape)
    view[q.axis.data], view[-1] = rows, shape[-1]
    scales = torch.tensor(q.scales.data, dtype=torch.float64).reshape(rows, blocks)
    zps = torch.tensor(q.zero_points.data, dtype=torch.int64).reshape(rows, blocks)
    repeat = q.block_size.data
    return (
        scales.repeat_interleave(repeat, 1).reshape(view),
        zps.repeat_interleave(repeat, 1).reshape(view),
    )


def quantize(x: torch.Tensor, q: UniformQuantType) -> torch.Tensor:
    """`x` (float) as the integers of `q`."""
    lo, hi = q.storage_range
    dtype = TORCH_DTYPES[q.storage_type]
    if q.per_tensor:
        return _OPS.quantize_per_tensor(x, q.scale, q.zero_point, lo, hi, dtype)
    if q.blockwise:
        scales, zps = _blockwise_scales(q, x.shape)
    else:
        scales = _per_axis(q.scales.data, q, x.dim(), torch.float32)
        zps = _per_axis(q.zero_points.data, q, x.dim(), torch.int64)
    return torch.clamp(torch.round(x * (1.0 / scales)) + zps, lo, hi).to(dtype)


def dequantize(t: torch.Tensor, q: UniformQuantType) -> torch.Tensor:
    """The real numbers the integers `t` of `q` stand for, as f32."""
    lo, hi = q.storage_range
    dtype = TORCH_DTYPES[q.storage_type]
    if q.per_tensor:
        return _OPS.dequantize_per_tensor(t, q.scale, q.zero_point, lo, hi, dtype)
    if not q.blockwise:
        # PT2E's f32 scales (its observers' dtype; xnnc's types hold f32 values), int64 zero
        # points, on t's device: a meta `t` is a weight known by shape (a partitioner's fake
        # weights)
        scales = _constant(q.scales.data, torch.float32)
        zps = _constant(q.zero_points.data, torch.int64)
        if t.device != scales.device:
            scales, zps = scales.to(t.device), zps.to(t.device)
        return _OPS.dequantize_per_channel(t, scales, zps, q.axis.data, lo, hi, dtype)
    scales, zps = _blockwise_scales(q, t.shape)
    scales, zps = scales.to(t.device), zps.to(t.device)
    return ((t.to(torch.int64) - zps) * scales).to(torch.float32)
