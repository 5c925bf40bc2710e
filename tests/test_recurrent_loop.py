"""xnnc's recurrent loop over XNNPACK (xnnc/recurrent.py, backend_xnnpack/recurrent.py): an
nn.LSTM over a symbolic time axis, compiled once, runs per layer and direction as an input
projection of all frames plus a one-step XNNPACK runtime invoked once per frame.

Tolerance: tests/test_dynamic_lstm.py's, 1e-4 of the output's scale (max |eager|), fp32.
The loop computes what torch's LSTM does with XNNPACK's fully-connected sums (another
summation order) and its sigmoid/tanh approximations (~1e-7 relative); the gates bound the
state and the forget gate (< 1) damps an error over the frames: observed <= 2e-7 absolute at
64 frames. 1e-4 fails on a wrong gate order, bias, frame order, direction or a state carried
from the wrong row.
"""

from __future__ import annotations

import threading

import pytest
import torch
from torch.export import Dim

import xnnc
from xnnc.dialects import aten
from xnnc.dialects.weights import WeightAttr
from xnnc.errors import XnncError
from xnnc.recurrent import ON_XNNPACK

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
        "xnnc's recurrent loop over XNNPACK (input projection of all frames, one step "
        "runtime per frame)"
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


def test_save_and_load_run_the_loop(tmp_path) -> None:
    torch.manual_seed(0)
    model = Lstm(num_layers=2, bidirectional=True).eval()
    _compile(model, savable=True).save(str(tmp_path / "m.xnnc"))
    loaded = xnnc.load(str(tmp_path / "m.xnnc"))
    assert loaded.outside()[0].reason == ON_XNNPACK
    _check(loaded, model, sizes=(3, 64))


def test_proj_size_stays_on_torch_with_the_reason() -> None:
    torch.manual_seed(0)
    model = Lstm(proj_size=4).eval()
    program = _compile(model)
    (outside,) = program.outside()
    assert outside.reason == (
        f"{TORCH_REASON} (proj_size != 0 is not supported by xnnc's recurrent loop)"
    )
    _check(program, model, sizes=(1, 30))


@pytest.mark.parametrize("target", ["stock", "x86-64-avx2"])
def test_stock_and_cross_targets_keep_torch(target: str) -> None:
    """The stock runtime has no loop (and its `.pte` refuses the LSTM, test_dynamic_lstm.py),
    and the loop is built for the host only: a program for either runs torch's LSTM, with
    the reason as before the loop."""
    torch.manual_seed(0)
    model = Lstm(bidirectional=True).eval()
    program = _compile(model, target=target)
    ((_, reason),) = [(o.op, o.reason) for o in program.outside()]
    assert reason == TORCH_REASON
    assert "recurrent loop" not in program.explain()
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
    failures: list[str] = []

    def worker(k: int) -> None:
        for i in range(20):
            j = (i + k) % 20
            got = program(*inputs[j])
            if not all(torch.equal(g, w) for g, w in zip(got, want[j])):
                failures.append(f"thread {k} call {i} (input {j})")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


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
    assert [rt.reshapes for rt in runner.steps + runner.first] == [0] * 4
