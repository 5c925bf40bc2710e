"""A stock `.pte` runs or is refused at save time: an op left outside XNNPACK that the stock
runtime has no kernel for (torch.sort: `aten::sort.values`) is named when the file is made,
not at load ("Missing operator ... error 0x14"); in ExecuTorch's own flow, which the user
owns, XnncPartitioner warns."""

import warnings

import pytest
import torch
from torch import nn

import xnnc
from xnnc.errors import MissingKernelWarning, XnncError
from xnnc.pte import StockRuntime, to_pte

REFUSAL = (
    r"^to_pte: aten::sort.values has no kernel in ExecuTorch 1.5.1's portable library, so the "
    r"stock runtime could not load this .pte; compile it for target='extended'"
)


class Sorted(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sort(torch.relu(x), dim=-1).values


class Cumsum(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(torch.relu(x), dim=-1)


def _x() -> tuple[torch.Tensor]:
    return (torch.randn(2, 8),)


def test_saving_a_pte_the_stock_runtime_cannot_load_is_refused(tmp_path) -> None:
    program = xnnc.compile(Sorted().eval(), _x(), target="stock", savable=True)
    with pytest.raises(XnncError, match=REFUSAL):
        program.save(str(tmp_path / "m.pte"))
    assert not (tmp_path / "m.pte").exists()
    with pytest.raises(XnncError, match=REFUSAL):
        to_pte(Sorted().eval(), _x())


def test_an_op_outside_with_a_stock_kernel_saves_and_runs(tmp_path) -> None:
    model, x = Cumsum().eval(), _x()
    pte = to_pte(model, x)
    (got,) = StockRuntime(pte)(*x)
    torch.testing.assert_close(got, model(*x), rtol=1e-6, atol=1e-6)  # fp32, same kernels


def test_the_partitioner_flow_warns() -> None:
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(Sorted().eval(), _x())
    with pytest.warns(MissingKernelWarning, match=r"^XnncPartitioner: aten::sort left outside"):
        to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner()])
    ep = torch.export.export(Cumsum().eval(), _x())
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingKernelWarning)
        to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner()])
