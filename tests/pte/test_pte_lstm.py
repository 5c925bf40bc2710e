"""An LSTM kept whole through ExecuTorch's `to_edge` (`xnnc.pte.kept_ops`): the partitioner
sees one `xnnc::lstm` node, the delegate compiles it as one `xnn.lstm` whose steps are
nodes of the blob alone, the `.pte` runs on stock ExecuTorch 1.5.1; an LSTM xnnc does not
take whole is unrolled by `to_edge` as before and still runs.

Tolerances: as tests/transforms/test_encodec.py, 1e-4 of the output's scale (max |eager|): XNNPACK
sums the GEMMs in another order and evaluates sigmoid/tanh with its own approximations
(~1e-6 relative each), and each step's rounding feeds the next over T steps and the
layers. The flips of a bidirectional LSTM left outside are exact.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower
from test_pte_flow import _lowered, _outside

from xnnc.backend_xnnpack.blob import read_blob
from xnnc.backend_xnnpack.serialize import SerializeError
from xnnc.pte import StockRuntime, XnncPartitioner, to_pte
from xnnc.pte.backend import inlined_blob
from xnnc.pte.kept_ops import KEPT_LSTM, LSTM
from xnnc.pte.lstm_calls import MARK
from xnnc.pte.verify import delegate_calls, instruction_counts

KEPT = "xnnc.lstm.default"


def _close(got: torch.Tensor, want: torch.Tensor, tol: float = 1e-4) -> None:
    scale = want.abs().max().item()
    torch.testing.assert_close(got, want, atol=tol * scale, rtol=0)


class Recurrent(nn.Module):
    """An nn.LSTM's output sequence and final states."""

    def __init__(self, lstm: nn.LSTM):
        super().__init__()
        self.lstm = lstm

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y, (h, c) = self.lstm(x)
        return y, h, c


class Seen(XnncPartitioner):
    """Records the ops of the edge program handed to `partition`."""

    def partition(self, exported_program):
        self.seen = [
            str(getattr(n.target, "_op", n.target))
            for n in exported_program.graph.nodes
            if n.op == "call_function"
        ]
        return super().partition(exported_program)


class Unrolled(XnncPartitioner):
    """xnnc's partitioner before LSTMs were kept: `to_edge` unrolls every one."""

    def transform_for_pre_decomposition(self, exported_program):
        return exported_program


def _runs_like_eager(edge, model: nn.Module, x: torch.Tensor) -> None:
    """The `.pte` on stock ExecuTorch: every output against eager."""
    got = StockRuntime(edge.to_executorch().buffer)(x)
    with torch.no_grad():
        want = model(x)
    for g, w in zip(got, want, strict=True):
        _close(g, w)


def _lower(model: nn.Module, x: torch.Tensor, partitioner: XnncPartitioner):
    ep = torch.export.export(model, (x,))
    return to_edge_transform_and_lower(ep, partitioner=[partitioner])


@pytest.fixture(scope="module")
def encodec():
    from xnnc.examples.models import make_encodec_decoder

    model, inputs = make_encodec_decoder(small=True)
    with torch.no_grad():
        want = model(*inputs)
    return model, inputs, want


def test_encodec_partitioner_sees_the_lstm_whole(encodec) -> None:
    """The edge program handed to the partitioner holds the LSTM as one node (no gates),
    and its one delegate is no larger than the blob of `to_edge`'s unrolled LSTM: fewer
    nodes (no per-step reshape), the step weights stored once, the biases folded."""
    model, inputs, want = encodec
    seen = Seen()
    edge = _lower(model, *inputs, seen)
    assert seen.seen.count(KEPT) == 1
    assert not any("sigmoid" in op or "tanh" in op for op in seen.seen), seen.seen
    (delegate,) = _lowered(edge)
    (before,) = _lowered(_lower(model, *inputs, Unrolled()))
    new_blob, old_blob = inlined_blob(delegate), inlined_blob(before)
    new, old = read_blob(new_blob), read_blob(old_blob)
    assert len(new.graph.xnodes) < len(old.graph.xnodes)
    assert len(new_blob) <= len(old_blob)
    (got,) = StockRuntime(edge.to_executorch().buffer)(*inputs)
    _close(got, want)


def test_encodec_to_pte_runs_on_stock(encodec) -> None:
    model, inputs, want = encodec
    (got,) = StockRuntime(to_pte(model, inputs))(*inputs)
    _close(got, want)


@pytest.mark.parametrize(
    ("lstm", "shape"),
    [
        (nn.LSTM(8, 16, bidirectional=True), (10, 1, 8)),
        (nn.LSTM(8, 12, 2, bidirectional=True, batch_first=True), (2, 6, 8)),
        (nn.LSTM(6, 10, 3, batch_first=True), (2, 5, 6)),
        (nn.LSTM(8, 12, 2, bias=False), (5, 2, 8)),
        (nn.LSTM(4, 8, bidirectional=True), (100, 1, 4)),
    ],
    ids=[
        "bidirectional",
        "bidirectional_2_layers_batch_first",
        "3_layers_batch_first",
        "no_bias",
        "bidirectional_100_steps",
    ],
)
def test_lstm_kept_whole_runs_on_stock(lstm: nn.LSTM, shape: tuple[int, ...]) -> None:
    """Output sequence and final states, each against eager."""
    torch.manual_seed(0)
    model, x = Recurrent(lstm).eval(), torch.randn(shape)
    seen = Seen()
    edge = _lower(model, x, seen)
    assert seen.seen.count(KEPT) == 1
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    _runs_like_eager(edge, model, x)


def test_lstm_xnnc_refuses_is_unrolled_by_to_edge() -> None:
    """An LSTM with proj_size, which `xnn.lstm` does not run: xnnc does not take it whole;
    `to_edge` unrolls it as before, its steps are delegated, and the `.pte` runs."""
    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(8, 12, 2, proj_size=4)).eval(), torch.randn(5, 2, 8)
    seen = Seen()
    edge = _lower(model, x, seen)
    assert KEPT not in seen.seen and str(LSTM) not in seen.seen
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    _runs_like_eager(edge, model, x)


def test_lstm_with_an_excluded_op_is_unrolled_by_to_edge() -> None:
    """`exclude` takes an op of the LSTM's steps out of the delegates: the LSTM is unrolled
    by `to_edge`, its sigmoids run on ExecuTorch's portable kernels."""
    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(4, 8)).eval(), torch.randn(5, 1, 4)
    partitioner = Seen(exclude=("aten.sigmoid",))
    edge = _lower(model, x, partitioner)
    assert KEPT not in partitioner.seen
    assert "aten.sigmoid.default" in _outside(edge)
    _runs_like_eager(edge, model, x)


def test_kept_lstm_partitioned_under_other_options_is_an_error() -> None:
    """An `xnnc::lstm` kept for one partitioner and partitioned by another that excludes
    its sigmoids: one line naming the node, not a `.pte` stock ExecuTorch cannot load."""
    model, x = Recurrent(nn.LSTM(4, 8)).eval(), torch.randn(5, 1, 4)
    ep = XnncPartitioner().transform_for_pre_decomposition(torch.export.export(model, (x,)))
    assert [n.target for n in ep.graph.nodes if n.op == "call_function"].count(KEPT_LSTM) == 1
    edge = to_edge(ep)
    with pytest.raises(
        SerializeError,
        match=r"^xnnc: node 'xnnc_lstm_default' \(aten.lstm.input, kept whole through ",
    ):
        edge.to_backend(XnncPartitioner(exclude=("aten.sigmoid",)))


@pytest.mark.parametrize("flow", ["transform_for_pre_decomposition", "preserve_ops"])
def test_lstm_kept_through_to_edge_then_to_backend(flow: str) -> None:
    """`to_edge` + `to_backend(XnncPartitioner())`: the program passed through the
    partitioner's `transform_for_pre_decomposition` first, or `to_edge` told to keep
    `aten.lstm.input` (`preserve_ops`); either way one delegate with the LSTM."""
    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(8, 12, 2)).eval(), torch.randn(6, 2, 8)
    ep = torch.export.export(model, (x,))
    if flow == "preserve_ops":
        edge = to_edge(ep, compile_config=EdgeCompileConfig(preserve_ops=[LSTM]))
    else:
        edge = to_edge(XnncPartitioner().transform_for_pre_decomposition(ep))
    edge = edge.to_backend(XnncPartitioner())
    assert len(_lowered(edge)) == 1 and _outside(edge) == []
    _runs_like_eager(edge, model, x)


def test_batch_first_lstm_kept_by_preserve_ops_is_an_error() -> None:
    """batch_first's output is a transposed view in the edge program: ExecuTorch would plan
    the delegate's output in that dim order, and the `.pte` would fail at its first call."""
    model, x = Recurrent(nn.LSTM(4, 8, batch_first=True)).eval(), torch.randn(2, 5, 4)
    config = EdgeCompileConfig(preserve_ops=[LSTM])
    edge = to_edge(torch.export.export(model, (x,)), compile_config=config)
    message = r"^xnnc: node 'aten_lstm_input' \(aten.lstm.input, batch_first\) kept by "
    with pytest.raises(SerializeError, match=message):
        edge.to_backend(XnncPartitioner())


@pytest.mark.parametrize(
    ("lstm", "shape", "entries"),
    [
        (nn.LSTM(8, 16, 2), (7, 1, 8), 2),
        (nn.LSTM(8, 12, 2, bidirectional=True, batch_first=True), (2, 6, 8), 4),
        (nn.LSTM(8, 12, bias=False), (5, 2, 8), 1),
    ],
    ids=["2_layers", "bidirectional_2_layers_batch_first", "no_bias"],
)
def test_lstm_step_calls_share_one_delegate_per_layer(
    lstm: nn.LSTM, shape: tuple[int, ...], entries: int
) -> None:
    """`to_pte`: every step of a layer and direction calls one
    delegate entry (one XNNPACK runtime, one packed W_hh on the stock runtime), the W_hh
    is stored once, and the output sequence and final states match eager."""
    torch.manual_seed(0)
    model, x = Recurrent(lstm).eval(), torch.randn(shape)
    pte = to_pte(model, (x,))
    count, calls = delegate_calls(pte, "lstm")
    directions = 2 if lstm.bidirectional else 1
    frames = shape[1] if lstm.batch_first else shape[0]
    steps = lstm.num_layers * directions * frames
    # every entry is called, the `entries` step entries once per step, the others once
    assert len(set(calls)) == count
    assert len(calls) - count == steps - entries
    for layer in range(lstm.num_layers):
        w_hh = getattr(lstm, f"weight_hh_l{layer}").detach().numpy().tobytes()
        assert pte.count(w_hh) == 1
    assert MARK.encode() not in pte
    for got, want in zip(StockRuntime(pte)(x), model(x), strict=True):
        _close(got, want)


def test_lstm_step_calls_add_no_kernel_call_per_frame() -> None:
    """The frames are calls of the step delegate alone: a frame reads its gates and writes
    its h through views of the planned whole tensors, so twice the frames add delegate
    calls and no kernel call (no slice, no cat per frame), and both run as eager."""
    torch.manual_seed(0)
    model = Recurrent(nn.LSTM(8, 16, 2)).eval()
    counts = []
    for frames in (4, 8):
        x = torch.randn(frames, 1, 8)
        pte = to_pte(model, (x,))
        counts.append(instruction_counts(pte, "lstm")[1:])  # (kernel, delegate) calls
        for got, want in zip(StockRuntime(pte)(x), model(x), strict=True):
            _close(got, want)
    (kernels_4, delegates_4), (kernels_8, delegates_8) = counts
    assert kernels_8 == kernels_4
    assert delegates_8 - delegates_4 == 2 * 4  # two layers, four frames more


def test_lstm_step_calls_leave_an_lstm_xnnc_refuses_to_to_edge() -> None:
    """An LSTM xnnc does not take whole (proj_size) has no step form: `to_edge` unrolls it as
    before, and the `.pte` runs."""
    from xnnc.pte.lstm_calls import stepped

    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(8, 12, 2, proj_size=4)).eval(), torch.randn(5, 2, 8)
    assert stepped(torch.export.export(model, (x,)), set()) is None
    pte = to_pte(model, (x,))
    for got, want in zip(StockRuntime(pte)(x), model(x), strict=True):
        _close(got, want)


def test_lstm_step_calls_disabled_keeps_the_steps_in_one_delegate() -> None:
    """`disable="lstm-step-calls"`: the LSTM's steps are nodes of one delegate's blob (the
    form ExecuTorch's own flow gets from XnncPartitioner), and it runs the same."""
    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(8, 16)).eval(), torch.randn(6, 1, 8)
    pte = to_pte(model, (x,), disable="lstm-step-calls")
    assert delegate_calls(pte, "lstm") == (1, [0])
    for got, want in zip(StockRuntime(pte)(x), model(x), strict=True):
        _close(got, want)


def test_instruction_counts_names_a_file_that_is_not_a_pte() -> None:
    from xnnc.pte.verify import PteError

    with pytest.raises(PteError, match=r"^bad\.pte: not a valid \.pte: file identifier "):
        instruction_counts(b"\0" * 16, "bad.pte")


@pytest.mark.parametrize("disable", ["", "lstm-step-calls"])
def test_a_stock_target_program_runs_the_lstm_as_its_pte_does(disable: str) -> None:
    """A program compiled for the stock runtime takes the LSTM's form from its `.pte`: with
    step calls (the default), xnnc's recurrent loop of stock XNNPACK nodes (no unrolled
    steps in a blob, so compile holds the weights once); with them disabled, one `xnn.lstm`
    unrolled in the subgraph. Either way it computes what the `.pte` computes on stock
    ExecuTorch (to the same tolerance of eager: each form rounds the same steps) and names
    its rule in `explain()`."""
    import xnnc
    from xnnc.program.lstm_loop import ON_XNNPACK

    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(8, 16, 2, bidirectional=True)).eval(), torch.randn(9, 1, 8)
    program = xnnc.compile(model, (x,), target="stock", disable=disable)
    reasons = [o.reason for o in program.outside()]
    rule = program.explain().splitlines()[-2]
    if disable:
        assert reasons == [] and program.num_partitions == 1
        assert "recurrent loop" not in rule
    else:
        assert reasons == [ON_XNNPACK]
        assert "lstm-loop rule: as the .pte's calls of one step delegate" in rule
    with torch.no_grad():
        want = model(x)
    pte = StockRuntime(to_pte(model, (x,), disable=disable))(x)
    for got, on_stock, w in zip(program(x), pte, want, strict=True):
        _close(got, w)
        _close(on_stock, w)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_kept_lstm_on_fake_tensors_is_shapes_only(
    monkeypatch: pytest.MonkeyPatch, batch_first: bool, bidirectional: bool
) -> None:
    """On fake tensors `xnnc::lstm` gives what its kernel gives on real ones (shape, dtype,
    strides: contiguous) without running the kernel, whose `aten.lstm` unrolls every step in
    each of ExecuTorch's fake runs of the graph (EnCodec's flow: 20 of its 29 profiled s)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    import xnnc.frontend.symbolic_lstm as symbolic_lstm

    lstm = nn.LSTM(8, 16, num_layers=2, batch_first=batch_first, bidirectional=bidirectional)
    x = torch.randn((3, 40, 8) if batch_first else (40, 3, 8))
    h = torch.zeros(2 * (2 if bidirectional else 1), 3, 16)
    args = (list(lstm._flat_weights), True, 2, 0.0, False, bidirectional, batch_first)
    with torch.no_grad():
        real = KEPT_LSTM(x, [h, h], *args)

    def unrolled(*_: object) -> None:
        raise AssertionError("xnnc::lstm ran its kernel on fake tensors")

    monkeypatch.setattr(symbolic_lstm, "LSTM", unrolled)
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        fake = KEPT_LSTM(mode.from_tensor(x), [mode.from_tensor(h)] * 2, *args)
    assert [(t.shape, t.dtype, t.stride()) for t in fake] == [
        (t.shape, t.dtype, t.stride()) for t in real
    ]
