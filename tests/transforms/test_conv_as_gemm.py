"""`xnn-conv-as-gemm`: stride-1 convolutions as summed fully-connected taps, against eager.

Tolerance: fp32, 1e-4 relative to the output's scale: the taps are summed in another order
than the convolution's accumulation (k partial sums of Cin products each), a few ulps at
these sizes.

The rewrite applies only on the target it was measured for (x86-64 AVX2 without AVX-512), so
every compile here is for that target, with its static rule (`tune=False`: on an AVX2 host the
tuner would time these small layers, and direct may win)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn as nn
from torch.export import Dim

import xnnc
from xnnc.cost import forms, rules
from xnnc.cost.rules import ConvLayer
from xnnc.target import PRESETS, Target
from xnnc.transforms.conv_as_gemm import tap_filter, tap_offsets

OFF = ("xnn-conv-as-gemm",)
AVX2 = Target.preset("x86-64-avx2")


def _ops(program) -> list[str]:
    return [op.name for op in program.module.walk()]


def _check(model: nn.Module, x: torch.Tensor, fires: bool = True):
    model = model.eval()
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,), target=AVX2, tune=False)
    got = program(x)
    scale = max(1.0, want.abs().max().item())
    torch.testing.assert_close(got, want, atol=1e-4 * scale, rtol=1e-4)
    assert ("xnn.convolution_2d" not in _ops(program)) == fires, _ops(program)
    return program


def _conv(cin: int, cout: int = 64) -> ConvLayer:
    return ConvLayer("f32", 1, 1, 32, cin, cout, (1, 3), (1, 1), (0, 1, 0, 1))


def test_static_rule():
    """cost.rules.conv_as_gemm, the static source of the pass's decisions."""

    def gemm(target: Target, layer: ConvLayer) -> bool:
        return rules.conv_as_gemm(target, layer).choice == "gemm"

    on = {name for name in PRESETS if gemm(Target.preset(name), _conv(16))}
    assert on == {"x86-64-avx2"}
    assert gemm(Target.parse("x86_64+avx2+fma3"), _conv(16))
    assert not gemm(Target.parse("x86_64+avx2"), _conv(16))  # no FMA3: other kernels
    assert not gemm(Target(), _conv(1024))  # no CPU feature assumed
    avx512 = Target.preset("x86-64-avx512")
    assert not gemm(avx512, _conv(1024, 1))  # the one-output-channel form: measured elsewhere
    assert not gemm(avx512, _conv(256)) and gemm(avx512, _conv(384))
    assert not gemm(avx512.replace(threads=2), _conv(1024))  # thread-pool barriers (Zen 4)
    intel = Target.preset("x86-64-avx512fp16")  # Sapphire Rapids class: two threads too
    assert gemm(intel.replace(threads=2), _conv(384)) and not gemm(intel, _conv(256))
    assert gemm(intel, _conv(64, 1)) and not gemm(intel.replace(threads=2), _conv(64, 1))
    zen4 = Target.preset("x86-64-avx512bf16")  # AVX512-BF16 without AMX/FP16: Zen 4 class
    for threads in (1, 2):
        at = zen4.replace(threads=threads)
        assert gemm(at, _conv(1024)) and not gemm(at, _conv(768)) and gemm(at, _conv(64, 1))
    assert gemm(AVX2.replace(threads=2), _conv(16))
    assert not gemm(Target.preset("arm64"), _conv(1024))


def test_tap_offsets():
    assert tap_offsets(3, 1) == [0, 1, 2]
    assert tap_offsets(4, 5) == [0, 5, 10, 15]


@pytest.mark.parametrize("shape", [(16, 3, 5, 8), (512, 1, 3, 512)])  # the second: 1 MiB taps
def test_tap_filter_is_a_contiguous_copy(shape):
    w = torch.randn(shape)
    for i, j in [(0, 0), (shape[1] - 1, shape[2] - 1)]:
        tap = tap_filter(w, i, j)
        assert tap.is_contiguous() and tap.shape == (shape[0], shape[3])
        assert torch.equal(tap, w[:, i, j, :])
        assert tap.untyped_storage().data_ptr() != w.untyped_storage().data_ptr()


@pytest.mark.parametrize(
    "cin, cout, k, dilation, padding, length",
    [(8, 16, 3, 1, 1, 20), (32, 64, 7, 3, 9, 40), (16, 32, 2, 1, 0, 5), (4, 16, 11, 5, 25, 64)],
)
def test_conv1d(cin, cout, k, dilation, padding, length):
    torch.manual_seed(0)
    model = nn.Conv1d(cin, cout, k, dilation=dilation, padding=padding)
    program = _check(model, torch.randn(2, cin, length))
    assert sum(n == "xnn.fully_connected" for n in _ops(program)) == k


@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_with_fused_relu(bias):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1, bias=bias), nn.ReLU())
    program = _check(model, torch.randn(1, 8, 10, 12))
    ir = xnnc.print_module(program.module)
    assert ir.count("xnn.fully_connected") == 9 and "output_min = 0.0" in ir


@pytest.mark.parametrize("stride, dilation", [(1, 1), (1, 3), (2, 1)])
def test_one_output_channel_as_depthwise(stride, dilation):
    """The last layer of an audio decoder: depthwise taps, then a channel sum with the bias
    and the clamp (tanh-free here: the hardtanh fuses)."""
    torch.manual_seed(0)
    conv = nn.Conv1d(32, 1, 7, stride=stride, dilation=dilation, padding=3 * dilation)
    program = _check(nn.Sequential(conv, nn.Hardtanh(-0.5, 0.5)), torch.randn(1, 32, 64))
    ops = _ops(program)
    assert "xnn.depthwise_convolution_2d" in ops and "xnn.clamp" not in ops


def test_left_alone():
    torch.manual_seed(0)
    _check(nn.Conv1d(8, 16, 3, stride=2), torch.randn(1, 8, 20), fires=False)
    _check(nn.Conv1d(8, 4, 3), torch.randn(1, 8, 20), fires=False)  # < 16 output channels
    _check(nn.Conv1d(8, 16, 3, groups=2), torch.randn(1, 8, 20), fires=False)


@pytest.mark.parametrize("name", ["mimi", "hifigan", "resnet"])
def test_models(zoo, name):
    """Small models: every stride-1 dense convolution with >= 16 outputs is rewritten, and
    the program matches eager and the one without the rewrite."""
    _, inputs = zoo.example(name)
    want = zoo.eager(name)
    program = zoo.compiled(name, target=AVX2)
    plain = zoo.compiled(name, target=AVX2, disable=OFF)
    assert _ops(program).count("xnn.convolution_2d") < _ops(plain).count("xnn.convolution_2d")
    scale = max(1.0, want.abs().max().item())
    got = program(*inputs)
    torch.testing.assert_close(got, want, atol=1e-4 * scale, rtol=1e-4)
    torch.testing.assert_close(got, plain(*inputs), atol=1e-4 * scale, rtol=1e-4)


class DecoderStack(nn.Module):
    """A SEANet-style decoder block at 512 channels: k7, a dilated k3 and an unpadded k3."""

    def __init__(self, channels: int = 512) -> None:
        super().__init__()
        self.wide = nn.Conv1d(channels, channels, 7, padding=3)
        self.dilated = nn.Conv1d(channels, channels, 3, dilation=3, padding=3)
        self.out = nn.Conv1d(channels, 64, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.elu(self.wide(x))
        return self.out(nn.functional.elu(self.dilated(h)) + h)


def _dynamic(model, x, dims, target, shapes):
    """Compile once with `dims` (of input `x`); match eager at each of `shapes`."""
    model = model.eval()
    program = xnnc.compile(model, (x,), dynamic_shapes=(dims,), target=target, tune=False)
    for shape in shapes:
        y = torch.randn(shape)
        with torch.no_grad():
            want = model(y)
        scale = max(1.0, want.abs().max().item())
        torch.testing.assert_close(program(y), want, atol=1e-4 * scale, rtol=1e-4)
    return program


def _gemm_whys(program) -> list[str]:
    return [d.why for d in program.decisions() if d.form == "conv-as-gemm"]


@pytest.mark.parametrize("runtime", ["extended", "stock"])
def test_symbolic_length(runtime):
    """One program for T in [4, 64]: on the extended runtime every tap but the last ends
    (k-1-j)*d before the padded input's symbolic end (a from-end slice), and the rule,
    which reads channels and threads, takes GEMMs at both ends; the stock slice cannot
    end there, so the convolutions stay, saying why."""
    torch.manual_seed(0)
    target = f"{runtime},x86-64-avx512fp16"  # Sapphire Rapids class: GEMMs from 384 inputs
    frames = Dim("T", min=4, max=64)
    shapes = [(1, 512, t) for t in (4, 9, 37, 64)]
    program = _dynamic(DecoderStack(), torch.randn(1, 512, 13), {2: frames}, target, shapes)
    ops = _ops(program)
    if runtime == "stock":
        assert ops.count("xnn.convolution_2d") == 3 and "xnn.fully_connected" not in ops
        assert _gemm_whys(program) == 3 * [
            "symbolic size T: the taps' slices end before the end of a symbolic dim, and "
            "stock ExecuTorch's XNNStaticSlice takes only absolute unsigned sizes (a slice "
            "to the end is the most it can follow)"
        ]
        return
    assert "xnn.convolution_2d" not in ops and ops.count("xnn.fully_connected") == 7 + 3 + 3
    assert _gemm_whys(program) == 3 * [
        "symbolic size T in [4, 64]: gemm by the rule at both ends: AVX-512 (AMX/FP16), "
        "1 thread, 512 >= 384 input channels"
    ]
    ends = sorted(
        op.properties["sizes"].get_values()[2]
        for op in program.module.walk()
        if op.name == "xnn.static_slice"
    )
    # Per layer, tap j of k ends (k-1-j)*d before the end: k7 d1, k3 d3, k3 d1.
    assert ends == sorted([-6, -5, -4, -3, -2, -1, 0, -6, -3, 0, -2, -1, 0])


@pytest.mark.parametrize("runtime", ["extended", "stock"])
def test_symbolic_2d(runtime):
    """A 3x3 convolution on H = h, W = 2*h (derived): nine taps, each a window counted
    from both symbolic ends (extended); stock keeps the convolution."""
    torch.manual_seed(0)
    h = Dim("h", min=2, max=16)
    model = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
    target = AVX2.replace(runtime=runtime)
    shapes = [(1, 8, n, 2 * n) for n in (2, 7, 16)]
    program = _dynamic(model, torch.randn(1, 8, 5, 10), {2: h, 3: 2 * h}, target, shapes)
    fires = runtime == "extended"
    assert _ops(program).count("xnn.fully_connected") == (9 if fires else 0)
    assert ("xnn.convolution_2d" not in _ops(program)) == fires


def test_symbolic_rows_with_one_tap_follow_on_stock():
    """A (1, 3) kernel on a symbolic height: along it every tap is the slice to the end
    (offset 0), which the stock slice writes, so stock takes the GEMM form too."""
    torch.manual_seed(0)
    model = nn.Conv2d(8, 16, (1, 3), padding=(0, 1))
    stock, shapes = AVX2.replace(runtime="stock"), [(1, 8, n, 6) for n in (1, 6, 32)]
    program = _dynamic(model, torch.randn(1, 8, 5, 6), {2: Dim("H", min=1, max=32)}, stock, shapes)
    assert "xnn.convolution_2d" not in _ops(program)
    assert _ops(program).count("xnn.fully_connected") == 3
    # And its `.pte` on stock ExecuTorch, whose slice reads "to the end" from UINT32_MAX.
    from xnnc.pte import StockRuntime, to_pte

    dims = ({2: Dim("H", min=1, max=32)},)
    run = StockRuntime(to_pte(model, (torch.randn(1, 8, 5, 6),), dynamic_shapes=dims,
                              target=stock, tune=False))  # fmt: skip
    for n in (1, 32):
        x = torch.randn(1, 8, n, 6)
        with torch.no_grad():
            torch.testing.assert_close(run(x)[0], model(x), atol=1e-4, rtol=1e-4)


def test_symbolic_rule_ends_disagree(monkeypatch):
    """When the rule's forms differ across the range, the program takes the form at the
    largest size, where the layer takes most time, and says both."""

    def by_length(target: Target, layer: ConvLayer) -> rules.Choice:
        if layer.width >= 32:
            return rules.Choice("gemm", f"width {layer.width} >= 32")
        return rules.Choice("direct", f"width {layer.width} < 32")

    conv = dataclasses.replace(forms.FORMS["conv-as-gemm"], rule=by_length)
    monkeypatch.setitem(forms.FORMS, "conv-as-gemm", conv)
    torch.manual_seed(0)
    program = _dynamic(nn.Conv1d(8, 16, 3, padding=1), torch.randn(1, 8, 13),
                       {2: Dim("T", min=4, max=64)}, AVX2, [(1, 8, 4), (1, 8, 64)])  # fmt: skip
    assert "xnn.convolution_2d" not in _ops(program)
    assert _gemm_whys(program) == [
        "symbolic size T in [4, 64]: gemm, the rule's form at the largest size, where the "
        "layer takes most time (width 64 >= 32); at the smallest: direct (width 4 < 32)"
    ]
