"""Dynamically quantized example models: an MLP and a transformer block, quantized by the
flows that ExecuTorch's XNNPACK delegate lowers to qd8 linears.

    model, x = block(small=True)
    quantized = quantize(model, "8da4w", x)      # or "pt2e", "8da8w"

- "pt2e": ExecuTorch's `XNNPACKQuantizer` with
  `get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)` and torchao's
  prepare_pt2e/convert_pt2e: activations per tensor at run time, qc8w weights;
- "8da8w": torchao `Int8DynamicActivationIntxWeightConfig(int8, PerAxis(0))`: activations per
  token, qc8w weights;
- "8da4w": the same with int4 weights in groups of 32 (`PerGroup(32)`): qb4w weights.
"""

from __future__ import annotations

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

FLOWS = ("pt2e", "8da8w", "8da4w")


class Mlp(nn.Module):
    """Three linears with ReLUs between them."""

    def __init__(self, d: int = 64, hidden: int = 256, out: int = 32):
        super().__init__()
        self.up, self.mid, self.down = (
            nn.Linear(d, hidden),
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, out),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.relu(self.mid(F.relu(self.up(x)))))


class Block(nn.Module):
    """A pre-norm transformer block: attention (fused qkv projection, SDPA, output
    projection) and a GELU MLP, each with a residual."""

    def __init__(self, d: int = 64, heads: int = 4, ff: int = 256):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, -1)
        q, k, v = (u.view(b, t, self.heads, d // self.heads).transpose(1, 2) for u in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.down(F.gelu(self.up(self.norm2(x))))


def mlp(small: bool = True, seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(seed)
    size = dict(d=64, hidden=256, out=32) if small else dict(d=1024, hidden=4096, out=1024)
    return Mlp(**size).eval(), torch.randn(4 if small else 8, size["d"])


def block(small: bool = True, seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(seed)
    size = dict(d=64, heads=4, ff=256) if small else dict(d=512, heads=8, ff=2048)
    return Block(**size).eval(), torch.randn(1, 16 if small else 64, size["d"])


MODELS = {"mlp": mlp, "block": block}


def quantize(model: nn.Module, flow: str, x: torch.Tensor) -> nn.Module:
    """A quantized copy of `model` (flows above); `x` calibrates PT2E's observers (none of
    the dynamic flows needs it for the activations)."""
    model = copy.deepcopy(model)
    if flow == "pt2e":
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer,
            get_symmetric_quantization_config,
        )
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)
        prepared = prepare_pt2e(
            torch.export.export(model, (x,)).module(), XNNPACKQuantizer().set_global(config)
        )
        prepared(x)
        return convert_pt2e(prepared)
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerAxis, PerGroup

    weights = {"8da8w": (torch.int8, PerAxis(0)), "8da4w": (torch.int4, PerGroup(32))}
    if flow not in weights:
        raise ValueError(f"unknown flow '{flow}'; expected one of {', '.join(FLOWS)}")
    dtype, granularity = weights[flow]
    config = Int8DynamicActivationIntxWeightConfig(
        weight_dtype=dtype, weight_granularity=granularity
    )
    quantize_(model, config)
    return model
