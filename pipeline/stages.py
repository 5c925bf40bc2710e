"""The default pipeline: from an `aten` module to one whose `xnn.subgraph`s serialize for the
target, in stages.

| stage            | passes                                                            |
|------------------|-------------------------------------------------------------------|
| aten             | aten-recognize-{safe-softmax,layer-norm,prelu,matmul},            |
|                  | aten-fold-{dynamic-qdq,qdq},                                      |
|                  | fold-batch-norm, aten-stream{...} (a streaming compile only),     |
|                  | aten-lower-complex,                                               |
|                  | fold-constants, index-as-slices, aten-frames-as-conv              |
| conversion       | xnn-partition{exclude}, convert-aten-to-xnn (then cse, streaming) |
| type legalization| xnn-fp16-precision{mode}, xnn-legalize-casts,                     |
|                  | xnn-bf16-precision{mode}                                          |
| canonicalize     | canonicalize{disabled-patterns}: the seed rewrites                |
| optimize         | xnn-hoist-input-projection, xnn-fc-as-bmm, xnn-conv-as-gemm,      |
|                  | xnn-space-to-depth, xnn-depthwise-rows, then canonicalize         |
| runtime kinds    | xnn-legalize-broadcasts, xnn-legalize-stock (stock runtime only), |
|                  | xnn-legalize-outputs                                              |

Types are legalized before the rewrites, so that a node computed in fp32 (fp16 in fp32 mode,
bf16 kinds XNNPACK lacks) is rewritten like any fp32 node; stock node kinds come last, after
every rewrite that may create an extension kind. The cost-guided rewrites (the forms of
`cost.forms`) follow the decision recorded on each layer. When the options tune
(`CompileOptions.tuning()`), each form's `xnn-tune{form=...}` records measured ones just
before its rewrite, in the stage its table entry names (a seed rewrite's before
`canonicalize`), on the layers as they are then; the static rules decide the rest. The
tuning passes of one compile share one budget (`lower`). Each rewrite runs once: the seed
sets only inside canonicalize, the optimizations only as their passes. The module carries
the target (`#xnn.target`), so the passes need no other input:

    xnn-opt m.mlir -p 'xnnc-pipeline{target="stock,x86-64-avx2" fp16=fp32}'

runs exactly what `xnnc.compile(..., target="stock,x86-64-avx2", fp16="fp32")` runs.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

import xnnc
from xnnc.conversion.aten_to_xnn import ConvertAtenToXnnPass
from xnnc.conversion.partition import OutlinePiecePass, PartitionPass
from xnnc.cost.forms import LAYER_FORMS
from xnnc.dialects.xnn import set_target, target_of
from xnnc.legalize.bf16_precision import Bf16PrecisionPass
from xnnc.legalize.broadcasts import LegalizeBroadcastsPass
from xnnc.legalize.casts import LegalizeCastsPass
from xnnc.legalize.fp16_precision import Fp16PrecisionPass
from xnnc.legalize.outputs import LegalizeOutputsPass
from xnnc.legalize.stock import LegalizeStockPass
from xnnc.pipeline.options import (
    IMPORT_CHOICES,
    OPTIONAL_PASSES,
    CompileOptions,
    stream_options,
    tune_mode,
)
from xnnc.target import Target
from xnnc.transforms.canonicalization import CanonicalizePass
from xnnc.transforms.circular_pad_pattern import RecognizeCircularPadPass
from xnnc.transforms.constant_fold import FoldConstantsPass
from xnnc.transforms.conv_as_gemm import ConvAsGemmPass
from xnnc.transforms.depthwise_rows import DepthwiseRowsPass
from xnnc.transforms.fc_as_bmm import FcAsBmmPass
from xnnc.transforms.fold_batch_norm import FoldBatchNormPass
from xnnc.transforms.fold_dynamic_qdq import FoldDynamicQdqPass
from xnnc.transforms.fold_qdq import FoldQdqPass
from xnnc.transforms.frames import FramesAsConvPass
from xnnc.transforms.hoist_input_projection import HoistInputProjectionPass
from xnnc.transforms.index_as_slices import IndexAsSlicesPass
from xnnc.transforms.layer_norm_pattern import RecognizeLayerNormPass
from xnnc.transforms.lower_complex import LowerComplexPass
from xnnc.transforms.matmul_pattern import RecognizeMatmulPass
from xnnc.transforms.prelu_pattern import RecognizePreluPass
from xnnc.transforms.safe_softmax_guard import RecognizeSafeSoftmaxPass
from xnnc.transforms.space_to_depth import SpaceToDepthPass
from xnnc.transforms.streaming import StreamPass
from xnnc.tuning.tuner import TimingCost, TunePass


def _enabled(passes: list[ModulePass], options: CompileOptions) -> list[ModulePass]:
    return [p for p in passes if p.name not in options.disable]


def raising_passes() -> list[ModulePass]:
    """Decomposed ops raised back to the `aten` op that lowers as a whole. They run before
    partitioning, in `xnnc.compile` and in `XnncPartitioner` alike, so that both group the
    same ops; they read no weights. `aten-fold-qdq` puts PT2E's dq -> op -> q chains on
    quantized types."""
    return [
        RecognizeSafeSoftmaxPass(),
        RecognizeLayerNormPass(),
        RecognizePreluPass(),
        RecognizeCircularPadPass(),
        RecognizeMatmulPass(),
        FoldDynamicQdqPass(),
        FoldQdqPass(),
    ]


def stage_passes(options: CompileOptions) -> dict[str, list[ModulePass]]:
    """The passes of each stage, in order, for `options`."""
    pattern_names = tuple(
        n for n in options.disable if n not in OPTIONAL_PASSES and n not in IMPORT_CHOICES
    )
    canonicalize = _enabled([CanonicalizePass(disabled_patterns=pattern_names)], options)
    optimize = _enabled(
        [HoistInputProjectionPass(), FcAsBmmPass(), ConvAsGemmPass(), SpaceToDepthPass(),
         DepthwiseRowsPass()], options,
    )  # fmt: skip
    # Without aten-fold-qdq no op takes an int8 weight: each is dequantized at compile time.
    as_float = FoldQdqPass.name in options.disable
    stages = {
        "aten": _enabled(raising_passes(), options)
        + _enabled(
            [
                FoldBatchNormPass(),
                *_streaming(options),
                LowerComplexPass(),
                FoldConstantsPass(dequantize=as_float),
                IndexAsSlicesPass(),
                FramesAsConvPass(),
            ],
            options,
        ),
        "conversion": [
            PartitionPass(exclude=options.exclude),
            ConvertAtenToXnnPass(),
            *([CommonSubexpressionElimination()] if options.streaming else []),
        ],
        "type legalization": [
            Fp16PrecisionPass(mode=options.fp16),
            *_enabled([LegalizeCastsPass()], options),
            Bf16PrecisionPass(mode=options.bf16),
        ],
        "canonicalize": list(canonicalize),
        "optimize": optimize + (canonicalize if optimize else []),
        "runtime kinds": [
            LegalizeBroadcastsPass(),
            *([LegalizeStockPass()] if options.target.runtime == "stock" else []),
            LegalizeOutputsPass(),
        ],
    }
    if options.tuning() != "static":
        _insert_tuning(stages, options)
    return stages


def _streaming(options: CompileOptions) -> list[ModulePass]:
    """`aten-stream` with the options' `streaming` words, when it streams."""
    if not options.streaming:
        return []
    words = stream_options(options.streaming)
    return [StreamPass(axis=int(words.get("axis", -1)), frames=int(words.get("frames", 1)),
                       max_frames=int(words.get("max_frames", 0)),
                       lookahead=words.get("lookahead", "none"),
                       transposed=words.get("transposed", "history"))]  # fmt: skip


def _insert_tuning(stages: dict[str, list[ModulePass]], options: CompileOptions) -> None:
    """`xnn-tune{form=...}` for each form of the table (`cost.forms`), in its stage just
    before the pass that builds it (a seed rewrite's: `canonicalize`), in the table's order;
    none for a form whose rewrite is disabled or not in the stage, or whose choice an option
    fixes (`fp16` other than "auto")."""
    tune = {"db": options.tuning_db or "", "cached": options.tuning() == "cached"}
    for form in LAYER_FORMS.values():
        if form.rewrite in options.disable:
            continue
        if form.option and getattr(options, form.option) != "auto":
            continue
        passes = stages[form.stage]
        at = next((i for i, p in enumerate(passes) if p.name == form.tuned_before), None)
        if at is not None:
            passes.insert(at, TunePass(form=form.name, **tune))


def default_passes(options: CompileOptions | None = None, **fields: Any) -> list[ModulePass]:
    """Every pass `xnnc.compile` runs, in order, for `options` or its fields as keywords."""
    options = CompileOptions.of(options, **fields)
    return [p for passes in stage_passes(options).values() for p in passes]


def with_pass_first(rewrite: ModulePass, options: CompileOptions | None = None) -> list[ModulePass]:
    """The default pipeline with `rewrite` (a seed rewrite's pass, configured) run just before
    canonicalize and its set left out of canonicalize: for experiments with its options.
    The first pass attaches the target."""
    options = CompileOptions.of(options)
    passes = default_passes(options.replace(disable=(*options.disable, rewrite.name)))
    first = next(i for i, p in enumerate(passes) if isinstance(p, CanonicalizePass))
    return [SetTargetPass(str(options.target)), *passes[:first], rewrite, *passes[first:]]


def lower(
    module: ModuleOp,
    options: CompileOptions | None = None,
    ctx: Context | None = None,
    *,
    tune_budget_ms: float | None = None,
    piece: bool = False,
    **fields: Any,
) -> ModuleOp:
    """Set the module's target and run the default pipeline in place; returns the module.
    `options`, or its fields as keywords; `tune_budget_ms` (else the options' own, else no
    bound) bounds the time all `xnn-tune` passes together spend timing layers. `piece`: the
    module is one piece ExecuTorch delegates (`XnncBackend.preprocess`), lowered whole into
    one subgraph (`_for_piece`)."""
    options = CompileOptions.of(options, **fields)
    if tune_budget_ms is None:
        tune_budget_ms = options.tune_budget_ms
    if tune_budget_ms is None:
        tune_budget_ms = math.inf
    set_target(module, options.target)
    ctx = ctx or xnnc.make_context()
    passes = default_passes(options)
    if piece:
        passes = [_for_piece(p) for p in passes]
    # Each run of passes up to a tuning pass applies as one pipeline; a tuning pass gets
    # what the ones before it left of the budget (largest layers first within each), and
    # what their timing cost (`cost`), to predict its own first layer's.
    left, start, cost = tune_budget_ms, 0, TimingCost()
    for i, p in enumerate(passes):
        if not isinstance(p, TunePass):
            continue
        PassPipeline(tuple(passes[start:i])).apply(ctx, module)
        left -= dataclasses.replace(p, budget_ms=max(left, 0.0)).run(module, cost).spent_ms
        start = i + 1
    PassPipeline(tuple(passes[start:])).apply(ctx, module)
    return module


def _for_piece(p: ModulePass) -> ModulePass:
    """The pass as a tagged piece needs it: the piece is one group already, and every op in
    it must lower. The partitioner saw the weights only as fake tensors, so it could not
    tell a weight the qs8 form cannot take (asymmetric per-channel): such a weight is
    dequantized at compile time and its op runs in fp32 inside the delegate."""
    if isinstance(p, PartitionPass):
        return OutlinePiecePass()
    if isinstance(p, FoldConstantsPass):
        return dataclasses.replace(p, dequantize=True)
    return p


@dataclass(frozen=True)
class XnncPipelinePass(ModulePass):
    """The default pipeline as one pass. target: a target string, or empty to keep the
    module's `#xnn.target` (the default target when it has none); fp16, bf16, exclude, disable,
    tune ("auto", "true", "false", "cached"), tuning-db, tune-budget-ms (no bound by
    default) and streaming ("frames=1 lookahead=auto": `aten-stream`'s options) as in
    `CompileOptions`."""

    name = "xnnc-pipeline"
    option_ranges: ClassVar = {"tune_budget_ms": (0, math.inf)}
    target: str = ""
    fp16: str = "auto"
    bf16: str = "fp32"
    exclude: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    tune: str = "auto"
    tuning_db: str = ""
    tune_budget_ms: float = math.inf
    streaming: str = ""

    def __post_init__(self) -> None:
        # Checked when the pipeline is built, not after the passes before this one ran.
        self._options(self.target or "extended")

    def _options(self, target: Target | str) -> CompileOptions:
        return CompileOptions(target, self.fp16, self.exclude, self.disable,
                              tune=tune_mode(self.tune, "xnnc-pipeline: tune"),
                              tuning_db=self.tuning_db or None,
                              tune_budget_ms=self.tune_budget_ms, bf16=self.bf16,
                              streaming=self.streaming)  # fmt: skip

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower(op, self._options(self.target or target_of(op)), ctx)


@dataclass(frozen=True)
class SetTargetPass(ModulePass):
    """Attach `#xnn.target` to the module: `xnn-opt m.mlir -p 'xnn-set-target{target=stock}'`
    (a target string, as in `CompileOptions`)."""

    name = "xnn-set-target"
    target: str = "extended"

    def __post_init__(self) -> None:
        CompileOptions(target=self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        set_target(op, CompileOptions(target=self.target).target)
