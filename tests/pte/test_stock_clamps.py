"""A clamp after a binary op on the stock target: `xnn-fuse-activation` folds it into the
op's output range, which stock ExecuTorch 1.5.1 passes to XNNPACK for add, subtract,
multiply and divide but not for minimum, maximum and prelu (their define calls take none).
There the clamp stays a node of its own, and xnnc's runtime defines those stock nodes as
ExecuTorch does, so its run of a stock program computes what the `.pte` computes.

Exact: each op is one XNNPACK node over the same fp32 values as eager (then a clamp).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import xnnc
from xnnc.dialects import xnn
from xnnc.pte import StockRuntime

OPS = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "minimum": torch.minimum,
    "maximum": torch.maximum,
    "prelu": lambda a, b: F.prelu(a, torch.tensor([0.25])),
}
UNCLAMPED = ("minimum", "maximum", "prelu")


class _Clamped(torch.nn.Module):
    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.clamp(OPS[self.name](a, b), -0.5, 0.5)


@pytest.mark.parametrize("name", list(OPS))
def test_a_clamp_after_a_binary_op_on_stock_executorch(name: str, tmp_path) -> None:
    model = _Clamped(name).eval()
    a, b = torch.randn(4, 8) * 3, torch.randn(4, 8).abs() + 0.5
    program = xnnc.compile(model, (a, b), target="stock", tune=False, savable=True)
    clamps = [op for op in program.module.walk() if isinstance(op, xnn.ClampOp)]
    assert len(clamps) == (name in UNCLAMPED)  # fused into the others' output range
    program.save(str(tmp_path / "m.pte"))
    on_stock = StockRuntime((tmp_path / "m.pte").read_bytes())(a, b)[0]
    assert torch.equal(on_stock, model(a, b))
    assert torch.equal(program(a, b), model(a, b))


@pytest.mark.parametrize("name", UNCLAMPED)
def test_the_extended_target_still_fuses_it(name: str) -> None:
    model = _Clamped(name).eval()
    a, b = torch.randn(4, 8) * 3, torch.randn(4, 8).abs() + 0.5
    program = xnnc.compile(model, (a, b), tune=False)
    assert not [op for op in program.module.walk() if isinstance(op, xnn.ClampOp)]
    assert torch.equal(program(a, b), model(a, b))
