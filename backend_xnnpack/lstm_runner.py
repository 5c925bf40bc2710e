"""An LSTM over a time axis of any length on XNNPACK: a recurrent loop around two runtimes.

XNNPACK 92a7ad50 has no recurrent node, and unrolling needs the frame count. Per layer and
direction this runs
- the input projection of every frame at once: one fully-connected node over [T*B, I] ->
  [T*B, 4H] with `bias_ih + bias_hh` as its bias, reshaped whenever T changes;
- the steps, on runtimes of static shapes of K unrolled steps (K in `unroll`, by default 8,
  4, 2 and 1; each call the largest that fits the frames left): inputs the K frames'
  projected gates [B, 4H], h [B, H] and c [B, H]; outputs each frame's h' and the last c'.
  Their external values are pointed at the frames' rows before each invoke
  (`xnn_setup_runtime_v2`, no reshape). Each h' is written straight into its row of the
  layer's output, which the next step reads as its h; c ping-pongs between two buffers from
  call to call, the last c' lands in c_n. Unrolling costs XNNPACK nothing per step it would
  not pay anyway (each operator is set up and run once either way) and saves a call's fixed
  cost per step: at hidden 32, 64 frames, 2 layers, 169 -> 115 us a call.

At a few frames the Python around those calls is the cost (at hidden 8, one frame: ~30 us
a layer against ~2 us of XNNPACK), so a call does a few numpy and ctypes operations per
layer: everything that depends only on the frame count (the layout of the call's buffers,
the set-up table of every XNNPACK call as offsets into them) is a `_Plan`, cached per size;
a call allocates one block for all its buffers, adds the block's address to the table
(one numpy add), and passes the table's rows to XNNPACK by address (`run_tables`: the
projections and the steps in one call).

The weights are packed by XNNPACK once, when the runner is built (the runtimes are built with
`consume=True`: they keep only the packed form; a cell's step runtimes share one packed
W_hh). Calls may come from several threads: each call has its own block, the plans are
read-only, and each runtime runs one call's set-up and invoke at a time (its lock).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from xnnc.backend_xnnpack.lstm_steps import emit_step
from xnnc.backend_xnnpack.runtime import XnnRuntime
from xnnc.backend_xnnpack.runtime.packed_weights import PackedWeights
from xnnc.backend_xnnpack.runtime.runtime import run_tables
from xnnc.backend_xnnpack.serialize import GraphBuilder

_NO_CLAMP = (-np.inf, np.inf)
_F32 = 4  # bytes


@dataclass(frozen=True)
class LstmCell:
    """One layer and direction's weights, torch's layout: `w_ih` [4H, I], `w_hh` [4H, H],
    `bias` [4H] (bias_ih + bias_hh) or None; gates in torch's order i, f, g, o."""

    w_ih: np.ndarray
    w_hh: np.ndarray
    bias: np.ndarray | None


def _projection(cell: LstmCell, threads: int, packed: PackedWeights | None = None) -> XnnRuntime:
    """x [N, I] -> x @ w_ih.T + bias [N, 4H], N any (declared 1: reshaped per call).
    `packed`: its packed weights saved before (`LstmRunner.packed_runtimes`)."""
    gates, width = cell.w_ih.shape
    g = GraphBuilder()
    g.value("x", "fp32", [1, width], external="input")
    g.value("w", "fp32", [gates, width], data=memoryview(cell.w_ih))
    bias = GraphBuilder.NO_VALUE
    if cell.bias is not None:
        bias = g.value("b", "fp32", [gates], data=memoryview(cell.bias))
    g.value("y", "fp32", [1, gates], external="output")
    g.add_node(g.node("XNNFullyConnected", input1_id=g.id("x"), filter_id=g.id("w"),
                      bias_id=bias, output_id=g.id("y"), flags=0), "projection",
               _NO_CLAMP)  # fmt: skip
    blob, named = g.finish_named(["y"])
    return XnnRuntime(blob, named, threads=threads, consume=True, resizable=True,
                      packed=packed)  # fmt: skip


def _steps(
    cell: LstmCell, batch: int, threads: int, count: int = 1, *, zero_state: bool = False,
    packed: PackedWeights | None = None,
) -> XnnRuntime:  # fmt: skip
    """`count` time steps unrolled: (gates_x [B, 4H] of each frame, h [B, H], c [B, H]) ->
    (h' of each frame, c' of the last); with `zero_state`, the first step from h = c = 0:
    (gates_x of each frame) -> the same, its fully-connected node (W_hh @ 0 = 0) and f * c
    left out. Each h' is an external output that the next step reads in place. `packed`: the
    packed W_hh of another runtime of the cell (W_hh is constant 1 in each)."""
    gates, hidden = cell.w_hh.shape
    g = GraphBuilder()
    row, wide = [batch, hidden], [batch, gates]
    if count > 1 or not zero_state:
        g.value(("w",), "fp32", [gates, hidden], data=memoryview(cell.w_hh))
    for k in range(count):
        g.value(("gx", k), "fp32", wide, external="input")
    if not zero_state:  # step -1's h' and c'
        g.value(("h", -1), "fp32", row, external="input")
        g.value(("c", -1), "fp32", row, external="input")
    for k in range(count):
        g.value(("h", k), "fp32", row, external="output")
        g.value(("c", k), "fp32", row, external="output" if k == count - 1 else None)
    for k in range(count):
        first = zero_state and k == 0
        emit_step(g, k, gx=("gx", k), state=None if first else (("h", k - 1), ("c", k - 1)),
                  w_hh=("w",), row=row, h_out=("h", k), c_out=("c", k), where="step")  # fmt: skip
    blob, named = g.finish_named([("h", k) for k in range(count)] + [("c", count - 1)])
    return XnnRuntime(blob, named, threads=threads, consume=True, packed=packed)


class LstmRunner:
    """`aten.lstm.input` (without proj_size) on XNNPACK for any frame count; built once, its
    weights packed then. `cells` are layer-major, direction-minor (torch's `_flat_weights`
    order); `batch` is static. `zero_state`: every call's h0 and c0 are zeros (the values
    passed are then not read). `unroll`: the step counts of each cell's step runtimes (1
    among them); a call runs the most that fit, largest first.

    A call's work is a few numpy and ctypes operations per layer: per frame count a `_Plan`
    (cached, `plans` sizes) lays out one block of memory for all the call's buffers and
    holds the set-up table of every XNNPACK call as offsets into it; a call allocates the
    block, adds its address to the table (or copies the table filled for a block at that
    address before) and runs the calls (`run_tables`). The outputs are views of that block,
    which also holds the scratch (at hidden 512, 64 frames, 2 layers: ~800 KB for a 128 KB
    output): it lives as long as they do."""

    def __init__(
        self,
        cells: Sequence[LstmCell],
        *,
        layers: int,
        bidirectional: bool,
        batch_first: bool,
        batch: int,
        threads: int = 1,
        zero_state: bool = False,
        plans: int = 16,
        unroll: Sequence[int] = (1, 2, 4, 8),
        packed: Sequence[tuple[PackedWeights | None, PackedWeights | None]] | None = None,
    ):
        self.layers, self.directions = layers, 2 if bidirectional else 1
        if len(cells) != layers * self.directions:
            raise ValueError(f"{len(cells)} cells for {layers} layers x {self.directions}")
        self.batch_first, self.batch = batch_first, batch
        self.hidden, self.width = cells[0].w_hh.shape[1], cells[0].w_ih.shape[1]
        self.zero_state = zero_state
        self._frame = (batch, self.width)  # an input frame's shape
        self._state = (layers * self.directions, batch, self.hidden)  # h0's and c0's
        # `packed`: per cell, the projection's and the steps' packed weights saved before.
        saved = packed or [(None, None)] * len(cells)
        self.projections = [_projection(cell, threads, p) for cell, (p, _) in zip(cells, saved)]
        if 1 not in unroll or min(unroll) < 1:
            raise ValueError(f"unroll {tuple(unroll)}: the step counts must be positive and "
                             "include 1")  # fmt: skip
        self.unroll = tuple(sorted(set(unroll), reverse=True))
        # Per cell, a runtime per step count; the first packs W_hh, the others find it.
        self.steps: list[dict[int, XnnRuntime]] = []
        # h0 = c0 = 0 (an nn.LSTM called without a state): the first step skips W_hh @ h0,
        # as an unrolled compile folds it away (at hidden 512, one of a layer's T+1 GEMVs).
        self.first: list[dict[int, XnnRuntime]] | None = [] if zero_state else None
        for cell, (_, weights) in zip(cells, saved):
            one = _steps(cell, batch, threads, packed=weights)
            shared = one.packed_weights()
            self.steps.append({n: one if n == 1 else _steps(cell, batch, threads, n,
                                                            packed=shared)
                               for n in self.unroll})  # fmt: skip
            if self.first is not None:
                self.first.append({n: _steps(cell, batch, threads, n, zero_state=True,
                                             packed=shared) for n in self.unroll})  # fmt: skip
        # lru_cache is thread-safe; two threads may build one plan, both correct.
        self._plan = functools.lru_cache(maxsize=plans)(self._build_plan)

    def packed_runtimes(self) -> list[tuple[XnnRuntime, XnnRuntime]]:
        """Per cell, the runtimes whose packed weights a saved program keeps (the projection
        and the one-step runtime; the cell's other step runtimes share the latter's) and
        hands back as `packed`."""
        return [(p, steps[1]) for p, steps in zip(self.projections, self.steps, strict=True)]

    def __call__(
        self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(output, h_n, c_n) as `torch.ops.aten.lstm.input` returns them."""
        if self.batch_first:
            x = x.transpose(0, 1)
        frames, state, f32 = x.shape[0], self._state, torch.float32
        if (x.shape[1:] != self._frame or h0.shape != state or c0.shape != state
                or x.dtype != f32 or h0.dtype != f32 or c0.dtype != f32):  # fmt: skip
            self._refuse(x, h0, c0)  # XNNPACK would read past it
        if frames == 0:  # torch's LSTM: an empty output, the state unchanged
            out = x.new_empty(0, self.batch, self.directions * self.hidden)
            return (out.transpose(0, 1) if self.batch_first else out), h0.clone(), c0.clone()
        plan = self._plan(frames)
        x = x.contiguous()
        floats, base, results = self._block(plan, x, h0, c0)
        for runs, merge in plan.layers:
            run_tables(runs, base)
            if merge is not None:  # the directions' [T, B, H] outputs into [T, B, D*H]
                into, parts, shape = merge  # [T, B, D, H] <- [D, T, B, H]
                floats[into].reshape(shape)[:] = floats[parts].reshape(
                    shape[2], *shape[:2], shape[3]).transpose(1, 2, 0, 3)  # fmt: skip
        floats[plan.h_n] = floats[plan.last_h]
        return results

    def _refuse(self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor) -> None:
        """ValueError naming the first of the time-major `x`, h0 and c0 that is not a
        float32 tensor of its shape."""
        for name, t, shape in (("input", x, (x.shape[0], *self._frame)), ("h0", h0, self._state),
                               ("c0", c0, self._state)):  # fmt: skip
            if t.shape != shape or t.dtype != torch.float32:
                raise ValueError(f"LSTM {name}: expected float32 {list(shape)}, got "
                                 f"{t.dtype} {list(t.shape)}")  # fmt: skip

    def _block(
        self, plan: _Plan, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor
    ) -> tuple[np.ndarray, int, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """A call's memory block, its address and the (output, h_n, c_n) tensors in it, with
        its set-up table and h0/c0 in place; `x` contiguous, of the plan's frame count."""
        # numpy's allocation and views cost less than torch's (from_numpy keeps the block).
        floats = np.empty(plan.size, dtype=np.float32)
        views = [floats[at].reshape(shape) for at, shape in plan.results]
        if self.batch_first:
            views[0] = views[0].swapaxes(0, 1)
        results = tuple(map(torch.from_numpy, views))
        base = results[1].data_ptr() - plan.results[1][0].start * _F32
        table = floats.view(np.uint64)[plan.table_at :]
        # malloc mostly hands a call the block the call before freed: then the table is
        # that call's, one copy instead of a multiply and an add.
        last = plan.filled[0]
        if last is not None and last[0] == base:
            table[:] = last[1]
        else:
            np.add(plan.table, plan.address * base, out=table)
            plan.filled[0] = (base, table.copy())
        table[plan.inputs] = x.data_ptr()
        if not self.zero_state:
            floats[plan.h0] = h0.detach().numpy().reshape(-1)
            floats[plan.c0] = c0.detach().numpy().reshape(-1)
        return floats, base, results  # type: ignore[return-value]

    def _build_plan(self, frames: int) -> _Plan:
        return _Plan.build(self, frames)


@dataclass(frozen=True)
class _Plan:
    """One frame count's layout of a call's memory block (float32 units) and its XNNPACK
    calls. `table` (uint64 pairs: `struct xnn_external_value`'s id and address, relative
    to the block; `address` is 1 where the block's address is to be added) goes into the
    block from uint64 word `table_at` on; `inputs` are the table's words the input's
    address goes into; `filled`: the last (block address, table) filled in, as a cache.
    `layers`: the XNNPACK calls (`run_tables` runs: runtime, its rows' byte offset, row
    count, input shapes or None), all in one group, or one per layer when the directions'
    outputs are interleaved after each (bidirectional, batch > 1; then with the copy's
    (into, from, [T, B, D, H]), else None). `h0`/`c0`/`h_n`: slices of the block; `last_h`
    gathers h_n from the outputs; `results`: (slice, shape) of the output (time first),
    h_n and c_n in the block."""

    size: int
    table: np.ndarray
    address: np.ndarray
    table_at: int
    inputs: np.ndarray
    layers: tuple
    h0: slice
    c0: slice
    h_n: slice
    last_h: np.ndarray
    results: tuple
    filled: list = field(default_factory=lambda: [None])

    @staticmethod
    def build(runner: LstmRunner, frames: int) -> _Plan:
        batch, hidden, dirs, layers = runner.batch, runner.hidden, runner.directions, runner.layers
        cells, row = layers * dirs, batch * hidden
        # h' goes straight into the output's row t when a direction's [B, H] rows are
        # contiguous there (one direction, or batch 1); else into one buffer per direction.
        direct = dirs == 1 or batch == 1
        state = 0 if runner.zero_state else cells * row
        layer_out = frames * dirs * row
        sizes = {"out": layers * layer_out, "split": 0 if direct else layers * layer_out,
                 "gates": frames * 4 * row, "c": 2 * row, "h_n": cells * row,
                 "c_n": cells * row, "h0": state, "c0": state}  # fmt: skip
        at, end = {}, 0
        for name, n in sizes.items():  # regions of whole cache lines from the block's start
            at[name], end = end, end + -(-n // 16) * 16
        table_at = end // 2  # uint64 words
        zero = runner.first is not None
        chunks = _chunks(frames, runner.unroll, zero)
        entries, inputs, plan_layers, k = [], [], [], 0  # k: the next table entry
        for layer in range(layers):
            out = at["out"] + layer * layer_out
            if not direct or not layer:
                runs = []
            for d in range(dirs):
                cell = layer * dirs + d
                # The projection: (x, gates); x is the call's input or the layer before's.
                entries.append(np.array([(0, out - layer_out if layer else 0),
                                         (1, at["gates"])], dtype=np.uint64))  # fmt: skip
                if not layer:
                    inputs.append(2 * k + 1)
                width = runner.width if layer == 0 else dirs * hidden
                shapes = [torch.Size((frames * batch, width))]  # a list, as `run` keeps them
                runs.append((runner.projections[cell], (table_at + 2 * k) * 8, 1, shapes))
                k += 2
                h = (out + d * hidden, dirs * row) if direct else (
                    at["split"] + cell * frames * row, row)  # fmt: skip
                steps = _step_rows(frames, at, cell, row, d, h, chunks)
                for start, count, first in chunks:
                    rt = (runner.first if first else runner.steps)[cell][count]
                    entries.append(_chunk_row(steps[start : start + count], first))
                    runs.append((rt, (table_at + 2 * k) * 8, 1, None))
                    k += len(entries[-1])
            if not direct:
                split = at["split"] + layer * layer_out
                merge = (slice(out, out + layer_out), slice(split, split + layer_out),
                         (frames, batch, dirs, hidden))  # fmt: skip
                plan_layers.append((tuple(runs), merge))
        if direct:  # all the calls in one go
            plan_layers.append((tuple(runs), None))
        entries = np.concatenate(entries)
        address = np.zeros_like(entries)
        address[:, 1] = 1
        entries[:, 1] *= _F32
        frozen = [a.reshape(-1) for a in (entries, address, np.array(inputs),
                                          _last_h(runner, frames, at["out"]))]  # fmt: skip
        for a in frozen:
            a.flags.writeable = False
        return _Plan(
            size=2 * table_at + 2 * entries.size, table=frozen[0], address=frozen[1],
            table_at=table_at, inputs=frozen[2], layers=tuple(plan_layers),
            h0=slice(at["h0"], at["h0"] + state), c0=slice(at["c0"], at["c0"] + state),
            h_n=slice(at["h_n"], at["h_n"] + cells * row), last_h=frozen[3],
            results=_results(runner, frames, at),
        )  # fmt: skip


def _chunks(frames: int, unroll: tuple[int, ...], zero_state: bool) -> list[tuple[int, int, bool]]:
    """(first frame, step count, from the zero state) of each step runtime call over
    `frames` frames: the most steps `unroll` (descending) has that fit, first to last."""
    chunks, t = [], 0
    while t < frames:
        count = next(n for n in unroll if n <= frames - t)
        chunks.append((t, count, zero_state and t == 0))
        t += count
    return chunks


def _chunk_row(steps: np.ndarray, zero_state: bool) -> np.ndarray:
    """The external values (id, address) of one call of a `count`-step runtime from its
    frames' step rows [count, (gates_x, h, c, h', c')]: every gates_x, the first h and c (not
    from the zero state), every h', the last c'; ids in that order."""
    parts = [steps[:, 0]]
    if not zero_state:
        parts.append(steps[0, 1:3])
    parts += [steps[:, 3], steps[-1:, 4]]
    addresses = np.concatenate(parts)
    return np.stack([np.arange(len(addresses), dtype=np.uint64), addresses], axis=1)


def _step_rows(
    frames: int, at: dict[str, int], cell: int, row: int, reverse: int, h: tuple[int, int],
    chunks: list[tuple[int, int, bool]],
) -> np.ndarray:  # fmt: skip
    """One cell's [T, (gates_x, h, c, h', c')] addresses of each step's values, in floats from
    the block: the frame's projected gates, h' into the frame's row (`h`: the first's offset,
    the stride), h and c from the step before (h0, c0 first), c' (read only at the end of a
    chunk) alternating between the two rows of `at["c"]` chunk by chunk, the last into c_n."""
    ptr = np.zeros((frames, 5), dtype=np.uint64)
    order = np.arange(frames)[:: -1 if reverse else 1]
    chunk_of = np.repeat(np.arange(len(chunks)), [count for _, count, _ in chunks])
    ptr[:, 0] = at["gates"] + order * 4 * row
    ptr[:, 3] = h[0] + order * h[1]
    ptr[:, 4] = at["c"] + chunk_of % 2 * row
    ptr[-1, 4] = at["c_n"] + cell * row
    ptr[1:, 1:3] = ptr[:-1, 3:5]
    ptr[0, 1:3] = at["h0"] + cell * row, at["c0"] + cell * row
    return ptr


def _last_h(runner: LstmRunner, frames: int, out: int) -> np.ndarray:
    """The floats of h_n [cells, B, H] in the layers' outputs (each [T, B, D*H] from `out`
    on): a direction's h at its last frame."""
    batch, hidden, dirs = runner.batch, runner.hidden, runner.directions
    layer = np.arange(runner.layers)[:, None, None, None]
    d = np.arange(dirs)[None, :, None, None]
    last = np.where(d == 0, frames - 1, 0)
    b, j = np.arange(batch)[:, None], np.arange(hidden)
    width = dirs * hidden
    return out + (layer * frames + last) * batch * width + b * width + d * hidden + j


def _results(runner: LstmRunner, frames: int, at: dict[str, int]) -> tuple:
    """(slice, shape) of the output (the last layer's, time first), h_n and c_n in the
    block."""
    batch, hidden, dirs = runner.batch, runner.hidden, runner.directions
    out, state = frames * batch * dirs * hidden, runner.layers * dirs * batch * hidden
    start = at["out"] + (runner.layers - 1) * out
    return (
        (slice(start, start + out), (frames, batch, dirs * hidden)),
        (slice(at["h_n"], at["h_n"] + state), (runner.layers * dirs, batch, hidden)),
        (slice(at["c_n"], at["c_n"] + state), (runner.layers * dirs, batch, hidden)),
    )
