"""The driver: `compile`, `load` and `Program`, above every stage of the compiler.

    program = xnnc.compile(model, inputs, target="extended", threads=2)
    outputs = program(*inputs)
    program.profile()            # per-node XNNPACK timings of the last call
    print(program.explain())     # the cost model's choice per layer: rule or tuned, times
    program.save("m.xnnc")       # our program file (IR + blobs); "m.pte" for ExecuTorch
                                 # (needs compile(..., savable=True))

A model goes frontend -> pipeline (conversion, transforms, legalization) -> backend once,
under one `CompileOptions` checked before any work starts. A Program runs the top-level
function: each `xnn.subgraph` on the extended runtime, every op outside XNNPACK on torch
(the reference implementations), so a partially delegated model still runs end to end.

Memory: a compiled program holds the weights once, in XNNPACK's packed form. The blobs are
serialized with the weights in place (named data, `serialize_subgraph_named`) and dropped
once XNNPACK has packed them; unless compiled with `savable=True`, the ExportedProgram is
not kept and the weights used only inside subgraphs (and the copies conversion made of them:
permuted filters, folded batch norms) leave the IR before the runtimes are built, which
release each one as soon as it is packed (`XnnRuntime(consume=True)`), so the unpacked and
the packed weights never all coexist. `save` also stores XNNPACK's packed weights, which
`load` maps and hands to XNNPACK (nothing packed, no source weight read); without them, or
when they were made for another CPU or XNNPACK build, it reads the blobs through an mmap of
the file, so that their pages are returned the same way. `blobs` and `save` serialize again
from the IR, so they need a savable program.
"""

from __future__ import annotations

import io
import json
import math
import mmap
import os
import struct
import tempfile
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from threading import Lock, local
from typing import Any, NamedTuple

import numpy as np
import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation, SSAValue

import xnnc
from xnnc import heap
from xnnc.backend_xnnpack.fused import FusedCall, Step
from xnnc.backend_xnnpack.runtime.packed_weights import PackedWeights, PackedWeightsError
from xnnc.cost.rules import lstm_loop
from xnnc.dialects import aten, xnn
from xnnc.dialects.weights import BlobStore, WeightAttr
from xnnc.dialects.xnn import serialize_subgraph, serialize_subgraph_named, target_of
from xnnc.errors import OptionError, PackedWeightsWarning, TrainingModeWarning, XnncError
from xnnc.frontend.fx_importer import torch_overload
from xnnc.interpreter.aten import AtenFunctions, InputBinder, tensor_of
from xnnc.ir.dims import is_symbolic
from xnnc.ir.types import shape_of, symbol_ranges
from xnnc.options import CompileOptions
from xnnc.recurrent import RecurrentOps, packed_name, static_input
from xnnc.target import Target

PROGRAM_FORMAT = "xnnc-program-1"
_PADDING_ID = 0xD935  # a zip extra field of zeros aligning the data after it (as zipalign)


@register_impls
class SubgraphFunctions(InterpreterFunctions):
    """`xnn.subgraph` runs its blob on the extended runtime."""

    def __init__(self, runtimes: dict[xnn.SubgraphOp, Any]):
        self.runtimes = runtimes

    @impl(xnn.SubgraphOp)
    def run_subgraph(self, interpreter: Interpreter, op: xnn.SubgraphOp, args: tuple) -> tuple:
        return tuple(self.runtimes[op](*args))


class Outside(NamedTuple):
    """An op left to torch: its name (`dialects.locations.op_label`: `aten.linear`,
    `aten.index.Tensor`), location, reason."""

    op: str
    location: str
    reason: str


class Explained(NamedTuple):
    """One layer's recorded decision (`xnnc.cost.decision`)."""

    location: str
    layer: str  # the layer signature: kind, dtype, shape
    form: str  # "conv-as-gemm", "bf16-gemm"
    choice: str
    source: str  # "rule", "tuned", "option"
    times_ms: dict[str, float]  # per form timed (tuned)
    why: str  # the rule's reason


class Program:
    """A lowered module with one extended-runtime instance per subgraph.

    Callable from any number of threads at once: each subgraph's runtime lets one run
    through at a time (on its own thread pool), and each call runs the function's plan
    (`_Plan`) on values of its own, so calls share the weights and nothing else. A function
    the plan cannot run goes through xDSL's interpreter, one per calling thread."""

    def __init__(
        self,
        module: ModuleOp,
        options: CompileOptions | None = None,
        *,
        threads: int | None = None,
        profile: bool = False,
        blobs: Sequence[bytes] | None = None,
        exported: Any = None,
        unsavable: str | None = None,
        packed: Mapping[str, Any] | None = None,
    ):
        """`module` is lowered; `options` are those it was compiled with (by default its
        `#xnn.target` and nothing else); `threads` overrides the target's thread count for
        running; `blobs` are the subgraphs' serialized blobs when already known (they are
        not kept); `exported` is the ExportedProgram a `.pte` save lowers. `unsavable` says
        why `blobs`/`save` will fail: the weights only subgraphs read then go to XNNPACK
        alone, released from the IR (and the blobs) as they are packed. `packed`: saved
        packed weights by name (`_load_packed`: subgraph i's under "i", a looped LSTM's
        under `recurrent.packed_name`), which the runtimes map instead of packing."""
        self.module = module
        self.options = options or CompileOptions(target=target_of(module))
        self.threads = self.options.target.threads if threads is None else threads
        self._exported = exported
        self._unsavable: str | None = None  # why `blobs`/`save` cannot serialize again
        self._blobs: list[bytes] | None = None  # kept by load(savable=True) only
        self.subgraphs = [op for op in module.walk() if isinstance(op, xnn.SubgraphOp)]
        if blobs is not None and len(blobs) != len(self.subgraphs):
            raise XnncError(f"{len(blobs)} blobs for {len(self.subgraphs)} subgraphs")
        self._func = _entry(module)
        self._bind = InputBinder(self._func)
        self.runtimes = self._runtimes(blobs, profile, unsavable, packed)
        # LSTMs kept whole: on xnnc's loop over XNNPACK where it runs them.
        self._recurrent = RecurrentOps(self._func, self.options.target, self.threads, packed)
        if unsavable is not None:  # XNNPACK holds the weights only the loops read
            release_held_weights(module, self._recurrent.unread)
        self._profiling = profile
        # xDSL's Interpreter keeps the values of the call it runs: one per calling thread.
        self._per_thread = local()
        self._last_profile: list[tuple[str, float]] | None = None
        # Built at the first call, so that a benchmark may switch an LSTM back to torch
        # (`_recurrent.runners.clear()`) after creating the program; None: not yet built.
        self._plan: _Plan | str | None = None
        self._plan_lock = Lock()

    def _runtimes(
        self,
        blobs: Sequence[bytes] | None,
        profile: bool,
        unsavable: str | None,
        packed: Mapping[str, Any] | None = None,
    ) -> dict[xnn.SubgraphOp, Any]:
        """The extended runtime of each subgraph: from `blobs`, else serialized with the
        weights in place (no copy: XNNPACK packs them from the IR's buffers). Unsavable, all
        subgraphs are serialized first, then the IR lets go of their weights, so that each
        runtime holds the only reference to its weights and frees them as it packs them."""
        from xnnc.backend_xnnpack.runtime import open_runtime

        consume = unsavable is not None
        serialized = None
        if blobs is None:
            runtime = self.options.target.runtime
            serialized = [serialize_subgraph_named(sub, runtime) for sub in self.subgraphs]
        if consume:
            self._release_weights(unsavable)
        # Lowering's freed arrays and graphs, not the weights: their pages go back before
        # XNNPACK allocates the packed weights and the workspace beside them.
        heap.trim()
        runtimes = {}
        for i, sub in enumerate(self.subgraphs):
            if serialized is None:
                blob, named = blobs[i], None
            else:  # the runtime's reference is then the last one
                (blob, named), serialized[i] = serialized[i], None
            weights = None if packed is None else packed.get(str(i))
            dynamic = _symbolic_inputs(sub)
            try:
                runtimes[sub] = open_runtime(
                    blob, named, threads=self.threads, profile=profile, consume=consume,
                    packed=weights, **dynamic,
                )  # fmt: skip
            except PackedWeightsError as e:
                if weights is None:  # not about saved packed weights
                    raise
                _warn_repacking(f"subgraph {i}: {e}")
                runtimes[sub] = open_runtime(
                    blobs[i], None, threads=self.threads, profile=profile, consume=consume,
                    **dynamic,
                )  # fmt: skip
            del blob, named
        return runtimes

    @property
    def target(self) -> Target:
        return self.options.target

    @property
    def blobs(self) -> list[bytes]:
        """The subgraphs' delegate blobs, serialized again from the IR on each access."""
        self._check_savable("Program.blobs")
        if self._blobs is not None:
            return list(self._blobs)
        runtime = self.options.target.runtime
        return [serialize_subgraph(sub, runtime) for sub in self.subgraphs]

    def _check_savable(self, what: str) -> None:
        if self._unsavable is not None:
            raise XnncError(f"{what}: {self._unsavable}")

    def _release_weights(self, why: str) -> None:
        """Drop the data of the weights only subgraphs use: XNNPACK holds them now."""
        held = {
            op
            for sub in self.subgraphs
            for op in sub.body.block.ops
            if isinstance(op, xnn.ConstantOp)
        }
        release_held_weights(self.module, held)
        self._unsavable = why

    @property
    def num_partitions(self) -> int:
        return len(self.subgraphs)

    def ops_outside(self) -> list[str]:
        """The ops of the top-level function outside the subgraphs: left to torch, or an LSTM
        on xnnc's recurrent loop over XNNPACK (`outside()` gives each one's reason)."""
        return [entry.op for entry in self.outside()]

    def outside(self) -> list[Outside]:
        """The ops of the top-level function outside the subgraphs, each with its location
        and why it is not in one (`recurrent.ON_XNNPACK` for an LSTM on the loop)."""
        from xnnc.conversion.partition import left_outside
        from xnnc.dialects.locations import op_label

        return [
            Outside(op_label(op), str(op.location), self._recurrent.reason(op, why))
            for op, why in left_outside(self._func, self.options.exclude)
        ]

    def decisions(self) -> list[Explained]:
        """The cost model's decision for each layer that had a choice of forms, in IR order."""
        from xnnc.cost.decision import decisions

        return [
            Explained(
                str(op.location), d.layer, d.form, d.choice, d.source, dict(d.times_ms), d.why
            )  # fmt: skip
            for op, d in decisions(self.module)
        ]

    def explain(self) -> str:
        """`decisions()` as a table: location, layer, form, choice, source, times or reason."""
        rows = [("location", "layer", "form", "choice", "source", "times / reason")]
        for e in self.decisions():
            times = ", ".join(f"{c} {t:.3f} ms" for c, t in e.times_ms.items())
            reason = "; ".join(x for x in (times, e.why) if x)  # a region's tuned: both
            rows.append((e.location, e.layer, e.form, e.choice, e.source, reason))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = ["  ".join(f"{c:{w}}" for c, w in zip(r, widths)) + "  " + r[5] for r in rows]
        from xnnc.dialects.locations import op_label

        for op, shape in self._recurrent.shapes.items():
            runner, _ = self._recurrent.runners[op]
            unroll = ", ".join(map(str, runner.unroll))
            rule = lstm_loop(self.target, self.options.disable)
            why = f"; lstm-loop rule: {rule.why}" if static_input(op) else ""
            lines.append(
                f"{op.location}  {op_label(op)} ({shape}): xnnc's recurrent loop over "
                f"XNNPACK (input projection of all frames, then runtimes of {unroll} "
                f"unrolled steps{why})"
            )
        lines.append(f"target: {self.target}, decisions: {len(rows) - 1}")
        return "\n".join(lines)

    def __call__(self, *inputs: Any) -> Any:
        """Runs the function on `inputs`; outputs are fresh tensors no later call touches."""
        tensors, sizes = self._bind(inputs)
        plan = self._plan
        if plan is None:
            plan = self._build_plan()
        if isinstance(plan, str):
            with torch.no_grad():
                outputs = self._interpret(tensors, sizes)
        elif plan.torched and torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            # Ops on torch record a graph only from an input that requires grad (constants
            # do not): no_grad, 1.5 us a call, is entered only then.
            with torch.no_grad():
                outputs = plan(tensors, sizes)
        else:  # XNNPACK and the recurrent loop write fresh tensors: nothing for autograd
            outputs = plan(tensors, sizes)
        if self._profiling:
            self._last_profile = self._per_thread.profile = self._profile_rows()
        return outputs[0] if len(outputs) == 1 else outputs

    def _build_plan(self) -> _Plan | str:
        """The function's plan (or why the interpreter runs it), built once."""
        with self._plan_lock:
            if self._plan is None:
                self._plan = _Plan.plan(
                    self._func, self.runtimes, self._recurrent, fuse=not self._profiling
                )
        return self._plan

    def _interpret(self, tensors: tuple[torch.Tensor, ...], sizes: dict[str, int]) -> tuple:
        interpreter = getattr(self._per_thread, "interpreter", None)
        if interpreter is None:
            interpreter = Interpreter(self.module)
            interpreter.register_implementations(FuncFunctions())
            self._per_thread.aten = AtenFunctions()
            interpreter.register_implementations(self._per_thread.aten)
            interpreter.register_implementations(SubgraphFunctions(self.runtimes))
            if self._recurrent.runners:
                loops = self._recurrent.functions(self._per_thread.aten)
                interpreter.register_implementations(loops, override=True)
        self._per_thread.aten.sizes = sizes
        # Taken while running, so that a failed call's half-filled scopes are dropped with it.
        self._per_thread.interpreter = None
        outputs = tuple(interpreter.call_op(self._func.sym_name.data, tensors))
        self._per_thread.interpreter = interpreter
        return outputs

    def profile(self) -> list[tuple[str, float]]:
        """(subgraph:node, microseconds) for every XNNPACK operator of the calling thread's
        last call (of the last call of any thread if this one has made none)."""
        rows = getattr(self._per_thread, "profile", None) or self._last_profile
        return self._profile_rows() if rows is None else list(rows)  # the former raises why

    def _profile_rows(self) -> list[tuple[str, float]]:
        """The calling thread's last run of each subgraph, labelled."""
        rows = []
        for i, sub in enumerate(self.subgraphs):
            for name, us in self.runtimes[sub].profile():
                rows.append((f"subgraph {i}: {name}", us))
        return rows

    def save(self, path: str) -> None:
        """`.pte` (ExecuTorch, through XnncPartitioner with this program's options, for the
        stock runtime) or our program file (anything else)."""
        self._check_savable(f"Program.save({str(path)!r})")
        if str(path).endswith(".pte"):
            if self._exported is None:
                raise XnncError(
                    f"Program.save({str(path)!r}): a .pte needs the program compiled from a "
                    "model with xnnc.compile(..., savable=True)"
                )
            from xnnc.pte.export import write_pte

            # The stock runtime follows the static rules: tuning this program for the
            # extended runtime says nothing about the .pte, so tune=True is not an error here.
            tune = "auto" if self.options.tune is True else self.options.tune
            write_pte(path, self._exported, options=self.options.replace(tune=tune))
            return
        # A new file replaces the old one: a program loaded from `path` maps its packed
        # weights, and truncating the file under that mapping would crash it.
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
                self._write_program(z)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise

    def _write_program(self, z: zipfile.ZipFile) -> None:
        z.writestr("format", PROGRAM_FORMAT + "\n" + str(self.target))
        z.writestr("program.mlir", xnnc.print_module(self.module))
        _write_weights(z, _outside_weights(self._func))
        for i, blob in enumerate(self.blobs):
            z.writestr(f"subgraph_{i}.xnn", blob)
        for i, sub in enumerate(self.subgraphs):
            _save_packed(z, str(i), self.runtimes[sub])
        for k, (runner, _) in enumerate(self._recurrent.runners.values()):
            for c, (projection, steps) in enumerate(runner.packed_runtimes()):
                _save_packed(z, packed_name(k, c, "projection"), projection)
                _save_packed(z, packed_name(k, c, "steps"), steps)


class _Plan:
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
    ) -> _Plan | str:
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
        return _Plan(func, runtimes, recurrent, impls, fuse)

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


def release_held_weights(module: ModuleOp, held: set[Operation]) -> None:
    """Drop the data of the weights of the constants `held` (XNNPACK packed them), unless a
    constant not held shares it."""
    constants = [
        op
        for op in module.walk()
        if isinstance(op, (aten.ConstantOp, xnn.ConstantOp)) and isinstance(op.value, WeightAttr)
    ]
    kept = {op.value.data for op in constants if op not in held}
    for op in constants:
        if op in held and op.value.data not in kept:
            op.value.data.data = None


def _symbolic_inputs(sub: xnn.SubgraphOp) -> dict[str, Any]:
    """The runtime arguments of a subgraph with symbolic input dims (none when static)."""
    dims = [shape_of(arg) for arg in sub.body.block.args]
    if not any(is_symbolic(d) for d in dims):
        return {}
    return {"input_dims": dims, "symbols": symbol_ranges(sub)}


def _save_packed(z: zipfile.ZipFile, name: str, runtime: Any) -> None:
    """A runtime's packed weights as `packed_<name>.bin` (its data 64-byte aligned in the
    file, so that `load` maps them in place) and their index `packed_<name>.json`; nothing
    when the runtime's packed weights cannot serve another runtime alone. `name`: subgraph
    i's is i, a looped LSTM's cells' `recurrent.packed_name`."""
    weights = getattr(runtime, "packed_weights", lambda: None)()
    if weights is None:
        return
    try:
        index = weights.index()
    except PackedWeightsError:
        return
    info = _aligned_member(z, f"packed_{name}.bin")
    with z.open(info, "w", force_zip64=index["size"] > zipfile.ZIP64_LIMIT) as f:
        weights.save(f, index)
    z.writestr(f"packed_{name}.json", json.dumps(index))


def _aligned_member(z: zipfile.ZipFile, name: str) -> zipfile.ZipInfo:
    """A member to write next in `z` whose data will start 64-byte aligned in the archive
    (an extra field of padding, as zipalign does)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    start = z.fp.tell() + 30 + len(name) + 4  # the local header, then the padding's header
    info.extra = struct.pack("<HH", _PADDING_ID, -start % 64) + bytes(-start % 64)
    return info


def _write_weights(z: zipfile.ZipFile, weights: dict[str, np.ndarray]) -> None:
    """`weights.npz` (what `np.load` reads), laid out so that `load` maps it: stored
    uncompressed, its data 64-byte aligned in the program file, and so is each array's
    data in it (a `.npy` header is a multiple of 64 bytes long)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as npz:
        for name, data in weights.items():
            header = io.BytesIO()
            fields = np.lib.format.header_data_from_array_1_0(data)
            np.lib.format.write_array_header_1_0(header, fields)
            size = len(header.getvalue()) + data.nbytes
            info = _aligned_member(npz, f"{name}.npy")
            with npz.open(info, "w", force_zip64=size > zipfile.ZIP64_LIMIT) as f:
                f.write(header.getvalue())
                f.write(memoryview(np.ascontiguousarray(data)).cast("B"))
    info = _aligned_member(z, "weights.npz")
    with z.open(info, "w", force_zip64=buf.tell() > zipfile.ZIP64_LIMIT) as f:
        f.write(buf.getbuffer())


def _mapped_weights(z: zipfile.ZipFile, mapping: mmap.mmap, path: str) -> dict[str, np.ndarray]:
    """The arrays of `weights.npz` in the program file `z` at `path` (mapped as `mapping`):
    views of the mapping where an array's data is stored 64-byte aligned (`_write_weights`),
    so that only the pages a call reads come in; read otherwise (a file of an older layout).
    XnncError naming the file if the archive or an array in it is malformed."""
    info = z.getinfo("weights.npz")
    try:
        if info.compress_type != zipfile.ZIP_STORED:
            with np.load(io.BytesIO(z.read(info))) as data:
                return {name: data[name] for name in data.files}
        view = _member_view(mapping, info)
        arrays = {}
        with zipfile.ZipFile(_ViewFile(view)) as npz:
            for member in npz.infolist():
                array = None
                if member.compress_type == zipfile.ZIP_STORED:
                    array = _npy_view(_member_view(view, member))
                if array is None:
                    array = np.load(io.BytesIO(npz.read(member)))
                arrays[member.filename.removesuffix(".npy")] = array
        return arrays
    except (ValueError, TypeError, EOFError, OSError, zipfile.BadZipFile) as e:
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise XnncError(f"{path}: damaged program file: weights.npz ({why})") from None


def _npy_view(data: memoryview) -> np.ndarray | None:
    """The array a `.npy` file in `data` holds, as a view of it when its data are 64-byte
    aligned in memory; None otherwise."""
    # The magic string, the version and the header's length (2 bytes in 1.0, 4 after):
    # read no more than the header, so the data's pages stay out until a call needs them.
    size = 10 if bytes(data[6:7]) == b"\x01" else 12
    size += int.from_bytes(data[size - (2 if size == 10 else 4) : size], "little")
    f = io.BytesIO(bytes(data[:size]))
    version = np.lib.format.read_magic(f)
    if version not in ((1, 0), (2, 0)):
        return None  # np.load reads the others
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else (
        np.lib.format.read_array_header_2_0)  # fmt: skip
    shape, fortran, dtype = read(f)
    if dtype.hasobject:
        return None
    array = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=f.tell())
    if array.ctypes.data % 64:
        return None
    return array.reshape(shape, order="F" if fortran else "C")


class _ViewFile(io.RawIOBase):
    """A read-only, seekable file over a memoryview (zipfile reads an archive from it)."""

    def __init__(self, view: memoryview):
        self._view, self._at = view, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: len(self._view)}[whence]
        self._at = max(0, base + offset)
        return self._at

    def readinto(self, buffer: Any) -> int:
        chunk = self._view[self._at : self._at + len(buffer)]
        buffer[: len(chunk)] = chunk
        self._at += len(chunk)
        return len(chunk)


def _warn_repacking(why: str) -> None:
    warnings.warn(
        f"xnnc.load: the saved packed weights do not fit ({why}); packing the weights again",
        PackedWeightsWarning,
        stacklevel=4,
    )


def _entry(module: ModuleOp) -> FuncOp:
    """The function a program runs: the module's first, which must have a body."""
    func = next((op for op in module.ops if isinstance(op, FuncOp)), None)
    if func is None:
        raise XnncError("the module has no func.func to run")
    if func.is_declaration:
        raise XnncError(
            f"func.func @{func.sym_name.data} is a declaration (no body): nothing to run"
        )
    return func


def _outside_weights(func: FuncOp) -> dict[str, np.ndarray]:
    """The data of the weights used outside subgraphs (those inside live in the blobs)."""
    weights = {}
    for op in func.body.block.ops:
        if isinstance(op, aten.ConstantOp) and isinstance(op.value, WeightAttr):
            blob = op.value.data
            weights[blob.name] = np.frombuffer(blob.raw(), dtype=np.uint8)
    return weights


def _check_program_file(path: Any) -> None:
    """Raise XnncError naming `path` unless it is an intact program file of our format."""
    if not isinstance(path, (str, os.PathLike)):
        raise XnncError(f"load: expected a file path, got {type(path).__name__}")
    if not os.path.exists(path):
        raise XnncError(f"{path}: no such file")
    if os.path.isdir(path):
        raise XnncError(f"{path}: is a directory, not an xnnc program file")
    if not zipfile.is_zipfile(path):
        raise XnncError(f"{path}: not an xnnc program file (not a zip archive; truncated?)")
    try:
        with zipfile.ZipFile(path) as z:
            # A truncated file may still hold an archive's end record: that of a member that
            # is itself an archive (weights.npz), with no members or members further on.
            infos = z.infolist()
            if not infos or min(info.header_offset for info in infos) != 0:
                raise XnncError(f"{path}: not an xnnc program file (not a zip archive; truncated?)")
            names = set(z.namelist())
            if "format" not in names:
                raise XnncError(f"{path}: not an xnnc program file (no 'format' member)")
            marker = z.read("format").decode(errors="replace").split("\n", 1)[0]
            if marker != PROGRAM_FORMAT:
                kind = "format version" if marker.startswith("xnnc-program-") else "marker"
                raise XnncError(
                    f"{path}: {kind} '{marker[:40]}', but this xnnc reads '{PROGRAM_FORMAT}'"
                )
            missing = sorted({"program.mlir", "weights.npz"} - names)
            if missing:
                raise XnncError(f"{path}: damaged program file: {', '.join(missing)} missing")
            damaged = z.testzip()
            if damaged is not None:
                raise XnncError(f"{path}: damaged program file: {damaged} fails its CRC check")
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
        raise XnncError(f"{path}: damaged program file ({e})") from None


class _ZipBlobs(Sequence[memoryview]):
    """The blobs of an open program file: views of its mmap (file-backed pages, which the
    runtime returns once it has packed the weights on them) where a blob is stored
    uncompressed, as `Program.save` stores it; read otherwise."""

    def __init__(self, z: zipfile.ZipFile, count: int, path: str):
        self._z, self._count = z, count
        with open(path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> memoryview:  # type: ignore[override]
        if not 0 <= i < self._count:
            raise IndexError(i)
        info = self._z.getinfo(f"subgraph_{i}.xnn")
        if info.compress_type != zipfile.ZIP_STORED:
            return memoryview(self._z.read(info))
        return _member_view(self._map, info)


def _load_packed(z: zipfile.ZipFile, path: str) -> dict[str, PackedWeights | None]:
    """Every saved set of packed weights (`_save_packed`), by name, mapped from the file
    (copy-on-write, so that nothing XNNPACK might write reaches the file); None where they
    do not fit this CPU and XNNPACK build (one warning says so)."""
    names, packed, why = set(z.namelist()), {}, None
    with open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    for member in sorted(names):
        name = member.removeprefix("packed_").removesuffix(".bin")
        if member != f"packed_{name}.bin" or f"packed_{name}.json" not in names:
            continue
        try:
            info = z.getinfo(member)
            if info.compress_type != zipfile.ZIP_STORED:
                raise PackedWeightsError("stored compressed")
            index = json.loads(z.read(f"packed_{name}.json"))
            packed[name] = PackedWeights.mapped(index, _member_view(mapping, info))
        except (PackedWeightsError, ValueError) as e:
            where = f"subgraph {name}" if name.isdigit() else name
            why = why or f"{where}: {e}"
            packed[name] = None
    if why is not None:
        _warn_repacking(why)
    return packed


def _member_view(mapping: mmap.mmap, info: zipfile.ZipInfo) -> memoryview:
    """The data of stored member `info` in `mapping` (a map of the whole zip file)."""
    # The data follow the local header (30 bytes, then the name and the extra field).
    name_size, extra_size = struct.unpack_from("<HH", mapping, info.header_offset + 26)
    start = info.header_offset + 30 + name_size + extra_size
    return memoryview(mapping)[start : start + info.file_size]


def load(
    path: str, threads: int | None = None, profile: bool = False, *, savable: bool = False
) -> Program:
    """A program saved by `Program.save` (not a .pte: run those with ExecuTorch). With
    `savable`, the program keeps its blobs to save again. XnncError naming the file if it
    is missing, not a program file, damaged, or of another format version."""
    _check_program_file(path)  # the format marker and members, checked
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        target = z.read("format").decode().splitlines()[1]
        store = BlobStore()
        with open(path, "rb") as f:
            mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        for name, data in _mapped_weights(z, mapping, path).items():
            store.add(name, data)
        module = xnnc.parse_module(z.read("program.mlir").decode(), store)
        count = sum(1 for op in module.walk() if isinstance(op, xnn.SubgraphOp))
        for i in range(count):
            if f"subgraph_{i}.xnn" not in names:
                raise XnncError(f"{path}: subgraph_{i}.xnn is missing")
        blobs: Sequence[Any] = _ZipBlobs(z, count, path)
        if savable:
            blobs = [bytes(b) for b in blobs]
        unsavable = None if savable else (
            "loaded without savable=True: the blobs went to XNNPACK; "
            "load with xnnc.load(..., savable=True) to save"
        )  # fmt: skip
        packed = _load_packed(z, path)
        program = Program(module, CompileOptions(target=target), threads=threads,
                          profile=profile, blobs=blobs, unsavable=unsavable,
                          packed=packed)  # fmt: skip
    if savable:
        program._blobs = blobs
    return program


def loops_lstms(options: CompileOptions) -> bool:
    """Whether a compile under `options` runs a static LSTM on xnnc's recurrent loop (the
    target's `lstm-loop` rule, unless disabled), rather than as one `xnn.lstm`."""
    return lstm_loop(options.target, options.disable).choice == "loop"


def compile(
    model: Any,
    example_inputs: Sequence[Any] | None = None,
    options: CompileOptions | None = None,
    *,
    target: Target | str | None = None,
    threads: int | None = None,
    profile: bool = False,
    exclude: Sequence[str] | str | None = None,
    disable: Sequence[str] | str | None = None,
    fp16: str | None = None,
    bf16: str | None = None,
    tune: bool | str | None = None,
    tuning_db: str | None = None,
    tune_budget_ms: float | None = None,
    savable: bool = False,
    dynamic_shapes: Any = None,
) -> Program:
    """nn.Module + inputs, ExportedProgram or .pt2 (inputs may be left out: then
    `compile(ep, options)`) -> a runnable Program.

    `dynamic_shapes` is torch.export's argument (`torch.export.Dim` with min and max, e.g.
    `{"x": {2: Dim("T", min=1, max=64)}}`): the program then runs at any size in range
    (docs/dynamic-shapes.md). A program or `.pt2` with symbolic sizes carries its own.

    `options` (a CompileOptions), or its fields as keywords, which override it: target
    (a Target or a string such as "stock", "extended,x86-64-avx2,threads=2"), threads,
    exclude (aten op names kept out of XNNPACK), disable (passes or rewrite sets, e.g.
    "xnn-polyphase"), fp16 ("auto", "native" or "fp32"), bf16 ("fp32": between GEMMs in
    fp32, or "native": each result rounded as eager does), tune ("auto", True, False,
    "cached": measured layer choices on a host compile), tuning_db (the tuning database
    file) and tune_budget_ms (how long this compile may time layers: by default as long as
    its import took; `math.inf` fills the database now). Checked before any work starts.

    A module in training mode is compiled as it is (torch.export records dropout and
    batch-norm as in training), with a one-line `TrainingModeWarning` naming its class:
    call `model.eval()` first for inference.

    `savable` keeps what `Program.save` and `Program.blobs` need: the ExportedProgram and
    the weights in the IR. Without it the program holds the weights only in XNNPACK's packed
    form."""
    from xnnc.frontend.fx_importer import export_program, import_model, torch_leftovers_dropped
    from xnnc.pipeline import lower

    if isinstance(example_inputs, CompileOptions) and options is None:
        options, example_inputs = example_inputs, None  # compile(exported_program, options)
    if options is not None and not isinstance(options, CompileOptions):
        raise OptionError(f"options: expected a CompileOptions, got {type(options).__name__}")
    options = CompileOptions.of(
        options, target=target, threads=threads, exclude=exclude, disable=disable, fp16=fp16,
        bf16=bf16, tune=tune, tuning_db=tuning_db, tune_budget_ms=tune_budget_ms,
    )  # fmt: skip
    if isinstance(model, torch.nn.Module) and model.training:
        warnings.warn(
            f"xnnc.compile: model {type(model).__name__} is in training mode (dropout and "
            "batch norm act as in training); call model.eval() first for inference",
            TrainingModeWarning,
            stacklevel=2,
        )
    start = time.perf_counter()
    with torch_leftovers_dropped():
        ep = export_program(model, example_inputs, dynamic_shapes)
        module = import_model(ep, loop_lstms=loops_lstms(options))
    # The decomposed program (graph, fake tensors) is gone: its heap goes back before
    # lowering builds on it (EnCodec's unrolled LSTM: 0.6x its weights).
    heap.trim()
    # Tuning may take as long as the import did (a cold compile stays near 2x an untuned
    # one), unless the options say how long.
    budget = options.tune_budget_ms
    if budget is None:
        budget = (time.perf_counter() - start) * 1e3
    module = lower(module, options, tune_budget_ms=budget)
    if savable:
        return Program(module, options, profile=profile, exported=ep)
    del ep  # its weights are the model's: no reference of ours is needed
    return Program(module, options, profile=profile, unsavable=(
        "compiled without savable=True: the weights went to XNNPACK; "
        "compile with xnnc.compile(..., savable=True) to save"
    ))  # fmt: skip
