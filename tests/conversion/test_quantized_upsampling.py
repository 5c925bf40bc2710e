"""Static int8 transposed convolutions (XNNPACK's qs8 deconvolution over qc8w filters, and
their polyphase form), qs8 multiply, and the issue-14 targets built from them: the
MI-GAN-style net and the Mimi-style decoder, quantized with ExecuTorch's XNNPACKQuantizer.

Tolerance. Each XNNPACK qs8 node accumulates in int32 with a bias rounded to the
accumulator's grid and requantizes in fp32, where the PT2E model computes the float op on
dequantized values: one node's output differs from PT2E's by at most one output step
(atol = scale x 1.01, the 1% for the fp32 rounding of the step). A whole network stacks
such differences, amplified by the layers after them; its bound is stated with it.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import xnnc
from xnnc.dialects.quant import is_quantized
from xnnc.examples.quantized_models import output_scale, quantize


def _inputs(shape: tuple[int, ...], count: int = 4) -> list[torch.Tensor]:
    """Random inputs at several ranges, some saturating the input's quantization."""
    g = torch.Generator().manual_seed(7)
    return [torch.randn(shape, generator=g) * (0.5 + i / 2) for i in range(count)]


def _ops(prog: xnnc.Program, name: str) -> list:
    return [op for op in prog.module.walk() if op.name == name]


class Upsample1d(nn.Module):
    """conv1d, then a transposed conv1d (k = 2 x stride, EnCodec/Mimi-style) with a bias."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv1d(8, 16, 3, padding=1)
        self.t = nn.ConvTranspose1d(16, 8, 8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.t(self.a(x))


class Upsample2d(nn.Module):
    """A transposed conv2d x2 (k4, padding 1, as in GAN decoders) and a fused relu."""

    def __init__(self) -> None:
        super().__init__()
        self.t = nn.ConvTranspose2d(8, 16, 4, 2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.t(x))


class Gate(nn.Module):
    """x * y broadcast over channels (a gate): XNNPACK's qs8 multiply of two qs8 tensors.
    The operands come straight from the inputs' quantization, so the multiply is the only
    node that can differ (a product of conv outputs multiplies their own one-step
    differences)."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x * y


SMALL = {"upsample1d": (Upsample1d, [(1, 8, 20)]), "upsample2d": (Upsample2d, [(1, 8, 9, 9)]),
         "gate": (Gate, [(1, 4, 8, 8), (1, 1, 8, 8)])}  # fmt: skip


@pytest.fixture(scope="module", params=list(SMALL))
def small(request):
    make, shapes = SMALL[request.param]
    torch.manual_seed(0)
    inputs = tuple(torch.randn(shape) for shape in shapes)
    ep = quantize(make().eval(), inputs)
    return request.param, ep, inputs, ep.module()


def _samples(inputs: tuple[torch.Tensor, ...], count: int = 4) -> list[tuple[torch.Tensor, ...]]:
    return list(zip(*(_inputs(x.shape, count) for x in inputs), strict=True))


def _within_one_step(prog, ep, pt2e, inputs) -> None:
    atol = output_scale(ep) * 1.01
    for xs in _samples(inputs):
        torch.testing.assert_close(prog(*xs), pt2e(*xs), rtol=0, atol=atol)


def test_qs8_deconvolution_within_one_step(small):
    """Without polyphase the transposed conv is one qs8 deconvolution over a qc8w filter."""
    name, ep, inputs, pt2e = small
    if name == "gate":
        pytest.skip("no transposed conv")
    prog = xnnc.compile(ep, inputs, disable=("xnn-polyphase",), tune=False)
    assert prog.num_partitions == 1 and prog.outside() == []
    (deconv,) = _ops(prog, "xnn.deconvolution_2d")
    assert is_quantized(deconv.input.type) and is_quantized(deconv.output.type)
    filt = deconv.filter.type.element_type
    assert not filt.per_tensor and filt.axis.data == 0  # per output channel: qcint8
    _within_one_step(prog, ep, pt2e, inputs)


def test_qs8_polyphase_within_one_step(small):
    """By default the qs8 transposed conv is polyphase: qs8 convolutions, no deconvolution;
    the decision is recorded as for fp32."""
    name, ep, inputs, pt2e = small
    if name == "gate":
        pytest.skip("no transposed conv")
    prog = xnnc.compile(ep, inputs, tune=False)
    assert prog.num_partitions == 1 and prog.outside() == []
    assert _ops(prog, "xnn.deconvolution_2d") == []
    convs = _ops(prog, "xnn.convolution_2d")
    assert convs and all(is_quantized(c.output.type) for c in convs)
    if name == "upsample2d":  # 1-D: the interleave's reshape folds away with its record
        assert [(d.form, d.choice) for d in prog.decisions()] == [("polyphase", "polyphase")]
    _within_one_step(prog, ep, pt2e, inputs)


def test_qs8_polyphase_on_stock_executorch(small):
    """The same program through XnncPartitioner's .pte on stock ExecuTorch 1.5.1 (the
    interleave legalized into stock node kinds)."""
    from xnnc.pte import StockRuntime, to_pte

    name, ep, inputs, pt2e = small
    runtime = StockRuntime(to_pte(ep))
    atol = output_scale(ep) * 1.01
    for xs in _samples(inputs, 2):
        torch.testing.assert_close(runtime(*xs)[0], pt2e(*xs), rtol=0, atol=atol)


def test_qs8_multiply(small):
    name, ep, inputs, pt2e = small
    if name != "gate":
        pytest.skip("no multiply")
    prog = xnnc.compile(ep, inputs)
    assert prog.num_partitions == 1 and prog.outside() == []
    (mul,) = [op for op in _ops(prog, "xnn.binary") if op.kind.data.name == "MULTIPLY"]
    assert all(is_quantized(v.type) for v in (*mul.operands, mul.output))
    _within_one_step(prog, ep, pt2e, inputs)


# --- the issue-14 targets ----------------------------------------------------------------------

# Measured max |xnnc - PT2E| in output steps over `_samples` (extended runtime, Sapphire
# Rapids-class Xeon): MI-GAN-style 3-4, Mimi-style 5-7 (the same with or without polyphase);
# the fp32 model is 2.6-132 and 11-45 steps from PT2E. Each qs8 node is within one step of
# PT2E's (the tests above), and a one-step difference early on grows through the layers
# after it (MI-GAN: 28 convs; Mimi-style: 15 convs, 13 ELU tables, 4 residual adds), so
# the bounds are per model.
TARGETS = {"migan_32": 5, "mimi_small": 8}


@pytest.fixture(scope="module", params=list(TARGETS))
def target(request):
    from xnnc.examples.quantized_models import quantized_program

    ep, inputs = quantized_program(request.param)
    return request.param, ep, inputs, ep.module()


def test_target_one_subgraph_nothing_outside(target):
    """Everything in one subgraph; the transposed convs XNNPACKQuantizer quantizes (groups
    1) are qs8 polyphase convolutions, the depthwise ones it leaves float (it skips
    transposed convs with groups > 1) run in fp32 between converts."""
    name, ep, inputs, _ = target
    prog = xnnc.compile(ep, inputs)
    assert prog.num_partitions == 1 and prog.outside() == []
    assert _ops(prog, "xnn.deconvolution_2d") == []
    convs = _ops(prog, "xnn.convolution_2d")
    assert convs and all(is_quantized(c.output.type) for c in convs)
    float_dw = [c for c in _ops(prog, "xnn.depthwise_convolution_2d")
                if not is_quantized(c.output.type)]  # fmt: skip
    transposed_dw = {"migan_32": 4, "mimi_small": 1}[name]
    strides = {"migan_32": 4, "mimi_small": 2}[name]  # one convolution per output phase
    assert len(float_dw) == transposed_dw * strides


def _within_steps(run, ep, pt2e, inputs, steps: int, count: int = 4) -> None:
    scale = output_scale(ep)
    for xs in _samples(inputs, count):
        y = run(*xs)
        y = y[0] if isinstance(y, tuple) else y
        error = (y - pt2e(*xs)).abs()
        assert error.max().item() <= steps * scale * 1.01
        # A systematic error (a wrong scale, zero point or bias) moves every output: the
        # fp32 model's mean is 1.6-4 steps from PT2E, xnnc's measured 0.26-0.61 (Mimi-style).
        assert error.mean().item() < scale


def test_target_numerics_extended(target):
    name, ep, inputs, pt2e = target
    _within_steps(xnnc.compile(ep, inputs), ep, pt2e, inputs, TARGETS[name])


def test_target_numerics_stock_executorch(target):
    from xnnc.pte import StockRuntime, to_pte

    name, ep, inputs, pt2e = target
    _within_steps(StockRuntime(to_pte(ep)), ep, pt2e, inputs, TARGETS[name], count=2)


# --- qs8 average pooling --------------------------------------------------------------------


class _QuantizedPool(nn.Module):
    """quantize -> dequantize -> pool -> quantize -> dequantize with a new output scale, as
    PT2E writes a pool between quantized ops."""

    def __init__(self, pool) -> None:
        super().__init__()
        self.pool = pool

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qd = torch.ops.quantized_decomposed
        q = qd.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)
        y = self.pool(qd.dequantize_per_tensor(q, 0.05, 3, -128, 127, torch.int8))
        q = qd.quantize_per_tensor(y, 0.03, -2, -128, 127, torch.int8)
        return qd.dequantize_per_tensor(q, 0.03, -2, -128, 127, torch.int8)


F = nn.functional
POOLS = {
    "avg3x3_s2_pad1": lambda t: F.avg_pool2d(t, 3, 2, padding=1),
    "avg2x2": lambda t: F.avg_pool2d(t, 2),
    "avg3x3_divisor": lambda t: F.avg_pool2d(t, 3, 1, padding=1, divisor_override=4),
    "adaptive_2x2": lambda t: F.adaptive_avg_pool2d(t, (2, 2)),
}  # a global one imports as a mean: XNNPACK's qs8 mean (test_quantized.py's conv net)


@pytest.mark.parametrize("name", list(POOLS))
def test_qs8_average_pooling_as_depthwise_convolution(name):
    """XNNPACK has no qs8 average pooling: a qs8 depthwise convolution of ones at scale
    1 / divisor, within one output step (the requantization rounds the exact window sum)."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed)

    model, x = _QuantizedPool(POOLS[name]), torch.randn(1, 8, 10, 10) * 2
    prog = xnnc.compile(model, (x,))
    assert prog.num_partitions == 1 and prog.outside() == []
    (dw,) = _ops(prog, "xnn.depthwise_convolution_2d")
    assert is_quantized(dw.input.type) and is_quantized(dw.output.type)
    for xs in _samples((x,)):
        torch.testing.assert_close(prog(*xs), model(*xs), rtol=0, atol=0.03 * 1.01)


def test_qs8_average_pooling_partial_windows_stay_float():
    """count_include_pad=False divides border windows by fewer elements: the pool runs in
    fp32 between converts, and the model still matches."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401

    model = _QuantizedPool(lambda t: F.avg_pool2d(t, 3, 2, padding=1, count_include_pad=False))
    x = torch.randn(1, 8, 10, 10)
    prog = xnnc.compile(model, (x,))
    assert prog.num_partitions == 1 and prog.outside() == []
    (pool,) = _ops(prog, "xnn.average_pooling_2d")
    assert not is_quantized(pool.input.type)
    torch.testing.assert_close(prog(x), model(x), rtol=0, atol=0.03 * 1.01)
