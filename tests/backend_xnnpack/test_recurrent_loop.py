"""xnnc's recurrent loop over XNNPACK (program/lstm_loop.py, backend_xnnpack/lstm_runner.py): an
nn.LSTM over a symbolic time axis, compiled once, runs per layer and direction as an input
projection of all frames plus runtimes of a few unrolled steps (8, 4, 2, 1) over the frames.

Tolerance: tests/frontend/test_dynamic_lstm.py's, 1e-4 of the output's scale (max |eager|), fp32.
The loop computes what torch's LSTM does with XNNPACK's fully-connected sums (another
summation order) and its sigmoid/tanh approximations (~1e-7 relative); the gates bound the
state and the forget gate (< 1) damps an error over the frames: observed <= 2e-7 absolute at
64 frames. 1e-4 fails on a wrong gate order, bias, frame order, direction or a state carried
from the wrong row.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from targets import CROSS_X86
from threads import calls_that_differ
from torch.export import Dim

import xnnc
from xnnc.backend_xnnpack.lstm_runner import LstmCell, LstmRunner, _chunks
from xnnc.backend_xnnpack.runtime.runtime import run_tables
from xnnc.dialects import aten
from xnnc.dialects.weights import WeightAttr
from xnnc.errors import XnncError
from xnnc.program.lstm_loop import ON_XNNPACK

TORCH_REASON = (
    "an LSTM over a symbolic time axis: XNNPACK 92a7ad50 has no recurrent node and "
    "unrolling needs the frame count; runs on torch's LSTM"
)
FEATURES, HIDDEN, BATCH = 6, 10, 2


def _close(got: torch.Tensor, want: torch.Tensor, tol: float = 1e-4) -> None:
    torch.testing.assert_close(got, want, atol=tol * want.abs().max().item(), rtol=0)


class Lstm(torch.nn.Module):
    """nn.LSTM returning its output and state; with `state`, h0/c0 are inputs."""

    def __init__(self, state: bool = False, **config) -> None:
        super().__init__()
        self.state = state
        self.lstm = torch.nn.LSTM(FEATURES, HIDDEN, **config)

    def forward(self, x, h0=None, c0=None):
        y, (h, c) = self.lstm(x, (h0, c0) if self.state else None)
        return y, h, c


def _compile(model: Lstm, frames: int = 64, low: int = 1, **options) -> xnnc.Program:
    time = 1 if model.lstm.batch_first else 0
    shape = [BATCH, 5, FEATURES] if time else [5, BATCH, FEATURES]
    inputs = [torch.randn(shape)]
    dims = {"x": {time: Dim("T", min=low, max=frames)}}
    if model.state:
        # Two tensors: an example passing one tensor as both makes export read one for both.
        inputs += [torch.randn(_cells(model), BATCH, HIDDEN) for _ in range(2)]
        dims.update(h0=None, c0=None)
    return xnnc.compile(model, tuple(inputs), dynamic_shapes=dims, tune=False, **options)


def _cells(model: Lstm) -> int:
    return model.lstm.num_layers * (2 if model.lstm.bidirectional else 1)


def _inputs(model: Lstm, frames: int) -> tuple[torch.Tensor, ...]:
    x = torch.randn(BATCH, frames, FEATURES) if model.lstm.batch_first else (
        torch.randn(frames, BATCH, FEATURES))  # fmt: skip
    if not model.state:
        return (x,)
    return x, torch.randn(_cells(model), BATCH, HIDDEN), torch.randn(_cells(model), BATCH, HIDDEN)


def _check(program: xnnc.Program, model: Lstm, sizes=(1, 2, 17, 64)) -> None:
    for frames in sizes:
        inputs = _inputs(model, frames)
        with torch.no_grad():
            want = model(*inputs)
        got = program(*inputs)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            _close(g, w)


CONFIGS = {
    "1-layer": {},
    "2-layer": {"num_layers": 2},
    "bidirectional": {"bidirectional": True},
    "2-layer-bidirectional-batch-first": {"num_layers": 2, "bidirectional": True,
                                          "batch_first": True},
    "no-bias-batch-first": {"bias": False, "batch_first": True},
    "2-layer-bidirectional-no-bias": {"num_layers": 2, "bidirectional": True, "bias": False},
}  # fmt: skip


@pytest.mark.parametrize("state", [False, True], ids=["zero-state", "given-state"])
@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_the_loop_matches_eager_with_its_state(config: dict, state: bool) -> None:
    """Output, h_n and c_n at 1, 2, 17 and 64 (the upper bound) frames, h0/c0 zero (folded
    constants: the first step then runs without W_hh) or given as inputs; the op runs on
    the loop, not on torch."""
    torch.manual_seed(0)
    model = Lstm(state, **config).eval()
    program = _compile(model)
    (outside,) = program.outside()
    assert (outside.op, outside.reason) == ("aten.lstm.input", ON_XNNPACK)
    ((runner, _),) = program._recurrent.runners.values()
    assert (runner.first is None) == state
    _check(program, model)


def test_explain_names_the_loop() -> None:
    torch.manual_seed(0)
    program = _compile(Lstm(num_layers=2, bidirectional=True).eval())
    line = program.explain().splitlines()[-2]
    assert line == (
        'loc("lstm"("lstm"))  aten.lstm.input (2 layers x 2 directions, hidden 10, batch 2): '
        "xnnc's recurrent loop over XNNPACK (input projection of all frames, then runtimes of "
        "8, 4, 2, 1 unrolled steps)"
    )


def test_the_loop_holds_the_weights_packed_only() -> None:
    """Unsavable, the IR lets go of the LSTM's weights once XNNPACK has packed them (h0/c0,
    folded zeros the loop reads per call, stay); a savable program keeps them to save, and
    its loaded copy runs the loop from the saved weights."""
    torch.manual_seed(0)
    model = Lstm(num_layers=2).eval()

    def weights(program: xnnc.Program) -> dict[str, bool]:
        return {
            op.value.data.name: op.value.data.has_data
            for op in program.module.walk()
            if isinstance(op, aten.ConstantOp) and isinstance(op.value, WeightAttr)
        }

    held = weights(_compile(model))
    assert {n for n, has in held.items() if has} == {"lstm.full.folded", "lstm.full_1.folded"}
    assert sum(1 for n in held if n.startswith("lstm.weight")) == 4
    program = _compile(model, savable=True)
    assert all(weights(program).values())


def _loop_runtimes(program: xnnc.Program) -> list:
    ((runner, _),) = program._recurrent.runners.values()
    return [rt for pair in runner.packed_runtimes() for rt in pair]


def test_save_and_load_run_the_loop(tmp_path) -> None:
    """The file keeps each cell's packed weights (projection and steps): load maps them and
    packs nothing (no warning), then runs the loop as compiled."""
    import warnings

    from test_memory import _mapped_from_file

    torch.manual_seed(0)
    model = Lstm(num_layers=2, bidirectional=True).eval()
    compiled = _compile(model, savable=True)
    compiled.save(str(tmp_path / "m.xnnc"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = xnnc.load(str(tmp_path / "m.xnnc"))
    assert loaded.outside()[0].reason == ON_XNNPACK
    runtimes = _loop_runtimes(loaded)
    assert len(runtimes) == 2 * 4  # 2 layers x 2 directions, projection and steps
    assert all(rt._weights is not None and _mapped_from_file(rt._weights) for rt in runtimes)
    assert not any(_mapped_from_file(rt._weights) for rt in _loop_runtimes(compiled))
    _check(loaded, model, sizes=(3, 64))
    x = _inputs(model, 9)
    assert all(map(torch.equal, loaded(*x), compiled(*x)))


def test_loop_weights_of_another_cpu_are_packed_again(tmp_path, monkeypatch) -> None:
    """Packed for another CPU or XNNPACK build: one PackedWeightsWarning, then the loop's
    weights are packed from the program's constants, outputs as compiled."""
    from xnnc.backend_xnnpack.runtime import packed_weights
    from xnnc.errors import PackedWeightsWarning

    torch.manual_seed(0)
    model = Lstm(num_layers=2).eval()
    compiled = _compile(model, savable=True)
    compiled.save(str(tmp_path / "m.xnnc"))
    other = {**packed_weights.signature(), "cpu": "aarch64:0123456789abcdef"}
    monkeypatch.setattr(packed_weights, "signature", lambda: other)
    with pytest.warns(PackedWeightsWarning, match=r"^xnnc.load: .*another CPU or XNNPACK") as w:
        loaded = xnnc.load(str(tmp_path / "m.xnnc"))
    assert len(w) == 1
    x = _inputs(model, 9)
    assert all(map(torch.equal, loaded(*x), compiled(*x)))


def test_loop_weights_missing_from_the_file_are_packed_again(tmp_path) -> None:
    """Saved packed weights without the entries XNNPACK looks up (keys changed in the last
    cell's index): one warning naming the LSTM, then packed from the constants, outputs as
    compiled."""
    import json
    import zipfile

    from xnnc.errors import PackedWeightsWarning

    torch.manual_seed(0)
    model = Lstm(num_layers=2).eval()
    compiled = _compile(model, savable=True)
    path, out = tmp_path / "m.xnnc", tmp_path / "keys.xnnc"
    compiled.save(str(path))
    last = "packed_lstm0_1_steps.json"  # the file's last member: no other one moves
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        assert src.infolist()[-1].filename == last
        for info in src.infolist():
            data = src.read(info)
            if info.filename == last:
                index = json.loads(data)
                index["entries"] = [[r[0] ^ 1, *r[1:]] for r in index["entries"]]
                data = json.dumps(index).encode()
            dst.writestr(info, data)
    with pytest.warns(PackedWeightsWarning, match=r"aten.lstm.input.*not found") as w:
        loaded = xnnc.load(str(out))
    assert len(w) == 1, [str(x.message) for x in w]
    x = _inputs(model, 9)
    assert all(map(torch.equal, loaded(*x), compiled(*x)))


def test_proj_size_stays_on_torch_with_the_reason() -> None:
    torch.manual_seed(0)
    model = Lstm(proj_size=4).eval()
    program = _compile(model)
    (outside,) = program.outside()
    assert outside.reason == (
        f"{TORCH_REASON} (proj_size != 0 is not supported by xnnc's recurrent loop)"
    )
    _check(program, model, sizes=(1, 30))


def test_the_stock_target_keeps_torch_over_a_symbolic_time_axis() -> None:
    """The stock runtime's `.pte` refuses an LSTM over a symbolic time axis
    (test_dynamic_lstm.py): a program for it runs torch's LSTM, with the reason as before
    the loop (a static one runs on the loop, as the `.pte`'s step calls: test_pte_lstm.py)."""
    torch.manual_seed(0)
    model = Lstm(bidirectional=True).eval()
    program = _compile(model, target="stock")
    ((_, reason),) = [(o.op, o.reason) for o in program.outside()]
    assert reason == TORCH_REASON
    assert "recurrent loop" not in program.explain()
    _check(program, model, sizes=(1, 9))


def test_a_program_for_another_cpu_runs_the_loop() -> None:
    """The loop's runtimes are built where the Program runs, as its subgraphs' are: a program
    compiled for another x86 CPU (or saved there and loaded here) runs the LSTM on the loop."""
    torch.manual_seed(0)
    model = Lstm(bidirectional=True).eval()
    program = _compile(model, target=CROSS_X86)
    ((_, reason),) = [(o.op, o.reason) for o in program.outside()]
    assert reason == ON_XNNPACK
    _check(program, model, sizes=(1, 9))


def test_bad_input_is_refused_as_before() -> None:
    torch.manual_seed(0)
    model = Lstm(state=True, num_layers=2).eval()
    program = _compile(model, frames=32)
    x, h0, c0 = _inputs(model, 33)
    with pytest.raises(XnncError) as e:
        program(x, h0, c0)
    assert str(e.value) == "input 'x' dim 0 is 33; allowed: T in [1, 32]"
    x, h0, c0 = _inputs(model, 4)
    with pytest.raises(XnncError) as e:
        program(x, h0[:1], c0)
    assert (
        str(e.value) == "input 1: expected torch.float32 [2, 2, 10], got torch.float32 [1, 2, 10]"
    )


def test_calls_from_threads_are_bit_identical() -> None:
    """8 threads x 20 calls at mixed sizes: each result equals (`torch.equal`) the
    single-threaded one for its input (XNNPACK fixes its kernels at creation, so the same
    runtime computes the same sums whichever thread asks), so no call saw another's
    state, rows or c buffers."""
    torch.manual_seed(0)
    model = Lstm(state=True, num_layers=2, bidirectional=True).eval()
    program = _compile(model)
    inputs = [_inputs(model, 1 + (7 * i) % 64) for i in range(20)]
    want = [program(*x) for x in inputs]

    def same(got: tuple, expected: tuple) -> bool:
        return all(torch.equal(g, w) for g, w in zip(got, expected))

    assert calls_that_differ(lambda x: program(*x), inputs, want, same) == []


def test_the_runner_refuses_tensors_of_other_shapes() -> None:
    """The loop points XNNPACK at raw addresses: a tensor of another shape would be read
    past its end, so the runner checks each one first (one line naming it)."""
    torch.manual_seed(0)
    program = _compile(Lstm(num_layers=2).eval())
    ((runner, _),) = program._recurrent.runners.values()
    state = torch.zeros(2, BATCH, HIDDEN)
    for x, h0, message in (
        (torch.randn(3, BATCH, FEATURES + 1), state, "LSTM input: expected float32 [3, 2, 6], "
         "got torch.float32 [3, 2, 7]"),
        (torch.randn(3, BATCH, FEATURES), state[:1], "LSTM h0: expected float32 [2, 2, 10], "
         "got torch.float32 [1, 2, 10]"),
        (torch.randn(3, BATCH, FEATURES).double(), state, "LSTM input: expected float32 "
         "[3, 2, 6], got torch.float64 [3, 2, 6]"),
    ):  # fmt: skip
        with pytest.raises(ValueError) as e:
            runner(x, h0, state)
        assert str(e.value) == message


def test_a_new_size_reshapes_the_projections_only() -> None:
    """The step runtimes keep their static shapes (each frame is a setup, never a reshape);
    each projection reshapes once per new frame count, none for a repeated one."""
    torch.manual_seed(0)
    model = Lstm(num_layers=2).eval()
    program = _compile(model)
    ((runner, _),) = program._recurrent.runners.values()
    for frames in (5, 5, 9, 9, 5):
        program(*_inputs(model, frames))
    assert [rt.reshapes for rt in runner.projections] == [3, 3]
    assert [rt.reshapes for rts in runner.steps + runner.first for rt in rts.values()] == [0] * 16


def _runner(lstm: torch.nn.LSTM, batch: int, zero_state: bool, **options) -> LstmRunner:
    """The loop built straight from `lstm`'s weights (as program/lstm_loop.py plans it)."""
    dirs = 2 if lstm.bidirectional else 1
    cells = []
    for layer in range(lstm.num_layers):
        for d in range(dirs):
            w = {n: getattr(lstm, f"{n}_l{layer}{'_reverse' if d else ''}").detach().numpy()
                 for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}  # fmt: skip
            cells.append(LstmCell(w["weight_ih"].copy(), w["weight_hh"].copy(),
                                  w["bias_ih"] + w["bias_hh"]))  # fmt: skip
    return LstmRunner(cells, layers=lstm.num_layers, bidirectional=lstm.bidirectional,
                      batch_first=lstm.batch_first, batch=batch, zero_state=zero_state,
                      **options)  # fmt: skip


RUNNER_CONFIGS = {
    # batch 1 bidirectional: h' straight into the output's rows, at a direction's offset
    "2-layer-bidirectional-batch-1": ({"num_layers": 2, "bidirectional": True}, 1),
    # batch 3 bidirectional: one buffer per direction, interleaved after each layer
    "2-layer-bidirectional-batch-3-batch-first": (
        {"num_layers": 2, "bidirectional": True, "batch_first": True}, 3),
    "3-layer-batch-3": ({"num_layers": 3}, 3),
}  # fmt: skip


@pytest.mark.parametrize("zero_state", [True, False], ids=["zero-state", "given-state"])
@pytest.mark.parametrize("config", RUNNER_CONFIGS.values(), ids=RUNNER_CONFIGS.keys())
def test_the_runner_matches_eager_at_every_layout(config: tuple, zero_state: bool) -> None:
    """The runner alone against nn.LSTM at 0, 1, 2 and 17 frames: output, h_n and c_n, each
    a view of the call's one block (batch_first: a transposed one). At 0 frames torch's LSTM
    refuses the input; the loop returns an empty output and the state unchanged."""
    options, batch = config
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(FEATURES, HIDDEN, **options).eval()
    runner = _runner(lstm, batch, zero_state)
    cells = lstm.num_layers * (2 if lstm.bidirectional else 1)
    for frames in (0, 1, 2, 17):
        x = torch.randn(batch, frames, FEATURES) if lstm.batch_first else (
            torch.randn(frames, batch, FEATURES))  # fmt: skip
        h0, c0 = (torch.zeros if zero_state else torch.randn)(2, cells, batch, HIDDEN)
        got = runner(x, h0, c0)
        if frames == 0:
            assert got[0].shape == x.shape[:-1] + (runner.directions * HIDDEN,)
            assert torch.equal(got[1], h0) and torch.equal(got[2], c0)
            continue
        with torch.no_grad():
            y, (h, c) = lstm(x, (h0, c0))
        for g, w in zip(got, (y, h, c), strict=True):
            assert g.shape == w.shape
            _close(g, w)


@pytest.mark.parametrize("zero_state", [True, False], ids=["zero-state", "given-state"])
def test_unrolled_step_runtimes_compute_the_single_steps_bits(zero_state: bool) -> None:
    """The steps run on runtimes of 8, 4, 2 and 1 unrolled steps (the default), each call
    the most that fit: at every frame count from 1 to 19 the results are bit for bit those
    of one-step runtimes only (the same XNNPACK operators in the same order). Every runtime
    of a cell finds W_hh packed by its first: one packed copy per cell."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(FEATURES, HIDDEN, 2).eval()
    unrolled, single = _runner(lstm, 1, zero_state), _runner(lstm, 1, zero_state, unroll=(1,))
    assert unrolled.unroll == (8, 4, 2, 1) and single.unroll == (1,)
    for frames in range(1, 20):
        x, h0, c0 = torch.randn(frames, 1, FEATURES), *torch.randn(2, 2, 1, HIDDEN)
        if zero_state:
            h0, c0 = torch.zeros_like(h0), torch.zeros_like(c0)
        for got, want in zip(unrolled(x, h0, c0), single(x, h0, c0), strict=True):
            assert torch.equal(got, want), frames
    for cell in range(2):
        runtimes = [*unrolled.steps[cell].values(), *(unrolled.first or [{}] * 2)[cell].values()]
        weights = unrolled.steps[cell][1]._weights
        assert all(rt._weights is weights for rt in runtimes)
        assert len(weights._entries) == 1  # W_hh, packed once


def test_the_steps_take_the_most_unrolled_runtime_that_fits() -> None:
    """The calls over 13 frames: 8 (the first from the zero state, if it is), 4, 1; the step
    counts must include 1."""
    assert _chunks(13, (8, 4, 2, 1), True) == [(0, 8, True), (8, 4, False), (12, 1, False)]
    assert _chunks(3, (8, 4, 2, 1), False) == [(0, 2, False), (2, 1, False)]
    assert _chunks(3, (1,), True) == [(0, 1, True), (1, 1, False), (2, 1, False)]
    for unroll in ((2, 4), (1, 0)):
        with pytest.raises(ValueError) as e:
            _runner(torch.nn.LSTM(FEATURES, HIDDEN), 1, True, unroll=unroll)
        assert str(e.value) == f"unroll {unroll}: the step counts must be positive and include 1"


def test_the_plans_of_a_few_sizes_are_kept() -> None:
    """Each frame count's plan is built once and kept (`plans` of them, least recently used
    dropped): a size planned again computes the same bits; a call's results are its own
    (a later call leaves them unchanged)."""
    torch.manual_seed(0)
    runner = _runner(torch.nn.LSTM(FEATURES, HIDDEN, 2).eval(), BATCH, False, plans=2)
    inputs = {t: (torch.randn(t, BATCH, FEATURES), *torch.randn(2, 2, BATCH, HIDDEN))
              for t in (3, 5, 7)}  # fmt: skip
    first = {t: [r.clone() for r in runner(*x)] for t, x in inputs.items()}
    kept = runner(*inputs[7])
    for t in (5, 3, 7, 3):
        assert all(map(torch.equal, runner(*inputs[t]), first[t]))
    assert all(map(torch.equal, kept, first[7]))
    info = runner._plan.cache_info()
    assert (info.currsize, info.hits, info.misses) == (2, 3, 5)  # 3, 5, 7, 7; 5, 3, 7, 3


def test_run_steps_runs_a_step_per_row() -> None:
    """`XnnRuntime.run_steps` (the step runtime on rows of addresses) computes one LSTM step
    per row, each from the row before's h', c'; `run_tables` refuses to run a runtime of
    symbolic shapes without its input shapes."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(FEATURES, HIDDEN).eval()
    runner = _runner(lstm, 1, False)
    gates = np.random.default_rng(0).standard_normal((2, 4 * HIDDEN)).astype(np.float32)
    h, c = np.zeros((3, HIDDEN), np.float32), np.zeros((3, HIDDEN), np.float32)
    h[0], c[0] = 0.5, -0.25
    rows = [[gates[t].ctypes.data, h[t].ctypes.data, c[t].ctypes.data, h[t + 1].ctypes.data,
             c[t + 1].ctypes.data] for t in range(2)]  # fmt: skip
    runner.steps[0][1].run_steps(np.array(rows, dtype=np.uint64))
    want_h, want_c = torch.from_numpy(h[0]), torch.from_numpy(c[0])
    for t in range(2):
        i, f, g, o = (torch.from_numpy(gates[t]) + lstm.weight_hh_l0 @ want_h).detach().chunk(4)
        want_c = i.sigmoid() * g.tanh() + f.sigmoid() * want_c
        want_h = o.sigmoid() * want_c.tanh()
        _close(torch.from_numpy(h[t + 1]), want_h)
        _close(torch.from_numpy(c[t + 1]), want_c)
    with pytest.raises(RuntimeError) as e:
        run_tables([(runner.projections[0], 0, 1, None)], 0)
    assert str(e.value) == "a runtime of symbolic shapes needs its input shapes"
