"""torch.round (aten.round, decimals = 0) as XNNPACK's bankers rounding (an `xnn.unary`
operator, node kind XNNUnary) on the extended target; on the stock target, which has no node
kind for it, it stays outside, on ExecuTorch's portable kernel in a `.pte`.

Rounding is exact: results are compared bit for bit with torch eager (the sign of -0.0 and
NaN included), on halves that tell round-half-to-even from round-half-away (0.5, 1.5, 2.5,
-0.5, ...), the largest fp32 halves (2^23 - 0.5) and values already whole.
"""

import warnings

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime
from op_cases import Fn

import xnnc
from xnnc.backend_xnnpack.blob import read_blob

HALVES = torch.tensor(
    [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 0.49999997, -0.49999997, 2.0**23 - 0.5,
     -(2.0**23) + 0.5, 2.0**24 + 2, 1e30, 7.0, -0.0, float("inf"), float("-inf"), float("nan")]
)  # fmt: skip
STOCK_REASON = "stock ExecuTorch 1.5.1 has no node kind for XNNPACK's bankers_rounding operator"


def _model() -> Fn:
    return Fn(lambda x: torch.round(torch.relu(x) - x * 0.5)).eval()


def _x(*shape: int) -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randint(-40, 40, shape) * 0.25  # quarters: x / 2 gives many exact halves
    return torch.cat([x.flatten(), HALVES]).reshape(1, -1) if not shape[1:] else x


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().view({2: torch.int16, 4: torch.int32}[t.element_size()])


def assert_same_bits(got: torch.Tensor, want: torch.Tensor) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(_bits(got), _bits(want)), f"{got} != {want}"


def _kinds(program: xnnc.program.Program) -> set[str]:
    return {kind for blob in program.blobs for kind in read_blob(blob).node_kinds}


def test_halves_round_to_even_in_extended_xnnpack() -> None:
    model, x = _model(), _x(64)
    program = xnnc.compile(model, (x,), strict=True, savable=True)
    assert program.num_partitions == 1 and "XNNUnary" in _kinds(program)
    assert_same_bits(program(x), model(x))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_halves_round_to_even_in_half_precision(dtype: torch.dtype) -> None:
    x = HALVES.to(dtype).reshape(1, -1)
    model = Fn(torch.round).eval()
    program = xnnc.compile(model, (x,), strict=True, fp16="native")
    assert_same_bits(program(x), model(x))


def test_round_at_a_dynamic_size() -> None:
    model = Fn(torch.round).eval()
    frames = torch.export.Dim("T", min=2, max=512)
    program = xnnc.compile(model, (_x(1, 8),), dynamic_shapes={"xs": ({1: frames},)}, strict=True)
    for t in (2, 77, 512):
        x = torch.randint(-99, 99, (1, t)) * 0.5
        assert_same_bits(program(x), model(x))


def test_on_stock_round_stays_outside_and_the_saved_pte_runs(tmp_path) -> None:
    model, x = _model(), _x(64)
    program = xnnc.compile(model, (x,), target="stock", savable=True)
    [outside] = program.outside()
    assert (outside.op, outside.reason) == ("aten.round", STOCK_REASON)
    assert "XNNUnary" not in _kinds(program)
    assert_same_bits(program(x), model(x))
    program.save(str(tmp_path / "m.pte"))
    method = Runtime.get().load_program(tmp_path / "m.pte").load_method("forward")
    (got,) = method.execute([x])
    assert_same_bits(got, model(x))


def test_stock_partitioner_flow_leaves_round_to_the_portable_kernel() -> None:
    model, x = _model(), _x(64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xnnc.errors.MissingKernelWarning)
        edge = to_edge_transform_and_lower(
            torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner(target="stock")]
        )
    calls = [str(n.target) for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    assert calls.count("executorch_call_delegate") == 1
    assert any("aten.round" in c for c in calls), calls
    pte = edge.to_executorch().buffer
    (got,) = Runtime.get().load_program(pte).load_method("forward").execute([x])
    assert_same_bits(got, model(x))


def test_round_to_decimals_stays_outside_with_its_reason() -> None:
    model, x = Fn(lambda x: torch.round(x * 3, decimals=1)).eval(), _x(64)
    with pytest.warns(xnnc.errors.FallbackWarning, match=r"aten\.round x1 \(round to decimals"):
        program = xnnc.compile(model, (x,))
    assert_same_bits(program(x), model(x))
