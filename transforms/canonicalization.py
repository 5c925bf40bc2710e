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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from types import ModuleType

from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern

# (pass name, module in xnnc.transforms, pass class), in pipeline order.
REWRITES: list[tuple[str, str, str]] = [
    ("xnn-legalize-casts", "legalize_casts", "LegalizeCastsPass"),
    ("xnn-fold-pad", "fold_pad", "FoldPadPass"),
    ("xnn-polyphase", "polyphase", "PolyphasePass"),
    ("xnn-upsample-nearest", "upsample_nearest", "UpsampleNearestPass"),
    ("xnn-fuse-activation", "fuse_activation", "FuseActivationPass"),
    ("xnn-hoist-input-projection", "hoist_input_projection", "HoistInputProjectionPass"),
    ("xnn-layout", "layout", "LayoutPass"),
    ("xnn-conv-as-gemm", "conv_as_gemm", "ConvAsGemmPass"),
]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"xnnc.transforms.{name}")


@cache
def _registry() -> list[tuple[str, dict[type[Operation], tuple[RewritePattern, ...]]]]:
    return [(name, _module(module).CANONICALIZATION) for name, module, _ in REWRITES]


# Rewrite passes switched off for the current compilation: their patterns also stay out of
# `canonicalize`, so `xnnc.compile(..., disable=("xnn-polyphase",))` really turns one off.
_disabled: ContextVar[frozenset[str]] = ContextVar("xnnc_disabled_rewrites", default=frozenset())


@contextmanager
def disabled_rewrites(names: Iterable[str]) -> Iterator[None]:
    token = _disabled.set(frozenset(names))
    try:
        yield
    finally:
        _disabled.reset(token)


def patterns_for(op: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns registered on `op` by the enabled rewrites."""
    off = _disabled.get()
    return tuple(p for name, table in _registry() if name not in off for p in table.get(op, ()))


def rewrite_passes() -> list[type[ModulePass]]:
    """The rewrite passes, in pipeline order."""
    return [getattr(_module(name), cls) for _, name, cls in REWRITES]
