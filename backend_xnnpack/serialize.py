"""`GraphBuilder`: an ExecuTorch XNNPACK delegate blob, value by value and node by node.

    XH00 header | XN01 flatbuffer | constants

The translation out of the IR (`translate/xnnpack.py`) walks an `xnn.subgraph` and feeds it
here; each node encodes from its kind's entry in nodes.py.
Values are numbered in the order they are defined; external inputs take external ids
0..n-1 and outputs n..n+m-1, as the stock runtime requires. Constants are referenced, never
copied, until a blob is packed, and a constant defined again with the same bytes (the same
memory, or equal small literals) and the same type is the same value, and with another type
(a reshaped view) shares its bytes: an unrolled recurrence reads one static weight per step,
not a copy each. No xDSL here: this layer sits below the dialects.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xnnc.backend_xnnpack.blob import (
    DATATYPE_NUMBERS,
    NODE_KIND_NAMES,
    NODE_TABLES,
    VALUE_FLAG_EXTERNAL_INPUT,
    VALUE_FLAG_EXTERNAL_OUTPUT,
    bf16_scales,
    pack_blob,
    pack_blob_hashed,
    pack_blob_named,
)
from xnnc.backend_xnnpack.nodes import INVALID_VALUE_ID, KINDS, camel
from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.errors import LocatedError, XnncError
from xnnc.target import RUNTIMES

_KIND_NUMBERS = {name: number for number, name in NODE_KIND_NAMES.items()}


class SerializeError(XnncError):
    """A subgraph the runtime cannot express."""


class NodeSerializeError(SerializeError, LocatedError):
    """One op of the subgraph the runtime cannot express: `where` is the op."""


@dataclass(frozen=True)
class Quantization:
    """A quantized value's parameters as the blob carries them: one scale and zero point
    (per tensor), a scale per channel along `channel_dim`, or (`block_size` > 0) a scale
    per block of `block_size` along dim 1 for each channel; `per_token`: XNNPACK computes
    them at run time for each row of its last `nonbatch_dims` dims (qdint8)."""

    scales: tuple[float, ...]
    zero_point: int = 0
    channel_dim: int | None = None
    block_size: int = 0
    per_token: bool = False
    nonbatch_dims: int = 1

    def table(self) -> tuple[int, Any]:
        """(QuantParams union type, its table)."""
        if self.per_token:
            params = fb.PerTokenDynamicQuantT()
            params.numNonbatchDims = self.nonbatch_dims
            return fb.QuantParams.PerTokenDynamicQuant, params
        if self.channel_dim is None:
            params = fb.PerTensorQuantT()
            params.scale, params.zeroPoint = self.scales[0], self.zero_point
            return fb.QuantParams.PerTensorQuant, params
        if self.block_size:  # bf16 scales in constant data: GraphBuilder.value sets them
            params = fb.PerChannelGroupQuantT()
            params.scale, params.channelDim = [], self.channel_dim
            params.groupSize, params.numScales = self.block_size, len(self.scales)
            return fb.QuantParams.PerChannelGroupQuant, params
        params = fb.PerChannelQuantT()
        params.scale, params.channelDim = list(self.scales), self.channel_dim
        params.numScales = len(self.scales)
        return fb.QuantParams.PerChannelQuant, params


class GraphBuilder:
    """Values and nodes of one XNNGraph; `finish` packs the blob. Values are keyed by any
    hashable (the dialect uses its SSA values)."""

    NO_VALUE = INVALID_VALUE_ID

    def __init__(self, runtime: str = "extended"):
        if runtime not in RUNTIMES:
            raise SerializeError(f"unknown runtime '{runtime}'; expected one of {RUNTIMES}")
        self.runtime = runtime
        self._ids: dict[Hashable, int] = {}
        self._values: list[Any] = []
        self._nodes: list[Any] = []
        self._constants: list[memoryview] = []
        self._constant_ids: dict[Hashable, int] = {}  # (datatype, dims, data key) -> value id
        self._buffers: dict[Hashable, int] = {}  # _constant_key -> constant buffer index
        self._inputs: list[int] = []
        self._outputs: list[int] = []  # set by finish

    def value(
        self,
        key: Hashable,
        datatype: str,
        dims: Sequence[int],
        *,
        data: memoryview | None = None,
        external: str | None = None,
        quant: Quantization | None = None,
    ) -> int:
        """Define a value: `datatype` by schema name ("fp32", ...), constant `data`, or
        `external` "input" (numbered in the order inputs are defined) or "output" (numbered
        as `finish` lists them); `quant` for a quantized datatype."""
        if datatype not in DATATYPE_NUMBERS:
            raise SerializeError(f"XNNPACK values cannot have datatype {datatype}")
        if data is not None:
            bytes_key = _constant_key(data)
            same = (datatype, tuple(int(d) for d in dims), bytes_key, quant)
            if same in self._constant_ids:
                self._ids[key] = self._constant_ids[same]
                return self._ids[key]
        tensor = fb.XNNTensorValueT()
        tensor.datatype = DATATYPE_NUMBERS[datatype]
        tensor.dims = [int(d) for d in dims]
        tensor.numDims = len(tensor.dims)
        tensor.idOut = vid = len(self._values)
        tensor.externalId, tensor.flags = INVALID_VALUE_ID, 0
        if data is not None:
            tensor.constantBufferIdx = self._buffer(data)
            self._constant_ids[same] = vid
        if external == "input":
            tensor.flags = VALUE_FLAG_EXTERNAL_INPUT
            self._inputs.append(vid)
        elif external == "output":
            tensor.flags = VALUE_FLAG_EXTERNAL_OUTPUT
        xvalue = fb.XValueT()
        xvalue.xvalueUnionType = fb.ValueUnion.XNNTensorValue
        xvalue.xvalueUnion = tensor
        if quant is not None:
            quantized = fb.XNNQuantizedTensorValueT()
            quantized.tensorValue = tensor
            quantized.quantParamsType, quantized.quantParams = quant.table()
            if quant.block_size:
                quantized.quantParams.scaleBufferIdx = self._buffer(bf16_scales(quant.scales))
            xvalue.xvalueUnionType = fb.ValueUnion.XNNQuantizedTensorValue
            xvalue.xvalueUnion = quantized
        self._values.append(xvalue)
        self._ids[key] = vid
        return vid

    def _buffer(self, data: memoryview | bytes) -> int:
        """The constant buffer index of `data`, added once."""
        key = _constant_key(data)
        if key not in self._buffers:
            self._constants.append(memoryview(data))
            self._buffers[key] = len(self._constants)
        return self._buffers[key]

    def id(self, key: Hashable) -> int:
        return self._ids[key]

    def dims(self, key: Hashable) -> list[int]:
        """The dims a value was defined with."""
        return list(_tensor(self._values[self._ids[key]]).dims)

    def node(self, kind: str, **fields: Any) -> tuple[int, Any]:
        """A node table of `kind` with its fields by schema name (what `op.encode` returns)."""
        number = _KIND_NUMBERS[kind]
        table = NODE_TABLES[number]()
        for name, value in fields.items():
            attr = camel(name)
            if not hasattr(table, attr):
                raise AttributeError(f"{kind} has no field '{name}'")
            setattr(table, attr, value)
        return number, table

    def add_node(
        self, encoded: tuple[int, Any], where: str, clamp: tuple[float, float], label: str = "node"
    ) -> None:
        """Append an encoded node; `where` (its location) and `label` (its op) name it in
        errors; `clamp` is its output range."""
        number, table = encoded
        if self.runtime == "stock" and not KINDS[NODE_KIND_NAMES[number]].stock:
            raise NodeSerializeError(where,
                f"{label} encodes to {NODE_KIND_NAMES[number]}, which stock ExecuTorch 1.5.1 "
                "lacks: give it a stock form in xnn-legalize-stock or keep it outside on the "
                "stock target (docs/adding-an-op.md), or compile for the extended runtime"
            )  # fmt: skip
        node = fb.XNodeT()
        node.xnodeUnionType, node.xnodeUnion = number, table
        node.debugHandle = len(self._nodes)
        lo, hi = clamp
        if math.isfinite(lo) or math.isfinite(hi):
            node.outputMinMax = fb.OutputMinMaxT()
            node.outputMinMax.outputMin, node.outputMinMax.outputMax = lo, hi
        self._nodes.append(node)

    def finish(self, outputs: Sequence[Hashable]) -> bytes:
        """The blob with the external outputs in the order of `outputs` (keys), validated by
        reading it back."""
        return pack_blob(self._graph(outputs), self._constants)

    def finish_named(self, outputs: Sequence[Hashable]) -> tuple[bytes, dict[str, memoryview]]:
        """`finish` with the constants left in place: the blob and its named data, views of
        the constants' own memory (`pack_blob_named`)."""
        return pack_blob_named(self._graph(outputs), self._constants)

    def finish_hashed(self, outputs: Sequence[Hashable]) -> tuple[bytes, dict[str, bytes]]:
        """`finish` with each constant named by its SHA-256, and the named data (copies),
        dropping this builder's reference to each constant once copied (`pack_blob_hashed`):
        the builder is spent."""
        return pack_blob_hashed(self._graph(outputs), self._constants)

    def _graph(self, outputs: Sequence[Hashable]) -> Any:
        self._outputs = [self._ids[key] for key in outputs]
        offset = len(self._inputs)
        for j, vid in enumerate(self._outputs):
            _tensor(self._values[vid]).externalId = offset + j
        for i, vid in enumerate(self._inputs):
            _tensor(self._values[vid]).externalId = i
        graph = fb.XNNGraphT()
        graph.version = "xnnc"
        graph.xvalues, graph.xnodes = self._values, self._nodes
        graph.numExterns = len(self._inputs) + len(self._outputs)
        graph.inputIds, graph.outputIds = list(self._inputs), list(self._outputs)
        return graph


def _tensor(xvalue: Any) -> Any:
    """The XNNTensorValue of a plain or quantized value."""
    union = xvalue.xvalueUnion
    return getattr(union, "tensorValue", None) or union


_SMALL_CONSTANT = 256  # bytes: literals this small are compared by value


def _constant_key(data: memoryview | bytes) -> Hashable:
    """Equal for the same memory (address and size), or for equal small literals."""
    view = memoryview(data).cast("B")
    if view.nbytes <= _SMALL_CONSTANT:
        return bytes(view)
    return (np.frombuffer(view, dtype=np.uint8).ctypes.data, view.nbytes)
