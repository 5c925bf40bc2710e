"""A layer's choice between equivalent forms, recorded on its op as `xnn.decision`:

    %y = xnn.convolution_2d %x, %w, %b {..., xnn.decision = {form = "conv-as-gemm",
           choice = "direct", source = "tuned", layer = "conv f32 1x1x26x512->256 k1x7 ...",
           times_ms = {direct = 1.21 : f64, gemm = 1.4 : f64}}}

The rewrite that owns the form (`xnn-conv-as-gemm`, `xnn-legalize-casts`) follows a recorded
choice without asking anything else, so `xnn-opt` on IR with decisions reproduces what
`xnnc.compile` did, on any machine; a layer without one gets the static rule's choice
(`cost.rules`), recorded as such. After the rewrite the decision sits on the op that computes
the layer's result. `source` is "rule", "tuned" (`times_ms` has every form that ran) or
"option" (`ignore-target=true`, or the tuner building a form to time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, StringAttr, f64
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from xnnc.cost import rules
from xnnc.cost.rules import ConvLayer, GemmLayer, Layer
from xnnc.dialects import xnn
from xnnc.dialects.xnn import target_of
from xnnc.ir.dims import DimExpr
from xnnc.ir.types import shape_of, size_symbols

DECISION_ATTR = "xnn.decision"
DECLINED_ATTR = "xnn.declined"
SOURCES = ("rule", "tuned", "option")


@dataclass(frozen=True)
class Decision:
    """Which form a layer takes (`rules.FORMS`), on what grounds."""

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
    def from_attr(cls, attr: Attribute, where: str) -> Decision:
        """The decision an `xnn.decision` attribute holds; VerifyException naming `where`
        (the op and its location) when it is not one."""

        def fail(problem: str) -> VerifyException:
            return VerifyException(f"{where}: {DECISION_ATTR}: {problem}")

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
        choices = rules.FORMS.get(text["form"])
        if choices is None:
            raise fail(f"unknown form '{text['form']}'; valid: {', '.join(rules.FORMS)}")
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


def _where(op: Operation) -> str:
    return f"{op.name} at {op.location}"


def recorded(op: Operation, form: str) -> Decision | None:
    """The decision on `op` about `form`, if one is recorded."""
    attr = op.attributes.get(DECISION_ATTR)
    if attr is None:
        return None
    decision = Decision.from_attr(attr, _where(op))
    return decision if decision.form == form else None


def record(op: Operation, decision: Decision) -> None:
    op.attributes[DECISION_ATTR] = decision.to_attr()


def decisions(root: Operation) -> list[tuple[Operation, Decision]]:
    """Every recorded decision under `root`, in IR order."""
    found = []
    for op in root.walk():
        attr = op.attributes.get(DECISION_ATTR)
        if attr is not None:
            found.append((op, Decision.from_attr(attr, _where(op))))
    return found


def static(op: Operation, layer: Layer) -> Decision:
    """The static rule's decision for `layer`, on the target of the module around `op`."""
    choice = rules.decide(target_of(op), layer)
    return Decision(layer.form, choice.choice, "rule", layer.key(), choice.why)


def decide(op: Operation, layer: Layer) -> Decision:
    """The recorded decision about `layer`'s form on `op`, else the static rule's; the form
    as converted when a size is symbolic (the other forms are built for one size)."""
    symbols = sorted({s for v in vars(layer).values() if isinstance(v, DimExpr) for s in v.symbols})
    if symbols:
        why = f"symbolic size {', '.join(symbols)}: {_STATIC_ONLY[layer.form]}"
        return Decision(layer.form, rules.FORMS[layer.form][0], "rule", layer.key(), why)
    return recorded(op, layer.form) or static(op, layer)


_STATIC_ONLY = {
    "conv-as-gemm": "the taps' slices have fixed sizes",
    "bf16-gemm": "the native bf16 GEMM runs as a static operator",
}


def declined(op: Operation, rewrite: str, why: str) -> bool:
    """Whether `op` has a symbolic size; if so, records on `op` (`xnn.declined`) that
    `rewrite` leaves it alone and `why` (what in the rewrite is built for one size)."""
    symbols = size_symbols(op)
    if not symbols:
        return False
    entries = dict(op.attributes[DECLINED_ATTR].data) if DECLINED_ATTR in op.attributes else {}
    entries[rewrite] = StringAttr(f"symbolic size {', '.join(symbols)}: {why}")
    op.attributes[DECLINED_ATTR] = DictionaryAttr(entries)
    return True


def _int(attr: Attribute) -> int:
    return attr.value.data  # type: ignore[attr-defined]


def conv_layer(op: xnn.Convolution2dOp) -> ConvLayer:
    n, h, w, cin = shape_of(op.input)
    return ConvLayer(
        str(op.input.type.element_type),  # type: ignore[attr-defined]
        n, h, w, cin, _int(op.group_output_channels),
        (_int(op.kernel_height), _int(op.kernel_width)),
        (_int(op.dilation_height), _int(op.dilation_width)),
        op.padding(),
    )  # fmt: skip


def gemm_layer(op: Operation) -> GemmLayer:
    """A fully-connected ([..., K] x [N, K]) or batch matmul ([B..., M, K] x [B..., K, N])."""
    x, y = shape_of(op.operands[0]), shape_of(op.results[0])
    if isinstance(op, xnn.FullyConnectedOp):
        return GemmLayer("fc", 1, math.prod(x[:-1]), x[-1], y[-1])
    return GemmLayer("bmm", math.prod(y[:-2]), x[-2], x[-1], y[-1])
