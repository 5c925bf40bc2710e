"""ExecuTorch's own flow with `XnncPartitioner`, unmodified, and `.pte` files on stock
ExecuTorch: `to_edge_transform_and_lower(...).to_executorch()` runs as is, the stock
`XnnpackPartitioner` flow in the same process is unchanged, `Program.save("m.pte")` loads,
and malformed `.pte` files are refused with one line instead of aborting the process.

Tolerances. fp32: 1e-5 on values of order 1 (XNNPACK sums a 27-to-144-term conv or GEMM in
another order than torch: a few fp32 roundings). bf16: both sides compute the GEMM in fp32
and round the result to bf16 once, so they may differ by one bf16 rounding of differently
ordered sums: 2^-8 relative, i.e. rtol 8e-3, atol 2e-2 for values below 4.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn as nn
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.xnnpack_preprocess import XnnpackBackend
from executorch.exir import to_edge, to_edge_transform_and_lower
from executorch.exir.lowered_backend_module import LoweredBackendModule
from op_cases import Fn

import xnnc
from xnnc.pte import PteError, StockRuntime, XnncBackend, check_pte
from xnnc.pte.backend import OPTIONS_KEY, install_dispatch, install_unguarded_fake_run
from xnnc.pte.verify import delegate_calls
from xnnc.tools import xnn_run

FP32 = dict(atol=1e-5, rtol=1e-5)
BF16 = dict(atol=2e-2, rtol=8e-3)
ROOT = Path(xnnc.__file__).resolve().parent.parent


class ConvMean(nn.Module):
    """The reported conv + mean model (global average pooling over H and W)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x).mean(dim=(2, 3))


class TransposedAddmm(nn.Module):
    """addmm on a weight's transpose: the transpose alone is a weights-only piece."""

    def __init__(self, dtype: torch.dtype) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 16, dtype=dtype) / 4)
        self.b = nn.Parameter(torch.randn(8, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.addmm(self.b, x, self.w.t()))


@pytest.fixture(scope="module")
def conv_mean() -> tuple[nn.Module, tuple[torch.Tensor]]:
    torch.manual_seed(0)
    return ConvMean().eval(), (torch.randn(1, 3, 12, 12),)


@pytest.fixture(scope="module")
def conv_mean_pte(conv_mean) -> bytes:
    """The standard flow, unmodified."""
    model, inputs = conv_mean
    ep = torch.export.export(model, inputs)
    edge = to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner()])
    return edge.to_executorch().buffer


def _lowered(edge) -> list[LoweredBackendModule]:
    gm = edge.exported_program().graph_module
    return [m for m in gm.modules() if isinstance(m, LoweredBackendModule)]


def test_standard_to_executorch_runs_on_stock(conv_mean, conv_mean_pte) -> None:
    model, inputs = conv_mean
    check_pte(conv_mean_pte, "conv_mean.pte")
    (got,) = StockRuntime(conv_mean_pte)(*inputs)
    torch.testing.assert_close(got, model(*inputs), **FP32)


def test_delegates_name_the_stock_backend(conv_mean) -> None:
    model, inputs = conv_mean
    edge = to_edge_transform_and_lower(
        torch.export.export(model, inputs), partitioner=[xnnc.XnncPartitioner()]
    )
    lowered = _lowered(edge)
    assert [m.backend_id for m in lowered] == ["XnnpackBackend"]
    assert [s.key for s in lowered[0].compile_specs] == [OPTIONS_KEY]
    # xnnc made the blob: the one XnncBackend.preprocess makes of the same piece.
    piece = lowered[0].original_module
    assert (
        lowered[0].processed_bytes
        == XnncBackend.preprocess(piece, lowered[0].compile_specs).processed_bytes
    )


def test_stock_partitioner_unaffected(conv_mean, monkeypatch) -> None:
    """In a process where xnnc is loaded, XnnpackPartitioner's pieces never reach xnnc."""

    def refuse(*_: object) -> None:
        raise AssertionError("a stock piece reached XnncBackend.preprocess")

    monkeypatch.setattr(XnncBackend, "preprocess", staticmethod(refuse))
    model, inputs = conv_mean
    edge = to_edge_transform_and_lower(
        torch.export.export(model, inputs), partitioner=[XnnpackPartitioner()]
    )
    assert all(OPTIONS_KEY not in [s.key for s in m.compile_specs] for m in _lowered(edge))
    pte = edge.to_executorch().buffer
    check_pte(pte, "stock.pte")  # the check accepts ExecuTorch's own blobs
    (got,) = StockRuntime(pte)(*inputs)
    torch.testing.assert_close(got, model(*inputs), **FP32)


def test_dispatch_installed_once() -> None:
    installed = XnnpackBackend.preprocess
    install_dispatch()
    assert XnnpackBackend.preprocess is installed
    original = installed.xnnc_stock_preprocess
    assert getattr(original, "xnnc_stock_preprocess", None) is None


def test_fake_run_wrapped_once() -> None:
    from torch._higher_order_ops.executorch_call_delegate import executorch_call_delegate
    from torch._higher_order_ops.utils import registered_hop_fake_fns

    installed = registered_hop_fake_fns[executorch_call_delegate]
    install_unguarded_fake_run()
    assert registered_hop_fake_fns[executorch_call_delegate] is installed
    assert getattr(installed.xnnc_stock_fake_run, "xnnc_stock_fake_run", None) is None


@pytest.mark.parametrize("shape", [(4, 16), (2, 4, 16)], ids=["2d", "3d"])
def test_bf16_linear_with_bias(shape, tmp_path) -> None:
    """Both `.pte` paths (the partitioner, and Program.save) used to fail in preprocess."""
    torch.manual_seed(0)
    model = nn.Linear(16, 8).to(torch.bfloat16).eval()
    x = torch.randn(*shape).to(torch.bfloat16)
    want = model(x)
    edge = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner()]
    )
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, want, **BF16)
    path = tmp_path / "linear.pte"
    xnnc.compile(model, (x,), savable=True).save(str(path))
    (got,) = StockRuntime(path.read_bytes(), name=str(path))(x)
    torch.testing.assert_close(got, want, **BF16)


def _outside(edge) -> list[str]:
    """The ops ExecuTorch still computes outside the delegates."""
    return [
        n.target.__name__ for n in edge.exported_program().graph.nodes
        if n.op == "call_function" and "executorch_call_delegate" not in str(n.target)
        and n.target.__name__ != "getitem"
    ]  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_weights_only_ops_fold_into_the_delegate(dtype) -> None:
    """The partitioner sees fake weights; it folds the weight's transpose by shape, as
    compile folds it by value, so addmm is delegated with it (both stayed outside)."""
    torch.manual_seed(0)
    model = TransposedAddmm(dtype).eval()
    x = torch.randn(4, 16, dtype=dtype)
    ep = torch.export.export(model, (x,))
    edge = to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner()])
    assert len(_lowered(edge)) == 1
    assert _outside(edge) == []
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), **(FP32 if dtype == torch.float32 else BF16))


def test_folded_weight_shared_by_two_delegates() -> None:
    """A weights-only value two delegates use stays with ExecuTorch (a node has one tag):
    both delegates take it as an input, and the result is right."""

    class Shared(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(8, 8) / 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            wt = self.w.t() * 2
            return torch.cumsum(x @ wt, 1) @ wt  # cumsum stays outside: two groups

    torch.manual_seed(0)
    model, x = Shared().eval(), torch.randn(4, 8)
    edge = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner()]
    )
    assert len(_lowered(edge)) == 2
    # The scalar 2 is a lifted constant converted to fp32 (_to_dim_order_copy) before mul.
    assert sorted(_outside(edge)) == [
        "aten.cumsum.default", "aten.mul.Tensor", "aten.permute_copy.default",
        "dim_order_ops._to_dim_order_copy.default",
    ]  # fmt: skip
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), **FP32)


def test_constants_are_named_data_keyed_as_stock_keys_them() -> None:
    """A delegate's constants go to the `.pte`'s named data, each keyed by the SHA-256 of its
    bytes as stock ExecuTorch's serializer keys them (where ExecuTorch's XNNPACK weights
    cache is on, it packs one copy per key): a Linear's weight and bias get stock's keys,
    a constant two delegates read is stored once, and the program runs."""

    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)
            self.b.load_state_dict(self.a.state_dict())

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.b(torch.cumsum(self.a(x), 1))  # cumsum stays outside: two groups

    torch.manual_seed(0)
    model, x = Twice().eval(), torch.randn(4, 8)

    def lowered(partitioner: object) -> object:
        program = torch.export.export(model, (x,))
        return to_edge_transform_and_lower(program, partitioner=[partitioner])

    def keys(edge: object) -> list[set[str]]:
        return [set(m.named_data_store_output.pte_data) for m in _lowered(edge)]

    ours, stock = lowered(xnnc.XnncPartitioner()), lowered(XnnpackPartitioner())
    assert len(keys(ours)) == 2 and keys(ours) == keys(stock)
    buffer = ours.to_executorch().buffer
    assert buffer.count(model.a.weight.detach().numpy().tobytes()) == 1
    (got,) = StockRuntime(buffer)(x)
    torch.testing.assert_close(got, model(x), **FP32)


def test_calls_of_one_blob_share_one_delegate_entry() -> None:
    """A block applied four times, with an op outside between the calls, makes four
    identical blobs: the `.pte` gives them one delegate entry (one XNNPACK runtime and one
    packed weight on the stock runtime) that all four calls name, and runs as the model."""

    class Repeated(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(32, 32)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for _ in range(4):
                x = torch.cumsum(self.fc(x), 1)  # cumsum stays outside: four groups
            return x

    torch.manual_seed(0)
    model, x = Repeated().eval(), torch.randn(3, 32)
    pte = xnnc.pte.to_pte(model, (x,))
    assert delegate_calls(pte, "repeated") == (1, [0, 0, 0, 0])
    (got,) = StockRuntime(pte)(x)
    torch.testing.assert_close(got, model(x), **FP32)
    (other,) = StockRuntime(pte)(x + 1)  # each call sets the runtime up for its arguments
    torch.testing.assert_close(other, model(x + 1), **FP32)


class _Kept(nn.Module):
    """linear on a parameter, on a user input, and hardswish: non-core ops xnnc lowers."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return nn.functional.hardswish(self.fc(x)) + nn.functional.linear(x, w)


@pytest.mark.parametrize(
    ("options", "kept"),
    [
        ({}, {"linear", "hardswish"}),  # linear on the input `w`: conversion needs constants
        ({"exclude": "aten.linear"}, {"hardswish"}),
        ({"exclude": "aten.hardswish"}, {"linear"}),
    ],
)
def test_ops_kept_whole_where_conversion_lowers_them(options, kept) -> None:
    """ops_to_not_decompose asks conversion about each node (not a hand-written list)."""
    ep = torch.export.export(_Kept().eval(), (torch.randn(2, 8), torch.randn(8, 8)))
    ops, check = xnnc.XnncPartitioner(**options).ops_to_not_decompose(ep)
    assert torch.ops.aten.linear.default in ops and torch.ops.aten.hardswish.default in ops
    supported = {n.name for n in ep.graph.nodes if n.target in ops and check(n)}
    assert supported == kept
    edge = to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner(**options)])
    x, w = torch.randn(2, 8), torch.randn(8, 8)
    (got,) = StockRuntime(edge.to_executorch().buffer)(x, w)
    torch.testing.assert_close(got, ep.module()(x, w), **FP32)


@pytest.mark.parametrize("model_name", ["conv_mean", "pixel_shuffle"])
def test_save_pte_after_extended_compile(conv_mean, model_name, tmp_path) -> None:
    """An extended-target program saves a .pte of stock node kinds (the stock legalization):
    conv + mean once failed at load (`Unhandled node type`, 0x11); depth-to-space is an
    extension kind stock lacks."""
    model, inputs = conv_mean
    if model_name == "pixel_shuffle":
        model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.PixelShuffle(2)).eval()
    program = xnnc.compile(model, inputs, target="extended", savable=True)
    path = tmp_path / "m.pte"
    program.save(str(path))
    (got,) = StockRuntime(path.read_bytes(), name=str(path))(*inputs)
    torch.testing.assert_close(got, model(*inputs), **FP32)


def _corrupt(pte: bytes) -> dict[str, bytes]:
    at = pte.index(b"XH00")
    return {
        "random": random.Random(0).randbytes(4096),  # seeded: its bytes repr is fixed
        "short": b"ET1",
        "identifier_only": pte[:8] + bytes(range(256)) * 16,
        "truncated": pte[: len(pte) // 2],
        "blob": pte[: at + 40] + b"\xa5" * 200 + pte[at + 240 :],
    }


@pytest.mark.parametrize(
    "kind,message",
    [
        ("random", "file identifier b"),
        ("short", "3 bytes is too short for a file identifier"),
        ("identifier_only", "corrupt 4104-byte program flatbuffer"),
        ("truncated", "outside the"),
        ("blob", "method 'forward' delegate 0 (XnnpackBackend): blob: "),
    ],
)
def test_check_pte_refuses(conv_mean_pte, kind, message) -> None:
    with pytest.raises(PteError) as e:
        check_pte(_corrupt(conv_mean_pte)[kind], "m.pte")
    assert str(e.value).startswith("m.pte: not a valid .pte: ")
    assert message in str(e.value) and "\n" not in str(e.value)


def _python(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_random_pte_in_xnn_run_is_one_line(tmp_path) -> None:
    """Once a SIGABRT (exit 134) from ExecuTorch's pybindings: now exit 1, one line."""
    path = tmp_path / "random.pte"
    path.write_bytes(os.urandom(4096))
    (tmp_path / "in.npz").write_bytes(b"")  # never read: the .pte is refused first
    done = _python(
        "import sys; from xnnc.tools.xnn_run import main; sys.exit(main(sys.argv[1:]))",
        str(path),
        "--inputs",
        str(tmp_path / "in.npz"),
    )
    assert done.returncode == 1, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("xnn-run")]
    assert len(errors) == 1 and "Traceback" not in done.stderr
    assert errors[0].startswith(f"xnn-run: error: {path}: not a valid .pte: file identifier")


def test_random_pte_in_stock_runtime_raises(tmp_path) -> None:
    code = (
        "import os\nfrom xnnc.pte import PteError, StockRuntime\n"
        "try:\n    StockRuntime(os.urandom(4096), name='r.pte')\n"
        "except PteError as e:\n    print(e)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("r.pte: not a valid .pte: file identifier")


@pytest.mark.parametrize("threads", ["0", "-1"])
def test_bad_threads_same_for_pte_and_program(threads, capsys) -> None:
    errors = []
    for name in ("m.pte", "m.xnnc"):
        with pytest.raises(SystemExit) as e:
            xnn_run.main([name, "--threads", threads])
        assert e.value.code == 2
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1]
    assert errors[0] == f"xnn-run: error: argument --threads: must be at least 1, got {threads}\n"


def test_piece_compiled_as_one_group() -> None:
    """preprocess takes the piece as the partitioner grouped it: an op conversion cannot
    lower is named, not silently left outside."""
    from xnnc.conversion.aten_to_xnn import ConversionError
    from xnnc.pipeline.options import CompileOptions
    from xnnc.pte.backend import options_spec

    class FloorDivide(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(torch.floor_divide(x, 3.0))

    ep = torch.export.export(FloorDivide(), (torch.randn(4, 8),)).run_decompositions()
    spec = options_spec(CompileOptions(target="stock"))
    with pytest.raises(ConversionError, match=r"aten.div at loc\("):
        XnncBackend.preprocess(ep, [spec])


class _Identity(nn.Module):
    """A no-op permute (the output is the input) and an output returned twice."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = x.relu()
        return x.permute(0, 1, 2), y, y


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_outputs_that_alias_inputs_or_each_other(target) -> None:
    """ExecuTorch's suite's identity permute/squeeze models failed to serialize: each
    output now gets a node of its own (xnn-legalize-outputs)."""
    x = torch.randn(2, 3, 4)
    model = _Identity().eval()
    want = model(x)
    program = xnnc.compile(model, (x,), target=target)
    for got, ref in zip(program(x), want, strict=True):
        torch.testing.assert_close(got, ref, rtol=0, atol=0)
    if target == "stock":
        edge = to_edge_transform_and_lower(
            torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner()]
        )
        for got, ref in zip(StockRuntime(edge.to_executorch().buffer)(x), want, strict=True):
            torch.testing.assert_close(got, ref, rtol=0, atol=0)


class _Pow(nn.Module):
    def __init__(self, exponent: float) -> None:
        super().__init__()
        self.exponent = exponent

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.pow(x, self.exponent)


@pytest.mark.parametrize("exponent", [0, 1, 3, -1, 10, 2.5, -2.5])
def test_pow_by_a_scalar_on_stock(exponent) -> None:
    """Stock has no XNNPACK binary pow: whole exponents become multiplications, 0 a clamp to
    1, others exp(n log x) (ExecuTorch's suite's scalar exponents failed to serialize).
    fp32: 2e-6 relative, a few ulp of the multiplication chain or of n * log(x) through
    exp; x = 0 gives torch's 0 or inf."""
    x = torch.rand(10, 10) + 0.1
    x[0, 0] = 0.0
    model = _Pow(exponent).eval()
    edge = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner()]
    )
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), rtol=2e-6, atol=0)


def test_prelu_is_kept_whole_and_delegated() -> None:
    """torch.export decomposes PReLU into gt/mul/where (no XNNPACK comparison or select):
    kept whole it is one XNNPACK PReLU node, on stock too."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(4, 8, 3), nn.PReLU(8, init=-0.2)).eval()
    x = torch.randn(1, 4, 16)
    edge = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[xnnc.XnncPartitioner()]
    )
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), **FP32)


def test_getitem_of_an_op_left_outside_stays_with_it() -> None:
    """Max pooling kept outside (exclude) between delegated ops: its values' getitem, not in
    the module xnnc partitions, once took its users' tag and lost its producer."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(4, 8, 3), nn.MaxPool1d(3, 2), nn.ReLU()).eval()
    x = torch.randn(1, 4, 20)
    partitioner = xnnc.XnncPartitioner(exclude=("aten.max_pool2d_with_indices",))
    edge = to_edge_transform_and_lower(torch.export.export(model, (x,)), partitioner=[partitioner])
    assert [op for op in _outside(edge) if "max_pool" in op] == [
        "aten.max_pool2d_with_indices.default"
    ]
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), **FP32)


def test_bidirectional_lstm_with_its_flips_is_one_delegate() -> None:
    """The reverse direction flips the sequence: slices + concatenate (XNNPACK has no reverse
    node), so nothing stays outside; exact data movement, the LSTM's GEMMs to 1e-5."""
    torch.manual_seed(0)
    lstm = nn.LSTM(8, 16, bidirectional=True, batch_first=True).eval()
    x = torch.randn(2, 10, 8)
    edge = to_edge_transform_and_lower(
        torch.export.export(lstm, (x,)), partitioner=[xnnc.XnncPartitioner()]
    )
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    got = StockRuntime(edge.to_executorch().buffer)(x)
    with torch.no_grad():
        want = lstm(x)
    torch.testing.assert_close(got[0], want[0], **FP32)


def test_long_flip_stays_outside_with_its_reason() -> None:
    model = Fn(lambda t: torch.flip(t, (1,)) + 1)
    x = torch.randn(2, 100)
    program = xnnc.compile(model, (x,))
    (outside,) = program.outside()
    assert outside.op == "aten.flip" and "no reverse node" in outside.reason
    assert torch.equal(program(x), model(x))


def test_index_put_stays_outside_with_its_reason() -> None:
    model = Fn(lambda x, i, v: torch.index_put(x * 2, (i,), v))
    inputs = (torch.randn(5, 3), torch.tensor([0, 2]), torch.randn(2, 3))
    program = xnnc.compile(model, inputs)
    (outside,) = program.outside()
    assert outside.op == "aten.index_put" and "no scatter node" in outside.reason
    assert torch.equal(program(*inputs), model(*inputs))


class _PaddedConv(nn.Module):
    def __init__(self, mode: str, dims: int) -> None:
        super().__init__()
        conv = nn.Conv1d if dims == 1 else nn.Conv2d
        self.conv = conv(3, 4, 3, padding=2, padding_mode=mode)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


@pytest.mark.parametrize("flow", ["transform_and_lower", "to_backend"])
@pytest.mark.parametrize("dims", [1, 2])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_modes_delegated_in_both_flows(mode, dims, flow) -> None:
    """`to_edge(...).to_backend(...)` partitions the program ExecuTorch decomposed: reflect
    padding indexes with bounds held in lifted scalar constants (fake, but carrying their
    value, in the partitioner), circular padding writes slices into an `empty`. Both are
    one delegate, as with `to_edge_transform_and_lower`; pure data movement before a
    27-to-48-term conv, so fp32's 1e-5."""
    torch.manual_seed(0)
    model = _PaddedConv(mode, dims).eval()
    x = torch.randn(1, 3, 9) if dims == 1 else torch.randn(1, 3, 7, 9)
    ep = torch.export.export(model, (x,))
    if flow == "to_backend":
        edge = to_edge(ep).to_backend(xnnc.XnncPartitioner())
    else:
        edge = to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner()])
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    (got,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(got, model(x), **FP32)
