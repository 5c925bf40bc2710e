"""The default pipeline from an `aten` module to one whose `xnn.subgraph`s serialize.

fold-batch-norm -> fold-constants -> xnn-partition -> convert-aten-to-xnn
-> (fp16="fp32") xnn-fp16-precision -> the rewrites (each can be disabled by name)
-> canonicalize -> (stock target) xnn-legalize-stock
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

import xnnc
from xnnc.conversion.aten_to_xnn import ConvertAtenToXnnPass
from xnnc.conversion.partition import PartitionPass
from xnnc.legalize.casts import LegalizeCastsPass
from xnnc.legalize.fp16_precision import Fp16PrecisionPass
from xnnc.legalize.stock import LegalizeStockPass
from xnnc.transforms.canonicalization import CANONICALIZATION_SETS, CanonicalizePass
from xnnc.transforms.constant_fold import FoldConstantsPass
from xnnc.transforms.conv_as_gemm import ConvAsGemmPass
from xnnc.transforms.fold_batch_norm import FoldBatchNormPass
from xnnc.transforms.hoist_input_projection import HoistInputProjectionPass


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
    if "xnn-legalize-casts" not in disable:
        passes.append(LegalizeCastsPass())
    off = tuple(name for name in CANONICALIZATION_SETS if name in disable)
    canonicalize = "canonicalize" not in disable
    if canonicalize:
        passes.append(CanonicalizePass(disabled_patterns=off))
    passes += [p() for p in (HoistInputProjectionPass, ConvAsGemmPass) if p.name not in disable]
    if canonicalize:
        passes.append(CanonicalizePass(disabled_patterns=off))
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
    PassPipeline(passes).apply(xnnc.make_context(), module)
    return module
