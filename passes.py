"""Every pass xnnc defines, by name: the registry `xnn-opt`, the pipeline and the option
checks consume (xDSL's `get_all_passes`). Passes load on first use: the conversion passes
pull in torch, which costs seconds per tool run."""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable
from typing import Any, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import ArgSpec, ArgSpecParseError
from xdsl.utils.arg_spec import parse_pipeline as parse_spec_pipeline

from xnnc.errors import OptionError

# Pass name -> "module:class".
_PASSES = {
    "canonicalize": "xnnc.transforms.canonicalization:CanonicalizePass",
    "cse": "xdsl.transforms.common_subexpression_elimination:CommonSubexpressionElimination",
    "dce": "xdsl.transforms.dead_code_elimination:DeadCodeElimination",
    # aten level
    "fold-batch-norm": "xnnc.transforms.fold_batch_norm:FoldBatchNormPass",
    "fold-constants": "xnnc.transforms.constant_fold:FoldConstantsPass",
    "index-as-slices": "xnnc.transforms.index_as_slices:IndexAsSlicesPass",
    "aten-fold-qdq": "xnnc.transforms.fold_qdq:FoldQdqPass",
    "aten-fold-dynamic-qdq": "xnnc.transforms.fold_dynamic_qdq:FoldDynamicQdqPass",
    "aten-recognize-layer-norm": "xnnc.transforms.layer_norm_pattern:RecognizeLayerNormPass",
    "aten-recognize-safe-softmax": "xnnc.transforms.safe_softmax_guard:RecognizeSafeSoftmaxPass",
    "aten-recognize-prelu": "xnnc.transforms.prelu_pattern:RecognizePreluPass",
    "aten-recognize-circular-pad": (
        "xnnc.transforms.circular_pad_pattern:RecognizeCircularPadPass"
    ),
    "aten-recognize-matmul": "xnnc.transforms.matmul_pattern:RecognizeMatmulPass",
    # conversion
    "xnn-partition": "xnnc.conversion.partition:PartitionPass",
    "convert-aten-to-xnn": "xnnc.conversion.aten_to_xnn:ConvertAtenToXnnPass",
    # canonicalization pattern sets, each also a pass of its own
    "xnn-fold-pad": "xnnc.transforms.fold_pad:FoldPadPass",
    "xnn-polyphase": "xnnc.transforms.polyphase:PolyphasePass",
    "xnn-upsample-nearest": "xnnc.transforms.upsample_nearest:UpsampleNearestPass",
    "xnn-quantize-early": "xnnc.transforms.quantize_early:QuantizeEarlyPass",
    "xnn-fuse-activation": "xnnc.transforms.fuse_activation:FuseActivationPass",
    "xnn-fold-channel-scale": "xnnc.transforms.channel_scale:FoldChannelScalePass",
    "xnn-layout": "xnnc.transforms.layout:LayoutPass",
    # optimization
    "xnn-hoist-input-projection": (
        "xnnc.transforms.hoist_input_projection:HoistInputProjectionPass"
    ),
    "xnn-fc-as-bmm": "xnnc.transforms.fc_as_bmm:FcAsBmmPass",
    "xnn-conv-as-gemm": "xnnc.transforms.conv_as_gemm:ConvAsGemmPass",
    "xnn-space-to-depth": "xnnc.transforms.space_to_depth:SpaceToDepthPass",
    "xnn-depthwise-rows": "xnnc.transforms.depthwise_rows:DepthwiseRowsPass",
    "xnn-tune": "xnnc.tuning.tuner:TunePass",
    # legalization
    "xnn-fp16-precision": "xnnc.legalize.fp16_precision:Fp16PrecisionPass",
    "xnn-bf16-precision": "xnnc.legalize.bf16_precision:Bf16PrecisionPass",
    "xnn-legalize-casts": "xnnc.legalize.casts:LegalizeCastsPass",
    "xnn-legalize-stock": "xnnc.legalize.stock:LegalizeStockPass",
    "xnn-legalize-broadcasts": "xnnc.legalize.broadcasts:LegalizeBroadcastsPass",
    "xnn-legalize-outputs": "xnnc.legalize.outputs:LegalizeOutputsPass",
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


# How each option type reads in a message.
_TYPE_NAMES = {bool: "a bool (true or false)", int: "an int", float: "a float", str: "a string"}


def _option_name(field: str) -> str:
    return field.replace("_", "-")


def _type_name(hint: Any) -> str:
    if get_origin(hint) is tuple:
        item = get_args(hint)[0]
        return f"a comma-separated list of {'string' if item is str else item.__name__}s"
    return _TYPE_NAMES.get(hint, str(hint))


def _given(raw: tuple) -> str:
    return ",".join(str(v).lower() if isinstance(v, bool) else repr(v) for v in raw) or "nothing"


def _scalar(value: Any, hint: type) -> Any:
    """`value` as `hint`, or None when it is not one (an int literal is a valid float)."""
    if hint is bool:
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):  # xDSL reads a bare true/false as a bool
        return str(value).lower() if hint is str else None
    if hint is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return None
        return float(value) if isinstance(value, (int, float)) else None
    return value if isinstance(value, hint) else None


def _words(text: str) -> list[str]:
    return [w.strip() for w in text.split(",") if w.strip()]


def _convert(pass_name: str, field: str, raw: tuple, hint: Any) -> Any:
    """The value of option `field` given as `raw` (what xDSL's spec parser read)."""
    if get_origin(hint) is tuple:
        item_type = get_args(hint)[0]
        if item_type is str:  # a quoted "a,b" is two names, as a,b unquoted is
            raw = tuple(n for v in raw for n in (_words(v) if isinstance(v, str) else [v]))
        items = tuple(_scalar(v, item_type) for v in raw)
        if None not in items:
            return items
    elif len(raw) == 1 and (value := _scalar(raw[0], hint)) is not None:
        if not (isinstance(value, float) and math.isnan(value)):
            return value
    raise OptionError(
        f"{pass_name}: option {_option_name(field)} expects {_type_name(hint)}, got {_given(raw)}"
    )


def _check_range(pass_name: str, field: str, value: Any, bounds: tuple[float, float]) -> None:
    low, high = bounds
    if not low <= value <= high:
        interval = f"[{low:g}, {high:g}]".replace(", inf]", ", inf)")
        raise OptionError(
            f"{pass_name}: option {_option_name(field)} must be in {interval}, got {value!r}"
        )


def pass_from_spec(spec: ArgSpec) -> ModulePass:
    """The pass `spec` names with its options converted and range-checked (each pass
    declares `option_ranges`); OptionError names the pass, option, type and value."""
    cls = load_pass(spec.name)
    hints = get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    ranges: dict[str, tuple[float, float]] = getattr(cls, "option_ranges", {})
    values: dict[str, Any] = {}
    for key, raw in spec.parameters.items():
        field = key.replace("-", "_")
        if field not in fields:
            known = ", ".join(map(_option_name, fields)) or "none"
            raise OptionError(f"{spec.name}: unknown option '{key}'; options: {known}")
        values[field] = _convert(spec.name, field, raw, hints[field])
        if field in ranges:
            _check_range(spec.name, field, values[field], ranges[field])
    try:
        return cls(**values)
    except OptionError as e:
        message = str(e)
        raise OptionError(
            message if message.startswith(spec.name) else f"{spec.name}: {message}"
        ) from None


def parse_pipeline(spec: str, callback: PassPipelineCallbackType | None = None) -> PassPipeline:
    """`-p` text -> a PassPipeline; OptionError for a malformed spec, an unknown pass or a
    bad option (one line: where in the spec, or the pass and option)."""
    try:
        specs = list(parse_spec_pipeline(spec))
    except ArgSpecParseError as e:
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        raise OptionError(f"{lines[1]}: {lines[-1]} in '{spec}'") from None
    unknown = [s.name for s in specs if s.name not in _PASSES]
    if unknown:
        raise OptionError(
            f"unknown pass {', '.join(map(repr, unknown))}; available passes: "
            + ", ".join(sorted(_PASSES))
        )
    return PassPipeline(tuple(pass_from_spec(s) for s in specs), callback)
