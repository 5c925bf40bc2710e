"""An LSTM over a time axis of any length on XNNPACK: a recurrent loop around two runtimes.

XNNPACK 92a7ad50 has no recurrent node, and unrolling needs the frame count. Per layer and
direction this runs
- the input projection of every frame at once: one fully-connected node over [T*B, I] ->
  [T*B, 4H] with `bias_ih + bias_hh` as its bias, reshaped whenever T changes;
- one step, T times: a runtime of static shapes (inputs: the frame's projected gates
  [B, 4H], h [B, H], c [B, H]; outputs h', c') whose external values are pointed at the
  frame's rows before each invoke (`XnnRuntime.run_steps`: `xnn_setup_runtime_v2`, no
  reshape). h' is written straight into row t of the layer's output, which the next step
  reads as its h; c ping-pongs between two buffers.

The weights are packed by XNNPACK once, when the runner is built (the runtimes are built with
`consume=True`: they keep only the packed form). Calls may come from several threads: each
call has its own buffers, and each step runtime runs one call's steps at a time (its lock).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from xnnc.backend_xnnpack.runtime import XnnRuntime
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
    passed are then not read)."""

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
    ):
        self.layers, self.directions = layers, 2 if bidirectional else 1
        if len(cells) != layers * self.directions:
            raise ValueError(f"{len(cells)} cells for {layers} layers x {self.directions}")
        self.batch_first, self.batch = batch_first, batch
        self.hidden, self.width = cells[0].w_hh.shape[1], cells[0].w_ih.shape[1]
        self.projections = [_projection(cell, threads) for cell in cells]
        self.steps = [_step(cell, batch, threads) for cell in cells]
        # h0 = c0 = 0 (an nn.LSTM called without a state): the first step skips W_hh @ h0,
        # as an unrolled compile folds it away (at hidden 512, one of a layer's T+1 GEMVs).
        self.first = [_step(cell, batch, threads, True) for cell in cells] if zero_state else None

    def __call__(
        self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(output, h_n, c_n) as `torch.ops.aten.lstm.input` returns them."""
        if self.batch_first:
            x = x.transpose(0, 1)
        frames, batch, hidden, dirs = x.shape[0], self.batch, self.hidden, self.directions
        state = (self.layers * dirs, batch, hidden)
        for name, t, shape in (("input", x, (frames, batch, self.width)), ("h0", h0, state),
                               ("c0", c0, state)):  # fmt: skip
            if t.shape != shape or t.dtype != torch.float32:  # XNNPACK would read past it
                raise ValueError(f"LSTM {name}: expected float32 {list(shape)}, got "
                                 f"{t.dtype} {list(t.shape)}")  # fmt: skip
        h0, c0 = h0.contiguous(), c0.contiguous()
        if frames == 0:  # torch's LSTM: an empty output, the state unchanged
            out = x.new_empty(0, batch, dirs * hidden)
            return (out.transpose(0, 1) if self.batch_first else out), h0.clone(), c0.clone()
        h_n, c_n = torch.empty_like(h0), torch.empty_like(c0)
        hn, cn = h_n.numpy(), c_n.numpy()
        c = torch.empty(2, batch, hidden)  # this call's c, ping-ponging; every cell reuses it
        cells = c.numpy()
        row = batch * hidden * _F32  # bytes of one [B, H] state
        # h' goes straight into the output's row t when a direction's [B, H] rows are
        # contiguous there (one direction, or batch 1); else into one buffer per direction.
        direct = dirs == 1 or batch == 1
        for layer in range(self.layers):
            x = x.contiguous()
            if direct:
                out = torch.empty(frames, batch, dirs * hidden)
                outs = [out] * dirs
            else:
                outs = [torch.empty(frames, batch, hidden) for _ in range(dirs)]
            for d in range(dirs):
                cell = layer * dirs + d
                (gates,) = self.projections[cell].run(x.reshape(frames * batch, -1))
                base, stride = outs[d].data_ptr(), outs[d].stride(0) * _F32
                if direct:
                    base += d * hidden * _F32
                order = np.arange(frames, dtype=np.uint64)
                if d:
                    order = order[::-1]
                table = _addresses(
                    order, gates.data_ptr(), 4 * row, base, stride, h0.data_ptr() + cell * row,
                    c0.data_ptr() + cell * row, c.data_ptr(), row,
                )  # fmt: skip
                if self.first is not None:  # (gates_x, h', c') of the first step
                    self.first[cell].run_steps(table[:1, [0, 3, 4]])
                    table = table[1:]
                if len(table):
                    self.steps[cell].run_steps(table)
                last = outs[d].numpy()[int(order[-1])]
                hn[cell] = last[:, d * hidden : (d + 1) * hidden] if direct else last
                cn[cell] = cells[(frames - 1) % 2]
            x = outs[0] if direct else torch.cat(outs, dim=2)
        return (x.transpose(0, 1) if self.batch_first else x), h_n, c_n


def _addresses(
    order: np.ndarray, gates: int, gates_row: int, out: int, out_row: int, h0: int, c0: int,
    c: int, row: int,
) -> np.ndarray:  # fmt: skip
    """Each step's external addresses [steps, (gates_x, h, c, h', c')]: the frame's
    projected gates, h' into the output's row t, h from the row written one step before (h0
    first), c alternating between the two rows of `c` (c0 first)."""
    table = np.empty((len(order), 5), dtype=np.uint64)
    table[:, 0] = order * np.uint64(gates_row) + np.uint64(gates)
    table[:, 3] = order * np.uint64(out_row) + np.uint64(out)
    table[0::2, 4], table[1::2, 4] = c, c + row
    table[0, 1], table[0, 2] = h0, c0
    table[1:, 1:3] = table[:-1, 3:5]
    return table
