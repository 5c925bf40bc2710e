"""Seeded PyTorch reproductions of public architectures, for import/compile/benchmark tests.

Every model comes with a factory ``make_<name>(small=False) -> (model, example_inputs)`` that seeds
``torch.manual_seed(0)`` and returns the model in eval() mode. ``small=True`` gives a reduced
variant with the same structure (fewer channels / frames / pixels) that runs in milliseconds.
``MODELS`` maps short names to factories.

Weights are random but scaled so activations stay finite and non-degenerate; BatchNorm and RMSNorm
layers get non-trivial affine parameters and running statistics so that folding them is tested.
"""

import math
from collections.abc import Sequence
from typing import Protocol

import torch
import torch.nn.functional as F
from torch import nn

Example = tuple[nn.Module, tuple[torch.Tensor, ...]]


class ModelFactory(Protocol):
    """``make_<name>(small=False) -> (eval-mode model, example inputs)``."""

    def __call__(self, small: bool = False) -> Example: ...


# ---------------------------------------------------------------------------------------------
# Initialization helpers (only ever called from inside the seeded factories)
# ---------------------------------------------------------------------------------------------


def _init_conv_weights(model: nn.Module, gain: float = 1.0, bias_std: float = 0.02) -> None:
    """Draw conv weights from N(0, gain**2 / fan_in), fan_in = inputs feeding one output sample."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Conv1d | nn.Conv2d):
                fan_in = m.weight[0].numel()
            elif isinstance(m, nn.ConvTranspose1d | nn.ConvTranspose2d):
                taps = math.prod(m.kernel_size) / math.prod(m.stride)
                fan_in = m.in_channels // m.groups * taps
            else:
                continue
            m.weight.normal_(0.0, gain / math.sqrt(fan_in))
            if m.bias is not None:
                m.bias.normal_(0.0, bias_std)


def randomize_norms(model: nn.Module) -> None:
    """Give BatchNorm/RMSNorm layers non-trivial affine parameters and running statistics."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
            elif isinstance(m, RMSNorm):
                m.weight.normal_(1.0, 0.1)


# ---------------------------------------------------------------------------------------------
# SEANet building blocks (shared by Mimi and EnCodec)
# ---------------------------------------------------------------------------------------------


class _SEANetConv1d(nn.Module):
    """Stride-1 Conv1d with SEANet padding: all on the left if causal, else split (left >= right).

    [B, C_in, T] -> [B, C_out, T].
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        *,
        dilation: int = 1,
        causal: bool,
        pad_mode: str,
    ) -> None:
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, dilation=dilation)
        padding_total = (kernel_size - 1) * dilation
        right = 0 if causal else padding_total // 2
        self.padding = (padding_total - right, right)
        self.pad_mode = pad_mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(F.pad(x, self.padding, mode=self.pad_mode))


class _SEANetConvTranspose1d(nn.Module):
    """ConvTranspose1d trimmed by ``k - s`` samples (right only if causal, else split).

    [B, C_in, T] -> [B, C_out, T * stride].
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        stride: int,
        *,
        causal: bool,
        groups: int = 1,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.convtr = nn.ConvTranspose1d(
            in_channels, out_channels, kernel_size, stride, groups=groups, bias=bias
        )
        padding_total = kernel_size - stride
        # EnCodec's unpad1d convention: padding_right = total // 2, padding_left = the rest.
        right = padding_total if causal else padding_total // 2
        self.trim = (padding_total - right, right)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.convtr(x)
        left, right = self.trim
        return y[..., left : y.shape[-1] - right]


class _SEANetResBlock(nn.Module):
    """SEANet residual block (true_skip): x + Conv1x1(ELU(Conv3(ELU(x)))), hidden = dim // 2."""

    def __init__(self, dim: int, *, causal: bool, pad_mode: str, compress: int = 2) -> None:
        super().__init__()
        hidden = dim // compress
        self.block = nn.Sequential(
            nn.ELU(),
            _SEANetConv1d(dim, hidden, 3, causal=causal, pad_mode=pad_mode),
            nn.ELU(),
            _SEANetConv1d(hidden, dim, 1, causal=causal, pad_mode=pad_mode),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x)


class SLSTM(nn.Module):
    """EnCodec SLSTM: time-major multi-layer LSTM over [B, C, T] with a skip connection."""

    def __init__(self, dim: int, num_layers: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(dim, dim, num_layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.permute(2, 0, 1)  # [T, B, C]
        y, _ = self.lstm(x)
        return (y + x).permute(1, 2, 0)


class SEANetDecoder(nn.Module):
    """SEANet decoder (EnCodec / Mimi): [B, dimension, T] -> [B, 1, T * prod(ratios)].

    Conv(k7) -> [SLSTM] -> per ratio r: ELU, ConvTranspose1d(k=2r, s=r) halving channels, one
    residual block -> ELU -> Conv(k7) to one channel.
    """

    def __init__(
        self,
        dimension: int,
        n_filters: int,
        ratios: Sequence[int],
        *,
        causal: bool,
        pad_mode: str,
        lstm_layers: int = 0,
        kernel_size: int = 7,
        last_kernel_size: int = 7,
    ) -> None:
        super().__init__()
        channels = n_filters * 2 ** len(ratios)
        layers: list[nn.Module] = [
            _SEANetConv1d(dimension, channels, kernel_size, causal=causal, pad_mode=pad_mode)
        ]
        if lstm_layers:
            layers.append(SLSTM(channels, lstm_layers))
        for ratio in ratios:
            layers += [
                nn.ELU(),
                _SEANetConvTranspose1d(channels, channels // 2, 2 * ratio, ratio, causal=causal),
                _SEANetResBlock(channels // 2, causal=causal, pad_mode=pad_mode),
            ]
            channels //= 2
        layers += [
            nn.ELU(),
            _SEANetConv1d(channels, 1, last_kernel_size, causal=causal, pad_mode=pad_mode),
        ]
        self.model = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)


# ---------------------------------------------------------------------------------------------
# 1. Mimi (Kyutai) SEANet decoder
# ---------------------------------------------------------------------------------------------


class MimiDecoder(nn.Module):
    """Kyutai Mimi decoder path: frame-rate upsample + causal SEANet decoder (constant padding).

    A depthwise ConvTranspose1d(k=4, s=2, causal trim of 2) upsamples the 12.5 Hz latent to 25 Hz,
    then SEANet upsamples by 8*6*5*4 = 960. [1, 512, T] -> [1, 1, 1920 * T]; the full-size input
    [1, 512, 13] (about 1 s of 24 kHz audio) gives exactly [1, 1, 24960].
    """

    def __init__(
        self,
        dimension: int = 512,
        n_filters: int = 64,
        ratios: Sequence[int] = (8, 6, 5, 4),
    ) -> None:
        super().__init__()
        self.upsample = _SEANetConvTranspose1d(
            dimension, dimension, 4, 2, causal=True, groups=dimension, bias=False
        )
        self.decoder = SEANetDecoder(dimension, n_filters, ratios, causal=True, pad_mode="constant")

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.upsample(latent))


def make_mimi_decoder(small: bool = False) -> Example:
    """Mimi decoder; full [1, 512, 13] -> [1, 1, 24960], small [1, 64, 4] -> [1, 1, 7680]."""
    torch.manual_seed(0)
    dimension, n_filters, frames = (64, 8, 4) if small else (512, 64, 13)
    model = MimiDecoder(dimension, n_filters)
    _init_conv_weights(model)
    return model.eval(), (torch.randn(1, dimension, frames),)


class _RotaryAttention(nn.Module):
    """Mimi's (moshi's) causal self-attention over [B, T, C]: rotary positions (interleaved
    pairs), each query sees the `context` frames up to its own (a mask of frame positions),
    no biases."""

    def __init__(self, dim: int, heads: int, context: int, max_period: float = 10000.0):
        super().__init__()
        self.heads, self.context, self.max_period = heads, context, max_period
        self.in_proj = nn.Linear(dim, 3 * dim, bias=False)
        self.out_proj = nn.Linear(dim, dim, bias=False)

    def rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        b, h, t, d = x.shape
        pairs = x.view(b, h, t, d // 2, 2)
        re, im = pairs[..., 0], pairs[..., 1]
        return torch.stack([re * cos - im * sin, re * sin + im * cos], dim=-1).view(b, h, t, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.in_proj(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        half = c // self.heads // 2
        freqs = torch.exp(
            torch.arange(half, dtype=torch.float32) * (-math.log(self.max_period) / half)
        )
        angles = torch.arange(t, dtype=torch.float32).view(-1, 1) * freqs
        cos, sin = torch.cos(angles), torch.sin(angles)
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        pos = torch.arange(t)
        delta = pos[:, None] - pos[None, :]
        mask = (delta >= 0) & (delta < self.context)
        y = F.scaled_dot_product_attention(q, k, v, mask)
        return self.out_proj(y.transpose(1, 2).reshape(b, t, c))


class _MimiTransformerLayer(nn.Module):
    """Pre-norm layer with layer scales: x + s1 * attn(norm(x)), then x + s2 * ffn(norm(x))."""

    def __init__(self, dim: int, heads: int, context: int, hidden: int, scale: float):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.self_attn = _RotaryAttention(dim, heads, context)
        self.linear1 = nn.Linear(dim, hidden, bias=False)
        self.linear2 = nn.Linear(hidden, dim, bias=False)
        self.scale1 = nn.Parameter(torch.full((dim,), scale))
        self.scale2 = nn.Parameter(torch.full((dim,), scale))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.scale1 * self.self_attn(self.norm1(x))
        return x + self.scale2 * self.linear2(F.gelu(self.linear1(self.norm2(x))))


class MimiTransformerDecoder(nn.Module):
    """Mimi's whole decoder: the x2 upsample, its causal transformer at 25 Hz (rotary
    positions, a window of `context` frames) over [B, C, T], then the SEANet decoder."""

    def __init__(
        self, dimension: int = 512, n_filters: int = 64, layers: int = 8, heads: int = 8,
        context: int = 250, hidden: int = 2048, layer_scale: float = 0.01,
    ) -> None:  # fmt: skip
        super().__init__()
        self.upsample = MimiDecoder(dimension, n_filters).upsample
        self.transformer = nn.ModuleList(
            _MimiTransformerLayer(dimension, heads, context, hidden, layer_scale)
            for _ in range(layers)
        )
        self.decoder = SEANetDecoder(dimension, n_filters, (8, 6, 5, 4), causal=True,
                                     pad_mode="constant")  # fmt: skip

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        x = self.upsample(latent).transpose(1, 2)
        for layer in self.transformer:
            x = layer(x)
        return self.decoder(x.transpose(1, 2))


def make_mimi_transformer_decoder(small: bool = False) -> Example:
    """Mimi decoder with its transformer; full: 8 layers of 512 (8 heads, a 250-frame window,
    FFN 2048) on [1, 512, 13] -> [1, 1, 24960]; small: 2 layers of 64 (4 heads, a 5-frame
    window, FFN 128, layer scales of 1 so that the transformer shows in its output) on
    [1, 64, 4] -> [1, 1, 7680]."""
    torch.manual_seed(0)
    if small:
        dimension, n_filters, layers, heads, context, hidden, frames = 64, 8, 2, 4, 5, 128, 4
    else:
        dimension, n_filters, layers, heads, context, hidden, frames = 512, 64, 8, 8, 250, 2048, 13
    model = MimiTransformerDecoder(dimension, n_filters, layers, heads, context, hidden,
                                   layer_scale=1.0 if small else 0.01)  # fmt: skip
    _init_conv_weights(model)
    return model.eval(), (torch.randn(1, dimension, frames),)


# ---------------------------------------------------------------------------------------------
# 2. ResNet-18
# ---------------------------------------------------------------------------------------------


class _BasicBlock(nn.Module):
    """torchvision ResNet BasicBlock: two 3x3 conv+BN, 1x1 conv+BN projection when needed."""

    def __init__(self, in_channels: int, out_channels: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.downsample: nn.Module = nn.Identity()
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + self.downsample(x))


class ResNetStyle(nn.Module):
    """ResNet-18 (He et al. 2016, torchvision layout): [1, 3, H, W] -> [1, num_classes] logits."""

    def __init__(
        self, widths: Sequence[int] = (64, 128, 256, 512), num_classes: int = 1000
    ) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        stages = []
        in_channels = widths[0]
        for i, width in enumerate(widths):
            stride = 1 if i == 0 else 2
            stages.append(
                nn.Sequential(_BasicBlock(in_channels, width, stride), _BasicBlock(width, width, 1))
            )
            in_channels = width
        self.layers = nn.Sequential(*stages)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[-1], num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.avgpool(self.layers(x))
        return self.fc(torch.flatten(x, 1))


def make_resnet(small: bool = False) -> Example:
    """ResNet-18: full [1, 3, 224, 224] -> [1, 1000]; small [1, 3, 64, 64] -> [1, 10]."""
    torch.manual_seed(0)
    if small:
        model, size = ResNetStyle((16, 32, 64, 128), num_classes=10), 64
    else:
        model, size = ResNetStyle(), 224
    _init_conv_weights(model)
    randomize_norms(model)
    return model.eval(), (torch.randn(1, 3, size, size),)


# ---------------------------------------------------------------------------------------------
# 3. LLaMA-style bf16 transformer block and bf16 residual stack
# ---------------------------------------------------------------------------------------------


class RMSNorm(nn.Module):
    """LLaMA RMSNorm: normalize in fp32, cast back to the input dtype, then scale."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return h.type_as(x) * self.weight


class _Attention(nn.Module):
    """LLaMA causal self-attention with explicit matmul/softmax (no SDPA, no rotary)."""

    def __init__(self, dim: int, n_heads: int, max_seq_len: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        mask = torch.full((max_seq_len, max_seq_len), float("-inf")).triu(1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bsz, seqlen, _ = x.shape
        shape = (bsz, seqlen, self.n_heads, self.head_dim)
        q = self.wq(x).view(shape).transpose(1, 2)
        k = self.wk(x).view(shape).transpose(1, 2)
        v = self.wv(x).view(shape).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + self.mask[:seqlen, :seqlen]
        scores = F.softmax(scores.float(), dim=-1).type_as(q)
        out = torch.matmul(scores, v).transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(out)


class _FeedForward(nn.Module):
    """LLaMA SwiGLU MLP: w2(silu(w1(x)) * w3(x))."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlockBF16(nn.Module):
    """LLaMA pre-norm transformer block in bfloat16: [1, T, dim] bf16 -> [1, T, dim] bf16.

    h = x + Attention(RMSNorm(x)); out = h + SwiGLU(RMSNorm(h)). Full size: dim 512, 8 heads,
    hidden 1536 (LLaMA's 8/3 * dim rounded up to 256), T = 64.
    """

    def __init__(
        self, dim: int = 512, n_heads: int = 8, hidden_dim: int = 1536, seq_len: int = 64
    ) -> None:
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = _Attention(dim, n_heads, seq_len)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = _FeedForward(dim, hidden_dim)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


def make_bf16_block(small: bool = False) -> Example:
    """bf16 LLaMA block; full [1, 64, 512] bf16, small (dim 64, 4 heads) [1, 8, 64] bf16."""
    torch.manual_seed(0)
    dim, n_heads, hidden, seq = (64, 4, 192, 8) if small else (512, 8, 1536, 64)
    model = TransformerBlockBF16(dim, n_heads, hidden, seq)
    randomize_norms(model)
    return model.eval(), (torch.randn(1, seq, dim, dtype=torch.bfloat16),)


class _NormLinearResidual(nn.Module):
    """x + Linear(RMSNorm(x))."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = RMSNorm(dim)
        self.linear = nn.Linear(dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.linear(self.norm(x))


class BF16ResidualBlocks(nn.Module):
    """Stack of bf16 ``x + Linear(RMSNorm(x))`` blocks (LLaMA-like residual stream, no attention).

    [1, T, width] bf16 -> [1, T, width] bf16; T = 64 for prefill, 1 for decode.
    """

    def __init__(self, width: int = 2048, num_blocks: int = 4) -> None:
        super().__init__()
        self.blocks = nn.Sequential(*(_NormLinearResidual(width) for _ in range(num_blocks)))
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(x)


def _make_bf16_blocks(small: bool, tokens: int) -> Example:
    torch.manual_seed(0)
    width = 128 if small else 2048
    model = BF16ResidualBlocks(width)
    randomize_norms(model)
    return model.eval(), (torch.randn(1, tokens, width, dtype=torch.bfloat16),)


def make_bf16_blocks(small: bool = False) -> Example:
    """bf16 residual stack, prefill: full [1, 64, 2048], small [1, 64, 128]."""
    return _make_bf16_blocks(small, tokens=64)


def make_bf16_blocks_decode(small: bool = False) -> Example:
    """bf16 residual stack, single-token decode: full [1, 1, 2048], small [1, 1, 128]."""
    return _make_bf16_blocks(small, tokens=1)


# ---------------------------------------------------------------------------------------------
# 4. MI-GAN-style fp16 encoder-decoder
# ---------------------------------------------------------------------------------------------


class _SeparableConv2d(nn.Sequential):
    """Depthwise 3x3 + pointwise 1x1 + LeakyReLU(0.2)."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(
            nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels),
            nn.Conv2d(in_channels, out_channels, 1),
            nn.LeakyReLU(0.2),
        )


class _BlurDownsample(nn.Module):
    """StyleGAN2 / MI-GAN downsample: zero pad 1, depthwise [1,3,3,1]x[1,3,3,1] blur, stride 2."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        taps = torch.tensor([1.0, 3.0, 3.0, 1.0])
        kernel = torch.outer(taps, taps)
        kernel = kernel / kernel.sum()
        self.register_buffer("kernel", kernel.expand(channels, 1, 4, 4).contiguous())
        self.channels = channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(F.pad(x, (1, 1, 1, 1)), self.kernel, stride=2, groups=self.channels)


class _EncoderBlock(nn.Sequential):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(_SeparableConv2d(in_channels, out_channels), _BlurDownsample(out_channels))


class _DecoderBlock(nn.Module):
    """Depthwise transposed-conv x2 upsample, separable conv, encoder skip; RGB skip branch."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.up = nn.ConvTranspose2d(
            in_channels, in_channels, 4, stride=2, padding=1, groups=in_channels
        )
        self.conv = _SeparableConv2d(in_channels, out_channels)
        self.to_rgb = nn.Conv2d(out_channels, 3, 1)

    def forward(
        self, x: torch.Tensor, skip: torch.Tensor, img: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.conv(self.up(x)) + skip
        img = F.interpolate(img, scale_factor=2, mode="nearest") + self.to_rgb(x)
        return x, img


class FP16ConvNet(nn.Module):
    """MI-GAN-style (Sargsyan et al. 2023) inpainting encoder-decoder running in fp16.

    Input [1, 4, H, W] fp32 (mask - 0.5, masked RGB) is cast to fp16; four blur-downsampling
    encoder stages, a bottleneck, four transposed-conv decoder stages with U-Net skips and a
    StyleGAN2-style nearest-upsampled RGB skip path. Output [1, 3, H, W] cast back to fp32.
    """

    def __init__(
        self, channels: Sequence[int] = (32, 64, 128, 256, 256), dtype: torch.dtype = torch.float16
    ) -> None:
        super().__init__()
        if dtype not in (torch.float16, torch.float32):
            raise ValueError(f"FP16ConvNet runs in fp16 or fp32, not {dtype}")
        self.dtype = dtype  # fp32 for the quantized target (examples/quantized_models.py)
        self.from_rgb = nn.Sequential(nn.Conv2d(4, channels[0], 1), nn.LeakyReLU(0.2))
        pairs = list(zip(channels[:-1], channels[1:], strict=True))
        self.encoder = nn.ModuleList(_EncoderBlock(c_in, c_out) for c_in, c_out in pairs)
        self.bottleneck = _SeparableConv2d(channels[-1], channels[-1])
        self.to_rgb = nn.Conv2d(channels[-1], 3, 1)
        self.decoder = nn.ModuleList(_DecoderBlock(c_out, c_in) for c_in, c_out in pairs[::-1])
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # No cast at all in fp32: PT2E would quantize around a no-op `to`. `.half()`, not
        # `.to(float16)`: tests compute the fp32 twin by running `.half()` as `.float()`.
        x = self.from_rgb(x if self.dtype == torch.float32 else x.half())
        skips = []
        for block in self.encoder:
            skips.append(x)
            x = block(x)
        x = self.bottleneck(x)
        img = self.to_rgb(x)
        for block, skip in zip(self.decoder, reversed(skips), strict=True):
            x, img = block(x, skip, img)
        return img if self.dtype == torch.float32 else img.float()


def make_fp16_convnet(small: bool = False, dtype: torch.dtype = torch.float16) -> Example:
    """MI-GAN-style fp16 net; full [1, 4, 256, 256] -> [1, 3, 256, 256], small 32x32, fp32 I/O.
    `dtype=torch.float32`: the same net in fp32 (what PT2E quantizes)."""
    torch.manual_seed(0)
    if small:
        model, size = FP16ConvNet((8, 16, 32, 64, 64), dtype), 32
    else:
        model, size = FP16ConvNet(dtype=dtype), 256
    _init_conv_weights(model)
    image = torch.rand(1, 3, size, size) * 2 - 1
    mask = (torch.rand(1, 1, size, size) > 0.3).float()
    return model.eval(), (torch.cat([mask - 0.5, image * mask], dim=1),)


# ---------------------------------------------------------------------------------------------
# 5. EnCodec decoder
# ---------------------------------------------------------------------------------------------


class EnCodecDecoder(SEANetDecoder):
    """EnCodec 24 kHz decoder (Défossez et al. 2022): non-causal SEANet with reflect padding.

    Conv(128 -> 512, k7), 2-layer SLSTM, ConvTranspose (k, s) = (16, 8), (10, 5), (8, 4), (4, 2)
    with EnCodec's asymmetric trim, residual blocks, Conv(32 -> 1, k7).
    [1, 128, T] -> [1, 1, 320 * T]; full size [1, 128, 75] -> [1, 1, 24000].
    """

    def __init__(self, dimension: int = 128, n_filters: int = 32) -> None:
        super().__init__(
            dimension, n_filters, (8, 5, 4, 2), causal=False, pad_mode="reflect", lstm_layers=2
        )


def make_encodec_decoder(small: bool = False) -> Example:
    """EnCodec decoder; full [1, 128, 75] -> [1, 1, 24000], small [1, 16, 10] -> [1, 1, 3200]."""
    torch.manual_seed(0)
    dimension, n_filters, frames = (16, 4, 10) if small else (128, 32, 75)
    model = EnCodecDecoder(dimension, n_filters)
    _init_conv_weights(model)
    return model.eval(), (torch.randn(1, dimension, frames),)


# ---------------------------------------------------------------------------------------------
# 6. DAC decoder
# ---------------------------------------------------------------------------------------------


class Snake1d(nn.Module):
    """Snake activation x + sin(alpha * x)^2 / alpha, alpha per channel of shape [1, C, 1]."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1, channels, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + (self.alpha + 1e-9).reciprocal() * torch.sin(self.alpha * x).pow(2)


class _DACResidualUnit(nn.Module):
    """Snake, Conv1d(k7, dilation d, same padding), Snake, Conv1d(k1), residual with center crop."""

    def __init__(self, dim: int, dilation: int) -> None:
        super().__init__()
        self.block = nn.Sequential(
            Snake1d(dim),
            nn.Conv1d(dim, dim, 7, dilation=dilation, padding=3 * dilation),
            Snake1d(dim),
            nn.Conv1d(dim, dim, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        crop = (x.shape[-1] - y.shape[-1]) // 2
        if crop > 0:
            x = x[..., crop:-crop]
        return x + y


class _DACDecoderBlock(nn.Sequential):
    def __init__(self, in_channels: int, out_channels: int, stride: int) -> None:
        super().__init__(
            Snake1d(in_channels),
            nn.ConvTranspose1d(
                in_channels, out_channels, 2 * stride, stride, padding=math.ceil(stride / 2)
            ),
            _DACResidualUnit(out_channels, 1),
            _DACResidualUnit(out_channels, 3),
            _DACResidualUnit(out_channels, 9),
        )


class DACDecoder(nn.Module):
    """Descript Audio Codec 44 kHz decoder (Kumar et al. 2023) with Snake activations.

    [1, 1024, T] -> [1, 1, 512 * T]; full size [1, 1024, 87] -> [1, 1, 44544] (tanh output).
    """

    def __init__(
        self, latent_dim: int = 1024, channels: int = 1536, rates: Sequence[int] = (8, 8, 4, 2)
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Conv1d(latent_dim, channels, 7, padding=3)]
        for stride in rates:
            layers.append(_DACDecoderBlock(channels, channels // 2, stride))
            channels //= 2
        layers += [Snake1d(channels), nn.Conv1d(channels, 1, 7, padding=3), nn.Tanh()]
        self.model = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)


def make_dac_decoder(small: bool = False) -> Example:
    """DAC decoder; full [1, 1024, 87] -> [1, 1, 44544], small [1, 64, 6] -> [1, 1, 3072]."""
    torch.manual_seed(0)
    latent_dim, channels, frames = (64, 96, 6) if small else (1024, 1536, 87)
    model = DACDecoder(latent_dim, channels)
    _init_conv_weights(model)
    # Down-scale residual branches and the output conv so the tanh is not saturated.
    for m in model.modules():
        if isinstance(m, _DACResidualUnit):
            _init_conv_weights(m.block[-1], gain=0.3)
    _init_conv_weights(model.model[-2], gain=0.3)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, Snake1d):
                m.alpha.uniform_(0.5, 1.5)
    return model.eval(), (torch.randn(1, latent_dim, frames),)


# ---------------------------------------------------------------------------------------------
# 7. HiFi-GAN V1 generator
# ---------------------------------------------------------------------------------------------

_LRELU_SLOPE = 0.1


class _HiFiGANResBlock1(nn.Module):
    """HiFi-GAN ResBlock1: three (lrelu, dilated conv, lrelu, conv) residual pairs."""

    def __init__(self, channels: int, kernel_size: int, dilations: Sequence[int]) -> None:
        super().__init__()
        self.convs1 = nn.ModuleList(
            nn.Conv1d(
                channels, channels, kernel_size, dilation=d, padding=(kernel_size - 1) * d // 2
            )
            for d in dilations
        )
        self.convs2 = nn.ModuleList(
            nn.Conv1d(channels, channels, kernel_size, padding=(kernel_size - 1) // 2)
            for _ in dilations
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for c1, c2 in zip(self.convs1, self.convs2, strict=True):
            xt = c1(F.leaky_relu(x, _LRELU_SLOPE))
            xt = c2(F.leaky_relu(xt, _LRELU_SLOPE))
            x = xt + x
        return x


class HiFiGANGenerator(nn.Module):
    """HiFi-GAN V1 generator (Kong et al. 2020): mel [1, 80, T] -> waveform [1, 1, 256 * T].

    Upsample rates (8, 8, 2, 2), kernels (16, 16, 4, 4), multi-receptive-field fusion of
    ResBlock1 with kernels (3, 7, 11) and dilations (1, 3, 5). As in the reference code, the
    final leaky_relu before conv_post uses PyTorch's default slope 0.01.
    """

    def __init__(
        self,
        n_mels: int = 80,
        channels: int = 512,
        upsample_rates: Sequence[int] = (8, 8, 2, 2),
        upsample_kernel_sizes: Sequence[int] = (16, 16, 4, 4),
        resblock_kernel_sizes: Sequence[int] = (3, 7, 11),
        resblock_dilations: Sequence[int] = (1, 3, 5),
    ) -> None:
        super().__init__()
        self.num_kernels = len(resblock_kernel_sizes)
        self.conv_pre = nn.Conv1d(n_mels, channels, 7, padding=3)
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        for u, k in zip(upsample_rates, upsample_kernel_sizes, strict=True):
            self.ups.append(nn.ConvTranspose1d(channels, channels // 2, k, u, padding=(k - u) // 2))
            channels //= 2
            self.resblocks.extend(
                _HiFiGANResBlock1(channels, rk, resblock_dilations) for rk in resblock_kernel_sizes
            )
        self.conv_post = nn.Conv1d(channels, 1, 7, padding=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv_pre(x)
        for i, up in enumerate(self.ups):
            x = up(F.leaky_relu(x, _LRELU_SLOPE))
            blocks = self.resblocks[i * self.num_kernels : (i + 1) * self.num_kernels]
            xs = blocks[0](x)
            for block in blocks[1:]:
                xs = xs + block(x)
            x = xs / self.num_kernels
        return torch.tanh(self.conv_post(F.leaky_relu(x)))


def make_hifigan(small: bool = False) -> Example:
    """HiFi-GAN V1; full mel [1, 80, 32] -> [1, 1, 8192], small (channels / 8) [1, 80, 8]."""
    torch.manual_seed(0)
    channels, frames = (64, 8) if small else (512, 32)
    model = HiFiGANGenerator(channels=channels)
    _init_conv_weights(model)
    return model.eval(), (torch.randn(1, 80, frames),)


# ---------------------------------------------------------------------------------------------
# 8. MobileNetV2
# ---------------------------------------------------------------------------------------------


def _make_divisible(value: float, divisor: int = 8) -> int:
    """torchvision's channel rounding: nearest multiple of divisor, never more than 10% down."""
    new_value = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return new_value + divisor if new_value < 0.9 * value else new_value


def _conv_bn(
    in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, groups: int = 1
) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding=(kernel_size - 1) // 2,
            groups=groups,
            bias=False,
        ),
        nn.BatchNorm2d(out_channels),
    )


class _InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand + ReLU6, 3x3 depthwise + ReLU6, 1x1 linear projection."""

    def __init__(self, in_channels: int, out_channels: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = in_channels * expand
        layers: list[nn.Module] = []
        if expand != 1:
            layers += [*_conv_bn(in_channels, hidden, 1), nn.ReLU6(inplace=True)]
        layers += [
            *_conv_bn(hidden, hidden, 3, stride, groups=hidden),
            nn.ReLU6(inplace=True),
            *_conv_bn(hidden, out_channels, 1),
        ]
        self.conv = nn.Sequential(*layers)
        self.use_residual = stride == 1 and in_channels == out_channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.use_residual else self.conv(x)


class MobileNetV2Style(nn.Module):
    """MobileNetV2 (Sandler et al. 2018, torchvision layout): [1, 3, H, W] -> [1, num_classes]."""

    # (expansion t, channels c, repeats n, first stride s)
    SETTINGS = (
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    )

    def __init__(self, width_mult: float = 1.0, num_classes: int = 1000) -> None:
        super().__init__()
        in_channels = _make_divisible(32 * width_mult)
        last_channels = _make_divisible(1280 * max(1.0, width_mult))
        layers: list[nn.Module] = [
            nn.Sequential(*_conv_bn(3, in_channels, 3, 2), nn.ReLU6(inplace=True))
        ]
        for t, c, n, s in self.SETTINGS:
            out_channels = _make_divisible(c * width_mult)
            for i in range(n):
                layers.append(_InvertedResidual(in_channels, out_channels, s if i == 0 else 1, t))
                in_channels = out_channels
        layers.append(
            nn.Sequential(*_conv_bn(in_channels, last_channels, 1), nn.ReLU6(inplace=True))
        )
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last_channels, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


def make_mobilenetv2(small: bool = False) -> Example:
    """MobileNetV2; full [1, 3, 224, 224] -> [1, 1000], small (x0.25) [1, 3, 64, 64] -> [1, 10]."""
    torch.manual_seed(0)
    if small:
        model, size = MobileNetV2Style(0.25, num_classes=10), 64
    else:
        model, size = MobileNetV2Style(), 224
    _init_conv_weights(model, gain=math.sqrt(2.0))
    randomize_norms(model)
    return model.eval(), (torch.randn(1, 3, size, size),)


class _SqueezeExcitation(nn.Module):
    """MobileNetV3's SE: channel scales from the average, through 1x1 convs, ReLU and
    hardsigmoid."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        squeeze = _make_divisible(channels // 4)
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(scale))))


class _InvertedResidualV3(nn.Module):
    """MobileNetV3 block: 1x1 expand, k x k depthwise, optional SE, 1x1 projection; ReLU or
    hardswish."""

    def __init__(self, cin: int, k: int, expanded: int, cout: int, se: bool, act: str,
                 stride: int) -> None:  # fmt: skip
        super().__init__()
        activation = nn.Hardswish if act == "HS" else nn.ReLU
        layers: list[nn.Module] = []
        if expanded != cin:
            layers += [*_conv_bn(cin, expanded, 1), activation()]
        layers += [*_conv_bn(expanded, expanded, k, stride, groups=expanded), activation()]
        if se:
            layers.append(_SqueezeExcitation(expanded))
        layers += [*_conv_bn(expanded, cout, 1)]
        self.block = nn.Sequential(*layers)
        self.use_residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x) if self.use_residual else self.block(x)


class MobileNetV3Style(nn.Module):
    """MobileNetV3 large or small (Howard et al. 2019, torchvision's layout and settings):
    [1, 3, H, W] -> [1, num_classes]. Hardswish and, in the squeeze-excitation blocks,
    hardsigmoid."""

    # (input channels, kernel, expanded, output channels, SE, activation, stride)
    LARGE = (
        (16, 3, 16, 16, False, "RE", 1), (16, 3, 64, 24, False, "RE", 2),
        (24, 3, 72, 24, False, "RE", 1), (24, 5, 72, 40, True, "RE", 2),
        (40, 5, 120, 40, True, "RE", 1), (40, 5, 120, 40, True, "RE", 1),
        (40, 3, 240, 80, False, "HS", 2), (80, 3, 200, 80, False, "HS", 1),
        (80, 3, 184, 80, False, "HS", 1), (80, 3, 184, 80, False, "HS", 1),
        (80, 3, 480, 112, True, "HS", 1), (112, 3, 672, 112, True, "HS", 1),
        (112, 5, 672, 160, True, "HS", 2), (160, 5, 960, 160, True, "HS", 1),
        (160, 5, 960, 160, True, "HS", 1),
    )  # fmt: skip
    SMALL = (
        (16, 3, 16, 16, True, "RE", 2), (16, 3, 72, 24, False, "RE", 2),
        (24, 3, 88, 24, False, "RE", 1), (24, 5, 96, 40, True, "HS", 2),
        (40, 5, 240, 40, True, "HS", 1), (40, 5, 240, 40, True, "HS", 1),
        (40, 5, 120, 48, True, "HS", 1), (48, 5, 144, 48, True, "HS", 1),
        (48, 5, 288, 96, True, "HS", 2), (96, 5, 576, 96, True, "HS", 1),
        (96, 5, 576, 96, True, "HS", 1),
    )  # fmt: skip

    def __init__(self, arch: str = "large", width_mult: float = 1.0,
                 num_classes: int = 1000) -> None:  # fmt: skip
        super().__init__()
        settings = self.LARGE if arch == "large" else self.SMALL

        def width(c: int) -> int:
            return _make_divisible(c * width_mult)

        layers: list[nn.Module] = [nn.Sequential(*_conv_bn(3, width(16), 3, 2), nn.Hardswish())]
        for cin, k, expanded, cout, se, act, stride in settings:
            layers.append(_InvertedResidualV3(width(cin), k, width(expanded), width(cout), se,
                                              act, stride))  # fmt: skip
        last_in = width(settings[-1][3])
        layers.append(nn.Sequential(*_conv_bn(last_in, 6 * last_in, 1), nn.Hardswish()))
        self.features = nn.Sequential(*layers)
        last = width(1280 if arch == "large" else 1024)
        self.classifier = nn.Sequential(
            nn.Linear(6 * last_in, last), nn.Hardswish(), nn.Dropout(0.2),
            nn.Linear(last, num_classes),
        )  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


def _make_mobilenetv3(arch: str, small: bool) -> Example:
    torch.manual_seed(0)
    if small:
        model, size = MobileNetV3Style(arch, 0.25, num_classes=10), 64
    else:
        model, size = MobileNetV3Style(arch), 224
    _init_conv_weights(model, gain=math.sqrt(2.0))
    randomize_norms(model)
    return model.eval(), (torch.randn(1, 3, size, size),)


def make_mobilenetv3_large(small: bool = False) -> Example:
    """MobileNetV3-Large; full [1, 3, 224, 224] -> [1, 1000], small (x0.25) [1, 3, 64, 64] ->
    [1, 10]."""
    return _make_mobilenetv3("large", small)


def make_mobilenetv3_small(small: bool = False) -> Example:
    """MobileNetV3-Small; full [1, 3, 224, 224] -> [1, 1000], small (x0.25) [1, 3, 64, 64] ->
    [1, 10]."""
    return _make_mobilenetv3("small", small)


# ---------------------------------------------------------------------------------------------
# Normalized models: a transformer encoder layer, a 1-D audio front end
# ---------------------------------------------------------------------------------------------


def _randomize_affine_norms(model: nn.Module) -> None:
    """LayerNorm/GroupNorm weights around 1 and biases around 0, so the affine part counts."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm | nn.GroupNorm):
                m.weight.normal_(1.0, 0.1)
                m.bias.normal_(0.0, 0.1)


def make_transformer_encoder(small: bool = False) -> Example:
    """nn.TransformerEncoderLayer (post-norm, ReLU, batch_first, eval): full d_model 256,
    4 heads, feed-forward 2048, [1, 64, 256]; small d_model 64, 4 heads, 128, [1, 16, 64].
    Its attention decomposes into bmm, _safe_softmax (the masked-softmax guard) and bmm."""
    torch.manual_seed(0)
    dim, heads, ff, seq = (64, 4, 128, 16) if small else (256, 4, 2048, 64)
    model = nn.TransformerEncoderLayer(dim, heads, ff, batch_first=True)
    _randomize_affine_norms(model)
    return model.eval(), (torch.randn(1, seq, dim),)


class AudioNormNet(nn.Module):
    """1-D audio front end normalized both ways: [1, 1, T] -> [1, 2C, T / 4].

    conv(k7, s2) -> GroupNorm(8) -> SiLU -> conv(k5, s2) -> GroupNorm(1) -> GELU ->
    LayerNorm over channels (time-major, as wav2vec2 / conformer blocks do) -> Linear."""

    def __init__(self, channels: int = 64) -> None:
        super().__init__()
        c = channels
        self.conv1 = nn.Conv1d(1, c, 7, stride=2, padding=3)
        self.norm1 = nn.GroupNorm(8, c)
        self.conv2 = nn.Conv1d(c, 2 * c, 5, stride=2, padding=2)
        self.norm2 = nn.GroupNorm(1, 2 * c)
        self.norm3 = nn.LayerNorm(2 * c)
        self.proj = nn.Linear(2 * c, 2 * c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.silu(self.norm1(self.conv1(x)))
        x = F.gelu(self.norm2(self.conv2(x)))
        return self.proj(self.norm3(x.transpose(1, 2))).transpose(1, 2)


def make_audio_norms(small: bool = False) -> Example:
    """AudioNormNet; full C=64, [1, 1, 16000] -> [1, 128, 4000]; small C=16, [1, 1, 1024]
    -> [1, 32, 256]."""
    torch.manual_seed(0)
    channels, frames = (16, 1024) if small else (64, 16000)
    model = AudioNormNet(channels)
    _init_conv_weights(model)
    _randomize_affine_norms(model)
    return model.eval(), (torch.randn(1, 1, frames),)


# ---------------------------------------------------------------------------------------------
# A vocoder with an ISTFT head: Vocos
# ---------------------------------------------------------------------------------------------


class _ConvNeXtBlock1d(nn.Module):
    """Vocos's ConvNeXt block: depthwise conv k7, LayerNorm over channels, Linear -> GELU ->
    Linear, layer scale, residual."""

    def __init__(self, dim: int, intermediate: int, layer_scale: float) -> None:
        super().__init__()
        self.dwconv = nn.Conv1d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, intermediate)
        self.pwconv2 = nn.Linear(intermediate, dim)
        self.gamma = nn.Parameter(torch.full((dim,), layer_scale))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.dwconv(x).transpose(1, 2))
        y = self.gamma * self.pwconv2(F.gelu(self.pwconv1(y)))
        return x + y.transpose(1, 2)


class VocosStyle(nn.Module):
    """Vocos (charactr-platform/vocos, the 24 kHz mel config): mel [1, 100, T] -> audio
    [1, (T - 1) * hop + n_fft - 2 * pad]. A ConvNeXt backbone, then the ISTFT head: a Linear
    to magnitude and phase, exp, the complex spectrum `mag * (cos p + 1j sin p)`, irfft of
    each frame, the window, overlap-add with `F.fold` and the window envelope ("same"
    padding). Vocos's assert that the envelope is positive is left out (it holds for a
    Hann window; torch.export cannot trace a data-dependent assert)."""

    def __init__(self, mels: int = 100, dim: int = 512, intermediate: int = 1536,
                 layers: int = 8, n_fft: int = 1024, hop: int = 256) -> None:  # fmt: skip
        super().__init__()
        self.embed = nn.Conv1d(mels, dim, 7, padding=3)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.blocks = nn.ModuleList(
            _ConvNeXtBlock1d(dim, intermediate, 1.0 / layers) for _ in range(layers)
        )
        self.final_norm = nn.LayerNorm(dim, eps=1e-6)
        self.out = nn.Linear(dim, n_fft + 2)
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))

    def _istft(self, spec: torch.Tensor) -> torch.Tensor:
        pad = (self.n_fft - self.hop) // 2
        frames = spec.shape[-1]
        frame_signals = torch.fft.irfft(spec, self.n_fft, dim=1, norm="backward")
        frame_signals = frame_signals * self.window[None, :, None]
        size = (1, (frames - 1) * self.hop + self.n_fft)
        fold = dict(output_size=size, kernel_size=(1, self.n_fft), stride=(1, self.hop))
        y = F.fold(frame_signals, **fold)[:, 0, 0, pad:-pad]
        window_sq = self.window.square().expand(1, frames, -1).transpose(1, 2)
        envelope = F.fold(window_sq, **fold).squeeze()[pad:-pad]
        return y / envelope

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        x = self.norm(self.embed(mel).transpose(1, 2)).transpose(1, 2)
        for block in self.blocks:
            x = block(x)
        x = self.out(self.final_norm(x.transpose(1, 2))).transpose(1, 2)
        magnitude, phase = x.chunk(2, dim=1)
        magnitude = torch.exp(magnitude).clip(max=1e2)
        return self._istft(magnitude * (torch.cos(phase) + 1j * torch.sin(phase)))


def make_vocos(small: bool = False) -> Example:
    """VocosStyle; full dim 512, 8 blocks, n_fft 1024, hop 256, 100 mel frames (1.07 s at
    24 kHz) -> [1, 25600]; small dim 64, 2 blocks, n_fft 256, hop 64, 20 frames ->
    [1, 1280]."""
    torch.manual_seed(0)
    if small:
        model, frames = VocosStyle(dim=64, intermediate=192, layers=2, n_fft=256, hop=64), 20
    else:
        model, frames = VocosStyle(), 100
    _init_conv_weights(model)
    _randomize_affine_norms(model)
    return model.eval(), (torch.randn(1, 100, frames),)


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------

MODELS: dict[str, ModelFactory] = {
    "mimi": make_mimi_decoder,
    "resnet": make_resnet,
    "bf16_block": make_bf16_block,
    "bf16_blocks": make_bf16_blocks,
    "bf16_blocks_decode": make_bf16_blocks_decode,
    "fp16_convnet": make_fp16_convnet,
    "encodec": make_encodec_decoder,
    "dac": make_dac_decoder,
    "hifigan": make_hifigan,
    "mobilenetv2": make_mobilenetv2,
    "mobilenetv3_large": make_mobilenetv3_large,
    "mobilenetv3_small": make_mobilenetv3_small,
    "transformer_encoder": make_transformer_encoder,
    "audio_norms": make_audio_norms,
    "vocos": make_vocos,
}
