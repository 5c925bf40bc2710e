"""Dynamic quantization in the reference, as the quantized model computes it.

A dynamically quantized tensor carries its parameters with its values, so the reference
holds it as the real numbers it stands for: `aten.quantize` to a dynamic type chooses the
parameters and rounds the values to that grid (dequantize(quantize(x))), `aten.dequantize`
is the identity. Per tensor it is PT2E's `choose_qparams.tensor` and
`quantize/dequantize_per_tensor.tensor` themselves; per token the arithmetic of torchao's
`choose_qparams_affine` + `quantize/dequantize_affine` (f32 tensors), so the reference
matches those models bit for bit.
"""

from __future__ import annotations

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

from xnnc.dialects.dynamic_quant import DynamicQuantType


def _token_qparams(x: torch.Tensor, d: DynamicQuantType) -> tuple[torch.Tensor, torch.Tensor]:
    """Asymmetric (scale, zero point) of each row of `x`'s innermost dim (shaped to
    broadcast against `x`)."""
    lo, hi = d.storage_range
    low, high = x.amin(-1, keepdim=True), x.amax(-1, keepdim=True)
    low, high = torch.clamp(low, max=0.0), torch.clamp(high, min=0.0)
    scale = torch.clamp((high - low) / float(hi - lo), min=d.eps.data)
    zero_point = torch.clamp(lo - torch.round(low / scale), lo, hi)
    return scale, zero_point


def fake_quantize(x: torch.Tensor, d: DynamicQuantType) -> torch.Tensor:
    """`x` rounded to the grid its dynamic parameters define."""
    lo, hi = d.storage_range
    if d.per_token:
        scale, zero_point = _token_qparams(x, d)
        q = torch.clamp(torch.round(x * (1.0 / scale)) + zero_point, lo, hi)
        return (q - zero_point) * scale
    # PT2E's ops themselves: a program torch.export records from the reference (a stream's
    # step for stock ExecuTorch) holds its dynamic quantization pattern
    ops = torch.ops.quantized_decomposed
    s, z = ops.choose_qparams.tensor(x, lo, hi, d.eps.data, torch.int8)
    q = ops.quantize_per_tensor.tensor(x, s, z, lo, hi, torch.int8)
    return ops.dequantize_per_tensor.tensor(q, s, z, lo, hi, torch.int8)
