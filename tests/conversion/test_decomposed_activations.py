"""Activations that reach xnnc decomposed, inside XNNPACK: PReLU as where(x > 0, x, w * x)
(raised by `aten-recognize-prelu`), log_sigmoid's log1p(exp(-|x|)) and hardsigmoid, against
torch eager through `xnnc.compile` and ExecuTorch's own flow on stock ExecuTorch, and the
suite subtests that left them outside.

Tolerances. PReLU selects or multiplies once: exact. log_sigmoid: XNNPACK's exp and log are
accurate to ~1e-7 absolute near the values met here (log1p's lowering documents it), so
2e-6 absolute on results of order 1 to 100 (their fp32 ulp reaches 8e-6) and 1e-5 relative.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.exir import to_edge_transform_and_lower
from op_cases import Fn
from suite_harness import assert_fully_delegated

import xnnc
from xnnc.pte import StockRuntime
from xnnc.transforms.prelu_pattern import slopes_along_channels

LOGSIGMOID = dict(atol=2e-6, rtol=1e-5)


def _decomposed(model: nn.Module, x: torch.Tensor) -> torch.export.ExportedProgram:
    """The program as a pipeline that decomposes everything first hands it over."""
    return torch.export.export(model, (x,)).run_decompositions()


@pytest.mark.parametrize(
    "slopes, shape, ok",
    [((1, 8, 1, 1), (2, 8, 5, 5), True), ((8, 1, 1), (2, 8, 5, 5), True), ((1,), (7,), True),
     ((1, 6), (4, 6), True), ((5,), (2, 8, 5), False), ((1, 1, 5), (2, 8, 5), False),
     ((8,), (8,), False)],
)  # fmt: skip
def test_slopes_along_channels(slopes, shape, ok: bool) -> None:
    assert slopes_along_channels(slopes, shape) is ok


PRELU = {
    "per_channel_4d": (nn.PReLU(8, init=-0.2), (2, 8, 5, 5)),
    "per_channel_2d": (nn.PReLU(6), (4, 6)),
    "shared_3d": (nn.PReLU(init=0.3), (2, 8, 5)),
    "shared_1d": (nn.PReLU(), (20,)),
}


@pytest.mark.parametrize("name", sorted(PRELU))
def test_decomposed_prelu_is_one_xnnpack_prelu(name: str) -> None:
    torch.manual_seed(0)
    module, shape = PRELU[name]
    with torch.no_grad():
        module.weight.uniform_(-1, 1)  # a different slope per channel
    x = torch.randn(shape)
    x.view(-1)[:2] = torch.tensor([0.0, -0.0])  # where x > 0 and PReLU agree at zero too
    program = xnnc.compile(_decomposed(module.eval(), x))
    assert program.num_partitions == 1 and program.outside() == [], program.outside()
    with torch.no_grad():
        assert torch.equal(program(x), module(x))


def test_decomposed_prelu_on_stock() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.PReLU(8, init=-0.2)).eval()
    x = torch.randn(1, 3, 10, 10)
    edge = to_edge_transform_and_lower(_decomposed(model, x), partitioner=[xnnc.XnncPartitioner()])
    calls = [str(n.target) for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    assert [c for c in calls if "executorch_call_delegate" not in c and "getitem" not in c] == []
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    with torch.no_grad():
        torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)  # the conv's sums


X_LOGSIGMOID = torch.cat([torch.linspace(-100, 100, 801), torch.tensor([0.0, 17.0, 30.0])])


def test_logsigmoid_inside_xnnpack() -> None:
    model = Fn(F.logsigmoid).eval()
    program = xnnc.compile(model, (X_LOGSIGMOID,))
    assert program.num_partitions == 1 and program.outside() == [], program.outside()
    torch.testing.assert_close(program(X_LOGSIGMOID), model(X_LOGSIGMOID), **LOGSIGMOID)


def test_logsigmoid_on_stock() -> None:
    model = Fn(F.logsigmoid).eval()
    x = X_LOGSIGMOID.reshape(1, -1)
    edge = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner()]
    )
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), **LOGSIGMOID)


def test_log1p_elsewhere_stays_outside_with_its_reason() -> None:
    """log1p(u) of an unbounded u: the composition would be NaN at u = inf."""
    model = Fn(lambda t: torch.log1p(t.abs()) * 2).eval()
    x = torch.tensor([0.0, 1e-10, 3.0, float("inf")])
    program = xnnc.compile(model, (x,))
    (outside,) = program.outside()
    assert outside.op == "aten.log1p" and "NaN at u = inf" in outside.reason
    assert torch.equal(program(x), model(x))


SUITE = [
    ("test_prelu", "test_prelu_f32_single_dim"),
    ("test_prelu", "test_prelu_f32_boundary_values"),
    ("test_prelu", "test_prelu_f32_per_channel_parameter"),
    ("test_logsigmoid", "test_logsigmoid_f32_multi_dim"),
    ("test_logsigmoid", "test_logsigmoid_f32_boundary_values"),
    ("test_hardsigmoid", "test_hardsigmoid_f32_multi_dim"),
]


@pytest.mark.parametrize("module, test", SUITE, ids=[t for _, t in SUITE])
def test_executorch_operator_suite_activations(module: str, test: str) -> None:
    assert_fully_delegated(module, test)
