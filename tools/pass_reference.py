"""docs/passes.md, generated from the pass registry: every pass, where it is defined, where the
default pipeline runs it, what it does and its options.

    python -m xnnc.tools.pass_reference > docs/passes.md

tests/tools/test_pass_reference.py checks that the page is this output, so a pass or an
option added without regenerating it fails the suite.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from typing import Any, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass

from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.registry import NAMES, load_pass
from xnnc.pipeline.stages import stage_passes

HEADER = """# Passes

Every pass `xnn-opt -p` takes, in the registry's order, generated from the code by
`python -m xnnc.tools.pass_reference > docs/passes.md` (a test keeps this page equal to its
output). [pipeline.md](pipeline.md) tells how the default pipeline uses them. Options are
given MLIR-style, space-separated: `-p 'xnn-partition{exclude="aten.gelu" strict=true}'`.
"""

# xDSL's passes carry no docstring.
FROM_XDSL = {
    "cse": "xDSL's common subexpression elimination: an op equal to an earlier one (same name, "
    "operands, properties and attributes, no side effects) is replaced by it.",
    "dce": "xDSL's dead code elimination: ops without side effects whose results are unused "
    "are erased.",
}


def _stages() -> dict[str, list[str]]:
    """Pass name -> the stages of the default pipeline (for the default options, and for
    the stock runtime) that run it."""
    where: dict[str, list[str]] = {}
    for target in ("extended", "stock"):
        for stage, passes in stage_passes(CompileOptions(target=target, tune="auto")).items():
            for p in passes:
                if stage not in where.setdefault(p.name, []):
                    where[p.name].append(stage)
    return where


def _type(hint: Any) -> str:
    if get_origin(hint) is tuple:
        return f"list of {get_args(hint)[0].__name__}"
    return getattr(hint, "__name__", str(hint))


def _default(field: dataclasses.Field) -> str:
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return "(required)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "(none)"
    return repr(value) if isinstance(value, str) else str(value)


def _options(cls: type[ModulePass]) -> list[str]:
    fields = [f for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    if not fields:
        return ["No options."]
    hints = get_type_hints(cls)
    ranges = getattr(cls, "option_ranges", {})
    rows = ["| option | type | default |", "|---|---|---|"]
    for f in fields:
        kind = _type(hints[f.name])
        if f.name in ranges:
            low, high = ranges[f.name]
            kind += f" in [{low:g}, {high:g}]".replace(", inf]", ", inf)")
        rows.append(f"| `{f.name.replace('_', '-')}` | {kind} | `{_default(f)}` |")
    return rows


def _section(name: str, stages: dict[str, list[str]]) -> list[str]:
    cls = load_pass(name)
    doc = FROM_XDSL.get(name) or inspect.cleandoc(cls.__doc__ or "").strip()
    ran = stages.get(name)
    where = f"default pipeline: {', '.join(ran)}" if ran else "not in the default pipeline"
    return [f"## `{name}`", "", f"`{cls.__module__}.{cls.__qualname__}`; {where}.", "", doc,
            "", *_options(cls), ""]  # fmt: skip


def reference() -> str:
    """The page's text."""
    stages = _stages()
    lines = [HEADER]
    for name in NAMES:
        lines += _section(name, stages)
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    print(reference(), end="")


if __name__ == "__main__":
    main()
