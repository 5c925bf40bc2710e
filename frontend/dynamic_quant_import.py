"""Dynamic quantization of activations, and torchao's quantized weights, as quantized types.

XNNPACKQuantizer's dynamic config (PT2E) and torchao's 8da4w / 8da8w configs quantize an
activation with parameters chosen from its values:

    s, z = choose_qparams.tensor(%x, -128, 127, eps, int8)      (or choose_qparams_affine
    %q = quantize_per_tensor.tensor(%x, s, z, ...)                over blocks [1, .., K],
    %d = dequantize_per_tensor.tensor(%q, s, z, ...)              quantize/dequantize_affine)
        ==>  %q = aten.quantize %x : (..f32) -> ..x!xnn.quant.dynamic<i8:f32, tensor, eps ..>
             %d = aten.dequantize %q

torchao's weights are int8 tensors with a scale (and zero point) per channel or per block
of the innermost dim (`dequantize_affine(%w, [1, G], %s, %z, int8, -8, 7)`): they become
the int8 weight by reference typed `!xnn.quant.uniform<i8<-8:7>:f32:0, block G, {...}>`.
The choose_qparams nodes are left unused and erased (`erase_unused_qparams`). A pattern
that does not fit (symmetric or non-token blocks, parameters from elsewhere) is left to the
generic path, which runs it outside XNNPACK as the model does.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
import torch
from torch.fx import Node
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from xnnc.dialects import aten
from xnnc.dialects.dynamic_quant import DynamicQuantType, dynamic_quant_type
from xnnc.dialects.quant import UniformQuantType, check_quantized_tensor
from xnnc.frontend.quant_import import constant_array, import_quant_node

CHOOSE_QPARAMS = (
    "quantized_decomposed::choose_qparams.tensor",
    "torchao::choose_qparams_affine",
)
DYNAMIC_QUANTIZE = (
    "quantized_decomposed::quantize_per_tensor.tensor",
    "torchao::quantize_affine",
)
DYNAMIC_DEQUANTIZE = (
    "quantized_decomposed::dequantize_per_tensor.tensor",
    "torchao::dequantize_affine",
)
DYNAMIC = DYNAMIC_QUANTIZE + DYNAMIC_DEQUANTIZE


def _qualified(node: Any) -> str | None:
    target = getattr(node, "target", None)
    schema = getattr(target, "_schema", None)
    if schema is None:
        return None
    return schema.name + (f".{schema.overload_name}" if schema.overload_name else "")


def _args(node: Node) -> dict[str, Any]:
    """The node's arguments by schema name, defaults filled in."""
    schema = node.target._schema
    out = {a.name: a.default_value for a in schema.arguments if a.has_default_value()}
    out.update({a.name: v for a, v in zip(schema.arguments, node.args)})
    out.update(node.kwargs)
    return out


def _choose(node: Node, source: Node, real_rank: int) -> DynamicQuantType | None:
    """The dynamic type a choose_qparams node computes for `source`, or None."""
    name = _qualified(node)
    if name not in CHOOSE_QPARAMS:
        return None
    a = _args(node)
    if a.get("input") is not source:
        return None
    if name == CHOOSE_QPARAMS[0]:
        if a["dtype"] != torch.int8:
            return None
        granularity, eps, lo, hi = "tensor", a["eps"], a["quant_min"], a["quant_max"]
    else:
        block = list(a["block_size"])
        shape = list(source.meta["val"].shape)
        per_token = block[:-1] == [1] * (real_rank - 1) and block[-1] == shape[-1]
        if (
            str(a["mapping_type"]) != "ASYMMETRIC"
            or a["target_dtype"] != torch.int8
            or a.get("scale_dtype") not in (None, torch.float32)
            or not per_token
        ):
            return None
        lo, hi = a["quant_min"], a["quant_max"]
        eps = a["eps"] if a["eps"] is not None else torch.finfo(torch.float32).smallest_normal
        granularity = "tensor" if real_rank == 1 else "token"
    try:
        d = DynamicQuantType(granularity, eps, storage_range=(int(lo), int(hi)))
        d.verify()
    except VerifyException:
        return None
    return d


def _float32(dtype: Any) -> bool:
    """An output dtype argument meaning f32 (None, or a schema default's ScalarType 6)."""
    return dtype in (None, torch.float32, 6)


def _parameters(a: dict[str, Any]) -> tuple[Any, Any]:
    """(scale, zero point) arguments: `scale`, or per channel `scales`."""
    return a.get("scale", a.get("scales")), a.get("zero_point", a.get("zero_points"))


def _chosen(a: dict[str, Any]) -> Node | None:
    """The choose_qparams node whose (scale, zero point) a q/dq node reads, or None."""
    scale, zp = _parameters(a)
    if not all(isinstance(p, Node) and p.target is operator.getitem for p in (scale, zp)):
        return None
    if scale.args[0] is not zp.args[0] or (scale.args[1], zp.args[1]) != (0, 1):
        return None
    return scale.args[0]


def _quantize(node: Node, values: dict[Node, Any], real: TensorType) -> list[Operation] | None:
    a = _args(node)
    chooser = _chosen(a)
    if chooser is None:
        return None
    d = _choose(chooser, a["input"], len(real.get_shape()))
    lo, hi = a["quant_min"], a["quant_max"]
    if (
        d is None
        or (lo, hi) != d.storage_range
        or a.get("dtype", a.get("output_dtype")) != (torch.int8)
    ):
        return None
    source = values.get(a["input"])
    if not isinstance(source, SSAValue) or source.type != real:
        return None
    result = TensorType(d, real.shape, real.encoding)  # symbolic dims keep their expressions
    return [aten.QuantizeOp.build(operands=[source], result_types=[result])]


def _dequantize(node: Node, values: dict[Node, Any], real: TensorType) -> list[Operation] | None:
    a = _args(node)
    source = values.get(a["input"])
    if not isinstance(source, SSAValue):
        return None
    if dynamic_quant_type(source.type.element_type) is not None:
        same = _parameters(a) == _parameters(_args(a["input"]))
        if not same or not _float32(a.get("output_dtype", a.get("out_dtype"))):
            return None
        return [aten.DequantizeOp.build(operands=[source], result_types=[real])]
    if _qualified(node) == DYNAMIC_DEQUANTIZE[1] and isinstance(source.type, TensorType):
        return _weight(a, source, values, real)
    return None


def _weight(
    a: dict[str, Any], source: SSAValue, values: dict[Node, Any], real: TensorType
) -> list[Operation] | None:
    """torchao's int8 weight with a scale per channel or per block of the innermost dim."""
    shape, block = real.get_shape(), list(a["block_size"])
    if len(shape) != 2 or block[0] != 1 or shape[1] % block[1] or a["input_dtype"] != torch.int8:
        return None
    if not _float32(a.get("output_dtype")):
        return None
    block_size = 0 if block[1] == shape[1] else block[1]
    return _quantized_weight(a, source, values, real, 0, block_size)


def _quantized_weight(
    a: dict[str, Any], source: SSAValue, values: dict[Node, Any], real: TensorType,
    axis: int, block_size: int,
) -> list[Operation] | None:  # fmt: skip
    """The int8 constant `source` typed as what it quantizes, and its dequantize. Weights
    known by shape only (ExecuTorch hands its partitioners fake weights) get scales of 1
    and zero points of 0: partitioning reads the storage, range, axis and blocks; the
    delegate compiles the real program."""
    const = source.owner
    if not isinstance(const, aten.ConstantOp) or source.type.element_type != IntegerType(8):
        return None
    scale, zp = _parameters(a)
    scales = constant_array(values[scale]) if isinstance(scale, Node) else None
    zps = constant_array(values[zp]) if isinstance(zp, Node) else None
    if scales is None or (zp is not None and zps is None):
        if const.value.data.has_data or not isinstance(scale, Node):
            return None
        count = math.prod(scale.meta["val"].shape)
        scales, zps = np.ones(count), None
    scales = [float(s) for s in scales.reshape(-1)]
    zps = [int(z) for z in zps.reshape(-1)] if zps is not None else [0] * len(scales)
    try:
        q = UniformQuantType(
            IntegerType(8), scales, zps, axis=axis, block_size=block_size,
            storage_range=(int(a["quant_min"]), int(a["quant_max"])),
        )  # fmt: skip
        q.verify()
        quantized = TensorType(q, real.get_shape())
        check_quantized_tensor(quantized)
    except VerifyException:
        return None
    weight = aten.ConstantOp(const.value, quantized)
    weight.location = const.location
    weight.result.name_hint = source.name_hint
    return [weight, aten.DequantizeOp.build(operands=[weight.result], result_types=[real])]


def import_weight_by_shape(
    node: Node, values: dict[Node, Any], real: TensorType
) -> list[Operation] | None:
    """PT2E's per-channel weight dequantize when its weight has no data (see
    `_quantized_weight`), or None."""
    if _qualified(node) != "quantized_decomposed::dequantize_per_channel":
        return None
    a = _args(node)
    source = values.get(a["input"])
    if not isinstance(source, SSAValue) or a["dtype"] != torch.int8:
        return None
    axis = int(a["axis"]) % len(real.get_shape())
    return _quantized_weight(a, source, values, real, axis, 0)


def import_dynamic_node(
    qualified: str, node: Node, values: dict[Node, Any], real: TensorType
) -> list[Operation] | None:
    """The ops for a dynamic q/dq node or a torchao weight's dequantize (`real` is its
    float type), or None to import it as `aten.generic`."""
    ops = (_quantize if qualified in DYNAMIC_QUANTIZE else _dequantize)(node, values, real)
    if ops is None and qualified.startswith("quantized_decomposed::"):
        # `.tensor` with constant parameters, not chosen at run time: a static q/dq
        return import_quant_node(qualified, node, values, real)
    return ops


def erase_unused_qparams(block: Block) -> None:
    """Erase the choose_qparams nodes (and the constants) nothing reads any more."""
    for op in reversed(list(block.ops)):
        chooser = isinstance(op, aten.GenericOp) and op.target.data in CHOOSE_QPARAMS
        if (chooser or isinstance(op, aten.ConstantOp)) and not any(r.uses for r in op.results):
            block.erase_op(op)
