"""Dynamic quantization in the reference, as the quantized model computes it.

A dynamically quantized tensor carries its parameters with its values, so the reference
holds it as the real numbers it stands for: `aten.quantize` to a dynamic type chooses the
parameters and rounds the values to that grid (dequantize(quantize(x))), `aten.dequantize`
is the identity. The arithmetic is that of PT2E's `choose_qparams.tensor` +
`quantize/dequantize_per_tensor.tensor` (per tensor: f32 parameters, the scale applied as
a Python float) and torchao's `choose_qparams_affine` + `quantize/dequantize_affine`
(per token: f32 tensors), so the reference matches those models bit for bit.
"""

from __future__ import annotations

import torch

from xnnc.dialects.dynamic_quant import DynamicQuantType


def choose_qparams(x: torch.Tensor, d: DynamicQuantType) -> tuple[torch.Tensor, torch.Tensor]:
    """Asymmetric (scale, zero point) of `x`: one pair, or one per row of the innermost dim
    (shaped to broadcast against `x`)."""
    lo, hi = d.storage_range
    if d.per_token:
        low, high = x.amin(-1, keepdim=True), x.amax(-1, keepdim=True)
    else:
        low, high = torch.aminmax(x)
    low, high = torch.clamp(low, max=0.0), torch.clamp(high, min=0.0)
    scale = torch.clamp((high - low) / float(hi - lo), min=d.eps.data)
    zero_point = torch.clamp(lo - torch.round(low / scale), lo, hi)
    return scale, zero_point


def fake_quantize(x: torch.Tensor, d: DynamicQuantType) -> torch.Tensor:
    """`x` rounded to the grid its dynamic parameters define."""
    lo, hi = d.storage_range
    scale, zero_point = choose_qparams(x, d)
    if d.per_token:
        q = torch.clamp(torch.round(x * (1.0 / scale)) + zero_point, lo, hi)
        return (q - zero_point) * scale
    s, z = float(scale), int(zero_point)
    q = torch.clamp(torch.round(x * (1.0 / s)) + z, lo, hi).to(torch.int8)
    return (q.to(torch.float32) - z) * s
