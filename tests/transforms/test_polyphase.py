"""`xnn-polyphase`: the math on its own (torch only), then transposed convolutions compiled by
`xnnc.compile` against eager and against XNNPACK's deconvolution (`disable`).

Tolerances. fp32: the convolution sums the same products as the deconvolution in another
order (~1e-6 relative), so 1e-4 on outputs of order 1. fp16: eager computes in fp32 and rounds
once (2^-11 ~ 5e-4 relative); XNNPACK's fp16 kernels round their partial results to fp16 as
well, so allow a few ulps of the output's magnitude: 1e-2 on outputs of order 1.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import xnnc
from xnnc.cost.rules import MAX_KERNEL_GROWTH, kernel_growth
from xnnc.frontend.fx_importer import export_program
from xnnc.transforms.polyphase import (
    Window,
    phase_runs,
    plan_axis,
    plan_output_phases,
    polyphase_filter,
)

TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float16: dict(atol=1e-2, rtol=1e-2)}
DECONV = "xnn.deconvolution_2d"


# --- the math, in torch ------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    sh=st.integers(1, 5), sw=st.integers(1, 5), kh=st.integers(1, 12), kw=st.integers(1, 12),
    cin=st.integers(1, 3), cout=st.integers(1, 3), h=st.integers(1, 4), w=st.integers(1, 4),
)  # fmt: skip
def test_polyphase_filter_gives_every_phase(sh, sw, kh, kw, cin, cout, h, w) -> None:
    """One stride-1 convolution with the phase filter, interleaved, is the full transposed
    convolution (zero-padded kernels give extra zeros at the end)."""
    weight = torch.randn(cin, cout, kh, kw, dtype=torch.float64)
    x = torch.randn(2, cin, h, w, dtype=torch.float64)
    want = F.conv_transpose2d(x, weight, stride=(sh, sw))
    phases = polyphase_filter(weight.permute(1, 2, 3, 0), (sh, sw))  # XNNPACK [O, KH, KW, I]
    _, mh, mw, _ = phases.shape
    c = F.conv2d(x, phases.permute(0, 3, 1, 2), padding=(mh - 1, mw - 1))
    n, _, qh, qw = c.shape
    got = c.reshape(n, sh, sw, cout, qh, qw).permute(0, 3, 4, 1, 5, 2)
    got = got.reshape(n, cout, qh * sh, qw * sw)
    torch.testing.assert_close(got[..., : want.shape[2], : want.shape[3]], want)
    assert not got[..., want.shape[2] :, :].any() and not got[..., want.shape[3] :].any()


@st.composite
def axes(draw) -> tuple[int, int, int, int, int]:
    """(length, kernel, stride, padding, output_padding) of a valid ConvTranspose1d."""
    stride = draw(st.integers(1, 8))
    kernel = draw(st.integers(1, 3 * stride))
    size = draw(st.integers(1, 6))
    padding = draw(st.integers(0, kernel))
    output_padding = draw(st.integers(0, stride - 1))
    assume((size - 1) * stride - 2 * padding + kernel + output_padding >= 1)
    return size, kernel, stride, padding, output_padding


def _conv_transpose_1d(x, weight, bias, stride, padding, output_padding):
    return F.conv_transpose1d(x, weight, bias, stride, padding, output_padding)


@settings(max_examples=200, deadline=None)
@given(axis=axes(), cin=st.integers(1, 3), cout=st.integers(1, 3))
def test_plan_axis_crops_the_full_output(axis, cin, cout) -> None:
    """The rewrite simulated in torch: one convolution with the planned padding, interleave,
    slice at the planned offset; padding and output_padding included."""
    size, kernel, stride, padding, output_padding = axis
    weight = torch.randn(cin, cout, kernel, dtype=torch.float64)
    bias = torch.randn(cout, dtype=torch.float64)
    x = torch.randn(1, cin, size, dtype=torch.float64)
    want = _conv_transpose_1d(x, weight, bias, stride, padding, output_padding)
    out = want.shape[-1]
    window, offset = plan_axis(size, kernel, stride, padding, out)
    phases = polyphase_filter(weight.permute(1, 2, 0).unsqueeze(1), (1, stride))[:, 0]
    c = F.conv1d(F.pad(x, (window.pad_before, window.pad_after)), phases.permute(0, 2, 1),
                 bias.repeat(stride))  # fmt: skip
    assert c.shape[-1] == window.steps
    y = c.reshape(1, stride, cout, window.steps).permute(0, 2, 3, 1).reshape(1, cout, -1)
    assert 0 <= offset and offset + out <= y.shape[-1]
    torch.testing.assert_close(y[..., offset : offset + out], want)


@settings(max_examples=100, deadline=None)
@given(axis=axes(), channels=st.integers(1, 3))
def test_plan_output_phases_need_no_slice(axis, channels) -> None:
    """Per output phase, the planned convolution computes exactly that phase."""
    size, kernel, stride, padding, _ = axis
    # the output_padding that makes the output a whole number of phases
    length = (size - 1) * stride - 2 * padding + kernel
    output_padding = -length % stride
    assume(length + output_padding >= 1)
    weight = torch.randn(channels, 1, kernel, dtype=torch.float64)
    x = torch.randn(1, channels, size, dtype=torch.float64)
    want = F.conv_transpose1d(x, weight, None, stride, padding, output_padding, groups=channels)
    plan = plan_output_phases(size, kernel, stride, padding, want.shape[-1])
    assume(plan is not None)  # None when a phase would need negative padding (a large crop)
    phases = polyphase_filter(weight.permute(0, 2, 1).unsqueeze(1), (1, stride))[:, 0]
    phases = phases.reshape(stride, channels, -1)  # [phase, C, taps]
    ys = [
        F.conv1d(F.pad(x, (w.pad_before, w.pad_after)), phases[j].unsqueeze(1), groups=channels)
        for j, w in plan
    ]
    assert all(y.shape[-1] == w.steps for y, (_, w) in zip(ys, plan, strict=True))
    torch.testing.assert_close(torch.stack(ys, -1).reshape(want.shape), want)


@settings(max_examples=100, deadline=None)
@given(axis=axes(), cin=st.integers(1, 3), cout=st.integers(1, 3))
def test_per_phase_runs_compute_the_cropped_output(axis, cin, cout) -> None:
    """The dense per-phase form in torch: one convolution per run of output phases (its
    kernel phases' channels side by side, its own padding), concatenated and interleaved, is
    the transposed convolution, crop included, with nothing to slice."""
    size, kernel, stride, padding, _ = axis
    length = (size - 1) * stride - 2 * padding + kernel
    output_padding = -length % stride
    assume(length + output_padding >= 1)
    weight = torch.randn(cin, cout, kernel, dtype=torch.float64)
    bias = torch.randn(cout, dtype=torch.float64)
    x = torch.randn(1, cin, size, dtype=torch.float64)
    want = F.conv_transpose1d(x, weight, bias, stride, padding, output_padding)
    plan = plan_output_phases(size, kernel, stride, padding, want.shape[-1])
    assume(plan is not None)
    runs = phase_runs([(j, Window(1, 0, 0, 1), w) for j, w in plan])  # H: one row
    phases = polyphase_filter(weight.permute(1, 2, 0).unsqueeze(1), (1, stride))[:, 0]
    phases = phases.reshape(stride, cout, -1, cin)  # [kernel phase, O, taps, I]
    ys = [
        F.conv1d(F.pad(x, (w.pad_before, w.pad_after)),
                 phases[list(js)].flatten(0, 1).permute(0, 2, 1), bias.repeat(len(js)))
        for js, _, w in runs
    ]  # fmt: skip
    assert all(y.shape[-1] == w.steps for y, (_, _, w) in zip(ys, runs, strict=True))
    y = torch.cat(ys, 1).reshape(1, stride, cout, -1).permute(0, 2, 3, 1)
    torch.testing.assert_close(y.reshape(want.shape), want)


def test_phase_runs_of_a_dac_upsampler() -> None:
    """k16 s8 p4 (DAC, HiFi-GAN) on 5 frames: two runs of four phases, not eight convolutions."""
    plan = plan_output_phases(5, 16, 8, 4, 40)
    runs = phase_runs([(j, Window(1, 0, 0, 1), w) for j, w in plan])
    assert [(js, w.pad_before, w.pad_after, w.steps) for js, _, w in runs] == [
        ((4, 5, 6, 7), 1, 0, 5),
        ((0, 1, 2, 3), 0, 1, 5),
    ]


def test_plan_output_phases_of_unequal_length() -> None:
    # k3 s2 p1 output_padding 1 on 4 inputs: 7 outputs, phases of 4 and 3.
    assert plan_output_phases(4, 3, 2, 1, 7) is None
    assert plan_output_phases(4, 4, 2, 1, 8) is not None


def test_plan_axis_skips_positions_the_slice_drops() -> None:
    # k4 s2 over 4 inputs: 10 full outputs from 5 convolution positions (padding 1 and 1).
    window, offset = plan_axis(4, 4, 2, 0, 10)
    assert (window.pad_before, window.pad_after, window.steps, offset) == (1, 1, 5, 0)
    # Cropping 3 at the start drops position 0 (outputs 0, 1): no padding before.
    window, offset = plan_axis(4, 4, 2, 3, 7)
    assert (window.pad_before, window.pad_after, window.steps, offset) == (0, 1, 4, 1)


def test_kernel_growth() -> None:
    assert kernel_growth((1, 16), (1, 8)) == 1.0
    assert kernel_growth((1, 3), (1, 2)) == pytest.approx(4 / 3)
    assert kernel_growth((3, 3), (2, 2)) == pytest.approx(16 / 9)


# --- compiled, against eager and XNNPACK's deconvolution ----------------------------------------


def _ops(program) -> list[str]:
    return [op.name for op in program.module.walk()]


def _check(model: nn.Module, x: torch.Tensor, rewritten: bool = True, baseline: bool = True):
    """Compile with the rewrite, compare with eager (and the deconvolution); return program."""
    dtype = x.dtype
    model = model.to(dtype).eval()
    with torch.no_grad():
        want = model(x)
    ep = export_program(model, (x,))  # once for both compiles
    # fp16 rows on XNNPACK's fp16 kernels; the phases' convolution kept (xnn-conv-as-gemm off);
    # the static rule (a tuned choice could keep the deconvolution: tests/cost/test_cost_forms.py)
    program = xnnc.compile(ep, fp16="native", disable=("xnn-conv-as-gemm",), tune=False)
    got = program(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, **TOL[dtype])
    assert (DECONV not in _ops(program)) == rewritten, _ops(program)
    if baseline:
        plain = xnnc.compile(ep, disable=("xnn-polyphase",), fp16="native")
        torch.testing.assert_close(got, plain(x), **TOL[dtype])
    return program


@st.composite
def transposed_convs(draw, depthwise: bool):
    """(module, input, rewritable) for 1-D and 2-D ConvTranspose with kernel = m x stride
    (m 1..3, strides 2..8) or, sometimes, a kernel that is not a multiple of the stride."""
    two_d = draw(st.booleans())
    dims = 2 if two_d else 1
    strides = [draw(st.integers(1 if two_d else 2, 8)) for _ in range(dims)]
    assume(max(strides) > 1)
    multiples = [draw(st.integers(1, 3)) for _ in range(dims)]
    kernels = [m * s for m, s in zip(multiples, strides, strict=True)]
    if draw(st.integers(0, 3)) == 0:  # a kernel the rewrite zero-pads
        kernels = [k - draw(st.integers(0, s - 1)) for k, s in zip(kernels, strides, strict=True)]
    sizes = [draw(st.integers(1, 4 if two_d else 8)) for _ in range(dims)]
    paddings = [draw(st.integers(0, k)) for k in kernels]
    output_paddings = [draw(st.integers(0, s - 1)) for s in strides]
    for n, k, s, p, op in zip(sizes, kernels, strides, paddings, output_paddings, strict=True):
        assume((n - 1) * s - 2 * p + k + op >= 1)
    cin = draw(st.integers(2 if depthwise else 1, 4))
    cout, groups = (cin, cin) if depthwise else (draw(st.integers(1, 4)), 1)
    bias = draw(st.booleans())
    dtype = draw(st.sampled_from([torch.float32, torch.float16]))
    cls = nn.ConvTranspose2d if two_d else nn.ConvTranspose1d
    torch.manual_seed(draw(st.integers(0, 2**16)))
    model = cls(cin, cout, kernels, strides, paddings, output_paddings, groups, bias)
    x = torch.randn(draw(st.integers(1, 2)), cin, *sizes, dtype=dtype)
    full = [1] * (2 - dims)
    growth = kernel_growth(full + kernels, full + strides)
    rewritable = depthwise or growth <= MAX_KERNEL_GROWTH
    return model, x, rewritable


@settings(max_examples=30, deadline=None)
@given(case=transposed_convs(depthwise=False))
def test_dense_transposed_conv(case) -> None:
    model, x, rewritable = case
    program = _check(model, x, rewritten=rewritable)
    if rewritable:
        assert "xnn.convolution_2d" in _ops(program)


@settings(max_examples=20, deadline=None)
@given(case=transposed_convs(depthwise=True))
def test_depthwise_transposed_conv(case) -> None:
    model, x, _ = case
    program = _check(model, x)
    assert "xnn.depthwise_convolution_2d" in _ops(program)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
def test_shared_weights(dtype: torch.dtype) -> None:
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.up = nn.ConvTranspose1d(4, 4, 8, 4, padding=2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.up(self.up(x))

    _check(Twice(), torch.randn(1, 4, 5, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
def test_two_deconvolutions_with_an_elu_between(dtype: torch.dtype) -> None:
    model = nn.Sequential(
        nn.ConvTranspose1d(6, 4, 12, 6, padding=3), nn.ELU(), nn.ConvTranspose1d(4, 2, 8, 4, 2)
    )
    _check(model, torch.randn(1, 6, 5, dtype=dtype))


@pytest.mark.parametrize(
    "model,shape",
    [
        (nn.ConvTranspose1d(4, 3, 4, 2, dilation=2), (1, 4, 6)),
        (nn.ConvTranspose2d(4, 6, 4, 2, groups=2), (1, 4, 3, 3)),  # grouped, not depthwise
        (nn.ConvTranspose2d(4, 8, 4, 2, groups=4), (1, 4, 3, 3)),  # depth multiplier 2
        (nn.ConvTranspose2d(4, 3, 3, 2, padding=1, output_padding=1), (1, 4, 5, 5)),  # 16/9
        (nn.ConvTranspose1d(4, 3, 5, 1), (1, 4, 6)),  # stride 1
    ],
    ids=["dilation", "grouped", "depth_multiplier", "kernel_growth", "stride_1"],
)
def test_left_alone(model: nn.Module, shape: tuple[int, ...]) -> None:
    _check(model, torch.randn(shape), rewritten=False, baseline=False)


def test_disable_turns_the_rewrite_off() -> None:
    model, x = nn.ConvTranspose1d(4, 3, 8, 4, padding=2).eval(), torch.randn(1, 4, 5)
    assert DECONV not in _ops(xnnc.compile(model, (x,), tune=False))
    assert DECONV in _ops(xnnc.compile(model, (x,), disable=("xnn-polyphase",), tune=False))


class _Trimmed(nn.Module):
    """A transposed (or plain) convolution whose output is trimmed along its spatial axes,
    then an ELU (so that the trim is no output of the graph)."""

    def __init__(self, conv: nn.Module, trims: list[tuple[int, int]]) -> None:
        super().__init__()
        self.conv, self.trims = conv, trims

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        for axis, (front, back) in enumerate(self.trims, start=2):
            y = y.narrow(axis, front, y.shape[axis] - front - back)
        return F.elu(y)


@settings(max_examples=25, deadline=None)
@given(case=transposed_convs(depthwise=False), data=st.data())
def test_trimmed_transposed_conv(case, data) -> None:
    """A trim of any rows and columns, folded into the deconvolution's padding (or into the
    phases' convolution, or left as a slice where it cuts through a position's phases)."""
    _check_trimmed(case, data)


def _check_trimmed(case, data) -> None:
    conv, x, rewritable = case
    with torch.no_grad():
        out = conv.to(x.dtype)(x).shape[2:]
    trims = []
    for n in out:
        front = data.draw(st.integers(0, (n - 1) // 2))
        trims.append((front, data.draw(st.integers(0, n - 1 - front))))
    _check(_Trimmed(conv, trims), x, rewritten=rewritable)


@settings(max_examples=15, deadline=None)
@given(case=transposed_convs(depthwise=True), data=st.data())
def test_trimmed_depthwise_transposed_conv(case, data) -> None:
    """The same for depthwise transposed convolutions: a trim of whole positions crops each
    phase's convolution under the concatenate of the phases; any other stays a slice."""
    _check_trimmed(case, data)


@pytest.mark.parametrize("groups", [1, 4])
def test_causal_trim_leaves_no_slice(groups: int) -> None:
    """SEANet's causal upsample (kernel 2s, the last k - s outputs trimmed): the phases'
    convolution computes exactly the kept outputs; a depthwise one (Mimi's frame-rate
    upsample) crops each phase's convolution under the concatenate."""
    stride = 8 if groups == 1 else 2
    model = _Trimmed(nn.ConvTranspose1d(4, 4, 2 * stride, stride, groups=groups), [(0, stride)])
    program = _check(model, torch.randn(1, 4, 13))
    assert "xnn.static_slice" not in _ops(program), _ops(program)


def test_cropped_strided_conv() -> None:
    """A crop of a strided convolution's rows and columns as its padding (`SliceOfConv`)."""
    model = _Trimmed(nn.Conv2d(4, 8, 3, stride=2, padding=3), [(1, 1), (0, 1)])
    program = _check(model, torch.randn(1, 4, 9, 9), baseline=False)  # no deconvolution
    assert "xnn.static_slice" not in _ops(program), _ops(program)
