"""The default pipeline from an `aten` module to one whose `xnn.subgraph`s serialize.

fold-batch-norm -> fold-constants -> xnn-partition -> convert-aten-to-xnn
-> (fp16="fp32") xnn-fp16-precision -> the rewrites (each can be disabled by name)
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
from xnnc.transforms.constant_fold import FoldConstantsPass
from xnnc.transforms.fold_batch_norm import FoldBatchNormPass
from xnnc.transforms.fp16_precision import Fp16PrecisionPass
from xnnc.transforms.legalize_stock import LegalizeStockPass
from xnnc.transforms.partition import PartitionPass


def default_passes(
    target: str = "extended",
    exclude: Sequence[str] = (),
    disable: Sequence[str] = (),
    fp16: str = "native",
) -> list[ModulePass]:
    """The passes `xnnc.compile` runs; `disable` names rewrite passes to skip; `fp16` is the
    mode of xnn-fp16-precision, "native" or "fp32" (the backend resolves "auto")."""
    precision = Fp16PrecisionPass(mode=fp16)
    passes: list[ModulePass] = [] if "fold-batch-norm" in disable else [FoldBatchNormPass()]
    if "fold-constants" not in disable:
        passes.append(FoldConstantsPass())
    passes += [PartitionPass(exclude=tuple(exclude), target=target), ConvertAtenToXnnPass()]
    if precision.mode != "native":  # before the rewrites, so they see the fp32 nodes
        passes.append(precision)
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
    fp16: str = "native",
) -> ModuleOp:
    """Run the default pipeline in place; returns the module."""
    passes = tuple(default_passes(target, exclude, disable, fp16))
    with disabled_rewrites(disable):
        PassPipeline(passes).apply(xnnc.make_context(), module)
    return module
