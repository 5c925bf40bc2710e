"""The arithmetic of quantized types, exactly as PT2E's quantized_decomposed ops compute it
(torch/ao/quantization/fx/_decomposed.py), so the reference matches the PT2E model bit for
bit: `quantize` is `clamp(round(x * (1 / scale)) + zero_point, min, max)`, `dequantize` is
`(q - zero_point) * scale`."""

from __future__ import annotations

import torch

from xnnc.dialects.quant import UniformQuantType
from xnnc.ir.dtypes import TORCH_DTYPES


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
        inv_scale = 1.0 / q.scale
        return torch.clamp(torch.round(x * inv_scale) + q.zero_point, lo, hi).to(dtype)
    if q.blockwise:
        scales, zps = _blockwise_scales(q, x.shape)
    else:
        scales = _per_axis(q.scales.data, q, x.dim(), torch.float32)
        zps = _per_axis(q.zero_points.data, q, x.dim(), torch.int64)
    return torch.clamp(torch.round(x * (1.0 / scales)) + zps, lo, hi).to(dtype)


def dequantize(t: torch.Tensor, q: UniformQuantType) -> torch.Tensor:
    """The real numbers the integers `t` of `q` stand for, as f32."""
    if q.per_tensor:
        return (t.to(torch.float32) - q.zero_point) * q.scale
    if q.blockwise:
        scales, zps = _blockwise_scales(q, t.shape)
    else:
        # f64 then f32: exact for f32 scales and the same rounding as PT2E's f64 ones.
        scales = _per_axis(q.scales.data, q, t.dim(), torch.float64)
        zps = _per_axis(q.zero_points.data, q, t.dim(), torch.int64)
    # on t's device: a meta `t` is a weight known by shape (a partitioner's fake weights)
    scales, zps = scales.to(t.device), zps.to(t.device)
    return ((t.to(torch.int64) - zps) * scales).to(torch.float32)
