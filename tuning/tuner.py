"""`xnn-tune`: time each distinct layer's candidate forms on this machine's XNNPACK and record
the winner on the op (`xnn.decision`, source "tuned"), for the rewrite owning the form.

    xnn-opt m.mlir -p 'xnn-tune{form=conv-as-gemm},xnn-conv-as-gemm'

A candidate form is built by the real rewrite: the layer alone in a one-node subgraph, the
candidate recorded as its decision, the owning pass run (`xnn-conv-as-gemm`,
`xnn-legalize-casts`), then the passes its table entry times it with (`cost.forms`). Each
form is serialized, loaded on the extended runtime at the target's thread count and timed
on random inputs: interleaved rounds (the order rotating),
each a sample of ~2 ms (at least one call); a form's time is its fastest sample (other
processes only ever add time: on a shared machine the minimum is the steadiest estimate of a
form's own cost, where a median drifts with the load); 5 rounds, 3 once a layer has used
100 ms (a large layer's samples vary little, and the compile time counts). The static
rule's choice is kept unless another form is faster by `margin` (5%): noise must not flip
choices, and a wrong flip costs more than a missed small gain. A form XNNPACK rejects (or
the serializer) is skipped; a layer with no form that ran keeps the static rule (no
record). Layers with the same signature are timed once per compile, and every result goes
to the tuning database (`tuning.db`), so a later compile on this machine times nothing.

fp16 compute is decided per region (`legalize/fp16_precision.py`): the region's nodes with
the converts at its boundary form the subgraph, each form rewritten as the program will be
(fp16 precision, casts, canonicalize), and the winner is recorded on each of its layers,
cached under the region's signature (`cost.rules.Fp16Region`). A region whose timing would
outlast what is left of the budget (`legalize.fp16_precision.region_timing_ms`) is
not timed: the static rule is recorded with that reason, and a later compile tries again.

`budget-ms` bounds the time spent timing layers (the largest layers go first; one is begun
only while the budget left covers its timing as predicted from the layers timed before it:
`TimingCost`); the layers left when it is spent keep the static rule and stay out of the
database, so the next compile times them: tuning a large model completes over a few
compiles, each at most the budget slower. `xnnc.compile` sets it to the time its import took
(torch.export and the import into `aten`), which keeps a cold compile near 2x an untuned one.

Tuning needs the host CPU: the pass refuses a module whose `#xnn.target` is another CPU or
the stock runtime (cross-compiles use the static rules). `cached=true` reads the database
and times nothing (layers it misses keep the static rule).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xnnc import legalize, transforms
from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.cost.decision import Decision, record, recorded, rule_source
from xnnc.cost.forms import AT_SMALLEST, LAYER_FORMS, Form, FormLayers
from xnnc.cost.forms import decide as decide_by_rule
from xnnc.cost.rules import Layer
from xnnc.dialects import xnn
from xnnc.dialects.types import (
    dims_of_type,
    module_attribute,
    size_symbols,
    symbol_ranges,
    tensor_type,
)
from xnnc.dialects.weights import WeightAttr
from xnnc.dialects.xnn import set_target, target_of
from xnnc.errors import OptionError, XnncError
from xnnc.ir.constants import constant_op
from xnnc.ir.rebuild import rebuilt
from xnnc.target import Target, emulation
from xnnc.translate.xnnpack import serialize_subgraph_named
from xnnc.tuning import db as tuning_db

MARGIN = 0.05
ROUNDS = 5
MIN_ROUNDS = 3
SAMPLE_MS = 2.0
LAYER_BUDGET_MS = 100.0  # timed per layer before stopping at MIN_ROUNDS: large layers are stable

# A timer: the forms of one layer (choice -> its one-layer subgraph) and a thread count ->
# milliseconds per run of each form that ran. Tests pass a fixed one.
Timer = Callable[[dict[str, xnn.SubgraphOp], int], dict[str, float]]


@dataclass(frozen=True)
class FormSpec:
    """How the tuner finds and builds one form's layers: its rewrite's `form_layers` (the
    anchor of a layer, how it is read, its ops and the carriers of its decision), the passes
    that build a form (the rewrite, then those the form is timed with) and the entry's
    timing fields (`cost.forms.Form`)."""

    candidate: Callable[[Operation], bool]  # is this op the anchor of an undecided layer?
    layer: Callable[[Operation], Layer]
    passes: tuple[type[ModulePass], ...]  # run with their default options, in order
    ops: Callable[[Operation], list[Operation]]  # the layer's ops, in order
    carriers: Callable[[Operation], list[Operation]]  # of `ops`
    choices: Callable[[Operation], tuple[str, ...]] | None
    where: Callable[[Operation], str] | None
    timing_ms: Callable[[Layer, Target], float] | None
    runs_on: Callable[[Target], bool]
    edge_reshapes_in_place: bool

    @classmethod
    def of(cls, form: Form, passes: dict[str, type[ModulePass]]) -> FormSpec:
        """The spec of `form`, its passes found in `passes` by name."""
        rewrite = passes[form.rewrite]
        found: FormLayers = rewrite.form_layers  # type: ignore[attr-defined]
        chain = (rewrite, *(passes[name] for name in form.timed_with))
        return cls(
            found.anchor, found.read, chain, found.ops, found.carriers, found.choices,
            found.where, found.timing_ms, form.runs_on, form.edge_reshapes_in_place,
        )  # fmt: skip


# How to find and build each form's layers, by form, from its table entry (`cost.forms`):
# its rewrite and the passes it is timed with are found by name among the rewrites and the
# legalizations.
_PASSES = transforms.passes() | legalize.passes()
SPECS: dict[str, FormSpec] = {f.name: FormSpec.of(f, _PASSES) for f in LAYER_FORMS.values()}


def _layer(form: str, op: Operation) -> Layer:
    return SPECS[form].layer(op)


def layer_module(ops: list[Operation], target: Target) -> tuple[ModuleOp, list[Operation]]:
    """The layer `ops` alone in a subgraph of a module for `target`, and their clones: their
    constant operands cloned (the weights shared by reference), their other operands the
    subgraph's inputs, their results used elsewhere its outputs (the last op's results when
    none is: a detached layer)."""
    inside = {r for o in ops for r in o.results}
    dynamic = list(dict.fromkeys(v for o in ops for v in o.operands
                                 if v not in inside and constant_op(v) is None))  # fmt: skip
    outer = [v.type for v in dynamic]
    body = Block(arg_types=outer)
    mapping: dict[SSAValue, SSAValue] = dict(zip(dynamic, body.args))
    for o in ops:
        for v in o.operands:
            if v not in mapping and v not in inside:
                const = constant_op(v).clone()  # type: ignore[union-attr]
                body.add_op(const)
                mapping[v] = const.results[0]
    clones = [o.clone(value_mapper=mapping) for o in ops]
    body.add_ops(clones)
    members = set(ops)
    used = [(i, j) for i, o in enumerate(ops) for j, r in enumerate(o.results)
            if any(u.operation not in members for u in r.uses)]  # fmt: skip
    results = [clones[i].results[j] for i, j in used] or list(clones[-1].results)
    body.add_op(xnn.OutputOp(*results))
    result_types = [r.type for r in results]
    func_body = Block(arg_types=outer)
    sub = xnn.SubgraphOp(list(func_body.args), result_types, Region(body))
    func_body.add_ops([sub, ReturnOp(*sub.results)])
    func = FuncOp("layer", (outer, result_types), Region(func_body))
    module = ModuleOp([func])
    set_target(module, target)
    return module, clones


def candidate_forms(op: Operation, form: str, target: Target) -> dict[str, xnn.SubgraphOp]:
    """Each form of the layer anchored at `op`, built by the pass owning `form`, as a
    subgraph (only the forms that differ for this layer: per-phase convolutions where the
    output phases allow them)."""
    spec = SPECS[form]
    layer, ops = spec.layer(op), spec.ops(op)
    forms = {}
    carriers = {ops.index(c) for c in spec.carriers(op)}
    for choice in spec.choices(op) if spec.choices else LAYER_FORMS[form].choices:
        module, clones = layer_module(ops, target)
        candidate = Decision(form, choice, "option", layer.key(), "tuning candidate")
        for i in carriers:
            record(clones[i], candidate)
        ctx = Context()
        for rewrite in spec.passes:
            rewrite().apply(ctx, module)
        forms[choice] = next(o for o in module.walk() if isinstance(o, xnn.SubgraphOp))
        if spec.edge_reshapes_in_place:
            drop_edge_reshapes(forms[choice])
    return forms


def drop_edge_reshapes(sub: xnn.SubgraphOp) -> None:
    """`sub` taking its inputs and giving its outputs in the shapes of the reshapes at its
    edges, which it no longer runs: an input's only user, an output's producer that reads
    no input. (The enclosing function keeps its types: the subgraph is timed alone.)"""
    block = sub.body.block
    for arg in list(block.args):
        uses = list(arg.uses)
        reshape = uses[0].operation if len(uses) == 1 else None
        if isinstance(reshape, xnn.StaticReshapeOp) and reshape.output.uses:
            new = block.insert_arg(reshape.output.type, arg.index)
            reshape.output.replace_all_uses_with(new)
            reshape.detach()
            reshape.erase()
            block.erase_arg(arg)
    output = block.last_op
    assert isinstance(output, xnn.OutputOp)
    for i, value in enumerate(output.operands):
        reshape = value.owner
        if (
            isinstance(reshape, xnn.StaticReshapeOp)
            and value.has_one_use()
            and not isinstance(reshape.input.owner, Block)
            and reshape.input not in output.operands
        ):
            output.operands[i] = reshape.input
            reshape.detach()
            reshape.erase()


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


def _release_copies(forms: dict[str, xnn.SubgraphOp], ops: list[Operation]) -> None:
    """Lets go of the weights the candidate rewrites made (per-tap filters): the throwaway
    modules live on in reference cycles until the garbage collector runs, and would hold
    them through the rest of the compile. The layer's own weights are the module's."""
    own = {id(c.value.data) for op in ops for v in op.operands
           if isinstance(c := constant_op(v), xnn.ConstantOp)
           and isinstance(c.value, WeightAttr)}  # fmt: skip
    for sub in forms.values():
        for inner in sub.walk():
            if isinstance(inner, xnn.ConstantOp) and isinstance(inner.value, WeightAttr):
                if id(inner.value.data) not in own:
                    inner.value.data.data = None


def schedule_ms(run_ms: list[float]) -> float:
    """The milliseconds `time_on_xnnpack` runs forms of these run times: two warm-up runs
    each, then rounds of one sample each (whole runs of ~`SAMPLE_MS`) until `ROUNDS`, or
    `MIN_ROUNDS` once `LAYER_BUDGET_MS` is spent."""
    samples = [max(1, round(SAMPLE_MS / max(r, 1e-3))) * r for r in run_ms]
    spent = 0.0
    for r in range(ROUNDS):
        if r >= MIN_ROUNDS and spent > LAYER_BUDGET_MS:
            break
        spent += sum(samples)
    return 2 * sum(run_ms) + spent


@dataclass
class TimingCost:
    """What timing a layer costs, predicted from the layers timed so far in a compile: its
    run time at the rate they ran (multiply-accumulates per ms of their fastest forms; those
    of its own form where one was timed, as forms differ in work per "MAC": an upsample's
    are the elements it writes) through `schedule_ms`, plus the mean of what building their
    forms took beyond their runs (rewriting, serializing, packing). 0 before the first
    layer: nothing is known."""

    build_ms: float = 0.0
    layers: int = 0
    # Per form, and over all forms (""): [multiply-accumulates, ms of the fastest forms].
    rates: dict[str, list[float]] = field(default_factory=dict)

    def add(self, form: str, layer: Layer, times: dict[str, float], took_ms: float) -> None:
        if not times or layer.macs <= 0:
            return
        for k in (form, ""):
            rate = self.rates.setdefault(k, [0.0, 0.0])
            rate[0] += layer.macs
            rate[1] += min(times.values())
        self.build_ms += max(took_ms - schedule_ms(list(times.values())), 0.0)
        self.layers += 1

    def predict(self, form: str, layer: Layer, forms: int) -> float:
        macs, ms = self.rates.get(form) or self.rates.get("", (0.0, 0.0))
        if not self.layers or ms <= 0:
            return 0.0
        return schedule_ms([layer.macs * ms / macs] * forms) + self.build_ms / self.layers


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
    cost: TimingCost = field(default_factory=TimingCost)
    _seen: dict[str, Decision | None] = field(default_factory=dict)

    def decide(self, op: Operation, form: str) -> Decision | None:
        op = _sized(op)
        layer = _layer(form, op)
        key = tuning_db.key(self.target, layer.key())
        if key not in self._seen:
            self._seen[key] = self._measure(op, form, layer, key)
        return self._seen[key]

    def _need(self, op: Operation, form: str, layer: Layer) -> float:
        """What timing this layer will cost: its form's estimate, or the prediction from the
        layers timed so far (a layer begun with a little budget left overshot it by a whole
        layer: Mimi at 2 threads on a Zen 4, ~180 ms a layer, a 460 ms budget spent 620-760
        ms)."""
        spec = SPECS[form]
        forms = len(spec.choices(op) if spec.choices else LAYER_FORMS[form].choices)
        estimate = spec.timing_ms(layer, self.target) if spec.timing_ms else 0.0
        return max(estimate, self.cost.predict(form, layer, forms))

    def _measure(self, op: Operation, form: str, layer: Layer, key: str) -> Decision | None:
        entry = self.db.get(key)
        if entry is None and not self.cached and self.spent_ms >= self.budget_ms:
            self.deferred += 1  # not in the database: a later compile times it
            return None
        left = self.budget_ms - self.spent_ms
        if entry is None and not self.cached and (need := self._need(op, form, layer)) > left:
            self.deferred += 1
            rule = decide_by_rule(self.target, layer)
            why = (
                f"not timed: ~{need:.0f} ms of timing, {left:.0f} ms left of the budget; {rule.why}"
            )
            return Decision(form, rule.choice, rule_source(rule), layer.key(), why)
        if entry is None and not self.cached:
            static = decide_by_rule(self.target, layer).choice
            timer = self.timer or time_on_xnnpack
            start = time.perf_counter()
            candidates = candidate_forms(op, form, self.target)
            times = timer(candidates, self.target.threads)
            _release_copies(candidates, SPECS[form].ops(op))
            took = (time.perf_counter() - start) * 1e3
            self.spent_ms += took
            self.cost.add(form, layer, times, took)
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


def _sized(op: Operation) -> Operation:
    """`op`, or with a symbolic size (a bf16 GEMM) its copy at the size whose form the
    program runs: the smallest (decode)."""
    return _at_smallest_size(op) if size_symbols(op) else op


def _at_smallest_size(op: Operation) -> Operation:
    """A detached copy of `op` with each size symbol at its smallest value: its non-constant
    operands arguments of a block of their own, its constants cloned beside them."""
    ranges = symbol_ranges(op)
    sizes = {s: ranges[s][0] for s in size_symbols(op)}

    def static(t: Attribute) -> Attribute:
        if not isinstance(t, TensorType):
            return t
        dims = [d.evaluate(sizes) if isinstance(d, DimExpr) else d for d in dims_of_type(t)]
        return tensor_type(t.element_type, dims)

    block = Block(arg_types=[static(v.type) for v in op.operands])
    operands = []
    for v, arg in zip(op.operands, block.args):
        const = constant_op(v)
        if const is not None:
            block.add_op(const := const.clone())
            operands.append(const.results[0])
        else:
            operands.append(arg)
    clone = rebuilt(op, operands=operands, result_types=[static(r.type) for r in op.results])
    block.add_op(clone)
    return clone


def _ops(module: ModuleOp, form: str) -> Iterator[Operation]:
    # A symbolic size is timed at one size only: the smallest, for a form whose one form for
    # all sizes is the smallest's (a bf16 GEMM: decode); the other forms' are not timed.
    at_smallest = LAYER_FORMS[form].symbolic == AT_SMALLEST
    for sub in module.walk():
        if isinstance(sub, xnn.SubgraphOp):
            for op in sub.body.block.ops:
                if (size_symbols(op) and not at_smallest) or recorded(op, form) is not None:
                    continue
                if SPECS[form].candidate(op):
                    yield op


@dataclass(frozen=True)
class TunePass(ModulePass):
    """Time the forms of each layer of `form` (`cost.forms.LAYER_FORMS`; empty: every form) on
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
        if self.form and self.form not in LAYER_FORMS:
            raise OptionError(
                f"xnn-tune: unknown form '{self.form}'; valid: {', '.join(LAYER_FORMS)}"
            )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(op)

    def run(self, op: ModuleOp, cost: TimingCost | None = None) -> Tuner:
        """Apply the pass; returns its tuner (what it timed and spent). `cost`: what timing
        cost in the tuning passes before this one of a compile (updated in place), so that
        its first layer is predicted too."""
        target = target_of(op)
        if module_attribute(op, xnn.TARGET_ATTR_NAME) is None:
            raise OptionError(
                "xnn-tune: the module has no #xnn.target; set this machine's first: "
                "-p 'xnn-set-target,xnn-tune'"
            )
        if not target.is_host():
            raise OptionError(
                f"xnn-tune: the module's target '{target}' is not this machine's CPU on the "
                "extended runtime; tuning times layers here (cross-compiles use the static rules)"
            )
        if (why := emulation()) is not None:
            raise OptionError(
                f"xnn-tune: this process runs under emulation ({why}), where times are not "
                "the CPU's; the static rules decide (drop xnn-tune)"
            )
        db = tuning_db.TuningDB.open(self.db or None)
        tuner = Tuner(target, db, cached=self.cached, budget_ms=self.budget_ms,
                      cost=TimingCost() if cost is None else cost)  # fmt: skip
        tune_module(op, tuner, (self.form,) if self.form else tuple(LAYER_FORMS))
        return tuner


def tune_module(module: ModuleOp, tuner: Tuner, forms: tuple[str, ...]) -> None:
    """Record `tuner`'s decision on every undecided layer of `forms`; save the database."""
    try:
        for form in forms:
            # The largest layers first: they weigh most, if the budget ends the timing.
            spec = SPECS[form]
            if not spec.runs_on(tuner.target):
                continue
            for op in sorted(_ops(module, form), key=lambda o: -_layer(form, _sized(o)).macs):
                decision = tuner.decide(op, form)
                if decision is None:
                    continue
                if spec.where is not None:
                    why = ": ".join(w for w in (spec.where(op), decision.why) if w)
                    decision = dataclasses.replace(decision, why=why)
                for carrier in spec.carriers(op):
                    record(carrier, decision)
    finally:
        tuner.db.save()
