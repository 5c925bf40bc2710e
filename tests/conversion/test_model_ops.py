"""The ops models need beyond convolutions (GELU in both forms, SiLU, GLU, log_softmax)
against torch eager, on the extended runtime and as a `.pte` from ExecuTorch's standard flow
on stock ExecuTorch; and the ops XNNPACK cannot compute (comparisons, where, embedding),
which stay outside with their reasons. Shapes and value ranges follow ExecuTorch's own
operator suite (backends/test/suite/operators/test_gelu.py, test_silu.py, test_glu.py,
test_embedding.py).

Tolerances, from the rounding each dtype allows:
- fp32: XNNPACK's exp, log, sigmoid, tanh and GELU are within a few ulp of torch's (~1e-6
  relative) and log_softmax's sum is ordered differently: 1e-5 absolute + relative.
- fp16: XNNPACK keeps fp16 intermediates where torch computes these ops in fp32 and rounds
  once, so two or three fp16 roundings apart: 2e-3 relative (2^-9), and 1e-2 absolute for
  log_softmax's log(sum), a value up to log(K) ~ 7 whose fp16 ulp is 2^-8. Where the
  inputs are large (`log_softmax_vocab`: |x| up to ~120), x - max(x) is rounded to fp16 at
  the inputs' magnitude on CPUs whose kernels keep it in fp16 (AVX2: seen 2^-5 at an output
  of 0): half an ulp of [64, 128), 2^-5, absolute.
- bf16: the same with bf16's 8-bit mantissa: 1.6e-2 relative (2^-6), 6e-2 absolute.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.exir import to_edge_transform_and_lower
from op_cases import Fn

import xnnc
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.legalize.stock import _GELU_A, _GELU_B
from xnnc.pte import StockRuntime

TOL = {
    torch.float32: dict(atol=1e-5, rtol=1e-5),
    torch.float16: dict(atol=1e-2, rtol=2e-3),
    torch.bfloat16: dict(atol=6e-2, rtol=1.6e-2),
}
DTYPES = list(TOL)
CASE_TOL = {("log_softmax_vocab", torch.float16): dict(atol=2**-5, rtol=2e-3)}

torch.manual_seed(0)
BOUNDARY = torch.tensor([-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0])
# (name, function, input): the suite's cases, plus log_softmax's hard ones.
CASES = [
    ("gelu", F.gelu, torch.rand(2, 10) * 10 - 5),
    ("gelu_4d", F.gelu, torch.randn(2, 3, 4, 5)),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), torch.randn(3, 4, 5) * 3),
    ("gelu_tanh_boundary", lambda x: F.gelu(x, approximate="tanh"), BOUNDARY),
    ("silu", F.silu, torch.randn(2, 10) * 100),
    ("silu_4d", F.silu, torch.randn(2, 3, 4, 5)),
    ("glu_last", lambda x: F.glu(x, -1), torch.randn(3, 4, 6)),
    ("glu_first", lambda x: F.glu(x, 0), torch.randn(4, 3, 5)),
    ("glu_middle", lambda x: F.glu(x, 1), torch.randn(3, 8, 5)),
    ("log_softmax", lambda x: F.log_softmax(x, -1), torch.randn(2, 10) * 10),
    ("log_softmax_vocab", lambda x: F.log_softmax(x, -1), torch.randn(3, 1000) * 30),
    ("log_softmax_channels", lambda x: F.log_softmax(x, 1), torch.randn(2, 3, 4, 5) * 5),
]
IDS = [c[0] for c in CASES]


def _node_kinds(program: xnnc.program.Program) -> set[str]:
    return {kind for blob in program.blobs for kind in read_blob(blob).node_kinds}


def _standard_flow(model: nn.Module, inputs: tuple) -> tuple[list[str], bytes]:
    """ExecuTorch's flow as a user writes it: the edge program's calls and the .pte."""
    edge = to_edge_transform_and_lower(
        torch.export.export(model, inputs), partitioner=[xnnc.XnncPartitioner()]
    )
    calls = [str(n.target) for n in edge.exported_program().graph.nodes
             if n.op == "call_function" and "getitem" not in str(n.target)]  # fmt: skip
    return calls, edge.to_executorch().buffer


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name, fn, x", CASES, ids=IDS)
def test_matches_eager_on_extended_runtime(name, fn, x, dtype) -> None:
    x = x.to(dtype)
    program = xnnc.compile(Fn(fn).eval(), (x,), fp16="native")
    assert program.num_partitions == 1 and program.outside() == []
    torch.testing.assert_close(program(x), fn(x), **CASE_TOL.get((name, dtype), TOL[dtype]))


@pytest.mark.parametrize("name, fn, x", CASES, ids=IDS)
def test_pte_from_standard_flow_on_stock_executorch(name, fn, x) -> None:
    calls, pte = _standard_flow(Fn(fn), (x,))
    assert calls == ["executorch_call_delegate"]
    (got,) = StockRuntime(pte)(x)
    torch.testing.assert_close(got, fn(x), **TOL[torch.float32])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", ["gelu_tanh", "log_softmax_vocab"])
def test_half_pte_on_stock_executorch(name, dtype) -> None:
    """The stock forms (approxgelu as a sigmoid, the max as max pooling) in fp16 and bf16."""
    fn, x = next((c[1], c[2].to(dtype)) for c in CASES if c[0] == name)
    calls, pte = _standard_flow(Fn(fn), (x,))
    assert calls == ["executorch_call_delegate"]
    (got,) = StockRuntime(pte)(x)
    torch.testing.assert_close(got, fn(x), **TOL[dtype])


def test_stock_kinds_replace_the_extension_ones() -> None:
    """For stock ExecuTorch: tanh GELU without XNNUnary, log_softmax's max without
    XNNStaticReduce; the extended runtime keeps both."""
    x = torch.randn(4, 16)
    model = Fn(lambda t: F.log_softmax(F.gelu(t, approximate="tanh"), -1)).eval()
    stock = _node_kinds(xnnc.compile(model, (x,), target="stock", savable=True))
    assert {"XNNMaxPooling2d", "XNNSigmoid", "XNNFullyConnected"} <= stock
    assert not {"XNNUnary", "XNNStaticReduce"} & stock
    extended = _node_kinds(xnnc.compile(model, (x,), target="extended", savable=True))
    assert {"XNNUnary", "XNNStaticReduce"} <= extended


@pytest.mark.parametrize("keepdim", [True, False])
def test_amax_pte_on_stock_executorch(keepdim) -> None:
    """amax (and log_softmax's max) used to stop the stock flow at serialization: stock
    ExecuTorch has no reduce node, so it is a max-pooling window."""
    x = torch.randn(3, 4, 5)
    fn = Fn(lambda t: t.amax(1, keepdim=keepdim))
    calls, pte = _standard_flow(fn, (x,))
    assert calls == ["executorch_call_delegate"]
    (got,) = StockRuntime(pte)(x)
    assert torch.equal(got, x.amax(1, keepdim=keepdim))  # a max picks one of its inputs


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_log_softmax_does_not_underflow(target) -> None:
    """Rows whose softmax underflows to 0 in places (log(softmax(x)) would be -inf there),
    and a masked entry (-inf stays -inf, its row stays finite elsewhere)."""
    x = torch.tensor([[0.0, -200.0, 50.0, -1e4], [3.0, float("-inf"), 2.0, 1.0]])
    fn = Fn(lambda t: F.log_softmax(t, -1)).eval()
    got = xnnc.compile(fn, (x,), target=target)(x)
    want = F.log_softmax(x, -1)
    assert torch.isfinite(got[0]).all() and got[1, 1] == float("-inf")
    torch.testing.assert_close(got, want, **TOL[torch.float32])


def test_gelu_sigmoid_form_is_the_tanh_form() -> None:
    """x * sigmoid(x * (a + b x^2)) == x * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2,
    in float64 (the stock form's constants)."""
    x = torch.linspace(-10, 10, 2001, dtype=torch.float64)
    got = x * torch.sigmoid(x * (_GELU_A + _GELU_B * x * x))
    want = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    torch.testing.assert_close(got, want, atol=1e-12, rtol=1e-12)


# --- what stays outside, and why -------------------------------------------------------------


class Compare(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        masks = (x == y, x != y, x < y, x <= 0.5, x > y, x >= y)
        z = torch.relu(x)
        for mask in masks:
            z = torch.where(mask, z, -z)
        return z


class EmbeddingThenLinear(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(100, 16)
        self.linear = nn.Linear(16, 8)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.linear(self.embedding(tokens))


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_comparisons_and_where_stay_outside_with_reasons(target) -> None:
    x, y = torch.randn(2, 8), torch.randn(2, 8)
    x[0, :3] = y[0, :3]  # some equal pairs, for eq/ne/le/ge
    program = xnnc.compile(Compare().eval(), (x, y), target=target)
    outside = {(entry.op, entry.reason) for entry in program.outside()}
    comparison = "XNNPACK 92a7ad50 has no comparison operator"
    for op in ("eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Scalar", "gt.Tensor", "ge.Tensor"):
        assert any(name == f"aten.{op}" and why.startswith(comparison) for name, why in outside)
    wheres = [why for name, why in outside if name == "aten.where"]
    assert wheres and all(w.startswith("XNNPACK 92a7ad50 has no select operator") for w in wheres)
    assert all(entry.location.startswith("loc(") for entry in program.outside())
    torch.testing.assert_close(program(x, y), Compare()(x, y), **TOL[torch.float32])


def test_index_select_stays_outside_with_the_gather_reason() -> None:
    table, index = torch.randn(10, 4), torch.tensor([3, 1, 3])
    program = xnnc.compile(Fn(lambda t, i: torch.index_select(t, 0, i).relu()).eval(),
                           (table, index))  # fmt: skip
    (entry,) = program.outside()
    assert entry.op == "aten.index_select" and "no gather node" in entry.reason
    torch.testing.assert_close(program(table, index), table[index].relu(), **TOL[torch.float32])


def test_embedding_stays_outside_with_its_reason() -> None:
    model = EmbeddingThenLinear().eval()
    tokens = torch.randint(0, 100, (2, 8))
    program = xnnc.compile(model, (tokens,))
    (entry,) = program.outside()
    assert entry.op == "aten.embedding" and entry.location.startswith('loc("embedding"')
    assert entry.reason.startswith("XNNPACK 92a7ad50 has no gather node and no int64 tensors")
    assert program.num_partitions == 1  # the linear after it
    with torch.no_grad():
        torch.testing.assert_close(program(tokens), model(tokens), **TOL[torch.float32])


def _reason_key_matches(key: str) -> bool:
    """Whether `key` can be an `op_label`: an `aten` op conversion does not lower, or an ATen
    overload the dialect leaves generic, spelled `aten.name[.overload]` (`.default` dropped)."""
    from xnnc.conversion.aten_to_xnn import LOWERINGS
    from xnnc.dialects.aten import ATEN_OPS
    from xnnc.frontend.fx_importer import OPS_BY_OVERLOAD

    modelled = {op.name: op for op in ATEN_OPS}
    if key in modelled:
        return modelled[key] not in LOWERINGS
    namespace, _, rest = key.partition(".")
    name, _, overload = rest.partition(".")
    packet = getattr(getattr(torch.ops, namespace, None), name, None) if name else None
    if packet is None or overload == "default":
        return False
    qualified = f"{namespace}::{name}" + (f".{overload}" if overload else "")
    return (overload or "default") in packet.overloads() and qualified not in OPS_BY_OVERLOAD


def test_outside_reason_keys_can_match() -> None:
    from xnnc.conversion.aten_to_xnn import OUTSIDE_REASONS

    assert [key for key in OUTSIDE_REASONS if not _reason_key_matches(key)] == []
    # The spellings that never match: ATen's `::`, an explicit `.default`, a modelled op that
    # lowers, an overload or an op ATen does not have.
    for key in ("aten::eq", "aten.embedding.default", "aten.mean", "aten.eq.Banana", "aten.frob"):
        assert not _reason_key_matches(key), key
