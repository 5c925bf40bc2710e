"""An LSTM kept whole, `aten.generic "xnnc::lstm"`, to `xnn.lstm`, unrolled only when the
subgraph is serialized (`backend_xnnpack.lstm_steps`): a static LSTM's form wherever the
recurrent loop does not run it. The importer names it so (`frontend.fx_importer.decompose`:
the stock target, `disable=("lstm-loop",)`), and so does the `.pte` path
(`pte.kept_ops`: the partitioner retargets each LSTM it takes to `xnnc::lstm`, which
ExecuTorch's `to_edge` leaves whole).

`lstm_args` reads an LSTM op's `aten.lstm.input` arguments and says why one cannot be run
as XNNPACK nodes (`backend_xnnpack.nodes.lstm_loop_refusal`): the recurrent loop's planner asks
it of `aten::lstm.input` too, so both forms refuse for the same reasons.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, TensorType

from xnnc.backend_xnnpack.nodes import lstm_loop_refusal
from xnnc.dialects import aten
from xnnc.ir.constants import constant_op
from xnnc.ir.schema import from_attr

KEPT_LSTM = "xnnc::lstm"  # torch.ops.xnnc.lstm (frontend.symbolic_lstm.KEPT_LSTM) as imported


@dataclass(frozen=True)
class LstmArgs:
    """An LSTM op's arguments: operand indices of the input, h0, c0 and the flat weights
    (per cell w_ih, w_hh[, b_ih, b_hh], torch's `_flat_weights` order), and its flags."""

    x: int
    h0: int
    c0: int
    params: tuple[int, ...]
    has_biases: bool
    layers: int
    bidirectional: bool
    batch_first: bool


def lstm_args(op: aten.GenericOp) -> LstmArgs | str:
    """The arguments of an `aten.lstm.input`-schema op, or why XNNPACK's nodes cannot run
    it (`lstm_loop_refusal`): train mode, proj_size, another dtype, symbolic batch or features, or
    weights that are not constants."""
    operands = list(range(len(op.operands)))
    args = [from_attr(a, operands) for a in op.args.data]
    if op.kwargs.data or len(args) != 9:
        return lstm_loop_refusal(arguments=len(args), keywords=bool(op.kwargs.data))  # type: ignore[return-value]
    x, (h0, c0), params, has_biases, layers, _, train, bidirectional, batch_first = args
    values = list(op.operands)
    types = [values[i].type for i in (x, h0, c0, *params)]
    h_shape, c_shape = values[h0].type.get_shape(), values[c0].type.get_shape()
    per_cell = 4 if has_biases else 2
    x_shape = list(values[x].type.get_shape())
    del x_shape[1 if batch_first else 0]
    why = lstm_loop_refusal(
        train=bool(train),
        f32=all(isinstance(t, TensorType) and isinstance(t.element_type, Float32Type)
                for t in types),
        projected=h_shape[-1] != c_shape[-1]
        or len(params) != layers * (2 if bidirectional else 1) * per_cell,
        static=DYNAMIC_INDEX not in x_shape and DYNAMIC_INDEX not in h_shape,
        constant_weights=all(constant_op(values[i]) is not None for i in params),
    )  # fmt: skip
    if why is not None:
        return why
    return LstmArgs(x, h0, c0, tuple(params), bool(has_biases), layers, bool(bidirectional),
                    bool(batch_first))  # fmt: skip


def check_kept_lstm(op: aten.GenericOp) -> str | None:
    """Why `xnn.lstm` cannot take this `xnnc::lstm` (None: it can)."""
    args = lstm_args(op)
    if isinstance(args, str):
        return args
    shape = op.operands[args.x].type.get_shape()  # static: lstm_args checked
    frames, batch = (shape[1], shape[0]) if args.batch_first else (shape[0], shape[1])
    if min(frames, batch) < 1:
        return f"xnn.lstm needs at least one frame and batch row, got T={frames}, B={batch}"
    return None


# The ATen ops whose XNNPACK nodes `xnn.lstm` serializes to (its projections and steps:
# fully-connected, add, multiply, sigmoid, tanh, concatenate): excluding one keeps an LSTM
# out of XNNPACK too, as it did when torch's decomposition unrolled it into those ops.
STEP_OPS = ("aten.linear", "aten.add", "aten.mul", "aten.sigmoid", "aten.tanh", "aten.cat")


def excluded_steps(exclude: tuple[str, ...]) -> str | None:
    """Why `exclude` keeps an LSTM out (None: it does not)."""
    named = [op for op in STEP_OPS if op in exclude]
    if not named:
        return None
    return f"excluded ({', '.join(named)}: ops its steps compute)"


def is_kept_lstm(op: object) -> bool:
    return isinstance(op, aten.GenericOp) and op.target.data == KEPT_LSTM
