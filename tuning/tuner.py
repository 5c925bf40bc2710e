"""`xnn-tune`: time each distinct layer's candidate forms on this machine's XNNPACK and record
the winner on the op (`xnn.decision`, source "tuned"), for the rewrite owning the form.

    xnn-opt m.mlir -p 'xnn-tune{form=conv-as-gemm},xnn-conv-as-gemm'

A candidate form is built by the real rewrite: the layer alone in a one-node subgraph, the
candidate recorded as its decision, the owning pass run (`xnn-conv-as-gemm`,
`xnn-legalize-casts`). Each form is serialized, loaded on the extended runtime at the
target's thread count and timed on random inputs: interleaved rounds (the order rotating),
each a sample of ~2 ms (at least one call); a form's time is its fastest sample (other
processes only ever add time: on a shared machine the minimum is the steadiest estimate of a
form's own cost, where a median drifts with the load); 5 rounds, 3 once a layer has used
100 ms (a large layer's samples vary little, and the compile time counts). The static
rule's choice is kept unless another form is faster by `margin` (5%): noise must not flip
choices, and a wrong flip costs more than a missed small gain. A form XNNPACK rejects (or
the serializer) is skipped; a layer with no form that ran keeps the static rule (no
record). Layers with the same signature are timed once per compile, and every result goes
to the tuning database (`tuning.db`), so a later compile on this machine times nothing.

`budget-ms` bounds the time spent timing layers (the largest layers go first); the layers
left when it is spent keep the static rule and stay out of the database, so the next compile
times them: tuning a large model completes over a few compiles, each at most the budget
slower. `xnnc.compile` sets it to the time its import took (torch.export and the import into
`aten`), which keeps a cold compile near 2x an untuned one.

Tuning needs the host CPU: the pass refuses a module whose `#xnn.target` is another CPU or
the stock runtime (cross-compiles use the static rules). `cached=true` reads the database
and times nothing (layers it misses keep the static rule).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xnnc.conversion.constants import constant_op
from xnnc.cost import rules
from xnnc.cost.decision import Decision, conv_layer, gemm_layer, record, recorded
from xnnc.cost.rules import Layer
from xnnc.dialects import xnn
from xnnc.dialects.weights import WeightAttr
from xnnc.dialects.xnn import serialize_subgraph_named, set_target, target_of
from xnnc.errors import OptionError, XnncError
from xnnc.ir.types import size_symbols
from xnnc.legalize.casts import BF16_GEMMS, LegalizeCastsPass
from xnnc.target import Target
from xnnc.transforms.conv_as_gemm import ConvAsGemmPass, rewritable
from xnnc.tuning import db as tuning_db

MARGIN = 0.05
ROUNDS = 5
MIN_ROUNDS = 3
SAMPLE_MS = 2.0
LAYER_BUDGET_MS = 100.0  # timed per layer before stopping at MIN_ROUNDS: large layers are stable

# A timer: the forms of one layer (choice -> its one-layer subgraph) and a thread count ->
# milliseconds per run of each form that ran. Tests pass a fixed one.
Timer = Callable[[dict[str, xnn.SubgraphOp], int], dict[str, float]]


def _is_candidate(form: str, op: Operation) -> bool:
    if size_symbols(op):
        return False  # timed at one size only: `decide` keeps the form as converted
    if form == "conv-as-gemm":
        return isinstance(op, xnn.Convolution2dOp) and rewritable(op)
    return isinstance(op, BF16_GEMMS) and str(op.results[0].type.element_type) == "bf16"  # type: ignore[attr-defined]


def _layer(form: str, op: Operation) -> Layer:
    return conv_layer(op) if form == "conv-as-gemm" else gemm_layer(op)  # type: ignore[arg-type]


def _rewrite(form: str) -> ModulePass:
    return ConvAsGemmPass() if form == "conv-as-gemm" else LegalizeCastsPass()


def layer_module(op: Operation, target: Target) -> ModuleOp:
    """`op` alone in a subgraph of a module for `target`: its constant operands cloned (the
    weights shared by reference), the others the subgraph's inputs."""
    dynamic = [v for v in op.operands if constant_op(v) is None]
    body = Block(arg_types=[v.type for v in dynamic])
    mapping: dict[SSAValue, SSAValue] = dict(zip(dynamic, body.args))
    for v in op.operands:
        if v not in mapping:
            const = constant_op(v).clone()  # type: ignore[union-attr]
            body.add_op(const)
            mapping[v] = const.results[0]
    layer = op.clone(value_mapper=mapping)
    body.add_ops([layer, xnn.OutputOp(*layer.results)])
    func_body = Block(arg_types=[v.type for v in dynamic])
    sub = xnn.SubgraphOp(list(func_body.args), [r.type for r in op.results], Region(body))
    func_body.add_ops([sub, ReturnOp(*sub.results)])
    results = [r.type for r in op.results]
    func = FuncOp("layer", ([v.type for v in dynamic], results), Region(func_body))
    module = ModuleOp([func])
    set_target(module, target)
    return module


def candidate_forms(op: Operation, form: str, target: Target) -> dict[str, xnn.SubgraphOp]:
    """Each form of `op`'s layer, built by the rewrite owning `form`, as a subgraph."""
    layer = _layer(form, op)
    forms = {}
    for choice in rules.FORMS[form]:
        module = layer_module(op, target)
        single = next(o for o in module.walk() if o.name == op.name)
        record(single, Decision(form, choice, "option", layer.key(), "tuning candidate"))
        _rewrite(form).apply(Context(), module)
        forms[choice] = next(o for o in module.walk() if isinstance(o, xnn.SubgraphOp))
    return forms


def _random_inputs(runtime) -> list[torch.Tensor]:
    return [torch.randn(shape).to(dtype) for dtype, shape in runtime.input_specs]


def time_on_xnnpack(
    forms: dict[str, xnn.SubgraphOp],
    threads: int,
    rounds: int = ROUNDS,
    sample_ms: float = SAMPLE_MS,
) -> dict[str, float]:
    """Milliseconds per run of each form (its fastest sample) on the extended runtime; forms
    that fail to serialize, load or run are left out."""
    from xnnc.backend_xnnpack.runtime import XnnpackError, open_runtime

    runtimes, inputs, calls = {}, {}, {}
    try:
        for choice, sub in forms.items():
            try:
                blob, named = serialize_subgraph_named(sub, "extended")
                rt = open_runtime(blob, named, threads=threads)
                args = _random_inputs(rt)
                start = time.perf_counter()
                rt.run(*args)  # warm-up: XNNPACK's first run sets up its buffers
                rt.run(*args)
                once = (time.perf_counter() - start) * 500  # ms per run
            except (XnnpackError, XnncError, ValueError, RuntimeError):
                continue
            runtimes[choice], inputs[choice] = rt, args
            calls[choice] = max(1, round(sample_ms / max(once, 1e-3)))
        samples: dict[str, list[float]] = {c: [] for c in runtimes}
        order, spent = list(runtimes), 0.0
        for r in range(rounds if order else 0):
            if r >= MIN_ROUNDS and spent > LAYER_BUDGET_MS:
                break
            for choice in order[r % len(order) :] + order[: r % len(order)]:
                rt, args, n = runtimes[choice], inputs[choice], calls[choice]
                start = time.perf_counter()
                for _ in range(n):
                    rt.run(*args)
                elapsed = (time.perf_counter() - start) * 1e3
                samples[choice].append(elapsed / n)
                spent += elapsed
        return {c: min(s) for c, s in samples.items() if s}
    finally:
        for rt in runtimes.values():
            rt.close()


def _release_copies(forms: dict[str, xnn.SubgraphOp], op: Operation) -> None:
    """Lets go of the weights the candidate rewrites made (per-tap filters): the throwaway
    modules live on in reference cycles until the garbage collector runs, and would hold
    them through the rest of the compile. The layer's own weights are the module's."""
    own = {id(c.value.data) for v in op.operands if isinstance(c := constant_op(v), xnn.ConstantOp)
           and isinstance(c.value, WeightAttr)}  # fmt: skip
    for sub in forms.values():
        for inner in sub.walk():
            if isinstance(inner, xnn.ConstantOp) and isinstance(inner.value, WeightAttr):
                if id(inner.value.data) not in own:
                    inner.value.data.data = None


def choose(static: str, times: dict[str, float], margin: float = MARGIN) -> str | None:
    """The static choice unless another form is faster by `margin`; the fastest form that
    ran when the static one did not; None when none ran."""
    if not times:
        return None
    fastest = min(times, key=times.__getitem__)
    if static not in times:
        return fastest
    return fastest if times[fastest] < times[static] * (1 - margin) else static


@dataclass
class Tuner:
    """Decides layers by measurement: the database first, then the timer (unless `cached`)."""

    target: Target
    db: tuning_db.TuningDB
    timer: Timer | None = None  # None: time_on_xnnpack
    cached: bool = False
    margin: float = MARGIN
    budget_ms: float = math.inf  # time for timing layers; then the static rules
    timed: int = 0  # layers timed (not found in the database)
    deferred: int = 0  # layers left to the static rule: the budget was spent
    spent_ms: float = 0.0
    _seen: dict[str, Decision | None] = field(default_factory=dict)

    def decide(self, op: Operation, form: str) -> Decision | None:
        layer = _layer(form, op)
        key = tuning_db.key(self.target, layer.key())
        if key not in self._seen:
            self._seen[key] = self._measure(op, form, layer, key)
        return self._seen[key]

    def _measure(self, op: Operation, form: str, layer: Layer, key: str) -> Decision | None:
        entry = self.db.get(key)
        if entry is None and not self.cached and self.spent_ms >= self.budget_ms:
            self.deferred += 1  # not in the database: a later compile times it
            return None
        if entry is None and not self.cached:
            static = rules.decide(self.target, layer).choice
            timer = self.timer or time_on_xnnpack
            start = time.perf_counter()
            forms = candidate_forms(op, form, self.target)
            times = timer(forms, self.target.threads)
            _release_copies(forms, op)
            self.spent_ms += (time.perf_counter() - start) * 1e3
            choice = choose(static, times, self.margin)
            self.timed += 1
            if choice is None:
                return None
            self.db.put(key, choice, times)
            entry = self.db.get(key)
        if entry is None:
            return None
        times = tuple((c, round(t, 4)) for c, t in sorted(entry["times_ms"].items()))
        return Decision(form, entry["choice"], "tuned", layer.key(), times_ms=times)


def _ops(module: ModuleOp, form: str) -> Iterator[Operation]:
    for sub in module.walk():
        if isinstance(sub, xnn.SubgraphOp):
            for op in sub.body.block.ops:
                if _is_candidate(form, op) and recorded(op, form) is None:
                    yield op


@dataclass(frozen=True)
class TunePass(ModulePass):
    """Time the forms of each layer of `form` ("conv-as-gemm", "bf16-gemm"; empty: both) on
    this machine and record the choices. db: the tuning database ("": `$XNNC_TUNING_DB` or
    the user's cache); cached: only read the database; budget-ms: time for timing layers,
    after which the rest keep the static rule (see the module docstring)."""

    name = "xnn-tune"
    option_ranges: ClassVar = {"budget_ms": (0, math.inf)}
    form: str = ""
    db: str = ""
    cached: bool = False
    budget_ms: float = math.inf

    def __post_init__(self) -> None:
        if self.form and self.form not in rules.FORMS:
            raise OptionError(
                f"xnn-tune: unknown form '{self.form}'; valid: {', '.join(rules.FORMS)}"
            )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_of(op)
        if not target.is_host():
            raise OptionError(
                f"xnn-tune: the module's target '{target}' is not this machine's CPU on the "
                "extended runtime; tuning times layers here (cross-compiles use the static rules)"
            )
        db = tuning_db.TuningDB.open(self.db or None)
        tuner = Tuner(target, db, cached=self.cached, budget_ms=self.budget_ms)
        tune_module(op, tuner, (self.form,) if self.form else tuple(rules.FORMS))


def tune_module(module: ModuleOp, tuner: Tuner, forms: tuple[str, ...]) -> None:
    """Record `tuner`'s decision on every undecided layer of `forms`; save the database."""
    try:
        for form in forms:
            # The largest layers first: they weigh most, if the budget ends the timing.
            for op in sorted(_ops(module, form), key=lambda o: -_layer(form, o).macs):
                decision = tuner.decide(op, form)
                if decision is not None:
                    record(op, decision)
    finally:
        tuner.db.save()
