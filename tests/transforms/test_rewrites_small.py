"""xnn-fold-pad, xnn-fuse-activation and xnn-upsample-nearest end to end: each small model is
compiled with the default pipeline and without the rewrite, the IR shows the rewrite
happened, and both programs match eager PyTorch on the extended runtime.

Without a rewrite means `disable=(rewrite,)`: its patterns then stay out of canonicalize.

Tolerances against eager: fp32 1e-4 absolute + relative (XNNPACK accumulates a conv or GEMM
in another order than torch, ~1e-6 relative on values of order 1); fp16 2e-2 (both sides
round to fp16, 2^-11 relative per op, but at different points: torch computes CPU fp16
convs in fp32 internally). With and without a rewrite the outputs are equal bit for bit, in
both dtypes: a folded pad feeds the same zeros to the same micro-kernel in the same order,
and a fused clamp clamps the same value before it is rounded (fp16 rounding is monotonic
and the bounds here are fp16-exact). Nearest upsampling copies values: exact.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import xnnc
from xnnc.dialects import xnn
from xnnc.frontend.fx_importer import export_program
from xnnc.transforms.fold_pad import pads_through_reshape, pads_through_transpose, through_layout
from xnnc.transforms.fuse_activation import intersect
from xnnc.transforms.upsample_nearest import block_scales, copies_are_faster

DTYPES = pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
EAGER_TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float16: dict(atol=2e-2, rtol=2e-2)}
UNBOUNDED = (-math.inf, math.inf)


def _without(rewrite: str) -> tuple[str, str]:
    return (rewrite,)


def _compile(case, dtype: torch.dtype, rewrite: str):
    """(eager output, inputs, program with the rewrite, program without it) for the model
    and inputs `case()` makes."""
    torch.manual_seed(0)
    model, inputs = case()
    model = model.to(dtype).eval()
    inputs = tuple(x.to(dtype) for x in inputs)
    with torch.no_grad():
        want = model(*inputs)
    ep = export_program(model, inputs)  # once for both compiles
    # fp16 cases on XNNPACK's fp16 kernels; the static rules (a tuned choice could keep a
    # layer's other form: tests/cost/test_cost_forms.py)
    on = xnnc.compile(ep, fp16="native", tune=False)
    off = xnnc.compile(ep, disable=_without(rewrite), fp16="native", tune=False)
    assert on.num_partitions == 1 and on.ops_outside() == []
    return want, inputs, on, off


def _check_numerics(want, inputs, on, off, dtype) -> None:
    got, ref = on(*inputs), off(*inputs)
    torch.testing.assert_close(got, want, **EAGER_TOL[dtype])
    torch.testing.assert_close(ref, want, **EAGER_TOL[dtype])
    assert torch.equal(got, ref)


def _ops(program, cls) -> list:
    return [op for op in program.module.walk() if isinstance(op, cls)]


CONVS = (xnn.Convolution2dOp, xnn.DepthwiseConvolution2dOp)


def _pads_before_convs(program) -> int:
    """Convs reading a static_constant_pad, directly or through transposes/reshapes."""
    sources = [through_layout(conv.input)[0].owner for conv in _ops(program, CONVS)]
    return sum(isinstance(op, xnn.StaticConstantPadOp) for op in sources)


# --- xnn-fold-pad ----------------------------------------------------------------------------


class CausalConv1d(nn.Module):
    """Mimi's causal conv: all of the (k - 1) * dilation padding on the left."""

    def __init__(self, cin: int = 8, cout: int = 6, k: int = 7, dilation: int = 1):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, dilation=dilation)
        self.left = (k - 1) * dilation

    def forward(self, x):
        return self.conv(F.pad(x, (self.left, 0)))


class PaddedConv2d(nn.Module):
    """A zero pad, by default asymmetric (left 1, right 2, top 0, bottom 3), before a conv
    with padding 1 of its own."""

    def __init__(self, groups: int = 1, stride: int = 1, pad: tuple[int, ...] = (1, 2, 0, 3)):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, stride=stride, padding=1, groups=groups)
        self.pad = pad

    def forward(self, x):
        return self.conv(F.pad(x, self.pad))


class BlurDownsample(nn.Module):
    """MI-GAN's: zero pad 1, depthwise 4x4 blur with stride 2."""

    def __init__(self, channels: int = 8):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 4, stride=2, groups=channels, bias=False)

    def forward(self, x):
        return self.conv(F.pad(x, (1, 1, 1, 1)))


FOLD_PAD_CASES = {
    "causal_conv1d": lambda: (CausalConv1d(), (torch.randn(1, 8, 40),)),
    "causal_dilated_conv1d": lambda: (CausalConv1d(k=3, dilation=3), (torch.randn(1, 8, 40),)),
    "asymmetric_conv2d": lambda: (PaddedConv2d(), (torch.randn(1, 8, 9, 10),)),
    "asymmetric_strided_conv2d": lambda: (PaddedConv2d(stride=2), (torch.randn(1, 8, 9, 10),)),
    "asymmetric_depthwise2d": lambda: (PaddedConv2d(groups=8), (torch.randn(1, 8, 9, 10),)),
    "pad_wider_than_kernel": lambda: (PaddedConv2d(pad=(4, 0, 5, 3)), (torch.randn(1, 8, 6, 7),)),
    "blur_downsample": lambda: (BlurDownsample(), (torch.randn(1, 8, 16, 16),)),
}


@DTYPES
@pytest.mark.parametrize("name", sorted(FOLD_PAD_CASES))
def test_fold_pad(name: str, dtype: torch.dtype) -> None:
    want, inputs, on, off = _compile(FOLD_PAD_CASES[name], dtype, "xnn-fold-pad")
    assert _pads_before_convs(on) == 0
    assert _ops(on, xnn.StaticConstantPadOp) == []
    assert _pads_before_convs(off) == 1
    _check_numerics(want, inputs, on, off, dtype)


def test_fold_pad_leaves_a_nonzero_pad() -> None:
    class OnesPad(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 4, 3)

        def forward(self, x):
            return self.conv(F.pad(x, (1, 1, 1, 1), value=1.0))

    case = lambda: (OnesPad(), (torch.randn(1, 4, 8, 8),))  # noqa: E731
    want, inputs, on, off = _compile(case, torch.float32, "xnn-fold-pad")
    assert _pads_before_convs(on) == 1
    _check_numerics(want, inputs, on, off, torch.float32)


def test_pads_through_the_1d_chain() -> None:
    # [N, C, L] pad (0, 0), (0, 0), (2, 0) -> transpose [0, 2, 1] -> reshape [N, 1, L, C]
    pads = pads_through_transpose([(0, 0), (0, 0), (2, 0)], (0, 2, 1))
    assert pads == [(0, 0), (2, 0), (0, 0)]
    assert pads_through_reshape(pads, (1, 12, 4), (1, 1, 12, 4)) == [(0, 0)] * 2 + [(2, 0), (0, 0)]
    # A reshape that merges the padded dim with another cannot carry the pad.
    assert pads_through_reshape(pads, (1, 12, 4), (1, 48)) is None


class AudioTail(nn.Module):
    """A causal conv, a polyphase-able transposed conv and a last conv to one channel: the
    layers whose conv-as-gemm taps slice a pad, and the one the channel sum ends."""

    def __init__(self, c: int = 16):
        super().__init__()
        self.causal = nn.Conv1d(c, c, 3)
        self.up = nn.ConvTranspose1d(c, c, 4, stride=2, padding=1)
        self.last = nn.Conv1d(c, 1, 7, padding=3)

    def forward(self, x):
        x = F.elu(self.causal(F.pad(x, (2, 0))))
        return self.last(F.elu(self.up(x)))


AVX2 = "extended,x86-64-avx2"  # conv-as-gemm's static rule takes GEMM there, on any host


def test_slices_of_pads_and_the_channel_sum() -> None:
    """On an AVX2 target the tap slices that cover all of a pad's input become pads of it (or
    the input itself), and the one-channel conv ends in a sum reduction: fewer copies, the
    same values (fp32 1e-4 against eager, as above)."""
    torch.manual_seed(0)
    model, x = AudioTail().eval(), torch.randn(1, 16, 40)
    with torch.no_grad():
        want = model(x)
    on = xnnc.compile(model, (x,), target=AVX2, tune=False)
    off = xnnc.compile(model, (x,), target=AVX2, tune=False, disable=("SliceOfPad",))
    slices_on, slices_off = len(_ops(on, xnn.StaticSliceOp)), len(_ops(off, xnn.StaticSliceOp))
    assert slices_on < slices_off, (slices_on, slices_off)
    assert len(_ops(on, xnn.StaticConstantPadOp)) > len(_ops(off, xnn.StaticConstantPadOp))
    assert [op.kind.data.value for op in _ops(on, xnn.StaticReduceOp)] == ["sum"]
    assert not any(op.output.type.get_shape()[-1] == 1 for op in _ops(on, xnn.FullyConnectedOp))
    for program in (on, off):
        torch.testing.assert_close(program(x), want, **EAGER_TOL[torch.float32])


def test_channel_sum_on_a_symbolic_length() -> None:
    """The sum reduction reshapes with the length like the depthwise layer before it."""
    torch.manual_seed(1)
    model = AudioTail().eval()
    dims = {"x": {2: torch.export.Dim("T", min=4, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, 16, 32),), dynamic_shapes=dims, target=AVX2,
                           tune=False)  # fmt: skip
    assert len(_ops(program, xnn.StaticReduceOp)) == 1
    for size in (4, 17, 64):
        x = torch.randn(1, 16, size)
        with torch.no_grad():
            want = model(x)
        torch.testing.assert_close(program(x), want, **EAGER_TOL[torch.float32])


# --- xnn-fuse-activation ---------------------------------------------------------------------


class ConvRelu(nn.Module):
    def __init__(self, one_d: bool = False):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, padding=1) if one_d else nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class LinearRelu6(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 12)

    def forward(self, x):
        return F.relu6(self.fc(x))


class AddClamp(nn.Module):
    def forward(self, x, y):
        return torch.clamp(x + y, -0.5, 0.5)


class DeconvHardtanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)

    def forward(self, x):
        return F.hardtanh(self.up(x), -0.25, 0.25)


# name -> (model and inputs, the kinds of node the clamp fuses into)
FUSE_CASES = {
    "conv2d_relu": (lambda: (ConvRelu(), (torch.randn(1, 8, 10, 10),)), CONVS),
    "conv1d_relu": (lambda: (ConvRelu(one_d=True), (torch.randn(1, 8, 20),)), CONVS),
    "linear_relu6": (lambda: (LinearRelu6(), (torch.randn(3, 16),)), (xnn.FullyConnectedOp,)),
    "add_clamp": (lambda: (AddClamp(), (torch.randn(4, 16), torch.randn(4, 16))), (xnn.BinaryOp,)),
    # The deconv may become a polyphase conv (xnn-polyphase), with 16 phase channels summed
    # fully-connected taps (xnn-conv-as-gemm): the conv or the taps' last add takes the bounds.
    "deconv_hardtanh": (
        lambda: (DeconvHardtanh(), (torch.randn(1, 8, 6, 6),)),
        (*CONVS, xnn.Deconvolution2dOp, xnn.BinaryOp),
    ),
}


@DTYPES
@pytest.mark.parametrize("name", sorted(FUSE_CASES))
def test_fuse_activation(name: str, dtype: torch.dtype) -> None:
    case, producers = FUSE_CASES[name]
    want, inputs, on, off = _compile(case, dtype, "xnn-fuse-activation")
    assert _ops(on, xnn.ClampOp) == []
    assert len(_ops(off, xnn.ClampOp)) == 1
    bounded = [op for op in _ops(on, producers) if op.output_range() != UNBOUNDED]
    assert len(bounded) == 1, on.module
    _check_numerics(want, inputs, on, off, dtype)


def test_fuse_activation_leaves_a_producer_with_other_users() -> None:
    class TwoUses(nn.Module):
        def forward(self, x, y):
            s = x + y
            return torch.relu(s), s * 2

    case = lambda: (TwoUses(), (torch.randn(4, 8), torch.randn(4, 8)))  # noqa: E731
    want, inputs, on, off = _compile(case, torch.float32, "xnn-fuse-activation")
    assert len(_ops(on, xnn.ClampOp)) == 1
    for got, w in zip(on(*inputs), want, strict=True):
        torch.testing.assert_close(got, w, **EAGER_TOL[torch.float32])


def test_intersect() -> None:
    assert intersect((0.0, math.inf), (-1.0, 6.0)) == (0.0, 6.0)
    assert intersect((-math.inf, 0.0), (1.0, math.inf)) is None


# --- xnn-upsample-nearest --------------------------------------------------------------------


class Nearest(nn.Module):
    def __init__(self, scale: int):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return F.interpolate(x, scale_factor=self.scale, mode="nearest")


@DTYPES
@pytest.mark.parametrize("scale", [2, 3])
def test_upsample_nearest(scale: int, dtype: torch.dtype) -> None:
    # MI-GAN's RGB skip path: 3 channels.
    case = lambda: (Nearest(scale), (torch.randn(1, 3, 12, 10),))  # noqa: E731
    want, inputs, on, off = _compile(case, dtype, "xnn-upsample-nearest")
    x2 = scale == 2
    assert len(_ops(on, xnn.DepthToSpace2dOp)) == int(x2)
    assert len(_ops(on, xnn.StaticBroadcastOp)) == int(not x2)
    assert len(_ops(off, xnn.StaticBroadcastOp)) == 1
    assert torch.equal(on(*inputs), want) and torch.equal(off(*inputs), want)


def test_upsample_nearest_by_output_size_and_non_integer_scale() -> None:
    class Sizes(nn.Module):
        def forward(self, x):
            return (F.interpolate(x, size=(24, 30), mode="nearest"),
                    F.interpolate(x, scale_factor=1.5, mode="nearest"))  # fmt: skip

    model, x = Sizes().eval(), torch.randn(1, 3, 8, 10)
    program = xnnc.compile(model, (x,))
    # 1.5 is a periodic gather (slices + concatenate), exact like the x3 broadcast.
    assert program.ops_outside() == []
    for got, want in zip(program(x), model(x), strict=True):
        assert torch.equal(got, want)


def test_block_scales_and_when_copies_are_faster() -> None:
    x = (1, 4, 5, 3)
    assert block_scales(x, (1, 4, 1, 5, 1, 3), (1, 4, 2, 5, 3, 3), (1, 8, 15, 3)) == (2, 3)
    # Whole rows repeated, not pixels.
    assert block_scales(x, (1, 1, 4, 1, 5, 3), (1, 2, 4, 2, 5, 3), (1, 8, 10, 3)) is None
    assert copies_are_faster((1, 128, 128, 3), 2)  # MI-GAN's largest, 96 KiB
    assert copies_are_faster((1, 64, 64, 32), 4)  # 512 KiB
    assert not copies_are_faster((1, 64, 64, 1), 2)  # one channel
    assert not copies_are_faster((1, 128, 128, 32), 4)  # 2 MiB
