"""`xnn` IR -> the ExecuTorch XNNPACK delegate blob: the translation out of the IR.

    blob = serialize_subgraph(sub, "stock")     # one `xnn.subgraph` -> XH00 | XN01 | constants

It walks an `xnn.subgraph` and feeds the xDSL-free `GraphBuilder` (backend_xnnpack/
serialize.py): block arguments become external inputs, constants become constant values,
each node op encodes from its kind's entry in the node table (`encode`), `xnn.lstm` unrolls
into its steps. Like MLIR's `Target/` translations it sits above the dialects, which know
nothing of the blob, and below the program and the ExecuTorch backend that consume it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, bf16, f16, f32, i32
from xdsl.ir import Attribute, Operation, SSAValue

from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.dims import DimExpr, upper_bound
from xnnc.backend_xnnpack.lstm_steps import emit_lstm
from xnnc.backend_xnnpack.serialize import (
    GraphBuilder,
    NodeSerializeError,
    Quantization,
    SerializeError,
)
from xnnc.backend_xnnpack.shapes import numel
from xnnc.dialects import xnn
from xnnc.dialects.dynamic_quant import dynamic_quant_type
from xnnc.dialects.locations import where
from xnnc.dialects.quant import UniformQuantType, quant_type
from xnnc.dialects.types import (
    SYMBOLS_ATTR_NAME,
    element_nbytes,
    element_type,
    shape_of,
    symbol_ranges,
)
from xnnc.dialects.weights import WeightAttr

_DATATYPES: dict[Attribute, str] = {f32: "fp32", f16: "fp16", bf16: "bf16", i32: "int32"}


# (storage width, signed, per tensor / per channel / blockwise) -> the schema's datatype.
_QUANT_DATATYPES: dict[tuple[int, bool, str], str] = {
    (8, True, "tensor"): "qint8", (8, False, "tensor"): "quint8", (32, True, "tensor"): "qint32",
    (8, True, "channel"): "qcint8", (32, True, "channel"): "qcint32",
    (4, True, "channel"): "qcint4", (4, True, "block"): "qbint4",
}  # fmt: skip


def _datatype_of(q: UniformQuantType) -> str | None:
    """The XNNPACK datatype of a quantized type, or None when XNNPACK has none."""
    granularity = "tensor" if q.per_tensor else "block" if q.blockwise else "channel"
    signed = q.storage_type.signedness.data.name != "UNSIGNED"
    return _QUANT_DATATYPES.get((q.bitwidth, signed, granularity))


def _datatype(value: SSAValue) -> str:
    elem = element_type(value)
    if dynamic_quant_type(elem) is not None:
        return "qdint8"
    if (q := quant_type(elem)) is not None:
        name = _datatype_of(q)
        if name is None:
            raise SerializeError(f"XNNPACK has no datatype for {elem}")
        return name
    if elem not in _DATATYPES:
        raise SerializeError(f"XNNPACK values cannot have element type {elem}")
    return _DATATYPES[elem]


def _quantization(value: SSAValue) -> Quantization | None:
    if dynamic_quant_type(element_type(value)) is not None:
        # XNNPACK's qd8 convolutions take one (scale, zero point) per image (all dims but
        # the batch), its fully-connected one per row of the innermost dim.
        nonbatch = len(shape_of(value)) - 1 if xnn.per_image(value) else 1
        return Quantization((), per_token=True, nonbatch_dims=nonbatch)
    q = quant_type(element_type(value))
    if q is None:
        return None
    if q.per_tensor:
        return Quantization(q.scales.data, q.zero_point)
    if not q.symmetric:
        raise SerializeError(f"XNNPACK's per-channel values have zero points of 0, not {q}")
    return Quantization(q.scales.data, 0, q.axis.data, q.block_size.data)


def _constant_bytes(op: xnn.ConstantOp) -> memoryview:
    value = op.value
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return value.data.raw()
    data, shape = value.data.data, shape_of(op.output)
    if len(data) == element_nbytes(element_type(op.output)) and numel(shape) > 1:
        data = bytes(data) * numel(shape)  # a splat literal stores one element
    return memoryview(data)


def serialize_subgraph(sub: xnn.SubgraphOp, runtime: str = "extended") -> bytes:
    """The ExecuTorch XNNPACK delegate blob of one subgraph for `runtime` ("stock" refuses
    node kinds stock ExecuTorch lacks)."""
    graph, outputs = _graph_of(sub, runtime)
    return graph.finish(outputs)


def serialize_subgraph_named(
    sub: xnn.SubgraphOp, runtime: str = "extended"
) -> tuple[bytes, dict[str, memoryview]]:
    """`serialize_subgraph` without copying the weights: the blob names its constants and
    the named data are views of the weights' own buffers (for a runtime in this process)."""
    graph, outputs = _graph_of(sub, runtime)
    return graph.finish_named(outputs)


def serialize_subgraph_hashed(
    sub: xnn.SubgraphOp, runtime: str = "stock"
) -> tuple[bytes, dict[str, bytes]]:
    """The blob of a subgraph serialized once, its constants named by their SHA-256 as stock
    ExecuTorch's `.pte` names them, and the named data; the weights leave the IR and each is
    let go of once copied, so that the IR's weight copies (permuted filters, folded batch
    norms) and the named data do not all coexist."""
    graph, outputs = _spent_graph_of(sub, runtime)
    return graph.finish_hashed(outputs)


def _spent_graph_of(sub: xnn.SubgraphOp, runtime: str) -> tuple[GraphBuilder, list[SSAValue]]:
    """`_graph_of`, the weights taken out of the IR: the builder holds the only references
    the IR had."""
    graph, outputs = _graph_of(sub, runtime)
    for op in sub.body.block.ops:
        if isinstance(op, xnn.ConstantOp) and isinstance(op.value, WeightAttr):
            op.value.data.data = None
    return graph, outputs


def _graph_of(sub: xnn.SubgraphOp, runtime: str) -> tuple[GraphBuilder, list[SSAValue]]:
    block = sub.body.block
    terminator = block.last_op
    assert isinstance(terminator, xnn.OutputOp)
    outputs = list(terminator.outputs)
    for j, out in enumerate(outputs):
        if out in block.args or outputs.index(out) != j:
            raise SerializeError(
                f"output {j} is an input or repeats another output; XNNPACK needs each "
                "external output produced by its own node (insert an xnn.copy)"
            )
    graph = GraphBuilder(runtime)
    ranges = symbol_ranges(sub)

    def dims(v: SSAValue) -> tuple[int, ...]:
        """Symbolic dims at their upper bound, as stock ExecuTorch declares them."""
        shape = shape_of(v)
        missing = sorted(
            {s for d in shape if isinstance(d, DimExpr) for s in d.symbols} - set(ranges)
        )
        if missing:
            raise SerializeError(
                f"size symbol {missing[0]} of {v.type} has no range in the module's "
                f"{SYMBOLS_ATTR_NAME}"
            )
        return upper_bound(shape, ranges)

    for arg in block.args:
        graph.value(arg, _datatype(arg), dims(arg), external="input",
                    quant=_quantization(arg))  # fmt: skip
    for op in block.ops:
        if op is terminator:
            continue
        if isinstance(op, xnn.ConstantOp):
            data = _constant_bytes(op)
            graph.value(op.output, _datatype(op.output), dims(op.output), data=data,
                        quant=_quantization(op.output))  # fmt: skip
            continue
        if isinstance(op, xnn.LstmOp):
            _emit_lstm(op, graph, outputs, dims)
            continue
        if not isinstance(op, xnn.XnnNode):
            raise NodeSerializeError(where(op), f"{op.name} is not an XNNPACK node")
        for result in op.results:
            external = "output" if result in outputs else None
            graph.value(result, _datatype(result), dims(result), external=external,
                        quant=_quantization(result))  # fmt: skip
        clamp = op.output_range() if isinstance(op, xnn.ClampedNode) else (-math.inf, math.inf)
        _check_broadcast_operands(op, dims)
        graph.add_node(encode(op, graph), where(op), clamp, _label(op))
    return graph, outputs


def _label(op: xnn.XnnNode) -> str:
    """How errors name a node op: with its operator when it has one (`xnn.unary sign`)."""
    kind = op.properties.get("kind")
    return f"{op.name} {kind.data}" if kind is not None else op.name


def _check_broadcast_operands(op: Operation, dims: Callable[[SSAValue], Sequence[int]]) -> None:
    if not isinstance(op, xnn.BinaryOp):
        return
    operands = [op.input1, op.input2]
    broadcast = xnn.GENERATED_OPS["xnn.static_broadcast"]
    sources = [v.owner.input if isinstance(v.owner, broadcast) else v for v in operands]
    if sources != operands and nodes.broadcast_drop_misshapes(
        [dims(v) for v in sources], dims(op.output)
    ):
        raise NodeSerializeError(
            where(op),
            "xnn.binary reads an xnn.static_broadcast, which XNNPACK 92a7ad50 "
            "drops before a binary node, leaving it a smaller shape than its result's "
            f"{list(dims(op.output))} (run xnn-legalize-broadcasts)",
        )


def encode(op: xnn.XnnNode, fb: Any) -> tuple[int, Any]:
    """(node kind number, flatbuffer table) of a node op from the node table: `fb` is the
    serializer's encoder (`fb.id(value)`, `fb.node(kind, **fields)`, `fb.NO_VALUE`)."""
    ids: dict[str, Any] = {"output": fb.id(op.output)}
    for name, value in op.operand_values().items():
        if value is None:
            ids[name] = fb.NO_VALUE
        else:
            ids[name] = fb.id(value) if isinstance(value, SSAValue) else [fb.id(v) for v in value]
    view = nodes.EncodeView(op.params(), ids, op.shapes())
    kind = nodes.kind_for(op.name, view)
    return fb.node(kind.name, **nodes.encode_fields(kind, view))


def _emit_lstm(
    op: xnn.LstmOp, graph: GraphBuilder, outputs: Sequence[SSAValue], dims: Callable
) -> None:
    """An `xnn.lstm`'s nodes into `graph`, which defines its operands already: its steps
    unrolled (`backend_xnnpack.lstm_steps`); defines the results that are read or are
    `outputs` of the subgraph."""
    results = []
    for r in op.results:
        if r.uses or r in outputs:
            graph.value(r, "fp32", dims(r), external="output" if r in outputs else None)
            results.append(r)
        else:
            results.append(None)
    state = tuple(op.state)
    emit_lstm(
        graph, op, x=op.input, x_shape=dims(op.input),
        state=(state[0], state[1]) if state else None,
        cells=op.cells,
        layers=op.layers.value.data, bidirectional=op.directions == 2,
        batch_first=bool(op.batch_first.value.data),
        hidden=shape_of(op.cells[0][1])[1], results=tuple(results), where=where(op),
    )  # fmt: skip
