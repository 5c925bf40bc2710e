"""A Program's plan: its top-level function compiled once into steps over a per-call list of
values, run without xDSL's interpreter (`Plan.plan` says why when it cannot be)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from threading import Lock
from typing import Any

import torch
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue

from xnnc.backend_xnnpack.fused import FusedCall, Step
from xnnc.dialects import aten, xnn
from xnnc.interpreter.aten import AtenFunctions
from xnnc.ir.constants import tensor_of
from xnnc.ir.schema import torch_overload
from xnnc.program.lstm_loop import RecurrentOps


class Plan:
    """The top-level function compiled once into steps over a per-call list of values
    (slots), called without xDSL's interpreter: `xnn.subgraph` calls its runtime, a looped
    LSTM its runner, any other op its implementation in `AtenFunctions`. Constants' tensors
    are made once (views of the IR's buffers) and values of constants and sizes alone (a
    causal mask sliced to the sequence length) once per size, the few most recent sizes kept
    (a prefill/decode loop alternates between two). `plan(func, ...)` builds one, or says
    why the function cannot be planned."""

    KEPT = 4

    def __init__(
        self, func: FuncOp, runtimes: dict, recurrent: RecurrentOps, impls: dict, fuse: bool
    ):
        block = func.body.block
        ops = list(block.ops)
        self.inputs = len(block.args)
        self.slot: dict[SSAValue, int] = {v: i for i, v in enumerate(block.args)}
        self.cached_ops: list[tuple[Any, Operation]] = []  # (impl, op) run once per size
        static = self._schedule(ops[:-1], runtimes, recurrent, impls)
        slot = self.slot
        self.outputs = self._slots_of(ops[-1].operands)
        # Constants' tensors, made once: views of the IR's buffers (`tensor_of`).
        read = [v for v in slot if isinstance(v.owner, aten.ConstantOp)]
        read += [v for _, op in self.cached_ops for v in op.operands
                 if isinstance(v.owner, aten.ConstantOp)]  # fmt: skip
        self.constants = {v: tensor_of(v.owner.value, v.type) for v in read}
        self.base: list[Any] = [None] * len(slot)
        for v in read:
            if v in slot:
                self.base[slot[v]] = self.constants[v]
        # The cached values read per call: (value, slot, whether XNNPACK reads it).
        fed = {v for op in ops if isinstance(op, xnn.SubgraphOp) or op in recurrent.runners
               for v in op.operands}  # fmt: skip
        self.sized = [(v, slot[v], v in fed) for _, op in self.cached_ops for v in op.results
                      if v in slot]  # fmt: skip
        # Outputs the plan holds across calls (constants, cached values) are copied out.
        self.held = frozenset(slot[v] for v in ops[-1].operands if v in static)
        # One subgraph on the arguments, returning its results: its runtime called at once
        # (a whole-subgraph program's call costs what it did before the plan).
        self.direct: tuple[Any, Callable[[Sequence], tuple]] | None = None
        if len(self.steps) == 1 and not self.sized and not self.held and not self.torched:
            run, ins, outs, _, _ = self.steps[0]
            if self.outputs == outs and all(i < self.inputs for i in ins):
                self.direct = run, _gather(ins)
        # A program of XNNPACK runtimes and loops alone runs, from its second call at a size
        # on, as one table of set-up rows (`FusedCall`), laid out from its first.
        self.fused: dict[tuple, FusedCall | str] | None = None
        if fuse and not (self.direct or self.sized or self.held or self.torched):
            self.fused = {}
            self.layout = tuple(Step(run, ins, outs) for run, ins, outs, _, _ in self.steps)
        # Per step, its operands fetched from the slots by one call (no list built per call).
        self.steps = tuple((run, _gather(ins), *rest) for run, ins, *rest in self.steps)
        self.results = _gather(self.outputs)
        self.cache: dict[tuple, list[torch.Tensor]] = {}
        self.cache_lock = Lock()  # a program is called from many threads at once

    def _schedule(self, ops: list, runtimes: dict, recurrent: RecurrentOps, impls: dict) -> set:
        """`steps` (run, operand slots, result slots, the op for its aten implementation or
        None, the op; `__init__` then replaces the operand slots by their `_gather`) and
        `cached_ops` for `ops`; returns the values of constants and sizes alone."""
        # torched: a step runs on torch (its inputs may record a graph; the recurrent loop's
        # runners write fresh tensors from numpy, as XNNPACK does)
        steps, static, self.torched = [], set(), False
        for op in ops:
            if isinstance(op, aten.ConstantOp):
                if op not in recurrent.unread:  # those the loops hold packed get nothing
                    static.add(op.result)
            elif isinstance(op, xnn.SubgraphOp):
                steps.append((runtimes[op], self._slots_of(op.inputs),
                              self._slots_of(op.results), None, op))  # fmt: skip
            elif op in recurrent.runners:
                runner, indices = recurrent.runners[op]
                ins = self._slots_of([op.operands[i] for i in indices])
                steps.append((runner, ins, self._slots_of(op.results), None, op))
            elif all(v in static for v in op.operands) and op.operands and not _seeded(op):
                self.cached_ops.append((impls[type(op)], op))
                static.update(op.results)
            else:
                ins, outs = self._slots_of(op.operands), self._slots_of(op.results)
                steps.append((impls[type(op)], ins, outs, op, op))
                self.torched = True
        self.steps = tuple(steps)
        return static

    def _slots_of(self, values: Sequence[SSAValue]) -> tuple[int, ...]:
        """The slots of `values`, given to those without one (a result, or a constant's or
        cached value read per call)."""
        for v in values:
            if v not in self.slot:
                self.slot[v] = len(self.slot)
        return tuple(self.slot[v] for v in values)

    @staticmethod
    def plan(
        func: FuncOp, runtimes: dict, recurrent: RecurrentOps, fuse: bool = True
    ) -> Plan | str:
        """The function's plan, or why it has none (the interpreter runs it then). `fuse`:
        whether a program of XNNPACK calls alone may run as one table (not when profiling:
        the profile is read per runtime call)."""
        if len(func.body.blocks) != 1:
            return "a function of several blocks (branches)"
        ops = list(func.body.block.ops)
        if not ops or not isinstance(ops[-1], ReturnOp):
            return "a function not ending in func.return"
        impls = dict(AtenFunctions._impls())
        for op in ops[:-1]:
            if isinstance(op, xnn.SubgraphOp) or op in recurrent.runners:
                continue
            if op.regions:
                return f"{op.name} has regions: the interpreter runs nested code"
            if type(op) not in impls:
                return f"{op.name} is no aten op: the interpreter runs it"
        return Plan(func, runtimes, recurrent, impls, fuse)

    def __call__(self, tensors: tuple[torch.Tensor, ...], sizes: dict[str, int]) -> tuple:
        if self.direct is not None:
            run, gather = self.direct
            return tuple(run(*gather(tensors)))
        fused = None
        if self.fused is not None:
            fused = self.fused.get(key := tuple(sorted(sizes.items())))
            if fused is not None and not isinstance(fused, str):
                return fused(tensors)
        slots = self.base.copy()
        slots[: self.inputs] = tensors
        if self.sized:
            for (_, i, _), value in zip(self.sized, self._sized_values(sizes)):
                slots[i] = value
        functions = None
        if self.torched:
            functions = AtenFunctions()
            functions.sizes = sizes
        try:
            for step in self.steps:
                run, gather, outs, torch_op, _ = step
                # The aten implementations read no interpreter state: none is passed.
                results = run(*gather(slots)) if torch_op is None else (
                    run(functions, None, torch_op, gather(slots)).values
                )  # fmt: skip
                for i, value in zip(outs, results):
                    slots[i] = value
        except Exception as e:  # as xDSL's interpreter reports it: the IR, the op marked
            step[4].emit_error("Error while interpreting op", e)
        if self.fused is not None and fused is None:
            self._fuse(key, slots)
        if self.held:
            return tuple(slots[i].clone() if i in self.held else slots[i] for i in self.outputs)
        return self.results(slots)

    def _fuse(self, key: tuple, slots: list) -> None:
        """Lays out the calls at the size of `key` from a call's `slots` (or records why
        not), the few most recent sizes kept."""
        fused = FusedCall.build(self.layout, slots, self.inputs, self.outputs)
        with self.cache_lock:
            if len(self.fused) >= self.KEPT:
                self.fused.pop(next(iter(self.fused)))
            self.fused[key] = fused

    def _sized_values(self, sizes: dict[str, int]) -> list[torch.Tensor]:
        key = tuple(sorted(sizes.items()))
        with self.cache_lock:
            values = self.cache.get(key)
            if values is None:
                values = self._compute(sizes)
                if len(self.cache) >= self.KEPT:
                    self.cache.pop(next(iter(self.cache)))
                self.cache[key] = values
        return values

    def _compute(self, sizes: dict[str, int]) -> list[torch.Tensor]:
        functions = AtenFunctions()
        functions.sizes = sizes
        values: dict[SSAValue, Any] = dict(self.constants)
        with torch.no_grad():  # once per size, on constants
            for run, op in self.cached_ops:
                try:
                    args = tuple(values[v] for v in op.operands)
                    values.update(zip(op.results, run(functions, None, op, args).values))
                except Exception as e:
                    op.emit_error("Error while interpreting op", e)
        # XNNPACK reads a subgraph's inputs as dense arrays.
        return [values[v].contiguous() if fed else values[v] for v, _, fed in self.sized]


def _gather(slots: tuple[int, ...]) -> Callable[[Sequence], tuple]:
    """A function returning the items of a list at `slots`, as a tuple (itemgetter returns
    a lone item bare)."""
    if len(slots) == 1:
        (i,) = slots
        return lambda values: (values[i],)
    return itemgetter(*slots) if slots else lambda values: ()


def _seeded(op: Operation) -> bool:
    """Whether `op` draws random numbers (each call must then draw its own)."""
    names = [op.target.data] if isinstance(op, aten.GenericOp) else type(op).OVERLOADS
    try:
        return any(torch.Tag.nondeterministic_seeded in torch_overload(n).tags for n in names)
    except (AttributeError, ValueError):  # not a torch op: nothing to cache it by
        return True
