"""An nn.LSTM over a symbolic time axis (docs/dynamic-shapes.md, "LSTM over a symbolic time
axis"): exported as one `aten.lstm.input` (frontend/symbolic_lstm.py), kept whole at import,
run outside the subgraphs on xnnc's recurrent loop over XNNPACK (program/lstm_loop.py;
tests/backend_xnnpack/test_recurrent_loop.py tests the loop itself); EnCodec compiled once for
a range of frame counts.

Tolerance: the EnCodec tests' (tests/transforms/test_encodec.py), 1e-4 of the output's scale
(max |eager|), fp32. The difference comes from XNNPACK's summation order and its ELU,
sigmoid and tanh approximations (~1e-6 relative each; observed 1e-6 of the scale over 5
stages and the LSTM's steps, whose forget gate < 1 damps an error over the frames); 1e-4
fails on any wrong tap, trim, reflected sample, gate order or frame order.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import xnnc
from xnnc.errors import ModelImportError, XnncError
from xnnc.examples.models import SLSTM, make_encodec_decoder
from xnnc.frontend.fx_importer import import_model
from xnnc.frontend.symbolic_lstm import keep_lstm_whole

LSTM = torch.ops.aten.lstm.input
# EnCodec's reflect padding (3 each side of its k7 convolutions) needs 4 frames: eager
# raises below that, and torch.export refuses a smaller minimum (test below).
SIZES = (4, 7, 13, 40, 64)
REASON = (
    "an LSTM kept whole: runs on xnnc's recurrent loop over XNNPACK (per "
    "layer and direction, one fully-connected node projects every frame, then XNNPACK "
    "runtimes of 8, 4, 2 or 1 unrolled steps run the steps); XNNPACK 92a7ad50 has no "
    "recurrent node"
)


STOCK_PAD_REASON = (
    "a pad of the symbolic dim {}: its pieces at the end start a fixed distance before it, "
    "which XNNPACK's stock slice node (absolute offsets) cannot write; the extended runtime's can"
)


def _close(got: torch.Tensor, want: torch.Tensor, tol: float = 1e-4) -> None:
    torch.testing.assert_close(got, want, atol=tol * want.abs().max().item(), rtol=0)


def _frames(low: int = 4) -> Dim:
    return Dim("T", min=low, max=64)


def _lstm_nodes(ep: torch.export.ExportedProgram) -> list[torch.fx.Node]:
    return [n for n in ep.graph.nodes if n.target is LSTM]


# --- export ---------------------------------------------------------------------------------


def test_export_keeps_the_lstm_whole_with_the_full_range_and_no_guard() -> None:
    """Under `keep_lstm_whole` the export records one `aten.lstm.input` whose output has
    the symbolic time dim, T keeps [1, 64] (no guard narrowed or pinned it), and the
    program runs at any size; outside it torch specializes T, and the op's kernels are
    torch's again."""
    torch.manual_seed(0)
    model = SLSTM(8, 2).eval()
    kernels = dict(LSTM.py_kernels)
    with keep_lstm_whole():
        ep = torch.export.export(
            model, (torch.randn(1, 8, 10),), dynamic_shapes={"x": {2: _frames(1)}}, strict=False
        )
    assert dict(LSTM.py_kernels) == kernels
    (node,) = _lstm_nodes(ep)
    out, h_n, c_n = node.meta["val"]
    assert isinstance(out.shape[0], torch.SymInt) and list(out.shape[1:]) == [1, 8]
    assert list(h_n.shape) == list(c_n.shape) == [2, 1, 8]
    ((symbol, bounds),) = ep.range_constraints.items()
    assert (bounds.lower, bounds.upper) == (1, 64) and str(out.shape[0]) == str(symbol)
    for size in (1, 5, 64):
        x = torch.randn(1, 8, size)
        with torch.no_grad():
            torch.testing.assert_close(ep.module()(x), model(x), atol=0, rtol=0)
    with pytest.raises(Exception, match=r"your code specialized it to be a constant \(10\)"):
        torch.export.export(
            model, (torch.randn(1, 8, 10),), dynamic_shapes={"x": {2: _frames(1)}}, strict=False
        )


def test_a_static_lstm_imports_whole_for_xnn_lstm() -> None:
    """A static LSTM imports as one `xnnc::lstm` (its steps become XNNPACK nodes when the
    subgraph is serialized, `xnn.lstm`), or with `loop_lstms` as one `aten::lstm.input`
    for the recurrent loop; never unrolled into the IR."""
    torch.manual_seed(0)
    model, x = SLSTM(8, 2).eval(), (torch.randn(1, 8, 5),)
    text = xnnc.print_module(import_model(model, x))
    assert text.count('aten.generic "xnnc::lstm"') == 1 and "aten.sigmoid" not in text
    looped = xnnc.print_module(import_model(model, x, loop_lstms=True))
    assert looped.count('aten.generic "aten::lstm.input"') == 1


class BiLSTM(torch.nn.Module):
    """A batch-first bidirectional LSTM between two linear layers: [B, T, 8] -> [B, T, 4]."""

    def __init__(self) -> None:
        super().__init__()
        self.inp = torch.nn.Linear(8, 16)
        self.lstm = torch.nn.LSTM(16, 12, 2, batch_first=True, bidirectional=True)
        self.out = torch.nn.Linear(24, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.lstm(torch.relu(self.inp(x)))
        return self.out(y)


def test_a_batch_first_bidirectional_lstm_runs_at_every_size() -> None:
    """The shapes `keep_lstm_whole` gives export follow batch_first and both directions
    ([B, T, 2H]); the linear layers around the LSTM are delegated."""
    torch.manual_seed(0)
    model = BiLSTM().eval()
    program = xnnc.compile(model, (torch.randn(2, 9, 8),), dynamic_shapes={"x": {1: _frames(1)}})
    assert program.ops_outside() == ["aten.lstm.input"] and program.num_partitions == 2
    for size in (1, 9, 64):
        x = torch.randn(2, size, 8)
        with torch.no_grad():
            want = model(x)
        _close(program(x), want)
    # The loop's runner is no torch step (its results are numpy's): the call enters no
    # no_grad, and an input that requires grad still gives a result without a graph.
    assert not program._plan.torched
    got = program(x.requires_grad_())
    assert not got.requires_grad and got.grad_fn is None
    _close(got, want)


# --- EnCodec ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def encodec() -> tuple[torch.nn.Module, xnnc.Program]:
    model, (x,) = make_encodec_decoder(small=True)
    return model, xnnc.compile(model, (x,), dynamic_shapes={"x": {2: _frames()}}, tune=False)


def test_encodec_compiles_once_and_matches_eager_at_every_size(encodec) -> None:
    model, program = encodec
    for size in SIZES:
        x = torch.randn(1, 16, size)
        with torch.no_grad():
            want = model(x)
        got = program(x)
        assert got.shape == (1, 1, 320 * size)
        _close(got, want)


def test_encodec_lstm_stays_outside_with_its_reason(encodec) -> None:
    """The LSTM runs on xnnc's loop over XNNPACK, between two delegates; every convolution
    and reflect pad is delegated (a pad's far-end pieces are slices counted from the end of
    the symbolic time axis: the extended runtime's XNNStaticSliceV3)."""
    _, program = encodec
    (lstm,) = program.outside()
    assert lstm.op == "aten.lstm.input" and program.num_partitions == 2
    assert lstm.reason == REASON and "model.1.lstm" in lstm.location
    text = xnnc.print_module(program.module)
    # each convolution in XNNPACK: as itself, or as taps (conv-as-gemm's rule on AVX2 hosts)
    taps = [d for d in program.decisions() if d.form == "conv-as-gemm" and d.choice == "gemm"]
    assert "aten.convolution" not in text
    assert text.count("xnn.convolution_2d") + len(taps) >= 11
    assert "aten.reflection_pad1d" not in text and re.search(r"offsets = array<i64: [^>]*-3", text)


def test_encodec_runs_as_a_plan_of_three_steps(encodec) -> None:
    """Subgraph, the loop's runner, subgraph: no slot for the constants only the loop reads
    (it holds those weights packed), no step through xDSL's interpreter."""
    model, program = encodec
    x = torch.randn(1, 16, 9)
    got = program(x)
    plan = program._plan
    assert [step[4].name for step in plan.steps] == ["xnn.subgraph", "aten.generic", "xnn.subgraph"]
    ((runner, _),) = program._recurrent.runners.values()
    assert plan.steps[1][0] is runner and plan.cached_ops == []
    # h0 and c0 (zeros) are the only constants with tensors: not one LSTM weight.
    assert [tuple(t.shape) for t in plan.constants.values()] == [(2, 1, 64)] * 2
    assert len(plan.base) == 1 + 2 + sum(len(step[2]) for step in plan.steps)
    with torch.no_grad():
        _close(got, model(x))


def test_encodec_stock_target_keeps_the_reflect_pads_outside() -> None:
    """Stock ExecuTorch's XNNStaticSlice takes unsigned offsets: a pad's far-end pieces have
    none, so on the stock target the pads stay outside with that reason (and the result is
    still eager's)."""
    model, (x,) = make_encodec_decoder(small=True)
    program = xnnc.compile(model, (x,), dynamic_shapes={"x": {2: _frames()}}, target="stock")
    pads = [o for o in program.outside() if o.op == "aten.reflection_pad1d"]
    assert {o.op for o in program.outside()} == {"aten.lstm.input", "aten.reflection_pad1d"}
    assert len(pads) == 6 and all(STOCK_PAD_REASON.format(d) == o.reason for o, d in zip(
        pads, ("T", "8*T", "40*T", "160*T", "320*T", "320*T"), strict=True))  # fmt: skip
    x = torch.randn(1, 16, 13)
    with torch.no_grad():
        _close(program(x), model(x))


def test_encodec_out_of_range_is_one_line(encodec) -> None:
    _, program = encodec
    for size, allowed in ((65, "T in [4, 64]"), (3, "T in [4, 64]")):
        with pytest.raises(XnncError) as e:
            program(torch.randn(1, 16, size))
        assert str(e.value) == f"input 'x' dim 2 is {size}; allowed: {allowed}"


def test_encodec_reflect_padding_needs_four_frames() -> None:
    """T >= 1 is refused by torch.export itself (reflect padding 3 needs 4 samples), one
    line, no traceback: the model's limit, not the LSTM's (it exported whole above)."""
    model, (x,) = make_encodec_decoder(small=True)
    with pytest.raises(ModelImportError, match=r"^model EnCodecDecoder: torch.export failed: "
                       r"Constraints violated \(T\): Not all values of T .* satisfy the "
                       r"generated guard 4 <= .* \(torch suggests T = Dim\('T', min=4, "
                       r"max=64\)\)$"):  # fmt: skip
        xnnc.compile(model, (x,), dynamic_shapes={"x": {2: _frames(1)}})


def test_full_encodec_compiles_once_and_matches_eager() -> None:
    model, (x,) = make_encodec_decoder(small=False)
    x = x[..., :40]  # the example (75 frames) is above the range
    program = xnnc.compile(model, (x,), dynamic_shapes={"x": {2: _frames()}}, tune=False)
    for size in SIZES:
        z = torch.randn(1, 128, size)
        with torch.no_grad():
            want = model(z)
        _close(program(z), want)


def test_a_users_exported_program_and_pt2_import(tmp_path) -> None:
    """The user's own export under `keep_lstm_whole`, as an ExportedProgram and as a
    `.pt2` (saved and loaded without xnnc's hook), compiles once for the range."""
    model, (x,) = make_encodec_decoder(small=True)
    with keep_lstm_whole():
        ep = torch.export.export(model, (x,), dynamic_shapes={"x": {2: _frames()}}, strict=False)
    assert len(_lstm_nodes(ep)) == 1
    path = tmp_path / "encodec.pt2"
    torch.export.save(ep, str(path))
    for source in (ep, str(path)):
        program = xnnc.compile(source, tune=False)
        assert "aten.lstm.input" in program.ops_outside()
        for size in (5, 64):
            z = torch.randn(1, 16, size)
            with torch.no_grad():
                want = model(z)
            _close(program(z), want)


@pytest.mark.parametrize("disable", [(), ("lstm-loop",)], ids=["loop", "unrolled"])
def test_encodec_static_compile(disable: tuple[str, ...]) -> None:
    """A static EnCodec compile runs its LSTM on the loop too, as the dynamic one does (the
    extended runtime's rule, `cost.rules.lstm_loop`), the rest in two subgraphs; with
    `lstm-loop` disabled the LSTM is unrolled into XNNPACK: one subgraph, nothing outside."""
    model, (x,) = make_encodec_decoder(small=True)
    program = xnnc.compile(model, (x,), tune=False, disable=disable)
    if disable:
        assert program.ops_outside() == [] and program.num_partitions == 1
    else:
        (lstm,) = program.outside()
        assert lstm.reason == REASON and program.num_partitions == 2
        assert "lstm-loop rule: as fast as unrolled" in program.explain()
    with torch.no_grad():
        want = model(x)
    _close(program(x), want)


def test_dynamic_encodec_pte_is_refused_but_the_xnnc_format_saves(tmp_path) -> None:
    """ExecuTorch 1.5.1 has no LSTM kernel (its portable `functions.yaml` lists none) and
    XNNPACK no recurrent node: `to_pte` and `Program.save("m.pte")` refuse, naming it."""
    from xnnc.pte import to_pte

    message = (
        r"^to_pte: nn.LSTM 'model.1.lstm' \(time axis T\): an LSTM over a symbolic time axis "
        r"has no .pte form \(ExecuTorch 1.5.1 has no LSTM kernel, XNNPACK no recurrent node, "
        r"and unrolling needs the frame count\); export with a static frame count for a .pte$"
    )
    model, (x,) = make_encodec_decoder(small=True)
    dims = {"x": {2: _frames()}}
    with pytest.raises(XnncError, match=message):
        to_pte(model, (x,), dynamic_shapes=dims, tune=False)
    program = xnnc.compile(model, (x,), dynamic_shapes=dims, tune=False, savable=True)
    with pytest.raises(XnncError, match=message):
        program.save(str(tmp_path / "m.pte"))
    assert not (tmp_path / "m.pte").exists()
    # xnnc's own format keeps the LSTM's weights with the ops outside: it saves and loads.
    program.save(str(tmp_path / "m.xnnc"))
    loaded = xnnc.load(str(tmp_path / "m.xnnc"))
    for size in (5, 50):
        z = torch.randn(1, 16, size)
        with torch.no_grad():
            want = model(z)
        _close(loaded(z), want)
