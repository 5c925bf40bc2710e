"""The rewrites: `aten`-level recognitions and folds, the seed rewrites (canonicalization
sets, each also a pass) and the optimizations on `xnn` IR."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.passes import ModulePass


def passes() -> dict[str, type[ModulePass]]:
    """Every pass of this package by name, imported on first use (`pipeline.registry` lists
    them all; `xnn-tune` finds a form's rewrite here by its name, `cost.forms`)."""
    from xnnc.transforms.canonicalization import CanonicalizePass
    from xnnc.transforms.channel_scale import FoldChannelScalePass
    from xnnc.transforms.circular_pad_pattern import RecognizeCircularPadPass
    from xnnc.transforms.constant_fold import FoldConstantsPass
    from xnnc.transforms.conv_as_gemm import ConvAsGemmPass
    from xnnc.transforms.depthwise_rows import DepthwiseRowsPass
    from xnnc.transforms.fc_as_bmm import FcAsBmmPass
    from xnnc.transforms.fold_batch_norm import FoldBatchNormPass
    from xnnc.transforms.fold_dynamic_qdq import FoldDynamicQdqPass
    from xnnc.transforms.fold_pad import FoldPadPass
    from xnnc.transforms.fold_qdq import FoldQdqPass
    from xnnc.transforms.frames import FramesAsConvPass
    from xnnc.transforms.fuse_activation import FuseActivationPass
    from xnnc.transforms.hoist_input_projection import HoistInputProjectionPass
    from xnnc.transforms.index_as_slices import IndexAsSlicesPass
    from xnnc.transforms.layer_norm_pattern import RecognizeLayerNormPass
    from xnnc.transforms.layout import LayoutPass
    from xnnc.transforms.lower_complex import LowerComplexPass
    from xnnc.transforms.matmul_pattern import RecognizeMatmulPass
    from xnnc.transforms.polyphase import PolyphasePass
    from xnnc.transforms.prelu_pattern import RecognizePreluPass
    from xnnc.transforms.quantize_early import QuantizeEarlyPass
    from xnnc.transforms.safe_softmax_guard import RecognizeSafeSoftmaxPass
    from xnnc.transforms.space_to_depth import SpaceToDepthPass
    from xnnc.transforms.streaming import StreamPass
    from xnnc.transforms.upsample_nearest import UpsampleNearestPass

    classes = (
        CanonicalizePass, FoldBatchNormPass, StreamPass, FoldConstantsPass, IndexAsSlicesPass,
        LowerComplexPass, FramesAsConvPass, FoldQdqPass, FoldDynamicQdqPass,
        RecognizeLayerNormPass, RecognizeSafeSoftmaxPass, RecognizePreluPass,
        RecognizeCircularPadPass, RecognizeMatmulPass,
        # canonicalization pattern sets, each also a pass of its own
        FoldPadPass, PolyphasePass, UpsampleNearestPass, QuantizeEarlyPass, FuseActivationPass,
        FoldChannelScalePass, LayoutPass,
        # optimization
        HoistInputProjectionPass, FcAsBmmPass, ConvAsGemmPass, SpaceToDepthPass, DepthwiseRowsPass,
    )  # fmt: skip
    return {p.name: p for p in classes}
