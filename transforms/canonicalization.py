"""`canonicalize`: the seed rewrites, as canonicalization patterns of the xnn ops they match.

Each seed rewrite module exposes `CANONICALIZATION: dict[op type, patterns]` and a pass that
runs just its patterns (`xnn-fold-pad`, ...). Loading this module registers every set on
its ops (`XnnCanonicalization`), so `-p canonicalize` runs them all, and MLIR's options
switch sets or single patterns off or on by name:

    xnn-opt m.mlir -p 'canonicalize{disabled-patterns="xnn-polyphase,FoldPadIntoConv"}'

A name is a rewrite set (its pass name) or a pattern class. Nothing here is process state:
what runs is the pass's options and the module's `#xnn.target`, which each pattern reads for
its own profitability.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import region_dce

from xnnc.dialects.xnn import XnnCanonicalization
from xnnc.errors import OptionError
from xnnc.transforms import (
    channel_scale,
    fold_pad,
    fuse_activation,
    layout,
    polyphase,
    quantize_early,
    upsample_nearest,
)

# The rewrite sets, in the order they are tried on an op: each module's pass names its set.
CANONICALIZATION_SETS = (
    (fold_pad.FoldPadPass.name, fold_pad.CANONICALIZATION),
    (polyphase.PolyphasePass.name, polyphase.CANONICALIZATION),
    (upsample_nearest.UpsampleNearestPass.name, upsample_nearest.CANONICALIZATION),
    (quantize_early.QuantizeEarlyPass.name, quantize_early.CANONICALIZATION),
    (fuse_activation.FuseActivationPass.name, fuse_activation.CANONICALIZATION),
    (layout.LayoutPass.name, layout.CANONICALIZATION),
    (channel_scale.FoldChannelScalePass.name, channel_scale.CANONICALIZATION),
)


@cache
def _sets() -> dict[str, dict[type[Operation], tuple[RewritePattern, ...]]]:
    """Every set's patterns by op; registered on the ops the first time they are asked for."""
    sets = dict(CANONICALIZATION_SETS)
    for table in sets.values():
        for op, patterns in table.items():
            XnnCanonicalization.register_patterns(op, patterns)
    return sets


def pattern_names() -> dict[str, str]:
    """Every name `disabled-patterns`/`enabled-patterns` accept -> the set it belongs to."""
    names: dict[str, str] = {}
    for set_name, table in _sets().items():
        names[set_name] = set_name
        for patterns in table.values():
            for pattern in patterns:
                names[type(pattern).__name__] = set_name
    return names


def check_pattern_names(names: Iterable[str], option: str) -> None:
    """Raise OptionError naming the valid names if one of `names` is unknown."""
    known = pattern_names()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise OptionError(
            f"canonicalize: unknown pattern {', '.join(map(repr, unknown))} in {option}; "
            f"valid names: {', '.join(sorted(known))}"
        )


class _FilteredCanonicalization(RewritePattern):
    """An op's registered canonicalization patterns, less the disabled ones."""

    def __init__(self, disabled: frozenset[str], enabled: frozenset[str]):
        self.by_op: dict[type[Operation], GreedyRewritePatternApplier | None] = {}
        self.disabled, self.enabled = disabled, enabled

    def _keep(self, pattern: RewritePattern, set_name: str) -> bool:
        names = {type(pattern).__name__, set_name}
        if self.enabled and not names & self.enabled:
            return False
        return not names & self.disabled

    def _applier(self, op: type[Operation]) -> GreedyRewritePatternApplier | None:
        if op not in self.by_op:
            patterns = [
                p
                for set_name, table in _sets().items()
                for p in table.get(op, ())
                if self._keep(p, set_name)
            ]
            self.by_op[op] = GreedyRewritePatternApplier(patterns) if patterns else None
        return self.by_op[op]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        applier = self._applier(type(op))
        if applier is not None:
            applier.match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """Run every canonicalization pattern to a fixpoint, with folding and dead code removal.

    disabled-patterns: sets or patterns not to run; enabled-patterns: when given, only these."""

    name = "canonicalize"
    disabled_patterns: tuple[str, ...] = ()
    enabled_patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_pattern_names(self.disabled_patterns, "disabled-patterns")
        check_pattern_names(self.enabled_patterns, "enabled-patterns")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = _FilteredCanonicalization(
            frozenset(self.disabled_patterns), frozenset(self.enabled_patterns)
        )
        applier = GreedyRewritePatternApplier([pattern], ctx=ctx, folding_enabled=True)
        PatternRewriteWalker(applier, post_walk_func=region_dce).rewrite_module(op)
