"""The recurrent ops a Program runs on xnnc's loop over XNNPACK instead of torch.

An `nn.LSTM` over a symbolic time axis is imported whole, as `aten.generic
"aten::lstm.input"`, and stays outside the XNNPACK subgraphs (unrolling needs the frame
count); so is one over a static time axis when the target's rule says so
(`cost.rules.lstm_loop`: unless `lstm-loop` is disabled; on the stock runtime, which runs it
as calls of one step delegate, unless `lstm-step-calls` is). Built where the Program runs
(whatever CPU or runtime it was compiled for: its runtimes are stock XNNPACK nodes), a Program
runs it on `backend_xnnpack.recurrent.LstmRunner` (per layer and direction: an input
projection of all frames, then XNNPACK runtimes of 8, 4, 2 or 1 unrolled steps), its weights
packed once when the Program is created. Elsewhere (an LSTM over a symbolic time axis on the
stock runtime, whose `.pte` refuses it; one the loop does not cover) the interpreter calls
torch's LSTM as before, and `outside()` says why.
docs/dynamic-shapes.md, "LSTM over a symbolic time axis".
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation, SSAValue

from xnnc.backend_xnnpack.lstm_runner import LstmCell, LstmRunner
from xnnc.backend_xnnpack.nodes import lstm_loop_refusal
from xnnc.backend_xnnpack.runtime.packed_weights import PackedWeights, PackedWeightsError
from xnnc.conversion.lstm import lstm_args
from xnnc.dialects import aten
from xnnc.dialects.locations import op_label
from xnnc.errors import PackedWeightsWarning
from xnnc.ir.constants import tensor_of
from xnnc.target import Target

LSTM = "aten::lstm.input"
ON_XNNPACK = (
    "an LSTM kept whole: runs on xnnc's recurrent loop over XNNPACK (per "
    "layer and direction, one fully-connected node projects every frame, then XNNPACK "
    "runtimes of 8, 4, 2 or 1 unrolled steps run the steps); XNNPACK 92a7ad50 has no "
    "recurrent node"
)


class RecurrentOps:
    """A function's LSTM ops: the runner of each that runs on XNNPACK (with the operand
    indices of its input, h0 and c0), and why each other one runs on torch."""

    def __init__(
        self, func: FuncOp, target: Target, threads: int,
        packed: Mapping[str, PackedWeights | None] | None = None,
    ):  # fmt: skip
        """`packed`: packed weights a saved program kept, by `packed_name` (a loaded
        program's: its loops pack nothing); where they do not fit, one warning and the
        weights are packed again."""
        self.runners: dict[Operation, tuple[LstmRunner, tuple[int, int, int]]] = {}
        self.declined: dict[Operation, str] = {}
        self.shapes: dict[Operation, str] = {}  # "2 layers x 1 direction, hidden 64, batch 1"
        for op in func.body.block.ops:
            if not (isinstance(op, aten.GenericOp) and op.target.data == LSTM):
                continue
            if target.runtime != "extended" and not static_input(op):
                continue  # torch's LSTM, as the op's own reason says: the .pte refuses it
            # Any CPU: the loop is XNNPACK runtimes built where the Program runs, as its
            # subgraphs' are (a program compiled for another CPU and loaded here runs it).
            k = len(self.runners)
            saved = None if packed is None else (
                lambda c, k=k: (packed.get(packed_name(k, c, "projection")),
                                packed.get(packed_name(k, c, "steps"))))  # fmt: skip
            try:
                planned = _plan(op, threads, saved)
            except PackedWeightsError as e:
                warnings.warn(
                    f"xnnc.load: the saved packed weights do not fit ({op_label(op)} at "
                    f"{op.location}: {e}); packing the weights again",
                    PackedWeightsWarning,
                    stacklevel=2,
                )
                planned = _plan(op, threads)
            if isinstance(planned, str):
                self.declined[op] = planned
            else:
                self.runners[op], self.shapes[op] = planned[:2], planned[2]
        # Constants only the looped ops read, as weights: the interpreter gives them no value.
        self.unread: set[Operation] = {
            v.owner
            for op in self.runners
            for v in op.operands
            if isinstance(v.owner, aten.ConstantOp) and all(
                u.operation in self.runners and u.index not in self.runners[u.operation][1]
                for u in v.uses
            )
        }  # fmt: skip

    def reason(self, op: Operation, why: str) -> str:
        """`why` (the op's reason for staying outside the subgraphs), as it runs here."""
        if op in self.runners:
            return ON_XNNPACK
        if op in self.declined:
            return f"{why} ({self.declined[op]})"
        return why

    def functions(self, aten_functions: InterpreterFunctions) -> InterpreterFunctions:
        """The interpreter's implementations of the looped ops and of the constants only they
        read (registered over `aten_functions`, which runs every other op)."""
        return _LoopFunctions(self, aten_functions)


@register_impls
class _LoopFunctions(InterpreterFunctions):
    def __init__(self, ops: RecurrentOps, fallback: Any):
        self.ops, self.fallback = ops, fallback

    @impl(aten.GenericOp)
    def run_generic(self, interpreter: Interpreter, op: aten.GenericOp, args: tuple) -> tuple:
        entry = self.ops.runners.get(op)
        if entry is None:
            return self.fallback.run_GenericOp(interpreter, op, args).values
        runner, (x, h0, c0) = entry
        return runner(args[x], args[h0], args[c0])

    @impl(aten.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: aten.ConstantOp, args: tuple) -> tuple:
        if op in self.ops.unread:
            return (None,)  # a weight of looped ops alone, which hold it packed
        return self.fallback.run_ConstantOp(interpreter, op, args).values


def packed_name(k: int, cell: int, part: str) -> str:
    """The name a saved program gives the packed weights of `part` ("projection" or "steps")
    of cell `cell` of its k-th looped LSTM (`LstmRunner.packed_runtimes`)."""
    return f"lstm{k}_{cell}_{part}"


def _plan(
    op: aten.GenericOp, threads: int, saved: Callable[[int], tuple] | None = None
) -> tuple[LstmRunner, tuple, str] | str:
    """(the runner, the operand indices of input/h0/c0, its shape in words), or why the
    loop does not run this LSTM. `saved(c)`: cell c's saved packed weights."""
    parsed = lstm_args(op)
    if isinstance(parsed, str):
        return parsed
    values = list(op.operands)
    x, h0, c0 = parsed.x, parsed.h0, parsed.c0
    layers, bidirectional, batch_first = parsed.layers, parsed.bidirectional, parsed.batch_first
    weights = [_weight(values[i]) for i in parsed.params]
    if any(w is None for w in weights):
        return lstm_loop_refusal(constant_weights=False)
    per_cell = 4 if parsed.has_biases else 2
    directions = 2 if bidirectional else 1
    h_shape = values[h0].type.get_shape()
    cells = []
    for k in range(0, len(weights), per_cell):
        w_ih, w_hh, *biases = weights[k : k + per_cell]
        bias = (biases[0] + biases[1]).astype(np.float32) if biases else None
        cells.append(LstmCell(w_ih, w_hh, bias))
    batch, hidden = h_shape[1], h_shape[2]
    state = [_weight(values[i]) for i in (h0, c0)]
    zero_state = all(s is not None and not s.any() for s in state)
    packed = None if saved is None else [saved(c) for c in range(len(cells))]
    runner = LstmRunner(cells, layers=layers, bidirectional=bidirectional,
                        batch_first=batch_first, batch=batch, threads=threads,
                        zero_state=zero_state, packed=packed)  # fmt: skip
    words = "direction" if directions == 1 else "directions"
    shape = f"{layers} layers x {directions} {words}, hidden {hidden}, batch {batch}"
    return runner, (x, h0, c0), shape


def static_input(op: aten.GenericOp) -> bool:
    """Whether an LSTM op's input has a static shape (the stock runtime's `.pte` runs such
    an LSTM as calls of one step delegate, as the loop does; one over a symbolic time axis
    it refuses)."""
    return DYNAMIC_INDEX not in op.operands[0].type.get_shape()


def _weight(value: SSAValue) -> np.ndarray | None:
    """A constant operand's data (a view of the IR's buffer where it is writable)."""
    owner = value.owner
    if not isinstance(owner, aten.ConstantOp):
        return None
    t: torch.Tensor = tensor_of(owner.value, value.type)
    return t.numpy()
