"""The rewrite pattern sets of the `xnn` dialect, as canonicalization patterns and passes.

Each rewrite module (fold_pad.py, polyphase.py, ...) exposes:
- `CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]]`, the patterns
  registered on the op each matches (so `-p canonicalize` runs them all), and
- a `ModulePass` running just its patterns, with options.
`REWRITES` lists them, in the order the default pipeline runs their passes, as
(pass name, module, pass class); add one line there to add a rewrite.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern

# (pass name, module in xnnc.transforms, pass class), in pipeline order.
REWRITES: list[tuple[str, str, str]] = [
    ("xnn-legalize-casts", "legalize_casts", "LegalizeCastsPass"),
]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"xnnc.transforms.{name}")


@cache
def _registry() -> dict[type[Operation], tuple[RewritePattern, ...]]:
    patterns: dict[type[Operation], tuple[RewritePattern, ...]] = {}
    for _, name, _ in REWRITES:
        for op, pats in _module(name).CANONICALIZATION.items():
            patterns[op] = patterns.get(op, ()) + tuple(pats)
    return patterns


def patterns_for(op: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns registered on `op`."""
    return _registry().get(op, ())


def rewrite_passes() -> list[type[ModulePass]]:
    """The rewrite passes, in pipeline order."""
    return [getattr(_module(name), cls) for _, name, cls in REWRITES]
