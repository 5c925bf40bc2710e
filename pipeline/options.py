"""`CompileOptions`: everything that decides what xnnc compiles, in one value that every
entry point takes and checks before any work starts.

    options = CompileOptions(target="stock,x86-64-avx2", fp16="fp32", exclude=("aten.elu",))
    xnnc.compile(model, inputs, options)          # or the same fields as keywords
    XnncPartitioner(options)                       # the same delegates through ExecuTorch
    xnn-opt m.mlir -p 'xnnc-pipeline{fp16=fp32 exclude="aten.elu"}'

Fields:
- target: a `Target` or its spec string (`xnnc.target`): the runtime flavour (stock
  ExecuTorch or xnnc's extended runtime), the CPU features and the thread count. The
  pipeline writes it into the module as `#xnn.target`, where every pass reads it.
- fp16: how fp16 computes: "native" (XNNPACK's fp16 kernels), "fp32" (computed in fp32 inside
  each subgraph) or "auto" ("native" where the target has fp16 arithmetic).
- bf16: how bf16 values between GEMMs compute: "fp32" (the default: in fp32 inside each
  subgraph, rounded to bf16 where a bf16 GEMM reads them and at the subgraph's outputs) or
  "native" (each bf16 result rounded to bf16, as eager does). The GEMMs' own form is the
  cost model's in either mode.
- exclude: aten op names kept out of XNNPACK (`"aten.elu"`).
- disable: passes or canonicalization sets/patterns not to run (`"xnn-polyphase"`). The
  legalizations a target needs cannot be disabled. `"aten-fold-qdq"` computes a PT2E
  static-int8 program as PT2E writes it: each op in fp32 between the converts of its
  quantize and dequantize, weights dequantized at compile time (for checking numerics
  against the PT2E model; slower than the int8 nodes).
- threads: sets the target's thread count (a shorthand for `target=...,threads=N`).
- tune: where the cost model's choices come from (`xnnc.cost`, `xnnc.tuning`): "auto" (the
  default) times each distinct layer's forms on this machine when the target is the host
  CPU on the extended runtime, and uses the static per-ISA rules otherwise (cross-compiles,
  the stock runtime); True is "auto" that refuses any other target; False: the static
  rules; "cached": measured choices from the tuning database only, never timing.
- tuning_db: the tuning database file (default `$XNNC_TUNING_DB`, else
  `$XDG_CACHE_HOME/xnnc/tuning.json`).
- tune_budget_ms: how long one compile may spend timing layers, ms. None (the default):
  `xnnc.compile` gives it as long as its import took (a cold compile stays near 2x an
  untuned one; the layers left over are timed by later compiles), other entry points no
  bound; `math.inf` times every layer the database lacks in this compile; 0 times none.
- streaming: "" (an offline program), or the step of a stream as `aten-stream`'s options
  spell it: "axis=2 frames=1 lookahead=auto" (`xnnc.Streaming` writes it; docs/streaming.md).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xnnc.cost.forms import FORMS, LAYER_FORMS
from xnnc.errors import OptionError
from xnnc.legalize.bf16_precision import MODES as BF16_MODES
from xnnc.legalize.fp16_precision import MODES as FP16_MODES
from xnnc.legalize.fp16_precision import resolve_mode
from xnnc.target import Target, emulation

# Passes of the default pipeline a user may switch off: these, and the rewrites of the forms
# (`cost.forms`) that run as passes; the seed rewrite sets and their patterns (canonicalize's
# `disabled-patterns`) are added from the canonicalization registry.
OPTIONAL_PASSES = (
    "aten-fold-qdq",
    "fold-batch-norm",
    "fold-constants",
    "canonicalize",
    "xnn-hoist-input-projection",
    *(f.disable for f in LAYER_FORMS.values() if f.disable and f.stage != "canonicalize"),
)
# Choices made while importing, which a user may switch off the same way: the import forms
# ("lstm-loop" keeps a static LSTM whole for xnnc's recurrent loop, `cost.rules.lstm_loop`;
# disabled, it unrolls) and "lstm-step-calls": a `.pte` runs such an LSTM as calls of one
# delegate per step (`xnnc.pte.lstm_calls`); disabled, its steps are nodes of its
# neighbours' delegate.
IMPORT_CHOICES = (
    *(f.disable for f in FORMS.values() if f.stage == "import"),
    "lstm-step-calls",
)
# Why a legalization cannot be disabled, by pass and the runtime that needs it.
REQUIRED = {
    ("xnn-legalize-casts", "stock"): "stock ExecuTorch cannot define bf16 convolutions, "
    "pooling, reductions or softmax",
    ("xnn-legalize-stock", "stock"): "stock ExecuTorch lacks xnnc's extension node kinds",
    ("xnn-legalize-stock", "extended"): "it only runs for the stock runtime",
    ("xnn-legalize-broadcasts", "stock"): "XNNPACK drops a broadcast that feeds a binary node",
    ("xnn-legalize-broadcasts", "extended"): "XNNPACK drops a broadcast that feeds a binary node",
    ("xnn-legalize-outputs", "stock"): "XNNPACK needs each output written by a node",
    ("xnn-legalize-outputs", "extended"): "XNNPACK needs each output written by a node",
}


def _names(value: Any, option: str) -> tuple[str, ...]:
    """Names as a tuple: a string (names separated by commas) or an iterable of strings."""
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, Iterable):
        raise OptionError(f"{option}: expected op or pass names, got {value!r}")
    names: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise OptionError(f"{option}: expected names as strings, got {item!r}")
        names += [name.strip() for name in item.split(",") if name.strip()]
    return tuple(names)


@dataclass(frozen=True)
class CompileOptions:
    """What to compile for and how; validated on construction (see the module docstring)."""

    target: Target | str = "extended"
    fp16: str = "auto"
    exclude: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    threads: int | None = field(default=None, compare=False)
    tune: bool | str = "auto"
    tuning_db: str | None = None
    tune_budget_ms: float | None = None
    bf16: str = "fp32"
    streaming: str = ""

    def __post_init__(self) -> None:
        target = self.target if isinstance(self.target, Target) else _parse_target(self.target)
        if self.threads is not None:
            if isinstance(self.threads, bool) or not isinstance(self.threads, int):
                raise OptionError(f"threads: expected a positive int, got {self.threads!r}")
            target = target.replace(threads=self.threads)
        set_ = object.__setattr__
        set_(self, "target", target)
        set_(self, "threads", None)
        if self.fp16 not in FP16_MODES:
            raise OptionError(f"fp16: unknown mode {self.fp16!r}; valid: {', '.join(FP16_MODES)}")
        if self.bf16 not in BF16_MODES:
            raise OptionError(f"bf16: unknown mode {self.bf16!r}; valid: {', '.join(BF16_MODES)}")
        set_(self, "exclude", _names(self.exclude, "exclude"))
        set_(self, "disable", _names(self.disable, "disable"))
        _check_exclude(self.exclude)
        _check_disable(self.disable, target)
        _check_tune(self.tune, target)
        if self.tuning_db is not None:
            if not isinstance(self.tuning_db, (str, os.PathLike)) or not str(self.tuning_db):
                raise OptionError(f"tuning_db: expected a file path, got {self.tuning_db!r}")
            if os.path.isdir(self.tuning_db):
                raise OptionError(f"tuning_db: {self.tuning_db} is a directory, not a file")
            set_(self, "tuning_db", os.fspath(self.tuning_db))
        _check_budget(self.tune_budget_ms)
        if self.streaming:
            stream_options(self.streaming)

    @classmethod
    def of(cls, options: CompileOptions | None = None, **fields: Any) -> CompileOptions:
        """`options` with `fields` replacing its own (None fields are left as they are). A
        target string that names no thread count keeps `options`' threads."""
        given = {k: v for k, v in fields.items() if v is not None}
        if options is None:
            return cls(**given)
        target = given.get("target")
        if isinstance(target, str) and "threads" not in given and "threads=" not in target:
            given["threads"] = options.target.threads
        return dataclasses.replace(options, **given) if given else options

    def replace(self, **changes: Any) -> CompileOptions:
        return dataclasses.replace(self, **changes)

    def resolved_fp16(self) -> str:
        """ "native" or "fp32": what "auto" stands for on the target."""
        return resolve_mode(self.fp16, self.target)

    def tuning(self) -> str:
        """ "tuned", "cached" or "static": the cost model's source for this compile."""
        if self.tune is False or not self.target.is_host() or emulation() is not None:
            return "static"
        return "cached" if self.tune == "cached" else "tuned"

    def to_spec(self) -> dict[str, str]:
        """The options as strings (ExecuTorch compile specs carry them into the backend)."""
        return {
            "target": str(self.target),
            "fp16": self.fp16,
            "bf16": self.bf16,
            "exclude": ",".join(self.exclude),
            "disable": ",".join(self.disable),
            "tune": str(self.tune).lower(),
            "tuning_db": self.tuning_db or "",
            "tune_budget_ms": "" if self.tune_budget_ms is None else repr(self.tune_budget_ms),
            "streaming": self.streaming,
        }

    @classmethod
    def from_spec(cls, spec: dict[str, str]) -> CompileOptions:
        split = {
            k: tuple(n for n in spec.get(k, "").split(",") if n) for k in ("exclude", "disable")
        }
        tune = _TUNE_WORDS.get(spec.get("tune", "auto"), spec.get("tune", "auto"))
        budget = spec.get("tune_budget_ms") or None
        return cls(target=spec.get("target", "extended"), fp16=spec.get("fp16", "auto"),
                   bf16=spec.get("bf16", "fp32"),
                   tune=tune, tuning_db=spec.get("tuning_db") or None,
                   tune_budget_ms=budget if budget is None else budget_ms(budget),
                   streaming=spec.get("streaming", ""), **split)  # fmt: skip


TUNE_MODES = (True, False, "auto", "cached")
# The spellings of `tune` in strings (compile specs, pass options).
_TUNE_WORDS: dict[str, bool | str] = {"true": True, "false": False, "auto": "auto",
                                      "cached": "cached"}  # fmt: skip


def tune_mode(text: str, option: str = "tune") -> bool | str:
    """A `tune` value from its spelling in a string option."""
    if text not in _TUNE_WORDS:
        raise OptionError(f"{option}: unknown mode {text!r}; valid: {', '.join(_TUNE_WORDS)}")
    return _TUNE_WORDS[text]


def budget_ms(text: str, option: str = "tune_budget_ms") -> float:
    """A tuning budget from its spelling in a string option ("inf" for no bound)."""
    try:
        value = float(text)
    except ValueError:
        raise OptionError(f"{option}: expected a number of ms, got {text!r}") from None
    _check_budget(value, option)
    return value


STREAM_KEYS = ("axis", "frames", "max_frames", "lookahead", "transposed")


def stream_options(text: str) -> dict[str, str]:
    """`streaming`'s words ("axis=2 frames=1 lookahead=auto") by key, checked."""
    if not isinstance(text, str):
        raise OptionError(f"streaming: expected options such as 'frames=1', got {text!r}")
    found: dict[str, str] = {}
    for word in text.replace(",", " ").split():
        key, eq, value = word.partition("=")
        if not eq or key not in STREAM_KEYS or not value:
            raise OptionError(
                f"streaming: {word!r} is not one of {', '.join(k + '=...' for k in STREAM_KEYS)}"
            )
        found[key] = value
    for key in ("axis", "frames", "max_frames"):
        if key in found and not found[key].lstrip("-").isdigit():
            raise OptionError(f"streaming: {key} must be a whole number, got {found[key]!r}")
    if int(found.get("frames", "1")) < 1:
        raise OptionError(f"streaming: frames must be at least 1, got {found['frames']}")
    lookahead = found.get("lookahead", "none")
    if lookahead not in ("none", "auto") and not lookahead.isdigit():
        raise OptionError(
            f"streaming: lookahead must be 'none', 'auto' or input frames, got {lookahead!r}"
        )
    return found


def _check_budget(value: Any, option: str = "tune_budget_ms") -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise OptionError(f"{option}: expected a number of ms >= 0 (or None), got {value!r}")


def _check_tune(tune: Any, target: Target) -> None:
    if not any(tune is mode or (isinstance(tune, str) and tune == mode) for mode in TUNE_MODES):
        raise OptionError(f"tune: expected True, False, 'auto' or 'cached', got {tune!r}")
    if tune is True and not target.is_host():
        raise OptionError(
            f"tune=True: the target '{target}' is not this machine's CPU on the extended "
            "runtime, and tuning times layers here; use tune='auto' or False to cross-compile"
        )
    if tune is True and (why := emulation()) is not None:
        raise OptionError(
            f"tune=True: this process runs under emulation ({why}), where times are not the "
            "CPU's; use tune='auto' or False (the static rules decide)"
        )


def _parse_target(text: Any) -> Target:
    if not isinstance(text, str):
        raise OptionError(f"target: expected a Target or a target string, got {text!r}")
    return Target.parse(text)


def _check_exclude(names: tuple[str, ...]) -> None:
    from xnnc.conversion.partition import check_exclude

    check_exclude(names)


def _check_disable(names: tuple[str, ...], target: Target) -> None:
    from xnnc.transforms.canonicalization import pattern_names

    for name in names:
        why = REQUIRED.get((name, target.runtime))
        if why is not None:
            raise OptionError(
                f"disable: {name} cannot be disabled for the {target.runtime} runtime: {why}"
            )
    valid = set(OPTIONAL_PASSES) | set(IMPORT_CHOICES) | set(pattern_names())
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise OptionError(
            f"disable: unknown pass or pattern {', '.join(map(repr, unknown))}; valid: "
            + ", ".join(sorted(valid))
        )
