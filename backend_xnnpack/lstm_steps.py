"""An LSTM's time steps as XNNPACK nodes: one step (`emit_step`, shared by the recurrent
loop's step runtimes and the serializer) and a whole static LSTM (`emit_lstm`, what
`xnn.lstm` serializes to).

XNNPACK 92a7ad50 has no recurrent node. A step is 15 nodes on the frame's projected gates
gx [.., 4H] (x @ W_ih^T + b_ih + b_hh, computed for every frame at once before the steps):

    gates = gx + h @ W_hh^T              (fully-connected, add)
    i, f, g, o = the four H-wide slices  (static slices of the last dim, torch's gate order)
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h' = sigmoid(o) * tanh(c')

From a zero state (an LSTM called without h0/c0) the first step has no fully-connected
node and no f * c: 10 nodes. A static LSTM serialized this way holds one copy of each
weight (every step's node reads the same W_hh value: `GraphBuilder` defines a constant
once), where an unrolled IR holds ~15 ops per step and frame (EnCodec's decoder: 2800).
No xDSL and no torch here: the runtime's loop builds its step runtimes with it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from xnnc.backend_xnnpack.nodes import MAX_CONCATENATE_INPUTS
from xnnc.backend_xnnpack.serialize import GraphBuilder

_NO_CLAMP = (float("-inf"), float("inf"))
_F32 = "fp32"


def emit_step(
    g: GraphBuilder, key: Hashable, *, gx: Hashable, state: tuple[Hashable, Hashable] | None,
    w_hh: Hashable, row: Sequence[int], h_out: Hashable, c_out: Hashable, where: str = "lstm",
) -> None:  # fmt: skip
    """One step's nodes: `gx` the frame's projected gates (`row` with its last dim 4H),
    `state` the (h, c) before the step (`row`-shaped; None: zeros), `w_hh` [4H, H]; `h_out`
    and `c_out` are defined by the caller (external or not). The step's own values are
    keyed (key, name)."""
    row = [int(d) for d in row]
    hidden = row[-1]
    wide = [*row[:-1], 4 * hidden]

    def value(name: str, shape: Sequence[int]) -> Hashable:
        g.value((key, name), _F32, shape)
        return (key, name)

    def node(kind: str, out: Hashable, **ids: Hashable) -> None:
        fields = {f: g.id(v) for f, v in ids.items()}
        g.add_node(g.node(kind, output_id=g.id(out), flags=0, **fields), where, _NO_CLAMP)

    gates = gx
    if state is not None:
        gh, gates = value("gh", wide), value("gates", wide)
        g.add_node(g.node("XNNFullyConnected", input1_id=g.id(state[0]), filter_id=g.id(w_hh),
                          bias_id=GraphBuilder.NO_VALUE, output_id=g.id(gh), flags=0),
                   where, _NO_CLAMP)  # fmt: skip
        node("XNNAdd", gates, input1_id=gx, input2_id=gh)
    parts = {}
    for j, name in enumerate(("i", "f", "g", "o")):
        if state is None and name == "f":
            continue  # f * 0
        parts[name] = value(name, row)
        offsets = [0] * (len(row) - 1) + [j * hidden]
        g.add_node(g.node("XNNStaticSlice", num_dims=len(row), offsets=offsets, sizes=row,
                          input_id=g.id(gates), output_id=g.id(parts[name]), flags=0),
                   where, _NO_CLAMP)  # fmt: skip
    si, tg, so = value("si", row), value("tg", row), value("so", row)
    node("XNNSigmoid", si, input_id=parts["i"])
    node("XNNTanh", tg, input_id=parts["g"])
    node("XNNSigmoid", so, input_id=parts["o"])
    if state is None:
        node("XNNMultiply", c_out, input1_id=si, input2_id=tg)
    else:
        sf, fc, ig = value("sf", row), value("fc", row), value("ig", row)
        node("XNNSigmoid", sf, input_id=parts["f"])
        node("XNNMultiply", fc, input1_id=sf, input2_id=state[1])
        node("XNNMultiply", ig, input1_id=si, input2_id=tg)
        node("XNNAdd", c_out, input1_id=fc, input2_id=ig)
    tc = value("tc", row)
    node("XNNTanh", tc, input_id=c_out)
    node("XNNMultiply", h_out, input1_id=so, input2_id=tc)


def emit_lstm(
    g: GraphBuilder, key: Hashable, *, x: Hashable, x_shape: Sequence[int],
    state: tuple[Hashable, Hashable] | None, cells: Sequence[tuple[Hashable, Hashable, Hashable]],
    layers: int, bidirectional: bool, batch_first: bool, hidden: int,
    results: tuple[Hashable | None, Hashable | None, Hashable | None], where: str = "lstm",
) -> None:  # fmt: skip
    """A static LSTM's nodes (`aten.lstm.input` without proj_size, inference) on values `g`
    defines already: `x` [T, B, I] ([B, T, I] `batch_first`), `state` (h0, c0), each
    [L*D, B, H], or None for zeros, and per cell (layer-major, direction-minor) the keys of
    W_ih [4H, I], W_hh [4H, H] and the bias b_ih + b_hh [4H] (None: no bias). `results`:
    the keys of (output, h_n, c_n), defined by the caller; None for a result nobody reads.

    Per layer and direction: one fully-connected node projects every frame ([T, B, 4H]),
    then a slice per frame feeds that frame's step; the steps' h' are joined along time,
    the directions' along features, each layer's output the next layer's input."""
    dirs = 2 if bidirectional else 1
    out, h_n, c_n = results
    if batch_first:  # time-major inside, as torch's own decomposition runs it
        b, t, width = x_shape
        x = _node1(g, (key, "x"), "XNNStaticTranspose", [t, b, width], where, input_id=x,
                   num_dims=3, perm=[1, 0, 2])  # fmt: skip
    else:
        t, b, width = x_shape
    row = [1, b, hidden]
    last: list[tuple[Hashable, Hashable]] = []
    for layer in range(layers):
        joined = []
        for d in range(dirs):
            cell = layer * dirs + d
            w_ih, w_hh, bias = cells[cell]
            proj = (key, "proj", cell)
            g.value(proj, _F32, [t, b, 4 * hidden])
            g.add_node(g.node("XNNFullyConnected", input1_id=g.id(x), filter_id=g.id(w_ih),
                              bias_id=GraphBuilder.NO_VALUE if bias is None else g.id(bias),
                              output_id=g.id(proj), flags=0), where, _NO_CLAMP)  # fmt: skip
            cell_state = None
            if state is not None:
                cell_state = tuple(
                    s if layers * dirs == 1 else _node1(
                        g, (key, name, cell), "XNNStaticSlice", row, where, input_id=s,
                        num_dims=3, offsets=[cell, 0, 0], sizes=row)
                    for s, name in zip(state, ("h0", "c0"))
                )  # fmt: skip
            hs: dict[int, Hashable] = {}
            for step in range(t) if d == 0 else range(t - 1, -1, -1):
                frame = [1, b, 4 * hidden]
                gx = proj if t == 1 else _node1(
                    g, (key, "gx", cell, step), "XNNStaticSlice", frame, where, input_id=proj,
                    num_dims=3, offsets=[step, 0, 0], sizes=frame)  # fmt: skip
                h, c = (key, "h", cell, step), (key, "c", cell, step)
                g.value(h, _F32, row)
                g.value(c, _F32, row)
                emit_step(g, (key, cell, step), gx=gx, state=cell_state, w_hh=w_hh, row=row,
                          h_out=h, c_out=c, where=where)  # fmt: skip
                cell_state, hs[step] = (h, c), h
            last.append(cell_state)  # type: ignore[arg-type]
            # The last layer's one direction joins straight into the output.
            into = out if layer == layers - 1 and dirs == 1 and not batch_first else None
            joined.append(concatenate(g, (key, "out", cell), [hs[s] for s in range(t)], 0,
                                      into=into, where=where))  # fmt: skip
        into = out if layer == layers - 1 and not batch_first else None
        x = joined[0] if dirs == 1 else concatenate(g, (key, "layer", layer), joined, 2,
                                                     into=into, where=where)  # fmt: skip
    if out is not None and batch_first:
        _node1(g, out, "XNNStaticTranspose", None, where, input_id=x, num_dims=3,
               perm=[1, 0, 2])  # fmt: skip
    for result, part in ((h_n, 0), (c_n, 1)):
        if result is not None:
            concatenate(g, (key, "state", part), [s[part] for s in last], 0, into=result,
                        where=where)  # fmt: skip


def concatenate(
    g: GraphBuilder, key: Hashable, values: Sequence[Hashable], axis: int, *,
    into: Hashable | None = None, where: str = "lstm",
) -> Hashable:  # fmt: skip
    """`values` joined along `axis` into `into` (defined by the caller) or a new value keyed
    `key`: one node, or a tree of them (XNNPACK joins at most MAX_CONCATENATE_INPUTS); one
    value is itself, or copied into `into`."""
    values = list(values)
    if len(values) == 1:
        return values[0] if into is None else _copy(g, into, values[0], where)
    level = 0
    while len(values) > MAX_CONCATENATE_INPUTS:
        values = [concatenate(g, (key, "tree", level, i), values[i : i + MAX_CONCATENATE_INPUTS],
                              axis, where=where)
                  for i in range(0, len(values), MAX_CONCATENATE_INPUTS)]  # fmt: skip
        level += 1
    shapes = [g.dims(v) for v in values]
    shape = list(shapes[0])
    shape[axis] = sum(s[axis] for s in shapes)
    ids = {f"input{k + 1}_id": v for k, v in enumerate(values)}
    return _node1(g, into if into is not None else key, f"XNNConcatenate{len(values)}",
                  None if into is not None else shape, where, axis=axis, **ids)  # fmt: skip


def _copy(g: GraphBuilder, into: Hashable, value: Hashable, where: str) -> Hashable:
    return _node1(g, into, "XNNCopy", None, where, input_id=value)


def _node1(
    g: GraphBuilder, out: Hashable, kind: str, shape: Sequence[int] | None, where: str,
    **fields: object,
) -> Hashable:  # fmt: skip
    """A node of `kind` writing `out`: a new fp32 value of `shape`, or (None) one the
    caller defined; its `*_id` fields are value keys."""
    if shape is not None:
        g.value(out, _F32, shape)
    fields = {f: g.id(v) if f.endswith("_id") else v for f, v in fields.items()}
    g.add_node(g.node(kind, output_id=g.id(out), flags=0, **fields), where, _NO_CLAMP)
    return out
