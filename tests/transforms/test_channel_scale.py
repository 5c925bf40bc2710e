"""`xnn-fold-channel-scale`: per-channel multiplies folded into the weights next to them, and
snake activations rewritten so that theirs fold, against eager on both targets.

Tolerance: fp32, 1e-5 relative to the output's scale: a folded weight rounds once more than
the multiply it replaces (2^-24 relative), and b * (a*x) stands for x with b the rounded
reciprocal of a (at most 4 ulp off, checked by the rewrite); a few ulps through these short
stacks."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc.dialects import xnn
from xnnc.examples.models import Snake1d

OFF = ("xnn-fold-channel-scale",)


def _multiplies(program: xnnc.Program) -> int:
    return sum(
        isinstance(op, xnn.BinaryOp) and op.kind.data.value == "multiply"
        for op in program.module.walk()
    )


def _check(model: nn.Module, x: torch.Tensor, target: str) -> tuple[int, int]:
    """Multiplies left with and without the rewrite; numerics of both against eager."""
    model = model.eval()
    with torch.no_grad():
        want = model(x)
    counts = []
    for disable in ((), OFF):
        program = xnnc.compile(model, (x,), target=target, disable=disable, tune=False)
        scale = max(1.0, want.abs().max().item())
        torch.testing.assert_close(program(x), want, atol=1e-5 * scale, rtol=1e-5)
        counts.append(_multiplies(program))
    return counts[0], counts[1]


def _snake(channels: int, low: float, high: float) -> Snake1d:
    snake = Snake1d(channels)
    with torch.no_grad():
        snake.alpha.uniform_(low, high)
    return snake


class ResidualUnit(nn.Module):
    """DAC's residual unit: snake, conv k7 (dilated), snake, conv k1, plus the input."""

    def __init__(self, c: int, low: float = 0.05, high: float = 3.0) -> None:
        super().__init__()
        self.block = nn.Sequential(
            _snake(c, low, high), nn.Conv1d(c, c, 7, dilation=3, padding=9),
            _snake(c, low, high), nn.Conv1d(c, c, 1),
        )  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x)


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_dac_block_snakes_fold(target: str) -> None:
    """Residual units then a snake and a transposed conv (DAC's decoder block): every snake's
    reciprocal multiply folds into the conv or deconv after it, and the second snake of each
    unit, whose input only it reads, loses its `a` multiply to the conv before it too."""
    torch.manual_seed(0)
    c = 16
    model = nn.Sequential(
        ResidualUnit(c), ResidualUnit(c), _snake(c, 0.5, 1.5),
        nn.ConvTranspose1d(c, 8, 4, stride=2, padding=1),
    )  # fmt: skip
    on, off = _check(model, torch.randn(1, c, 40), target)
    # 5 snakes x 2 multiplies; the rewrite leaves the 3 `a` multiplies on the residual stream.
    assert (on, off) == (3, 10)


def test_negative_alpha_folds() -> None:
    torch.manual_seed(1)
    c = 8
    model = nn.Sequential(nn.Conv1d(c, c, 3, padding=1), _snake(c, -3.0, -0.2), nn.Conv1d(c, c, 1))
    assert _check(model, torch.randn(1, c, 20), "extended") == (0, 2)


def test_tiny_alpha_keeps_the_snake() -> None:
    """At a = 1e-4 the snake's 1 / (a + 1e-9) is 1e-5 away from 1/a: more than the 4 ulp the
    rewrite allows, so it leaves the snake as written (and stays exact)."""
    torch.manual_seed(2)
    c = 8
    model = nn.Sequential(nn.Conv1d(c, c, 3, padding=1), _snake(c, 1e-4, 1e-4), nn.Conv1d(c, c, 1))
    assert _check(model, torch.randn(1, c, 20), "extended") == (2, 2)


class LayerScaleThenLinear(nn.Module):
    """A conv's output scaled per channel (ConvNeXt's layer scale), then a per-feature scale
    before a linear layer, and one before a grouped conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.gamma = nn.Parameter(torch.randn(1, 8, 1, 1))
        self.scale = nn.Parameter(torch.randn(1, 8, 1, 1))
        self.grouped = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.feature = nn.Parameter(torch.randn(8))
        self.linear = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.grouped(self.conv(x) * self.gamma * self.scale)
        return self.linear(y.mean((2, 3)) * self.feature)


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_scales_fold_into_convs_and_linear(target: str) -> None:
    torch.manual_seed(3)
    on, off = _check(LayerScaleThenLinear(), torch.randn(1, 4, 10, 10), target)
    assert on == 0 and off >= 2


def test_depthwise_consumer() -> None:
    torch.manual_seed(4)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.s = nn.Parameter(torch.randn(1, 6, 1, 1))
            self.dw = nn.Conv2d(6, 12, 3, padding=1, groups=6)  # depth multiplier 2

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.dw(x * self.s)

    assert _check(Net(), torch.randn(1, 6, 9, 9), "extended") == (0, 1)


def test_symbolic_length_folds_as_static() -> None:
    """With a symbolic time axis the scales fold through the same transposes and reshapes
    (the channel dim is static on one side of them): as many multiplies as a static compile."""
    torch.manual_seed(5)
    c = 16
    model = nn.Sequential(
        ResidualUnit(c), _snake(c, 0.5, 1.5), nn.ConvTranspose1d(c, 8, 4, stride=2, padding=1)
    ).eval()
    dims = {"input": {2: torch.export.Dim("T", min=4, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, c, 32),), dynamic_shapes=dims, tune=False)
    static = xnnc.compile(model, (torch.randn(1, c, 32),), tune=False)
    assert _multiplies(program) == _multiplies(static) == 2
    for size in (4, 17, 64):
        x = torch.randn(1, c, size)
        with torch.no_grad():
            want = model(x)
        scale = max(1.0, want.abs().max().item())
        torch.testing.assert_close(program(x), want, atol=1e-5 * scale, rtol=1e-5)
