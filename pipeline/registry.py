"""Every pass xnnc defines, by name: the registry `xnn-opt`, the pipeline and the option
checks consume (xDSL's `get_all_passes`). Each pass is a real import, here (inside
`pass_classes`) or in its package's list (`xnnc.transforms.passes`, `xnnc.legalize.passes`,
where `xnn-tune` finds the passes a form names), so the layering contracts see every
registration."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from functools import cache, partial
from typing import Any, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import ArgSpec, ArgSpecParseError
from xdsl.utils.arg_spec import parse_pipeline as parse_spec_pipeline

from xnnc.errors import OptionError

# Each pass's name, to list them without importing them (tests/pipeline/test_passes.py checks that
# they are the classes' own, in the same order).
NAMES: tuple[str, ...] = (
    "canonicalize",
    "cse",
    "dce",
    "fold-batch-norm",
    "aten-stream",
    "fold-constants",
    "index-as-slices",
    "aten-lower-complex",
    "aten-frames-as-conv",
    "aten-fold-qdq",
    "aten-fold-dynamic-qdq",
    "aten-recognize-layer-norm",
    "aten-recognize-safe-softmax",
    "aten-recognize-prelu",
    "aten-recognize-circular-pad",
    "aten-recognize-matmul",
    "xnn-partition",
    "convert-aten-to-xnn",
    "xnn-fold-pad",
    "xnn-polyphase",
    "xnn-upsample-nearest",
    "xnn-quantize-early",
    "xnn-fuse-activation",
    "xnn-fold-channel-scale",
    "xnn-layout",
    "xnn-hoist-input-projection",
    "xnn-fc-as-bmm",
    "xnn-conv-as-gemm",
    "xnn-space-to-depth",
    "xnn-depthwise-rows",
    "xnn-tune",
    "xnn-fp16-precision",
    "xnn-bf16-precision",
    "xnn-legalize-casts",
    "xnn-legalize-stock",
    "xnn-legalize-broadcasts",
    "xnn-legalize-outputs",
    "xnnc-pipeline",
    "xnn-set-target",
)


@cache
def pass_classes() -> dict[str, type[ModulePass]]:
    """Every pass class by name, in `NAMES`' order, imported on first use: most passes pull in
    torch (about two seconds), which a tool run that only parses, verifies and prints does
    not need. The rewrites and the legalizations are their packages' lists."""
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from xnnc import legalize, transforms
    from xnnc.conversion.aten_to_xnn import ConvertAtenToXnnPass
    from xnnc.conversion.partition import PartitionPass
    from xnnc.pipeline.stages import SetTargetPass, XnncPipelinePass
    from xnnc.tuning.tuner import TunePass

    passes = (CommonSubexpressionElimination, DeadCodeElimination, PartitionPass,
              ConvertAtenToXnnPass, TunePass, XnncPipelinePass, SetTargetPass)  # fmt: skip
    found = {p.name: p for p in passes} | transforms.passes() | legalize.passes()
    return {name: found[name] for name in NAMES} | found


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> a loader of its class (xDSL's form)."""
    return {name: partial(load_pass, name) for name in NAMES}


def load_pass(name: str) -> type[ModulePass]:
    """The class of pass `name` (KeyError for an unknown name)."""
    if name not in NAMES:
        raise KeyError(name)
    return pass_classes()[name]


# How each option type reads in a message.
_TYPE_NAMES = {bool: "a bool (true or false)", int: "an int", float: "a float", str: "a string"}


def _option_name(field: str) -> str:
    return field.replace("_", "-")


def _type_name(hint: Any) -> str:
    if get_origin(hint) is tuple:
        item = get_args(hint)[0]
        return f"a comma-separated list of {'string' if item is str else item.__name__}s"
    return _TYPE_NAMES.get(hint, str(hint))


def _given(raw: tuple) -> str:
    return ",".join(str(v).lower() if isinstance(v, bool) else repr(v) for v in raw) or "nothing"


def _scalar(value: Any, hint: type) -> Any:
    """`value` as `hint`, or None when it is not one (an int literal is a valid float)."""
    if hint is bool:
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):  # xDSL reads a bare true/false as a bool
        return str(value).lower() if hint is str else None
    if hint is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return None
        return float(value) if isinstance(value, (int, float)) else None
    return value if isinstance(value, hint) else None


def _words(text: str) -> list[str]:
    return [w.strip() for w in text.split(",") if w.strip()]


def _convert(pass_name: str, field: str, raw: tuple, hint: Any) -> Any:
    """The value of option `field` given as `raw` (what xDSL's spec parser read)."""
    if get_origin(hint) is tuple:
        item_type = get_args(hint)[0]
        if item_type is str:  # a quoted "a,b" is two names, as a,b unquoted is
            raw = tuple(n for v in raw for n in (_words(v) if isinstance(v, str) else [v]))
        items = tuple(_scalar(v, item_type) for v in raw)
        if None not in items:
            return items
    elif len(raw) == 1 and (value := _scalar(raw[0], hint)) is not None:
        if not (isinstance(value, float) and math.isnan(value)):
            return value
    raise OptionError(
        f"{pass_name}: option {_option_name(field)} expects {_type_name(hint)}, got {_given(raw)}"
    )


def _check_range(pass_name: str, field: str, value: Any, bounds: tuple[float, float]) -> None:
    low, high = bounds
    if not low <= value <= high:
        interval = f"[{low:g}, {high:g}]".replace(", inf]", ", inf)")
        raise OptionError(
            f"{pass_name}: option {_option_name(field)} must be in {interval}, got {value!r}"
        )


def pass_from_spec(spec: ArgSpec) -> ModulePass:
    """The pass `spec` names with its options converted and range-checked (each pass
    declares `option_ranges`); OptionError names the pass, option, type and value."""
    cls = load_pass(spec.name)
    hints = get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    ranges: dict[str, tuple[float, float]] = getattr(cls, "option_ranges", {})
    values: dict[str, Any] = {}
    for key, raw in spec.parameters.items():
        field = key.replace("-", "_")
        if field not in fields:
            known = ", ".join(map(_option_name, fields)) or "none"
            raise OptionError(f"{spec.name}: unknown option '{key}'; options: {known}")
        values[field] = _convert(spec.name, field, raw, hints[field])
        if field in ranges:
            _check_range(spec.name, field, values[field], ranges[field])
    try:
        return cls(**values)
    except OptionError as e:
        message = str(e)
        raise OptionError(
            message if message.startswith(spec.name) else f"{spec.name}: {message}"
        ) from None


def parse_pipeline(spec: str, callback: PassPipelineCallbackType | None = None) -> PassPipeline:
    """`-p` text -> a PassPipeline; OptionError for a malformed spec, an unknown pass or a
    bad option (one line: where in the spec, or the pass and option)."""
    try:
        specs = list(parse_spec_pipeline(spec))
    except ArgSpecParseError as e:
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        raise OptionError(f"{lines[1]}: {lines[-1]} in '{spec}'") from None
    unknown = [s.name for s in specs if s.name not in NAMES]
    if unknown:
        raise OptionError(
            f"unknown pass {', '.join(map(repr, unknown))}; available passes: "
            + ", ".join(sorted(NAMES))
        )
    return PassPipeline(tuple(pass_from_spec(s) for s in specs), callback)
