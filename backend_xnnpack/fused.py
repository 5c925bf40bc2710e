"""A program's XNNPACK calls at one size as one table: every runtime's set-up and invoke in a
row, over one arena for the values between them.

A split program (an LSTM over a symbolic time axis between two subgraphs, say) calls each
piece in turn, and each call pays Python of its own: checking inputs, making outputs,
allocating the loop's block, building its set-up tables. On a small decoder those are most
of the call (EnCodec small at 4 frames: ~100 us of it on a 2-core Zen 3). Per size they are
all the same, so a `FusedCall` lays them out once, from a call made the slow way:

    head   (x)      -> a           row: ids 0, 1 = x (the call's input), arena + 0
    loop   (a)      -> y           rows of the loop's plan, its block at arena + 4096
    tail   (y)      -> out         row: ids 0, 1 = arena + 4224, out (the call's output)

Each calling thread gets its own arena and a table with the arena's address added (made
once per size). Where the call's inputs and outputs take at most `COPIED_BYTES` together
(the runtime's own rule for copying through buffers), they are copied into and out of the
arena, so that no row's words change between calls and a runtime whose last set-up was this
row's (its owner word holds the row's token; every other set-up or reshape clears it) is
invoked without one: EnCodec small at 4 frames spends ~4 us of a 0.14 ms call setting up
its six runtimes (Zen 3). Larger inputs and outputs are read and written where they are: a
call writes their addresses into the table, and the rows that read them set up each time.
The rows then run, set-up (`xnn_setup_runtime_v2`) where needed and invoke, all in one call
of `runtime/rows.c` (where the package was built; else a Python loop that sets up every
row). The runtimes are reshaped first where another size's call left them at other shapes,
all with their locks held, in one order, so that calls from several threads never
interleave on a runtime.

Memory: the arena holds what the pieces passed between them, and stays with its thread
while the size's table is kept (the plan keeps the 4 most recent sizes): EnCodec full, 68
KiB at 4 frames, 908 KiB at 64, per calling thread.

`FusedCall.build` says why it cannot lay out a program (a step that is neither an XNNPACK
runtime nor a time-first, zero-state loop; a loop output read after the loop that XNNPACK
does not write in place; a program output that is not written by XNNPACK); the program
then keeps calling its pieces.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch

from xnnc.backend_xnnpack.lstm_runner import LstmRunner
from xnnc.backend_xnnpack.runtime import capi
from xnnc.backend_xnnpack.runtime.runtime import COPIED_BYTES, XnnpackError, XnnRuntime

_ALIGN = 64
_TOKENS = itertools.count(1)  # rows' tokens (`rows.c`): never reused, never 0
_CONTIGUOUS, _empty_like = torch.contiguous_format, torch.empty_like


@dataclass(frozen=True)
class Step:
    """One step of a program at one size: the runtime or loop, the slots it reads and writes
    (the loop: input, h0, c0 -> output, h_n, c_n)."""

    run: Any
    reads: tuple[int, ...]
    writes: tuple[int, ...]


class _Layout:
    """Where each slot's value lives (the arena, a call's input or output, a constant) and
    the table being built: uint64 words, a mask of those the arena's address is added to,
    and the words a call's inputs and outputs go into."""

    def __init__(self, inputs: Sequence[torch.Tensor], outputs: tuple[int, ...], copied: bool):
        self.arena = 0
        self.words: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.size = 0  # words so far
        self.outputs = {slot: j for j, slot in enumerate(outputs)}
        self.patches: list[tuple[int, str, int]] = []  # (word, "input" | "output", index)
        # copied: the call's inputs and outputs go through the arena (copied in before the
        # rows and out after them), so that no row's words change between calls
        self.copied = copied
        self.copies: list[tuple[str, int, int, int]] = []  # (kind, index, arena offset, bytes)
        self.where: dict[int, tuple[str, int]] = {}
        for i, t in enumerate(inputs):
            self.where[i] = ("input", i)
            if copied:
                self.where[i] = ("arena", self.reserve(t.nbytes))
                self.copies.append(("input", i, self.where[i][1], t.nbytes))

    def reserve(self, nbytes: int) -> int:
        """An arena region of `nbytes` (with XNNPACK's extra bytes), cache-line aligned."""
        at = self.arena
        self.arena += -(-(nbytes + capi.EXTRA_BYTES) // _ALIGN) * _ALIGN
        return at

    def place(self, slot: int, value: torch.Tensor) -> None:
        """A slot an XNNPACK runtime writes: a call's output, or an arena region."""
        if slot in self.outputs and not self.copied:
            self.where[slot] = ("output", self.outputs[slot])
            return
        self.where[slot] = ("arena", self.reserve(value.nbytes))
        if slot in self.outputs:
            self.copies.append(("output", self.outputs[slot], self.where[slot][1], value.nbytes))

    def copy_words(self) -> tuple[int, int, int]:
        """Appends the copies' (destination, source, bytes) words; returns the first word's
        index and the counts of copies in and out."""
        words = np.zeros((len(self.copies), 3), dtype=np.uint64)
        mask = np.zeros_like(words)
        at = self.size
        ins = sorted(c for c in self.copies if c[0] == "input")
        outs = sorted(c for c in self.copies if c[0] == "output")
        for k, (kind, index, offset, nbytes) in enumerate(ins + outs):
            arena, call = (0, 1) if kind == "input" else (1, 0)
            words[k, arena], mask[k, arena], words[k, 2] = offset, 1, nbytes
            self.patches.append((at + 3 * k + call, kind, index))
        self.append(words.reshape(-1), mask.reshape(-1))
        return at, len(ins), len(outs)

    def append(self, words: np.ndarray, mask: np.ndarray) -> int:
        """Appends table words; returns the word index of the first."""
        at = self.size
        self.words.append(words.astype(np.uint64))
        self.masks.append(mask.astype(np.uint64))
        self.size += len(words)
        return at

    def row(self, slots: Sequence[int], constants: Sequence[Any]) -> int:
        """A set-up row (external ids 0.. over `slots`); returns its first word."""
        words = np.zeros(2 * len(slots), dtype=np.uint64)
        mask = np.zeros_like(words)
        words[0::2] = np.arange(len(slots))
        at = self.size
        for k, slot in enumerate(slots):
            kind, index = self.where.get(slot, ("constant", slot))
            if kind == "arena":
                words[2 * k + 1], mask[2 * k + 1] = index, 1
            elif kind == "constant":
                words[2 * k + 1] = constants[slot].data_ptr()
            else:
                self.patches.append((at + 2 * k + 1, kind, index))
        return self.append(words, mask)


@dataclass(frozen=True)
class FusedCall:
    """One size's XNNPACK calls of a program as rows of one table (see the module)."""

    runtimes: tuple[XnnRuntime, ...]  # each once, in lock order
    shapes: tuple[Any, ...]  # per runtime: its input shapes at this size, None if static
    rows: tuple[tuple[int, int, int], ...]  # (runtime index, externals, table byte offset)
    stable: tuple[bool, ...]  # per row: no word of it changes between calls
    template: np.ndarray  # the table, arena-relative where `mask` is 1
    mask: np.ndarray
    arena: int  # bytes
    patches: tuple[tuple[int, str, int], ...]
    copies: tuple[int, int, int]  # the copies' first word in the table, counts in and out
    out_like: tuple[torch.Tensor, ...]  # expanded templates of the outputs
    per_thread: threading.local

    @staticmethod
    def build(
        steps: Sequence[Step], values: Sequence[Any], inputs: int, outputs: tuple[int, ...],
    ) -> FusedCall | str:  # fmt: skip
        """The layout of `steps` at the size of a call whose slot values were `values`
        (inputs first; the others written by the steps or constants), or why there is none."""
        written = {s for step in steps for s in step.writes}
        late_reads = {s for step in steps for s in step.reads} | set(outputs)
        for slot in outputs:
            if slot not in written:
                return "an output not computed by the program's steps"
        if len(set(outputs)) != len(outputs):
            return "a value returned twice"
        for slot, value in enumerate(values):
            if slot >= inputs and slot not in written and value is not None and not (
                isinstance(value, torch.Tensor) and value.is_contiguous()
            ):  # fmt: skip
                return "a constant read by XNNPACK that is not a contiguous tensor"
        io = [values[i] for i in range(inputs)] + [values[s] for s in outputs]
        layout = _Layout(values[:inputs], outputs, sum(t.nbytes for t in io) <= COPIED_BYTES)
        runtimes: dict[int, tuple[XnnRuntime, Any]] = {}
        rows: list[tuple[int, int, int]] = []

        def index_of(rt: XnnRuntime, shapes: Any) -> int:
            key = id(rt)
            if key not in runtimes:
                runtimes[key] = (rt, shapes)
            elif runtimes[key][1] != shapes:
                raise _Decline("a runtime called at two shapes in one call")
            return list(runtimes).index(key)

        try:
            for step in steps:
                if type(step.run) is XnnRuntime:
                    rt = step.run
                    for slot in step.writes:
                        layout.place(slot, values[slot])
                    at = layout.row((*step.reads, *step.writes), values)
                    # the shapes `run` reshapes it for (read from the call: another
                    # thread may be reshaping it now)
                    shapes = None if rt._input_dims is None else [
                        values[slot].shape for slot in step.reads]  # fmt: skip
                    rows.append((index_of(rt, shapes), len(step.reads) + len(step.writes), at))
                elif type(step.run) is LstmRunner:
                    _place_loop(layout, step, values, late_reads, rows, index_of)
                else:
                    return f"a step on {type(step.run).__name__}, not an XNNPACK runtime"
        except _Decline as e:
            return str(e)
        copies = layout.copy_words()
        patched = [word for word, _, _ in layout.patches]
        order = sorted(runtimes.values(), key=lambda entry: id(entry[0]._lock))
        position = {id(rt): k for k, (rt, _) in enumerate(order)}
        keys = list(runtimes)
        return FusedCall(
            runtimes=tuple(rt for rt, _ in order),
            shapes=tuple(shapes for _, shapes in order),
            rows=tuple((position[keys[i]], n, 8 * at) for i, n, at in rows),
            stable=tuple(not any(at <= w < at + 2 * n for w in patched) for _, n, at in rows),
            template=np.concatenate(layout.words), mask=np.concatenate(layout.masks),
            arena=layout.arena, patches=tuple(layout.patches), copies=copies,
            out_like=tuple(values[s].new_empty(()).expand(values[s].shape) for s in outputs),
            per_thread=threading.local(),
        )  # fmt: skip

    def __call__(self, tensors: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """The outputs for `tensors` (checked against the program's signature: dtypes and
        shapes of this size)."""
        ins = [t if t.is_contiguous() else t.contiguous() for t in tensors]
        for i, t in enumerate(ins):
            if not t.is_cpu:
                raise ValueError(f"input {i}: expected a CPU tensor, got one on {t.device}")
        outs = tuple([_empty_like(t, memory_format=_CONTIGUOUS) for t in self.out_like])
        runtimes = self.runtimes
        for rt in runtimes:
            rt._lock.acquire()
        try:
            for rt, shapes in zip(runtimes, self.shapes):
                if rt._runtime is None:
                    raise RuntimeError("the runtime is closed")
                if rt._shapes is None or (shapes is not None and rt._shapes != shapes):
                    rt._shaped(shapes)  # the first call, or another size left it
                rt._pointers = None  # its own next run sets up again
            state = getattr(self.per_thread, "state", None) or self._thread_state()
            table = state.table
            for word, kind, index in self.patches:
                table[word] = (ins if kind == "input" else outs)[index].data_ptr()
            self._run(state)
        finally:
            for rt in runtimes:
                rt._lock.release()
        return outs

    def _run(self, state: _ThreadState) -> None:
        """The rows, in C where the package was built, else in Python."""
        native = capi.row_runner()
        _, copies_in, copies_out = self.copies
        if native is not None:
            count = len(self.rows)
            done = native.run(state.rows_at, count, state.copies_at, copies_in, copies_out,
                              state.failure_at)  # fmt: skip
            if done != count:
                status, stage = state.failure.tolist()
                name = "xnn_invoke_runtime" if stage else "xnn_setup_runtime_v2"
                raise XnnpackError("", name, status)
            return
        lib = capi.library()
        setup, invoke = lib.setup_runtime_at, lib.invoke_runtime
        copies = state.table[self.copies[0] :].reshape(-1, 3).tolist()
        for dst, src, nbytes in copies[:copies_in]:
            ctypes.memmove(dst, src, nbytes)
        for handle, count, address, owner, _ in state.rows.tolist():
            # this loop sets up every row: no row's set-up is current after it
            ctypes.c_uint64.from_address(owner).value = 0
            if status := setup(handle, count, address):
                raise XnnpackError("", "xnn_setup_runtime_v2", status)
            if status := invoke(handle):
                raise XnnpackError("", "xnn_invoke_runtime", status)
        for dst, src, nbytes in copies[copies_in:]:
            ctypes.memmove(dst, src, nbytes)

    def _thread_state(self) -> _ThreadState:
        """The calling thread's arena, its table (the arena's address added) and rows (the
        runtimes, open: checked by the caller), made at its first call. A stable row gets a
        token of its own: it runs without a set-up while its runtime's owner word holds it
        (its last set-up was this row's); another row's token is 0: its set-up clears the
        word."""
        arena = np.empty(self.arena + _ALIGN, dtype=np.uint8)
        base = arena.ctypes.data + -arena.ctypes.data % _ALIGN
        table = self.template + self.mask * np.uint64(base)
        rows = np.array([
            (self.runtimes[k]._runtime, count, table.ctypes.data + offset,
             self.runtimes[k]._owner.ctypes.data, next(_TOKENS) if stable else 0)
            for (k, count, offset), stable in zip(self.rows, self.stable)
        ], dtype=np.uint64)  # fmt: skip
        failure = np.zeros(2, dtype=np.int32)
        state = _ThreadState(
            table, rows, failure, arena, rows.ctypes.data,
            table.ctypes.data + 8 * self.copies[0], failure.ctypes.data,
        )  # fmt: skip
        self.per_thread.state = state
        return state


class _ThreadState(NamedTuple):
    """A calling thread's table, its rows ([n, 5]: runtime, externals, row address, owner
    word address, token or 0), a failure's (status, stage), the arena the table points into,
    and the addresses of the rows, the copies and the failure."""

    table: np.ndarray
    rows: np.ndarray
    failure: np.ndarray
    arena: np.ndarray
    rows_at: int
    copies_at: int
    failure_at: int


class _Decline(Exception):
    """Why a program's steps cannot be laid out as one table."""


def _place_loop(
    layout: _Layout, step: Step, values: Sequence[Any], late_reads: set[int],
    rows: list[tuple[int, int, int]], index_of: Any,
) -> None:  # fmt: skip
    """The loop's block in the arena, its plan's table rows in the table."""
    runner: LstmRunner = step.run
    if not runner.zero_state or runner.batch_first:
        raise _Decline("an LSTM loop with a given state or batch-first input")
    x, _, _ = step.reads
    out, h_n, c_n = step.writes
    if h_n in late_reads or out in layout.outputs or c_n in layout.outputs:
        raise _Decline("an LSTM loop whose h_n or results leave the program")
    plan = runner._plan(values[x].shape[0])
    ((runs, merge),) = plan.layers if len(plan.layers) == 1 else ((None, True),)
    if merge is not None:
        raise _Decline("a bidirectional LSTM loop over a batch")
    block = layout.reserve(plan.table_at * 8)  # its data; the table goes into ours
    for slot, (region, _) in zip((out, c_n), (plan.results[0], plan.results[2])):
        layout.where[slot] = ("arena", block + region.start * 4)
    words, mask = plan.table.copy(), plan.address.copy()
    words[mask == 1] += np.uint64(block)
    first = layout.append(words, mask)
    kind, index = layout.where.get(x, ("constant", x))
    words, masks = layout.words[-1], layout.masks[-1]
    for word in plan.inputs:  # x's address: in the arena, a constant's, or a call's input
        masks[word] = kind == "arena"
        if kind == "arena":
            words[word] = index
        elif kind == "constant":
            words[word] = values[x].data_ptr()
        else:
            layout.patches.append((first + int(word), kind, index))
    for rt, offset, count, shapes in runs:  # each a row (`_Plan.build` makes them 1 each)
        if count != 1:
            raise _Decline("an LSTM loop plan of several rows per call")
        rows.append((index_of(rt, shapes), len(rt._externals), first + offset // 8 - plan.table_at))
