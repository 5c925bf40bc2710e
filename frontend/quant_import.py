"""PT2E's quantize/dequantize nodes as quantized types.

    quantize_per_tensor(%x, 0.02, -3, -128, 127, int8)
        ==>  %q = aten.quantize %x : ... -> tensor<..x!xnn.quant.uniform<i8:f32, 0.02:-3>>
    dequantize_per_tensor(%q, 0.02, -3, -128, 127, int8)
        ==>  %d = aten.dequantize %q
    dequantize_per_channel(%w_i8, %scales, %zps, 0, -127, 127, int8)
        ==>  %wq = aten.constant #xnnc.weight<"w_i8">
                     : tensor<..x!xnn.quant.uniform<i8<-127:127>:f32:0, {...}>>
             %w = aten.dequantize %wq

A quantized weight is the int8 weight itself, by reference, with its scales in its type.
A node whose parameters are not compile-time constants, or whose input does not carry the
same quantization, is left to the generic path (`aten.generic`), which runs outside XNNPACK.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.fx import Node
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from xnnc.dialects import aten
from xnnc.dialects.quant import UniformQuantType, check_quantized_tensor, quant_type
from xnnc.dialects.weights import WeightAttr

STORAGE = {
    torch.int8: IntegerType(8),
    torch.uint8: IntegerType(8, Signedness.UNSIGNED),
    torch.int32: IntegerType(32),
}
QUANTIZE = (
    "quantized_decomposed::quantize_per_tensor",
    "quantized_decomposed::quantize_per_channel",
)
DEQUANTIZE = (
    "quantized_decomposed::dequantize_per_tensor",
    "quantized_decomposed::dequantize_per_channel",
)


def register_quantized_ops() -> None:
    """Define torch's `quantized_decomposed` ops (PT2E's q/dq), which a saved program names
    and torch registers only on import."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401


def constant_array(value: SSAValue) -> np.ndarray | None:
    """The data of an `aten.constant` with data, or None."""
    op = value.owner
    if not isinstance(op, aten.ConstantOp) or not isinstance(op.value, WeightAttr):
        return None
    blob = op.value.data
    if not blob.has_data:
        return None
    return np.asarray(blob.data)


def quant_type_of(node: Node, values: dict[Node, Any]) -> UniformQuantType | None:
    """The quantized type a PT2E q/dq node's arguments describe, or None when they are not
    compile-time constants or XNNPACK-sized storage."""
    per_channel = node.target._schema.name.endswith("_per_channel")
    names = ("input", "scale", "zero_point", "axis", "quant_min", "quant_max", "dtype")
    names = names if per_channel else names[:3] + names[4:]
    args = dict(zip(names, node.args))
    args.update({k: v for k, v in node.kwargs.items() if k in names})
    dtype = args.get("dtype")
    if dtype not in STORAGE or node.kwargs.get("out_dtype") not in (None, torch.float32):
        return None
    scale, zp = args.get("scale"), args.get("zero_point")
    if isinstance(scale, Node):
        arrays = [constant_array(values[n]) if isinstance(n, Node) else None for n in (scale, zp)]
        if arrays[0] is None or (zp is not None and arrays[1] is None):
            return None
        scales = [float(s) for s in arrays[0].reshape(-1)]
        zps = [int(z) for z in arrays[1].reshape(-1)] if zp is not None else [0] * len(scales)
    else:
        scales, zps = [float(scale)], [int(zp)]
    axis = int(args["axis"]) if per_channel else -1
    if per_channel and axis < 0:
        axis += node.meta["val"].dim()
    try:
        return UniformQuantType(
            STORAGE[dtype], scales, zps, axis=axis,
            storage_range=(int(args["quant_min"]), int(args["quant_max"])),
        )  # fmt: skip
    except VerifyException:
        return None


def quantized_input_type(node: Node) -> UniformQuantType | None:
    """The quantized type of an integer graph input that is read only through PT2E
    dequantize nodes of one per-tensor quantization (a quantized stream's state, a model
    with quantized inputs), or None: the input then takes that type, and the dequantizes
    become `aten.dequantize` of it."""
    users = list(node.users)
    if not users or any(
        _name(u) != DEQUANTIZE[0] or u.args[0] is not node or isinstance(u.args[1], Node)
        for u in users
    ):  # fmt: skip
        return None
    types = {quant_type_of(u, {}) for u in users}
    return types.pop() if len(types) == 1 and None not in types else None


def _name(node: Node) -> str:
    target = getattr(node.target, "_schema", None)
    return target.name if target is not None else ""


def import_quant_node(
    qualified: str, node: Node, values: dict[Node, Any], real: TensorType
) -> list[Operation] | None:
    """The ops for a PT2E q/dq node (`real` is its float type), or None to import it as
    `aten.generic`."""
    q = quant_type_of(node, values)
    source = values.get(node.args[0])
    if q is None or not isinstance(source, SSAValue):
        return None
    quantized = TensorType(q, real.get_shape(), real.encoding)
    try:
        check_quantized_tensor(quantized)
    except VerifyException:
        return None
    if qualified.partition(".")[0] in QUANTIZE:  # also the `.tensor` overload
        return [aten.QuantizeOp.build(operands=[source], result_types=[quantized])]
    if quant_type(source.type.element_type) == q:
        return [aten.DequantizeOp.build(operands=[source], result_types=[real])]
    const = source.owner
    if not isinstance(const, aten.ConstantOp) or source.type.element_type != q.storage_type:
        return None
    # An integer weight: the same bytes, typed as what they quantize.
    weight = aten.ConstantOp(const.value, quantized)
    weight.location = const.location
    weight.result.name_hint = source.name_hint
    deq = aten.DequantizeOp.build(operands=[weight.result], result_types=[real])
    return [weight, deq]
