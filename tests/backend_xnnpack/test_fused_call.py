"""A split program's calls at one size as one table of XNNPACK set-up rows
(`backend_xnnpack/fused.py`): from the second call at a size on, a program of XNNPACK pieces
and recurrent loops runs without calling its pieces one by one. The table must compute the
pieces' bits exactly (same runtimes, same kernels, same buffers' contents), follow size
changes, keep threads apart, and decline what it cannot lay out.

Tolerance against eager: fp32, XNNPACK's and torch's sums differ in order only; 1e-4 of the
output's largest magnitude, as the recurrent loop's own tests."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from threads import calls_that_differ
from torch.export import Dim

import xnnc
from xnnc.backend_xnnpack import fused
from xnnc.backend_xnnpack.fused import FusedCall
from xnnc.backend_xnnpack.runtime import capi
from xnnc.backend_xnnpack.runtime.runtime import XnnRuntime, external_values
from xnnc.backend_xnnpack.serialize import GraphBuilder

SIZES = (3, 9, 3, 17, 64, 9)


class ConvLstmConv(torch.nn.Module):
    """[1, 4, T] -> conv -> 2-layer LSTM (time first, zero state) with a skip -> conv: an
    XNNPACK piece, the loop, an XNNPACK piece (EnCodec's SLSTM between convolutions)."""

    def __init__(self, return_lstm: bool = False) -> None:
        super().__init__()
        self.pre = torch.nn.Conv1d(4, 8, 3, padding=1)
        self.lstm = torch.nn.LSTM(8, 8, 2)
        self.post = torch.nn.Conv1d(8, 4, 1)
        self.return_lstm = return_lstm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pre(x).permute(2, 0, 1)
        z, _ = self.lstm(y)
        if self.return_lstm:
            return z
        return self.post((z + y).permute(1, 2, 0))


def _compile(model: torch.nn.Module, **options) -> xnnc.Program:
    torch.manual_seed(0)
    dims = {"x": {2: Dim("T", min=1, max=64)}}
    return xnnc.compile(model.eval(), (torch.randn(1, 4, 5),), dynamic_shapes=dims, tune=False,
                        **options)  # fmt: skip


def _fused(program: xnnc.Program) -> dict:
    return program._plan.fused


@pytest.fixture(scope="module")
def program() -> tuple[torch.nn.Module, xnnc.Program]:
    model = ConvLstmConv()
    return model, _compile(model)


def test_the_second_call_at_a_size_runs_the_table_with_the_same_bits(program) -> None:
    model, compiled = program
    for frames in SIZES:
        x = torch.randn(1, 4, frames)
        pieces = compiled(x)  # a new size: the pieces, and the table laid out
        table = _fused(compiled)[(("T", frames),)]
        assert isinstance(table, FusedCall)
        assert torch.equal(compiled(x), pieces)
        with torch.no_grad():
            want = model(x)
        torch.testing.assert_close(pieces, want, atol=1e-4 * want.abs().max().item(), rtol=0)
    # the last few sizes are kept, as the plan's per-size values are
    assert len(_fused(compiled)) <= compiled._plan.KEPT


def test_the_table_reshapes_the_pieces_back_after_another_size(program) -> None:
    """Calls alternating between two laid-out sizes: each finds the runtimes at the other's
    shapes and reshapes them first."""
    _, compiled = program
    small, large = torch.randn(1, 4, 6), torch.randn(1, 4, 40)
    want = [compiled(small), compiled(large)]
    for _ in range(3):
        assert torch.equal(compiled(small), want[0])
        assert torch.equal(compiled(large), want[1])


def test_small_inputs_and_outputs_go_through_the_arena(program) -> None:
    """Inputs and outputs of at most COPIED_BYTES together are copied into and out of the
    arena, so no row's words change between calls: from the second call at a size on, every
    row runs on its own last set-up (its token in its runtime's owner word)."""
    _, compiled = program
    x = torch.randn(1, 4, 12)
    compiled(x)
    compiled(x)
    table = _fused(compiled)[(("T", 12),)]
    assert table.stable == (True,) * len(table.rows) and table.copies[1:] == (1, 1)
    state = table.per_thread.state
    owners = [table.runtimes[k]._owner[0] for k, _, _ in table.rows]
    assert owners == state.rows[:, 4].tolist()


def test_large_inputs_and_outputs_are_read_and_written_in_place(program, monkeypatch) -> None:
    """Above COPIED_BYTES the rows read the call's input and write its output where they are
    (those rows set up on every call; the others keep their set-ups): the same bits."""
    model, copied = program
    monkeypatch.setattr(fused, "COPIED_BYTES", 0)
    in_place = _compile(model)
    for frames in (5, 33, 5):
        x = torch.randn(1, 4, frames)
        want = copied(x)
        assert torch.equal(in_place(x), want) and torch.equal(in_place(x), want)
        table = _fused(in_place)[(("T", frames),)]
        assert table.copies[1:] == (0, 0)
        assert table.stable[0] is False and table.stable[-1] is False and any(table.stable)


def test_a_non_contiguous_input_is_read_as_its_values(program) -> None:
    _, compiled = program
    x = torch.randn(1, 11, 4).transpose(1, 2)
    want = compiled(x.contiguous())
    compiled(x.contiguous())
    assert torch.equal(compiled(x), want)


def test_a_tensor_off_the_cpu_is_refused_before_xnnpack(program) -> None:
    _, compiled = program
    compiled(torch.randn(1, 4, 8))
    compiled(torch.randn(1, 4, 8))  # laid out
    with pytest.raises(ValueError, match=r"^input 0: expected a CPU tensor, got one on meta$"):
        compiled(torch.empty(1, 4, 8, device="meta"))


def test_calls_from_threads_are_bit_identical(program) -> None:
    """8 threads x 20 calls at mixed sizes (each thread has its own arena and table): each
    result equals the single-threaded one for its input."""
    _, compiled = program
    inputs = [torch.randn(1, 4, 1 + (7 * i) % 64) for i in range(20)]
    want = [compiled(x) for x in inputs]
    assert calls_that_differ(compiled, inputs, want, torch.equal) == []


def test_an_lstm_output_leaving_the_program_keeps_the_pieces() -> None:
    """The loop writes its output in its own block, which the table would reuse: the program
    keeps calling its pieces, and says why in its plan."""
    model = ConvLstmConv(return_lstm=True)
    compiled = _compile(model)
    x = torch.randn(1, 4, 7)
    first = compiled(x)
    assert _fused(compiled)[(("T", 7),)] == "an LSTM loop whose h_n or results leave the program"
    assert torch.equal(compiled(x), first)


class Twice(ConvLstmConv):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = super().forward(x)
        return y, y


def test_a_value_returned_twice_keeps_the_pieces() -> None:
    """The table writes each output once: a program returning one value twice keeps calling
    its pieces (which return that one tensor twice)."""
    compiled = _compile(Twice())
    x = torch.randn(1, 4, 7)
    first = compiled(x)
    assert _fused(compiled)[(("T", 7),)] == "a value returned twice"
    a, b = compiled(x)
    assert a is b and torch.equal(a, first[0])


def test_a_profiled_program_calls_its_pieces() -> None:
    """The profile is read per runtime call: a profiled program lays out no table."""
    compiled = _compile(ConvLstmConv(), profile=True)
    x = torch.randn(1, 4, 7)
    compiled(x)
    compiled(x)
    assert _fused(compiled) is None
    assert compiled.profile()


def test_the_rows_run_in_c_where_the_package_is_built() -> None:
    """`make test` installs the package, which builds `runtime/rows.c`."""
    assert capi.row_runner() is not None


def test_the_python_loop_computes_the_same_bits(program, monkeypatch) -> None:
    """Where the C loop is missing (a source tree on the path), the rows run from Python."""
    _, compiled = program
    x = torch.randn(1, 4, 12)
    compiled(x)
    want = compiled(x)
    monkeypatch.setattr(capi, "row_runner", lambda: None)
    assert torch.equal(compiled(x), want)


def test_a_failing_row_names_its_row_status_and_stage() -> None:
    """A set-up XNNPACK refuses (an external id the runtime does not have) stops the rows
    there: the C loop returns the row's index, the status and the stage (0: set-up), and
    leaves the runtime's owner word cleared."""
    native = capi.row_runner()
    if native is None:
        pytest.skip("the package is not built")
    rt = XnnRuntime(*_ceiling_blob())
    rt._shaped(None)  # as a call does before its rows
    table = external_values(1, 2)
    table["id"] = [0, 99]
    x, y = np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.float32)
    table["data"] = [x.ctypes.data, y.ctypes.data]
    rt._owner[0] = 5
    rows = np.array([(rt._runtime, 2, table.ctypes.data, rt._owner.ctypes.data, 7)] * 2,
                    dtype=np.uint64)  # fmt: skip
    failure = np.zeros(2, dtype=np.int32)
    assert native.run(rows.ctypes.data, 2, 0, 0, 0, failure.ctypes.data) == 0
    assert failure.tolist() == [capi.STATUS_NAMES.index("xnn_status_invalid_parameter"), 0]
    assert rt._owner[0] == 0
    table["id"] = [0, 1]
    assert native.run(rows.ctypes.data, 2, 0, 0, 0, failure.ctypes.data) == 2
    assert rt._owner[0] == 7
    rt.close()


def test_a_row_whose_set_up_is_current_runs_without_one() -> None:
    """A row whose token is in its runtime's owner word is invoked on its last set-up's
    addresses (its table is not read again); a run of the runtime by other means clears the
    word, so the row sets up again. Copies run before and after the rows."""
    native = capi.row_runner()
    if native is None:
        pytest.skip("the package is not built")
    rt = XnnRuntime(*_ceiling_blob())
    rt._shaped(None)  # as a call does before its rows
    x, y, z = (np.zeros(4, dtype=np.float32) for _ in range(3))
    source, result = np.array([0.5, 1.5, -0.5, 2.25], dtype=np.float32), np.zeros_like(x)
    table = external_values(1, 2)
    table["id"] = [0, 1]
    table["data"] = [x.ctypes.data, y.ctypes.data]
    rows = np.array([(rt._runtime, 2, table.ctypes.data, rt._owner.ctypes.data, 3)],
                    dtype=np.uint64)  # fmt: skip
    copies = np.array([(x.ctypes.data, source.ctypes.data, 16),
                       (result.ctypes.data, y.ctypes.data, 16)], dtype=np.uint64)  # fmt: skip
    failure = np.zeros(2, dtype=np.int32)
    assert native.run(rows.ctypes.data, 1, copies.ctypes.data, 1, 1, failure.ctypes.data) == 1
    assert result.tolist() == [1.0, 2.0, -0.0, 3.0] and rt._owner[0] == 3
    table["data"] = [x.ctypes.data, z.ctypes.data]  # not read: the set-up is current
    assert native.run(rows.ctypes.data, 1, 0, 0, 0, failure.ctypes.data) == 1
    assert z.tolist() == [0.0] * 4
    rt(torch.ones(1, 4))  # its own set-up
    assert rt._owner[0] == 0
    assert native.run(rows.ctypes.data, 1, 0, 0, 0, failure.ctypes.data) == 1
    assert z.tolist() == [1.0, 2.0, -0.0, 3.0] and rt._owner[0] == 3
    # a row without a token (its words change between calls) sets up, and clears the word
    other = external_values(1, 2)
    other["id"] = [0, 1]
    other["data"] = [x.ctypes.data, y.ctypes.data]
    unstable = np.array([(rt._runtime, 2, other.ctypes.data, rt._owner.ctypes.data, 0)],
                        dtype=np.uint64)  # fmt: skip
    assert native.run(unstable.ctypes.data, 1, 0, 0, 0, failure.ctypes.data) == 1
    assert rt._owner[0] == 0
    z[:] = 0
    assert native.run(rows.ctypes.data, 1, 0, 0, 0, failure.ctypes.data) == 1
    assert z.tolist() == [1.0, 2.0, -0.0, 3.0] and rt._owner[0] == 3
    rt.close()


def _ceiling_blob() -> tuple:
    g = GraphBuilder()
    g.value("x", "fp32", [1, 4], external="input")
    g.value("y", "fp32", [1, 4], external="output")
    g.add_node(g.node("XNNCeiling", input_id=g.id("x"), output_id=g.id("y"), flags=0), "ceil",
               (-np.inf, np.inf))  # fmt: skip
    return g.finish_named(["y"])
