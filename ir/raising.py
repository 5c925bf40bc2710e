"""Shared by the patterns that raise a chain of aten ops to one op (`aten-recognize-*`,
`index-as-slices`): the new op's location names every op it replaced, so the partitioner
tags all their FX nodes, and the replaced chain is erased where nothing else uses it."""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import FusedLoc, NoneAttr
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter


def fused_location(ops: Iterable[Operation]) -> Attribute:
    """One location naming each of `ops` (the op itself when there is one)."""
    ops = list(ops)
    if len(ops) == 1:
        return ops[0].location
    return FusedLoc([o.location for o in ops], NoneAttr())


def erase_unused(rewriter: PatternRewriter, users_first: Iterable[Operation]) -> None:
    """Erase each op (given users before their producers) that nothing uses any more; an op
    listed twice or already erased is skipped."""
    for op in dict.fromkeys(users_first):
        if op.parent is not None and not any(r.uses for r in op.results):
            rewriter.erase(op)
