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
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr, StringAttr, f64
from xdsl.ir import Attribute, Operation, SSAValue

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.cost import forms
from xnnc.cost.rules import (
    Choice,
    ConvLayer,
    DeconvLayer,
    Fp16Layer,
    Fp16Region,
    GemmLayer,
    Layer,
    LinearLayer,
    RowLayer,
    StemLayer,
    UpsampleLayer,
)
from xnnc.dialects import xnn
from xnnc.dialects.locations import where
from xnnc.dialects.types import (
    element_nbytes,
    element_type,
    int_value,
    shape_of,
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


def conv_layer(op: xnn.Convolution2dOp) -> ConvLayer:
    n, h, w, cin = shape_of(op.input)
    return ConvLayer(
        str(op.input.type.element_type),  # type: ignore[attr-defined]
        n, h, w, cin, int_value(op.group_output_channels),
        (int_value(op.kernel_height), int_value(op.kernel_width)),
        (int_value(op.dilation_height), int_value(op.dilation_width)),
        op.padding(),
    )  # fmt: skip


def stem_layer(op: xnn.Convolution2dOp) -> StemLayer:
    """A strided int8 convolution `xnn-space-to-depth` can rewrite (static NHWC sizes)."""
    n, h, w, cin = shape_of(op.input)
    return StemLayer(
        "qs8", (n, h, w, cin), int_value(op.group_output_channels),  # type: ignore[arg-type]
        (int_value(op.kernel_height), int_value(op.kernel_width)), int_value(op.subsampling_height),
        op.padding(),
    )  # fmt: skip


RowOp = xnn.DepthwiseConvolution2dOp | xnn.MaxPooling2dOp | xnn.AveragePooling2dOp


def row_layer(op: RowOp) -> RowLayer:
    """A depthwise convolution or pooling over one row ([N, 1, W, C]) `xnn-depthwise-rows`
    can rewrite."""
    n, _, w, c = shape_of(op.input)
    _, right, _, left = op.padding()
    dtype, out_w = str(op.input.type.element_type), shape_of(op.results[0])[2]  # type: ignore[attr-defined]
    if isinstance(op, xnn.DepthwiseConvolution2dOp):
        return RowLayer(dtype, n, w, out_w, c, int_value(op.kernel_width),
                        int_value(op.subsampling_width), int_value(op.dilation_width),
                        (left, right))  # fmt: skip
    dilation = int_value(op.dilation_width) if isinstance(op, xnn.MaxPooling2dOp) else 1
    kind = "maxpool" if isinstance(op, xnn.MaxPooling2dOp) else "avgpool"
    return RowLayer(dtype, n, w, out_w, c, int_value(op.pooling_width),
                    int_value(op.stride_width), dilation, (left, right), kind)  # fmt: skip


def gemm_layer(op: Operation) -> GemmLayer:
    """A fully-connected ([..., K] x [N, K]) or batch matmul ([B..., M, K] x [B..., K, N])."""
    x, y = shape_of(op.operands[0]), shape_of(op.results[0])
    if isinstance(op, xnn.FullyConnectedOp):
        return GemmLayer("fc", 1, math.prod(x[:-1]), x[-1], y[-1])
    return GemmLayer("bmm", math.prod(y[:-2]), x[-2], x[-1], y[-1])


def upsample_layer(x: SSAValue) -> UpsampleLayer:
    """The nearest x2 upsample of `x` (NHWC)."""
    n, h, w, c = shape_of(x)
    elem = x.type.element_type  # type: ignore[attr-defined]
    return UpsampleLayer(str(elem), (n, h, w, c), element_nbytes(elem))


def deconv_layer(op: xnn.Deconvolution2dOp) -> DeconvLayer:
    n, h, w, cin = shape_of(op.input)
    return DeconvLayer(
        str(op.input.type.element_type),  # type: ignore[attr-defined]
        (n, h, w, cin), shape_of(op.output)[3], int_value(op.groups),
        (int_value(op.kernel_height), int_value(op.kernel_width)),
        (int_value(op.upsampling_height), int_value(op.upsampling_width)),
        op.padding(),
    )  # fmt: skip


def linear_layer(op: xnn.FullyConnectedOp) -> LinearLayer:
    x, y = shape_of(op.input), shape_of(op.output)
    return LinearLayer(str(element_type(op.output)), math.prod(x[:-1]), x[-1], y[-1])


# Integer parameters whose default is 1 (the others default to 0): left out of signatures.
_ONE_BY_DEFAULT = {"dilation_height", "dilation_width", "subsampling_height", "subsampling_width",
                   "depth_multiplier", "groups"}  # fmt: skip


def fp16_layer(op: Operation) -> Fp16Layer:
    """An fp16 layer: its kind, operand and result shapes and the integer parameters that are
    not at their defaults."""
    shapes = ",".join("x".join(map(str, shape_of(v))) for v in op.operands)
    params = " ".join(
        f"{k}={v.value.data}"
        for k, v in sorted(op.properties.items())
        if isinstance(v, IntegerAttr) and v.value.data != (k in _ONE_BY_DEFAULT)
    )
    out = shape_of(op.results[0])
    signature = f"{op.name.removeprefix('xnn.')} {shapes}->{'x'.join(map(str, out))} {params}"
    # Per output element: the filter's taps times its input channels ([O, kh, kw, I]); a
    # depthwise filter ([1, kh, kw, C]) has one input channel per output channel.
    taps = shape_of(op.operands[1])[1 : 3 if isinstance(op, xnn.DepthwiseConvolution2dOp) else None]
    return Fp16Layer(signature.strip(), math.prod(out) * math.prod(taps))


def fp16_region(ops: Sequence[Operation], layers: Sequence[Operation]) -> Fp16Region:
    """The fp16 region of `layers` (`legalize/fp16_precision.py: fp16_regions`), from `ops`:
    its nodes and the converts at its boundary, in block order. The digest covers each op's
    kind, properties and result types, and where each operand comes from (an op of the
    region, a constant of its type, or the k-th distinct input of its type), so equal
    regions share one database entry wherever they sit."""
    produced: dict[SSAValue, str] = {}
    inputs: dict[SSAValue, str] = {}
    inside = set(ops)
    lines = []
    for i, op in enumerate(ops):
        refs = []
        for v in op.operands:
            if v in produced:
                refs.append(produced[v])
            elif isinstance(v.owner, xnn.ConstantOp):
                refs.append(f"const {v.type}")
            else:
                refs.append(inputs.setdefault(v, f"in{len(inputs)} {v.type}"))
        outs = []
        for j, r in enumerate(op.results):
            produced[r] = f"%{i}.{j}"
            used_outside = any(u.operation not in inside for u in r.uses)
            outs.append(f"{r.type}{' out' if used_outside else ''}")
        props = " ".join(f"{k}={v}" for k, v in sorted(op.properties.items()))
        lines.append(f"{op.name} ({', '.join(refs)}) {props} -> {', '.join(outs)}")
    digest = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:12]
    first = fp16_layer(layers[0]).signature
    macs = sum(fp16_layer(op).macs for op in layers)
    nodes = sum(not isinstance(op, xnn.ConvertOp) for op in ops)
    return Fp16Region(len(layers), nodes, first, digest, macs)
