"""Activations models use that XNNPACK has no node for, composed inside it from stock node
kinds (conversion/aten_to_xnn.py): hardsigmoid (MobileNetV3), softplus and mish, SELU (a
scaled ELU). Against torch eager, on the extended runtime and as a stock `.pte`, at one
static and one dynamic size.

Tolerances, fp32, rtol 1e-5 and atol 1e-6 (the activation alone, inputs up to ~45):
hardsigmoid runs torch's own arithmetic (x + 3 clamped, divided by 6); softplus is
relu(z) + log(1 + exp(-|z|)), not torch's log1p: within 6e-8 absolute of it (hence the
atol where the result is tiny), plus XNNPACK's exp, log and tanh, each a few ulps from
torch's (rtol 1e-5 is ~80 ulps: the chain of six nodes compounds them).
"""

import pytest
import torch
from torch import nn

import xnnc
from xnnc.pte import StockRuntime, to_pte

ACTIVATIONS = {
    "hardsigmoid": nn.Hardsigmoid(),
    "softplus": nn.Softplus(),
    "softplus_beta2": nn.Softplus(beta=2.0),
    "mish": nn.Mish(),
    "selu": nn.SELU(),
}


def _model(name: str) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Identity(), ACTIVATIONS[name]).eval()


def _x() -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randn(1, 4, 256) * 12  # both tails: softplus's overflow and log1p ranges


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_runs_inside_xnnpack_on_both_targets(name: str) -> None:
    model, x = _model(name), _x()
    want = model(x)
    program = xnnc.compile(model, (x,), strict=True)  # nothing on torch
    assert program.num_partitions == 1
    torch.testing.assert_close(program(x), want, rtol=1e-5, atol=1e-6)
    xnnc.compile(model, (x,), target="stock", strict=True)  # nothing on torch there either
    (got,) = StockRuntime(to_pte(model, (x,)))(x)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["hardsigmoid", "mish"])
def test_activation_at_a_dynamic_size(name: str) -> None:
    model = _model(name)
    frames = torch.export.Dim("T", min=8, max=512)
    program = xnnc.compile(model, (_x(),), dynamic_shapes={"input": {2: frames}}, strict=True)
    for t in (8, 100, 512):
        x = torch.randn(1, 4, t) * 12
        torch.testing.assert_close(program(x), model(x), rtol=1e-5, atol=1e-6)


def test_softplus_with_a_low_threshold_stays_on_torch_with_its_reason() -> None:
    model = nn.Sequential(nn.Identity(), nn.Softplus(threshold=4.0)).eval()
    with pytest.warns(xnnc.errors.FallbackWarning, match="softplus with beta <= 0 or a threshold"):
        program = xnnc.compile(model, (_x(),))
    torch.testing.assert_close(program(_x()), model(_x()))


@pytest.mark.parametrize("name", ["mobilenetv3_large", "mobilenetv3_small"])
def test_mobilenetv3_is_one_subgraph_with_nothing_outside(zoo, name: str) -> None:
    """Its hardswish and its squeeze-excitation's hardsigmoid inside XNNPACK: one subgraph,
    nothing on torch, on both targets (the session's compiles). Tolerance: fp32
    convolutions summed in another order than torch's through ~20 layers, 1e-4 of the
    output's scale."""
    _, inputs = zoo.example(name)
    want = zoo.eager(name)
    for target in ("extended", "stock"):
        program = zoo.compiled(name, target=target)
        assert program.num_partitions == 1 and program.fallback() is None
        scale = want.abs().max().item()
        torch.testing.assert_close(program(*inputs), want, rtol=0, atol=1e-4 * scale)


class LogBasesAndMax(nn.Module):
    """Whisper's log-mel ending: log10 of a clamped spectrum, then a floor 8 below its
    global max; log2 too."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        log = torch.clamp(x, min=1e-10).log10()
        return torch.maximum(log, log.max() - 8.0), torch.log2(x.abs() + 1e-3)


def test_log_bases_and_global_max_run_inside_xnnpack_on_both_targets() -> None:
    """log(x) * (1 / log b) against torch's log10/log2: a few ulps (rtol 1e-6, ~8 ulps)."""
    model, x = LogBasesAndMax(), _x().abs() * 3
    want = model(x)
    for target in ("extended", "stock"):
        program = xnnc.compile(model, (x,), strict=True, target=target)
        assert program.num_partitions == 1
        for got, expected in zip(program(x), want, strict=True):
            torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-6)
