"""The default pipeline from an `aten` module to one whose `xnn.subgraph`s serialize."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

import xnnc
from xnnc.transforms.aten_to_xnn import ConvertAtenToXnnPass
from xnnc.transforms.legalize_stock import LegalizeStockPass
from xnnc.transforms.partition import PartitionPass


def default_passes(target: str = "extended", exclude: tuple[str, ...] = ()) -> list[ModulePass]:
    """xnn-partition, convert-aten-to-xnn, and for `stock` xnn-legalize-stock."""
    passes: list[ModulePass] = [PartitionPass(exclude=exclude), ConvertAtenToXnnPass()]
    if target == "stock":
        passes.append(LegalizeStockPass())
    return passes


def lower(module: ModuleOp, target: str = "extended", exclude: tuple[str, ...] = ()) -> ModuleOp:
    """Run the default pipeline in place; returns the module."""
    PassPipeline(tuple(default_passes(target, exclude))).apply(xnnc.make_context(), module)
    return module
