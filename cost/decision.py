"""A layer's choice between equivalent forms, recorded on its op as `xnn.decision`:

    %y = xnn.convolution_2d %x, %w, %b {..., xnn.decision = {form = "conv-as-gemm",
           choice = "direct", source = "tuned", layer = "conv f32 1x1x26x512->256 k1x7 ...",
           times_ms = {direct = 1.21 : f64, gemm = 1.4 : f64}}}

The rewrite that owns the form (`xnn-conv-as-gemm`, `xnn-legalize-casts`) follows a recorded
choice without asking anything else, so `xnn-opt` on IR with decisions reproduces what
`xnnc.compile` did, on any machine; a layer without one gets the static rule's choice
(`cost.rules`), recorded as such. After the rewrite the decision sits on the op that computes
the layer's result. `source` is "rule", "unmeasured" (a rule whose numbers were never
measured on the target's kind of CPU: every speed rule on arm64), "tuned" (`times_ms` has
every form that ran) or "option" (`ignore-target=true`, or the tuner building a form to
time).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, StringAttr, f64
from xdsl.ir import Attribute, Operation

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.cost import forms
from xnnc.cost.rules import Choice, ConvLayer, Layer
from xnnc.dialects.locations import where
from xnnc.dialects.types import (
    size_symbols,
    symbol_ranges,
)
from xnnc.dialects.xnn import target_of
from xnnc.errors import LocatedError

DECISION_ATTR = "xnn.decision"
DECLINED_ATTR = "xnn.declined"
SOURCES = ("rule", "unmeasured", "tuned", "option")


def rule_source(choice: Choice) -> str:
    """The source of a static rule's decision: "rule", or "unmeasured" for a guess."""
    return "rule" if choice.measured else "unmeasured"


class DecisionError(LocatedError):
    """A malformed `xnn.decision` attribute, named by its op."""


@dataclass(frozen=True)
class Decision:
    """Which form a layer takes (a choice of `forms.LAYER_FORMS[form]`), on what grounds."""

    form: str
    choice: str
    source: str
    layer: str
    why: str = ""
    times_ms: tuple[tuple[str, float], ...] = ()  # (choice, ms) per form timed

    def describe(self) -> str:
        """ "direct (tuned 1.21 ms vs gemm 1.40 ms)" or "gemm (rule: ...)"."""
        if self.source == "tuned":
            times = dict(self.times_ms)
            others = ", ".join(f"{c} {t:.3f} ms" for c, t in self.times_ms if c != self.choice)
            return f"{self.choice} (tuned {times[self.choice]:.3f} ms vs {others or 'none'})"
        return f"{self.choice} ({self.source}: {self.why})" if self.why else self.choice

    def to_attr(self) -> DictionaryAttr:
        fields: dict[str, Attribute] = {
            "form": StringAttr(self.form),
            "choice": StringAttr(self.choice),
            "source": StringAttr(self.source),
            "layer": StringAttr(self.layer),
        }
        if self.why:
            fields["why"] = StringAttr(self.why)
        if self.times_ms:
            fields["times_ms"] = DictionaryAttr({c: FloatAttr(t, f64) for c, t in self.times_ms})
        return DictionaryAttr(fields)

    @classmethod
    def from_attr(cls, attr: Attribute, where: str | Callable[[], str]) -> Decision:
        """The decision an `xnn.decision` attribute holds; DecisionError naming `where`
        (`dialects.locations.where` of its op, or a function giving it: rendering an op's
        location prints it, and the tuner reads every op's decisions) when it is not one."""

        def fail(problem: str) -> DecisionError:
            return DecisionError(where if isinstance(where, str) else where(),
                                 f"{DECISION_ATTR}: {problem}")  # fmt: skip

        if not isinstance(attr, DictionaryAttr):
            raise fail(f"expected a dictionary, got {attr}")
        data = attr.data
        text = {}
        for key in ("form", "choice", "source", "layer", "why"):
            value = data.get(key)
            if value is None and key != "why":
                raise fail(f"'{key}' is missing")
            if value is not None and not isinstance(value, StringAttr):
                raise fail(f"'{key}' must be a string, got {value}")
            text[key] = "" if value is None else value.data
        form = forms.LAYER_FORMS.get(text["form"])
        if form is None:
            raise fail(f"unknown form '{text['form']}'; valid: {', '.join(forms.LAYER_FORMS)}")
        choices = form.choices
        if text["choice"] not in choices:
            raise fail(f"unknown {text['form']} choice '{text['choice']}'; valid: "
                       + ", ".join(choices))  # fmt: skip
        if text["source"] not in SOURCES:
            raise fail(f"unknown source '{text['source']}'; valid: {', '.join(SOURCES)}")
        times = data.get("times_ms", DictionaryAttr({}))
        if not isinstance(times, DictionaryAttr) or not all(
            c in choices and isinstance(t, FloatAttr) and math.isfinite(t.value.data)
            for c, t in times.data.items()
        ):
            raise fail(f"'times_ms' must map {text['form']} choices to times, got {times}")
        pairs = tuple((c, t.value.data) for c, t in times.data.items())  # type: ignore[union-attr]
        if text["source"] == "tuned" and text["choice"] not in dict(pairs):
            raise fail(f"a tuned choice needs its time in 'times_ms', got {times}")
        return cls(text["form"], text["choice"], text["source"], text["layer"], text["why"], pairs)


def _all(op: Operation) -> list[Decision]:
    """The decisions on `op`: one dictionary, or an array of them when an op is a layer of
    several forms (an fp16 convolution: fp16-compute and conv-as-gemm)."""
    attr = op.attributes.get(DECISION_ATTR)
    if attr is None:
        return []
    items = attr.data if isinstance(attr, ArrayAttr) else (attr,)
    found = [Decision.from_attr(item, lambda: where(op)) for item in items]
    forms = [d.form for d in found]
    if len(set(forms)) != len(forms):
        raise DecisionError(where(op), f"{DECISION_ATTR}: two decisions about one form")
    return found


def recorded(op: Operation, form: str) -> Decision | None:
    """The decision on `op` about `form`, if one is recorded."""
    return next((d for d in _all(op) if d.form == form), None)


def record(op: Operation, decision: Decision) -> None:
    """Record `decision` on `op`, replacing one about the same form."""
    kept = [d for d in _all(op) if d.form != decision.form] + [decision]
    attrs = [d.to_attr() for d in kept]
    op.attributes[DECISION_ATTR] = attrs[0] if len(attrs) == 1 else ArrayAttr(attrs)


def record_moved(layer: Operation, result: Operation, decision: Decision) -> None:
    """Record `decision` on `result`, the op now computing what `layer` did, with the
    decisions `layer` held about other forms (an fp16 convolution rewritten as GEMMs keeps
    its fp16 decision)."""
    for other in _all(layer):
        if other.form != decision.form:
            record(result, other)
    record(result, decision)


def rewriting(op: Operation, layer: Layer, choice: str, ignore_target: bool) -> Decision | None:
    """The decision about `layer` (or `choice` by the option, with `ignore_target`) when it
    is `choice`, the form a pass builds; else None, with the decision recorded on `op`."""
    if ignore_target:
        return Decision(layer.form, choice, "option", layer.key(), "ignore-target=true")
    decision = decide(op, layer)
    if decision.choice == choice:
        return decision
    record(op, decision)
    return None


def move_decisions(source: Operation, result: Operation) -> None:
    """Record every decision on `source` on `result`, the op now computing what it did."""
    for decision in _all(source):
        record(result, decision)


def decisions(root: Operation) -> list[tuple[Operation, Decision]]:
    """Every recorded decision under `root`, in IR order."""
    return [(op, d) for op in root.walk() for d in _all(op)]


def static(op: Operation, layer: Layer) -> Decision:
    """The static rule's decision for `layer`, on the target of the module around `op`."""
    choice = forms.decide(target_of(op), layer)
    return Decision(layer.form, choice.choice, rule_source(choice), layer.key(), choice.why)


def decide(op: Operation, layer: Layer) -> Decision:
    """The recorded decision about `layer`'s form on `op`, else the static rule's. On a
    symbolic size, as its form says (`forms.Form.symbolic`): by the rule, over the sizes'
    range, at the smallest size, or the form as converted (the others are built for one
    size)."""
    fields = [d for v in vars(layer).values() for d in (v if isinstance(v, tuple) else (v,))]
    symbols = sorted({s for d in fields if isinstance(d, DimExpr) for s in d.symbols})
    if not symbols:
        return recorded(op, layer.form) or static(op, layer)
    form = forms.LAYER_FORMS[layer.form]
    if form.symbolic == forms.BY_RULE:
        return static(op, layer)  # the rule reads no size, and the rewrite checks its form
    if form.symbolic == forms.OVER_RANGE:
        return _over_range(op, layer, symbols)
    if form.symbolic == forms.AT_SMALLEST:
        return _at_smallest(op, layer, symbols)
    why = f"symbolic size {', '.join(symbols)}: {form.fixed_size}"
    return Decision(layer.form, form.choices[0], "rule", layer.key(), why)


def _at_smallest(op: Operation, layer: Layer, symbols: list[str]) -> Decision:
    """A decision recorded on `op`, else the static rule at the smallest size: one blob
    serves every size, and the smallest (decode, M = 1) decides, as a static compile at that
    size would (the split runtime reshapes a bf16 GEMM's operators per size)."""
    if (tuned := recorded(op, layer.form)) is not None:
        return tuned
    ranges = symbol_ranges(op)
    # A module without `xnnc.symbols` (hand-written IR) records no range: a size is >= 1.
    env = {s: ranges[s][0] if s in ranges else 1 for s in symbols}
    rule = static(op, _at(layer, env))
    at = ", ".join(
        f"{s} = {v}" + ("" if s in ranges else ", no recorded range") for s, v in env.items()
    )
    why = f"symbolic size {', '.join(symbols)}: the form at the smallest size ({at}): {rule.why}"
    return Decision(layer.form, rule.choice, rule.source, layer.key(), why)


def _over_range(op: Operation, layer: Layer, symbols: list[str]) -> Decision:
    """One form serves every size. A decision recorded for this symbolic layer (its key) is
    followed; else a convolution's direct form when the taps' slices cannot follow the size
    (`taps_cannot_follow`), else the static rule over the range."""
    if (kept := recorded(op, layer.form)) is not None and kept.layer == layer.key():
        return kept
    if isinstance(layer, ConvLayer) and (why := taps_cannot_follow(op, layer)) is not None:
        why = f"symbolic size {', '.join(symbols)}: {why}"
        return Decision(layer.form, "direct", "rule", layer.key(), why)
    return _rule_over_range(op, layer, symbols)


def taps_cannot_follow(op: Operation, layer: ConvLayer) -> str | None:
    """Why the GEMM form of `layer` cannot follow its symbolic sizes on the target of `op`,
    or None when it can. Tap j along an axis of kernel k and dilation d reads the padded
    input from j*d to (k-1-j)*d before its end: on a symbolic axis with k > 1 all taps but
    the last end before the dim's end, which only the extended runtime's from-end slice
    (`XNNStaticSliceV3`) writes. The one-output-channel form (depthwise + channel sum)
    slices nothing and always follows."""
    if layer.out_channels == 1 or target_of(op).runtime == "extended":
        return None
    axes = zip((layer.height, layer.width), layer.kernel, layer.dilation, strict=True)
    if all(isinstance(size, int) or (k - 1) * d == 0 for size, k, d in axes):
        return None
    return (
        "the taps' slices end before the end of a symbolic dim, and stock ExecuTorch's "
        "XNNStaticSlice takes only absolute unsigned sizes (a slice to the end is the most it "
        "can follow)"
    )


def _rule_over_range(op: Operation, layer: Layer, symbols: list[str]) -> Decision:
    """The static rule at both ends of the symbols' ranges (`xnnc.symbols`); when they
    disagree, the form at the largest size, where the layer takes most time."""
    ranges = symbol_ranges(op)
    if not all(s in ranges for s in symbols):
        rule = static(op, layer)  # the conv rule reads channels and threads, not sizes
        why = f"symbolic size {', '.join(symbols)} (no recorded range): the rule: {rule.why}"
        return Decision(layer.form, rule.choice, rule.source, layer.key(), why)
    ends = [static(op, _at(layer, {s: ranges[s][i] for s in symbols})) for i in (0, 1)]
    span = ", ".join(f"{s} in [{ranges[s][0]}, {ranges[s][1]}]" for s in symbols)
    low, high = ends
    if low.choice == high.choice:
        why = f"symbolic size {span}: {high.choice} by the rule at both ends: {high.why}"
    else:
        why = (
            f"symbolic size {span}: {high.choice}, the rule's form at the largest size, where "
            f"the layer takes most time ({high.why}); at the smallest: {low.choice} ({low.why})"
        )
    return Decision(layer.form, high.choice, high.source, layer.key(), why)


def _at(layer: Layer, env: dict[str, int]) -> Layer:
    """`layer` with its symbolic sizes evaluated at `env`."""
    return dataclasses.replace(layer, **{  # type: ignore[type-var]
        k: v.evaluate(env) for k, v in vars(layer).items() if isinstance(v, DimExpr)
    })  # fmt: skip


def declined(op: Operation, rewrite: str, why: str, symbols: Sequence[str] = ()) -> bool:
    """Whether `op` has a symbolic size (or `symbols` names one it depends on); if so,
    records on `op` (`xnn.declined`) that `rewrite` leaves it alone and `why` (what in the
    rewrite is built for one size)."""
    symbols = sorted(symbols) or size_symbols(op)
    if not symbols:
        return False
    entries = dict(op.attributes[DECLINED_ATTR].data) if DECLINED_ATTR in op.attributes else {}
    entries[rewrite] = StringAttr(f"symbolic size {', '.join(symbols)}: {why}")
    op.attributes[DECLINED_ATTR] = DictionaryAttr(entries)
    return True
