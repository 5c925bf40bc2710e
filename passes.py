"""Every pass xnnc defines, by name: the registry `xnn-opt`, the pipeline and the option
checks consume (xDSL's `get_all_passes`). Passes load on first use: the conversion passes
pull in torch, which costs seconds per tool run."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

# Pass name -> "module:class".
_PASSES = {
    "canonicalize": "xnnc.transforms.canonicalization:CanonicalizePass",
    "cse": "xdsl.transforms.common_subexpression_elimination:CommonSubexpressionElimination",
    "dce": "xdsl.transforms.dead_code_elimination:DeadCodeElimination",
    # aten level
    "fold-batch-norm": "xnnc.transforms.fold_batch_norm:FoldBatchNormPass",
    "fold-constants": "xnnc.transforms.constant_fold:FoldConstantsPass",
    # conversion
    "xnn-partition": "xnnc.conversion.partition:PartitionPass",
    "convert-aten-to-xnn": "xnnc.conversion.aten_to_xnn:ConvertAtenToXnnPass",
    # canonicalization pattern sets, each also a pass of its own
    "xnn-fold-pad": "xnnc.transforms.fold_pad:FoldPadPass",
    "xnn-polyphase": "xnnc.transforms.polyphase:PolyphasePass",
    "xnn-upsample-nearest": "xnnc.transforms.upsample_nearest:UpsampleNearestPass",
    "xnn-fuse-activation": "xnnc.transforms.fuse_activation:FuseActivationPass",
    "xnn-layout": "xnnc.transforms.layout:LayoutPass",
    # optimization
    "xnn-hoist-input-projection": (
        "xnnc.transforms.hoist_input_projection:HoistInputProjectionPass"
    ),
    "xnn-conv-as-gemm": "xnnc.transforms.conv_as_gemm:ConvAsGemmPass",
    # legalization
    "xnn-fp16-precision": "xnnc.legalize.fp16_precision:Fp16PrecisionPass",
    "xnn-legalize-casts": "xnnc.legalize.casts:LegalizeCastsPass",
    "xnn-legalize-stock": "xnnc.legalize.stock:LegalizeStockPass",
    # the whole default pipeline
    "xnnc-pipeline": "xnnc.pipeline:XnncPipelinePass",
    "xnn-set-target": "xnnc.pipeline:SetTargetPass",
}


def _loader(name: str) -> Callable[[], type[ModulePass]]:
    module, _, cls = _PASSES[name].partition(":")
    return lambda: getattr(importlib.import_module(module), cls)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> a loader of its class."""
    return {name: _loader(name) for name in _PASSES}


def load_pass(name: str) -> type[ModulePass]:
    """The class of pass `name` (KeyError for an unknown name)."""
    return _loader(name)()
