"""`xnn.subgraph` -> ExecuTorch XNNPACK delegate blob.

    xnn.subgraph(%a, %b) { ... xnn.output %y }   ==>   XH00 header | XN01 flatbuffer | constants

Values are numbered in order: external inputs (block arguments, external ids 0..n-1), then
constants and internal values as they are defined; the yielded outputs take external ids
n..n+m-1, as the stock runtime requires. Each node op encodes itself (`op.encode(fb)`, from
its node kind's entry in backend_xnnpack/nodes.py); this module only numbers values, packs
constants and wraps nodes.
"""

from __future__ import annotations

import math
from typing import Any

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, bf16, f16, f32, i32
from xdsl.ir import Attribute, SSAValue

from xnnc.backend_xnnpack.blob import (
    NODE_KIND_NAMES,
    NODE_TABLES,
    VALUE_FLAG_EXTERNAL_INPUT,
    VALUE_FLAG_EXTERNAL_OUTPUT,
    pack_blob,
)
from xnnc.backend_xnnpack.nodes import INVALID_VALUE_ID, KINDS, camel
from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.dialects import xnn
from xnnc.ir.types import element_nbytes

TARGETS = ("stock", "extended")
_KIND_NUMBERS = {name: number for number, name in NODE_KIND_NAMES.items()}
_DATATYPES: dict[Attribute, int] = {
    f32: fb.XNNDatatype.fp32,
    f16: fb.XNNDatatype.fp16,
    bf16: fb.XNNDatatype.bf16,
    i32: fb.XNNDatatype.int32,
}


class SerializeError(ValueError):
    """A subgraph the target cannot express."""


class Encoder:
    """What a node op's `encode` sees: value ids and the node tables by kind name."""

    NO_VALUE = INVALID_VALUE_ID

    def __init__(self, ids: dict[SSAValue, int]):
        self._ids = ids

    def id(self, value: SSAValue) -> int:
        return self._ids[value]

    def node(self, kind: str, **fields: Any) -> tuple[int, Any]:
        number = _KIND_NUMBERS[kind]
        table = NODE_TABLES[number]()
        for name, value in fields.items():
            attr = camel(name)
            if not hasattr(table, attr):
                raise AttributeError(f"{kind} has no field '{name}'")
            setattr(table, attr, value)
        return number, table


def _tensor_value(value: SSAValue, vid: int, external_id: int, flags: int, buffer: int) -> Any:
    t = value.type
    assert isinstance(t, TensorType)
    if t.element_type not in _DATATYPES:
        raise SerializeError(f"XNNPACK values cannot have element type {t.element_type}")
    tensor = fb.XNNTensorValueT()
    tensor.datatype = _DATATYPES[t.element_type]
    tensor.dims = [int(d) for d in t.get_shape()]
    tensor.numDims = len(tensor.dims)
    tensor.constantBufferIdx = buffer
    tensor.externalId = external_id
    tensor.flags = flags
    tensor.idOut = vid
    xvalue = fb.XValueT()
    xvalue.xvalueUnionType = fb.ValueUnion.XNNTensorValue
    xvalue.xvalueUnion = tensor
    return xvalue


def _constant_bytes(op: xnn.ConstantOp) -> memoryview:
    value = op.value
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return value.data.raw()
    data = value.data.data
    t = op.output.type
    assert isinstance(t, TensorType)
    count = math.prod(t.get_shape())
    if len(data) == element_nbytes(t.element_type) and count > 1:
        data = bytes(data) * count  # a splat literal stores one element
    return memoryview(data)


def serialize_subgraph(sub: xnn.SubgraphOp, target: str = "extended") -> bytes:
    """The delegate blob of one subgraph; `stock` refuses node kinds stock ExecuTorch lacks."""
    if target not in TARGETS:
        raise SerializeError(f"unknown target '{target}'; expected one of {', '.join(TARGETS)}")
    block = sub.body.block
    terminator = block.last_op
    assert isinstance(terminator, xnn.OutputOp)
    outputs = list(terminator.outputs)
    n_in = len(block.args)
    for j, out in enumerate(outputs):
        if out in block.args or outputs.index(out) != j:
            raise SerializeError(
                f"output {j} is an input or repeats another output; XNNPACK needs each "
                "external output produced by its own node (insert an xnn.copy)"
            )
    ids: dict[SSAValue, int] = {}
    values: list[Any] = []
    constants: list[memoryview] = []

    def define(value: SSAValue, buffer: int = 0) -> None:
        vid = len(values)
        ids[value] = vid
        if value in block.args:
            ext, flags = block.args.index(value), VALUE_FLAG_EXTERNAL_INPUT
        elif value in outputs:
            ext, flags = n_in + outputs.index(value), VALUE_FLAG_EXTERNAL_OUTPUT
        else:
            ext, flags = INVALID_VALUE_ID, 0
        values.append(_tensor_value(value, vid, ext, flags, buffer))

    for arg in block.args:
        define(arg)
    nodes: list[Any] = []
    encoder = Encoder(ids)
    for op in block.ops:
        if op is terminator:
            continue
        if isinstance(op, xnn.ConstantOp):
            constants.append(_constant_bytes(op))
            define(op.output, buffer=len(constants))
            continue
        if not isinstance(op, xnn.XnnNode):
            raise SerializeError(f"{op.name} at {op.location} is not an XNNPACK node")
        for result in op.results:
            define(result)
        number, table = op.encode(encoder)
        if target == "stock" and not KINDS[NODE_KIND_NAMES[number]].stock:
            raise SerializeError(
                f"{op.name} at {op.location} encodes to {NODE_KIND_NAMES[number]}, which stock "
                "ExecuTorch 1.5.1 lacks; use target=extended or the xnn-legalize-stock pass"
            )
        node = fb.XNodeT()
        node.xnodeUnionType = number
        node.xnodeUnion = table
        node.debugHandle = len(nodes)
        if isinstance(op, xnn.ClampedNode):
            lo, hi = op.output_range()
            if math.isfinite(lo) or math.isfinite(hi):
                node.outputMinMax = fb.OutputMinMaxT()
                node.outputMinMax.outputMin, node.outputMinMax.outputMax = lo, hi
        nodes.append(node)
    graph = fb.XNNGraphT()
    graph.version = "xnnc"
    graph.xvalues = values
    graph.xnodes = nodes
    graph.numExterns = n_in + len(outputs)
    graph.inputIds = [ids[a] for a in block.args]
    graph.outputIds = [ids[o] for o in outputs]
    return pack_blob(graph, constants)
