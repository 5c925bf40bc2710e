"""`Program`: a lowered module that runs, each `xnn.subgraph` on the extended runtime.

    program = xnnc.compile(model, inputs, target="extended", threads=2)
    outputs = program(*inputs)
    program.profile()            # per-node XNNPACK timings of the last call
    print(program.explain())     # the cost model's choice per layer: rule or tuned, times
    program.save("m.xnnc")       # our program file (file.py); "m.pte" for ExecuTorch
                                 # (needs compile(..., savable=True))

A Program runs the top-level function: each `xnn.subgraph` on the extended runtime, an LSTM
kept whole on xnnc's recurrent loop (lstm_loop.py), every other op outside XNNPACK on torch
(the reference implementations), so a partially delegated model still runs end to end; a
plan (plan.py) runs the function without xDSL's interpreter where it can.

Memory: a compiled program holds the weights once, in XNNPACK's packed form. The blobs are
serialized with the weights in place (named data, `serialize_subgraph_named`) and dropped
once XNNPACK has packed them; unless compiled with `savable=True`, the ExportedProgram is
not kept and the weights used only inside subgraphs (and the copies conversion made of them:
permuted filters, folded batch norms) leave the IR before the runtimes are built, which
release each one as soon as it is packed (`XnnRuntime(consume=True)`), so the unpacked and
the packed weights never all coexist. `save` also stores XNNPACK's packed weights (of a
program compiled for this CPU's architecture), which `load` maps and hands to XNNPACK
(nothing packed, no source weight read); without them, or when they were made for another
CPU or XNNPACK build, it reads the blobs through an mmap of the file, so that their pages
are returned the same way. `blobs` and `save` serialize again
from the IR, so they need a savable program.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import groupby
from threading import Lock, local
from typing import Any, ClassVar, NamedTuple

import numpy as np
import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation

import xnnc
from xnnc import heap
from xnnc.backend_xnnpack.dims import is_symbolic
from xnnc.backend_xnnpack.runtime.packed_weights import PackedWeightsError
from xnnc.cost.rules import lstm_loop
from xnnc.dialects import aten, xnn
from xnnc.dialects.locations import where
from xnnc.dialects.types import shape_of, symbol_ranges
from xnnc.dialects.weights import WeightAttr
from xnnc.dialects.xnn import target_of
from xnnc.errors import CpuFeatureError, XnncError
from xnnc.interpreter.aten import AtenFunctions, InputBinder
from xnnc.legalize.fp16_precision import is_fp16_layer, is_fp16_node
from xnnc.pipeline.options import CompileOptions
from xnnc.program import file as program_file
from xnnc.program.lstm_loop import ON_XNNPACK, RecurrentOps, packed_name, static_input
from xnnc.program.plan import Plan
from xnnc.target import Target
from xnnc.translate.xnnpack import serialize_subgraph, serialize_subgraph_named

# Nodes that compute on their elements (an fp16 layer aside: `is_fp16_layer`).
FP16_ARITHMETIC = (
    xnn.BinaryOp, xnn.UnaryOp, xnn.StaticReduceOp, xnn.AveragePooling2dOp, xnn.MaxPooling2dOp,
)  # fmt: skip


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

    `kinds`: subclasses by the module attribute that marks their modules (a stream's step,
    `xnnc.program.stream`, registers itself), which `load` makes.

    Callable from any number of threads at once: each subgraph's runtime lets one run
    through at a time (on its own thread pool), and each call runs the function's plan
    (`Plan`) on values of its own, so calls share the weights and nothing else. A function
    the plan cannot run goes through xDSL's interpreter, one per calling thread."""

    kinds: ClassVar[dict[str, type[Program]]] = {}

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
        packed weights by name (`file.opened`: subgraph i's under "i", a looped LSTM's
        under `lstm_loop.packed_name`), which the runtimes map instead of packing."""
        self.module = module
        self.options = options or CompileOptions(target=target_of(module))
        self.threads = self.options.target.threads if threads is None else threads
        self._exported = exported
        self._unsavable: str | None = None  # why `blobs`/`save` cannot serialize again
        self._blobs: list[bytes] | None = None  # kept by load(savable=True) only
        self.subgraphs = [op for op in module.walk() if isinstance(op, xnn.SubgraphOp)]
        if blobs is not None and len(blobs) != len(self.subgraphs):
            raise XnncError(f"{len(blobs)} blobs for {len(self.subgraphs)} subgraphs")
        check_cpu(self.subgraphs, self.options.target)
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
        self._plan: Plan | str | None = None
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
                program_file.warn_repacking(f"subgraph {i}: {e}")
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

    def fallback(self) -> str | None:
        """One line naming the ops that run on torch, each kind with its count and reason
        ("2 ops run on torch, outside XNNPACK: aten.sort x1 (no xnn lowering), ..."), or
        None when every op runs on XNNPACK (an LSTM on xnnc's recurrent loop does)."""
        on_torch = [o for o in self.outside() if o.reason != ON_XNNPACK]
        if not on_torch:
            return None
        counts = Counter((o.op, o.reason) for o in on_torch)
        kinds = ", ".join(f"{op} x{n} ({why})" for (op, why), n in counts.most_common())
        ops = "1 op runs" if len(on_torch) == 1 else f"{len(on_torch)} ops run"
        return f"{ops} on torch, outside XNNPACK: {kinds}"

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
        """`decisions()` as a table: location, layer, form, choice, source, times or reason.
        Ops of one layer with the same decision (the phases of a depthwise transposed
        convolution) share a row, which says how many they are."""
        rows = [("location", "layer", "form", "choice", "source", "times / reason")]
        decisions = self.decisions()
        for e, alike in groupby(decisions):
            times = ", ".join(f"{c} {t:.3f} ms" for c, t in e.times_ms.items())
            reason = "; ".join(x for x in (times, e.why) if x)  # a region's tuned: both
            if (count := len(list(alike))) > 1:
                reason = f"{count} ops: {reason}"
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
        lines.append(f"target: {self.target}, decisions: {len(decisions)}")
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

    def _build_plan(self) -> Plan | str:
        """The function's plan (or why the interpreter runs it), built once."""
        with self._plan_lock:
            if self._plan is None:
                self._plan = Plan.plan(
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
        program_file.write(path, self._contents())

    def _contents(self) -> program_file.Contents:
        """What `save` writes to a program file. The packed weights are this CPU's: a program
        compiled for another architecture (arm64 on x86) is saved without them, and the
        target's CPU packs its weights at load, as it would have to anyway."""
        packed = {str(i): self.runtimes[sub] for i, sub in enumerate(self.subgraphs)}
        for k, (runner, _) in enumerate(self._recurrent.runners.values()):
            for c, (projection, steps) in enumerate(runner.packed_runtimes()):
                packed[packed_name(k, c, "projection")] = projection
                packed[packed_name(k, c, "steps")] = steps
        if self.target.arch != Target.host().arch:
            packed = {}
        return program_file.Contents(
            # with the ops' locations: a loaded program's explain(), outside() and errors
            # name the model's layers as the compiled one's do
            str(self.target), xnnc.print_module(self.module, locations=True),
            _outside_weights(self._func),
            self.blobs, packed,
        )  # fmt: skip

    @classmethod
    def load(
        cls, path: str, threads: int | None = None, profile: bool = False, *,
        savable: bool = False,
    ) -> Program:  # fmt: skip
        """A program saved by `save` (`xnnc.load`)."""
        with program_file.opened(path, savable) as saved:
            if cls is Program:  # a module that says what it is: its kind of program
                cls = next((kind for attr, kind in Program.kinds.items()
                            if attr in saved.module.attributes), Program)  # fmt: skip
            program = cls(saved.module, CompileOptions(target=saved.target), threads=threads,
                          profile=profile, blobs=saved.blobs, unsavable=saved.unsavable,
                          packed=saved.packed)  # fmt: skip
        if savable:
            program._blobs = saved.blobs  # bytes already: `opened` copied them
        return program


def check_cpu(subgraphs: Sequence[xnn.SubgraphOp], target: Target) -> None:
    """CpuFeatureError when the program computes in fp16 (XNNPACK's fp16 kernels: an fp16
    layer, or an elementwise, pooling or reduce node on fp16) on an arm64 CPU without FP16
    arithmetic (ASIMDHP). XNNPACK would run it in fp32 there (as it does on x86, through
    F16C: not what a program compiled for fp16 arithmetic means to do there); an x86 CPU is
    not checked, as fp16 arithmetic is never native on one. One line, before XNNPACK sees
    the program."""
    host = Target.host()
    if host.arch != "arm64" or host.has("fp16"):
        return
    for sub in subgraphs:
        for op in sub.body.block.ops:
            if is_fp16_layer(op) or (isinstance(op, FP16_ARITHMETIC) and is_fp16_node(op)):
                raise CpuFeatureError(
                    f"this program computes in fp16 ({where(op)}; compiled for '{target}') "
                    "and this arm64 CPU lacks fp16 (FP16 arithmetic, ASIMDHP): XNNPACK would "
                    "compute it in fp32; compile it for target 'arm64' with fp16='auto' or "
                    "'fp32'"
                )


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
