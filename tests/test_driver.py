"""The driver's `compile` says what it leaves to torch: one FallbackWarning line naming each
op kind with its count and reason, an error under `strict=True`, nothing when every op runs
on XNNPACK."""

import warnings

import pytest
import torch
from torch import nn

import xnnc
from xnnc.errors import FallbackError, FallbackWarning


class CumsumSort(nn.Module):
    """Two ops XNNPACK has no node for, around ones it runs."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(x * 2.0)
        return torch.sort(torch.cumsum(y, dim=-1), dim=-1).values + torch.cumsum(x, dim=-1)


def _inputs() -> tuple[torch.Tensor]:
    return (torch.randn(2, 8),)


def test_compile_names_the_ops_it_leaves_to_torch() -> None:
    model, inputs = CumsumSort().eval(), _inputs()
    with pytest.warns(FallbackWarning) as record:
        program = xnnc.compile(model, inputs)
    (warning,) = [w for w in record if w.category is FallbackWarning]
    message = str(warning.message)
    assert "\n" not in message
    assert message.startswith("xnnc.compile: 3 ops run on torch, outside XNNPACK: ")
    assert "aten.cumsum x2 (" in message and "aten.sort" in message
    assert message == f"xnnc.compile: {program.fallback()}"
    # fp32; the ops on torch are torch's own, XNNPACK's differ by rounding only
    torch.testing.assert_close(program(*inputs), model(*inputs), rtol=1e-5, atol=1e-5)


def test_strict_compile_refuses_a_fallback() -> None:
    with pytest.raises(FallbackError, match=r"^xnnc.compile\(strict=True\): 3 ops run on torch"):
        xnnc.compile(CumsumSort().eval(), _inputs(), strict=True)


def test_a_fully_delegated_compile_is_silent() -> None:
    model = nn.Sequential(nn.Linear(8, 4), nn.ReLU()).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        program = xnnc.compile(model, _inputs(), strict=True)
    assert program.fallback() is None


def test_xnn_run_prints_the_fallback(tmp_path, capsys) -> None:
    from xnnc.tools import xnn_run

    path = tmp_path / "m.pt2"
    torch.export.save(torch.export.export(CumsumSort().eval(), _inputs()), str(path))
    assert xnn_run.main([str(path), "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 ops run on torch, outside XNNPACK: aten.cumsum x2 (" in out
