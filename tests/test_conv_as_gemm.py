"""`xnn-conv-as-gemm`: stride-1 convolutions as summed fully-connected taps, against eager.

Tolerance: fp32, 1e-4 relative to the output's scale: the taps are summed in another order
than the convolution's accumulation (k partial sums of Cin products each), a few ulps at
these sizes.

The rewrite applies only on the target it was measured for (x86-64 AVX2 without AVX-512), so
every compile here is for that target."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc.cost import rules
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
    program = xnnc.compile(model, (x,), target=AVX2)
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
