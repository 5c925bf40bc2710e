"""The default pipeline from an `aten` module to one whose `xnn.subgraph`s serialize.

xnn-partition -> convert-aten-to-xnn -> the rewrites (each can be disabled by name)
-> canonicalize -> (stock target) xnn-legalize-stock
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass

import xnnc
from xnnc.transforms.aten_to_xnn import ConvertAtenToXnnPass
from xnnc.transforms.canonicalization import disabled_rewrites, rewrite_passes
from xnnc.transforms.fold_batch_norm import FoldBatchNormPass
from xnnc.transforms.legalize_stock import LegalizeStockPass
from xnnc.transforms.partition import PartitionPass


def default_passes(
    target: str = "extended", exclude: Sequence[str] = (), disable: Sequence[str] = ()
) -> list[ModulePass]:
    """The passes `xnnc.compile` runs; `disable` names rewrite passes to skip."""
    passes: list[ModulePass] = [] if "fold-batch-norm" in disable else [FoldBatchNormPass()]
    passes += [PartitionPass(exclude=tuple(exclude), target=target), ConvertAtenToXnnPass()]
    passes += [p() for p in rewrite_passes() if p.name not in disable]
    if "canonicalize" not in disable:
        passes.append(CanonicalizePass())
    if target == "stock":
        passes.append(LegalizeStockPass())
    return passes


def lower(
    module: ModuleOp,
    target: str = "extended",
    exclude: Sequence[str] = (),
    disable: Sequence[str] = (),
) -> ModuleOp:
    """Run the default pipeline in place; returns the module."""
    passes = tuple(default_passes(target, exclude, disable))
    with disabled_rewrites(disable):
        PassPipeline(passes).apply(xnnc.make_context(), module)
    return module
