"""An LSTM over a time axis of any length on XNNPACK: a recurrent loop around two runtimes.

XNNPACK 92a7ad50 has no recurrent node, and unrolling needs the frame count. Per layer and
direction this runs
- the input projection of every frame at once: one fully-connected node over [T*B, I] ->
  [T*B, 4H] with `bias_ih + bias_hh` as its bias, reshaped whenever T changes;
- one step, T times: a runtime of static shapes (inputs: the frame's projected gates
  [B, 4H], h [B, H], c [B, H]; outputs h', c') whose external values are pointed at the
  frame's rows before each invoke (`xnn_setup_runtime_v2`, no reshape). h' is written
  straight into row t of the layer's output, which the next step reads as its h; c
  ping-pongs between two buffers, the last c' lands in c_n.

At a few frames the Python around those calls is the cost (at hidden 8, one frame: ~30 us
a layer against ~2 us of XNNPACK), so a call does a few numpy and ctypes operations per
layer: everything that depends only on the frame count (the layout of the call's buffers,
the set-up table of every XNNPACK call as offsets into them) is a `_Plan`, cached per size;
a call allocates one block for all its buffers, adds the block's address to the table
(one numpy add), and passes the table's rows to XNNPACK by address (`run_tables`: the
projections, the first step's runtime and the others' in one call).

The weights are packed by XNNPACK once, when the runner is built (the runtimes are built with
`consume=True`: they keep only the packed form). Calls may come from several threads: each
call has its own block, the plans are read-only, and each runtime runs one call's set-up and
invoke (a step runtime: one call's steps) at a time (its lock).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from xnnc.backend_xnnpack.runtime import XnnRuntime
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


def _projection(cell: LstmCell, threads: int) -> XnnRuntime:
    """x [N, I] -> x @ w_ih.T + bias [N, 4H], N any (declared 1: reshaped per call)."""
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
    return XnnRuntime(blob, named, threads=threads, consume=True, resizable=True)


def _step(cell: LstmCell, batch: int, threads: int, zero_state: bool = False) -> XnnRuntime:
    """(gates_x [B, 4H], h [B, H], c [B, H]) -> (h', c') of one time step; with
    `zero_state`, the first step from h = c = 0: (gates_x) -> (h', c'), no fully-connected
    node (W_hh @ 0 = 0) and no f * c."""
    gates, hidden = cell.w_hh.shape
    g = GraphBuilder()
    row = [batch, hidden]
    inputs = (("gx", [batch, gates]),) if zero_state else (
        ("gx", [batch, gates]), ("h", row), ("c", row))  # fmt: skip
    for name, dims in inputs:
        g.value(name, "fp32", dims, external="input")
    for name in ("gh", "g", "i", "f", "gg", "o", "si", "sf", "tg", "so", "fc", "ig", "tc"):
        g.value(name, "fp32", [batch, gates] if name in ("gh", "g") else row)
    g.value("c2", "fp32", row, external="output")
    g.value("h2", "fp32", row, external="output")

    def node(kind: str, out: str, **ids: str) -> None:
        fields = {k: g.id(v) for k, v in ids.items()}
        g.add_node(g.node(kind, output_id=g.id(out), flags=0, **fields), out, _NO_CLAMP)

    if not zero_state:
        g.value("w", "fp32", [gates, hidden], data=memoryview(cell.w_hh))
        g.add_node(g.node("XNNFullyConnected", input1_id=g.id("h"), filter_id=g.id("w"),
                          bias_id=GraphBuilder.NO_VALUE, output_id=g.id("gh"), flags=0), "gh",
                   _NO_CLAMP)  # fmt: skip
        node("XNNAdd", "g", input1_id="gx", input2_id="gh")
    summed = "gx" if zero_state else "g"
    for k, name in enumerate(("i", "f", "gg", "o")):
        if zero_state and name == "f":
            continue
        g.add_node(g.node("XNNStaticSlice", num_dims=2, offsets=[0, k * hidden], sizes=row,
                          input_id=g.id(summed), output_id=g.id(name), flags=0), name,
                   _NO_CLAMP)  # fmt: skip
    node("XNNSigmoid", "si", input_id="i")
    node("XNNTanh", "tg", input_id="gg")
    node("XNNSigmoid", "so", input_id="o")
    if zero_state:
        node("XNNMultiply", "c2", input1_id="si", input2_id="tg")
    else:
        node("XNNSigmoid", "sf", input_id="f")
        node("XNNMultiply", "fc", input1_id="sf", input2_id="c")
        node("XNNMultiply", "ig", input1_id="si", input2_id="tg")
        node("XNNAdd", "c2", input1_id="fc", input2_id="ig")
    node("XNNTanh", "tc", input_id="c2")
    node("XNNMultiply", "h2", input1_id="so", input2_id="tc")
    blob, named = g.finish_named(["h2", "c2"])
    return XnnRuntime(blob, named, threads=threads, consume=True)


class LstmRunner:
    """`aten.lstm.input` (without proj_size) on XNNPACK for any frame count; built once, its
    weights packed then. `cells` are layer-major, direction-minor (torch's `_flat_weights`
    order); `batch` is static. `zero_state`: every call's h0 and c0 are zeros (the values
    passed are then not read).

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
    ):
        self.layers, self.directions = layers, 2 if bidirectional else 1
        if len(cells) != layers * self.directions:
            raise ValueError(f"{len(cells)} cells for {layers} layers x {self.directions}")
        self.batch_first, self.batch = batch_first, batch
        self.hidden, self.width = cells[0].w_hh.shape[1], cells[0].w_ih.shape[1]
        self.zero_state = zero_state
        self._frame = (batch, self.width)  # an input frame's shape
        self._state = (layers * self.directions, batch, self.hidden)  # h0's and c0's
        self.projections = [_projection(cell, threads) for cell in cells]
        self.steps = [_step(cell, batch, threads) for cell in cells]
        # h0 = c0 = 0 (an nn.LSTM called without a state): the first step skips W_hh @ h0,
        # as an unrolled compile folds it away (at hidden 512, one of a layer's T+1 GEMVs).
        self.first = [_step(cell, batch, threads, True) for cell in cells] if zero_state else None
        # lru_cache is thread-safe; two threads may build one plan, both correct.
        self._plan = functools.lru_cache(maxsize=plans)(self._build_plan)

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
        entries = np.zeros((cells * (2 + _STEP_EXTERNALS * frames), 2), dtype=np.uint64)
        inputs, plan_layers, k = [], [], 0  # k: the next table entry
        for layer in range(layers):
            out = at["out"] + layer * layer_out
            if not direct or not layer:
                runs = []
            for d in range(dirs):
                cell = layer * dirs + d
                # The projection: (x, gates); x is the call's input or the layer before's.
                entries[k : k + 2] = (0, out - layer_out if layer else 0), (1, at["gates"])
                if not layer:
                    inputs.append(2 * k + 1)
                rows = entries[k + 2 : k + 2 + _STEP_EXTERNALS * frames]
                h = (out + d * hidden, dirs * row) if direct else (
                    at["split"] + cell * frames * row, row)  # fmt: skip
                _step_rows(rows.reshape(frames, _STEP_EXTERNALS, 2), at, cell, row, d, h,
                           runner.first is not None)  # fmt: skip
                width = runner.width if layer == 0 else dirs * hidden
                shapes = [torch.Size((frames * batch, width))]  # a list, as `run` keeps them
                runs.append((runner.projections[cell], (table_at + 2 * k) * 8, 1, shapes))
                steps_at, step = (table_at + 2 * k + 4) * 8, runner.steps[cell]
                if runner.first is not None:
                    runs.append((runner.first[cell], steps_at, 1, None))
                    steps_at += _STEP_EXTERNALS * 16  # bytes of a struct xnn_external_value row
                if rest := frames - (runner.first is not None):
                    runs.append((step, steps_at, rest, None))
                k += 2 + len(rows)
            if not direct:
                split = at["split"] + layer * layer_out
                merge = (slice(out, out + layer_out), slice(split, split + layer_out),
                         (frames, batch, dirs, hidden))  # fmt: skip
                plan_layers.append((tuple(runs), merge))
        if direct:  # all the calls in one go
            plan_layers.append((tuple(runs), None))
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


_STEP_EXTERNALS = 5  # gates_x, h, c, h', c'


def _step_rows(
    rows: np.ndarray, at: dict[str, int], cell: int, row: int, reverse: int,
    h: tuple[int, int], zero_state: bool,
) -> None:  # fmt: skip
    """Fills one cell's [T, externals, (id, address)] step table, addresses in floats from
    the block: the frame's projected gates, h' into the frame's row (`h`: the first's
    offset, the stride), h and c from the step before (h0, c0 first), c' alternating between
    the two rows of `at["c"]`, the last into c_n. With `zero_state`, the first row is the
    first-step runtime's (gates_x, h', c')."""
    frames = len(rows)
    order = np.arange(frames)[:: -1 if reverse else 1]
    rows[:, :, 0] = np.arange(_STEP_EXTERNALS)
    ptr = rows[:, :, 1]
    ptr[:, 0] = at["gates"] + order * 4 * row
    ptr[:, 3] = h[0] + order * h[1]
    ptr[:, 4] = at["c"] + np.arange(frames) % 2 * row
    ptr[-1, 4] = at["c_n"] + cell * row
    ptr[1:, 1:3] = ptr[:-1, 3:5]
    ptr[0, 1:3] = ptr[0, 3:5] if zero_state else (at["h0"] + cell * row, at["c0"] + cell * row)


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
