"""The ExecuTorch XNNPACK delegate blob: pack one, and read one back fully validated.

A blob is a 32-byte `XH00` header, the `XN01` flatbuffer of an `XNNGraph` (`schema/xnnc.fbs`,
padded to 16 bytes) and a 16-byte-aligned constant region:

    0   4 zero bytes, so the magic sits where a flatbuffer keeps its file identifier
    4   b"XH00"
    8   u16 header length (30)
    10  u32 flatbuffer offset      14  u32 flatbuffer size
    18  u32 constant data offset   22  u64 constant data size   (all little-endian)

Graphs are the flatc object API (`XNNGraphT` and friends from `schema.xnnc_generated`).
`read_blob` checks everything the stock runtime and XNNPACK take on trust, so that a blob it
accepts cannot make either read out of bounds, crash or misbind an argument; every problem is
a `ValueError` with one precise line.
"""

from __future__ import annotations

import copy
import hashlib
import math
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import flatbuffers
import numpy as np
from flatbuffers.table import Table

from xnnc.backend_xnnpack.nodes import (
    INVALID_VALUE_ID,
    KINDS,
    LAST_STOCK_NODE_KIND,
    MAX_CONCATENATE_INPUTS,
    MAX_TENSOR_DIMS,
    NodeView,
    broadcast_drop_misshapes,
)
from xnnc.backend_xnnpack.schema import xnnc_generated as fb

HEADER_MAGIC = b"XH00"
HEADER_LENGTH = 30
HEADER_SIZE = 32  # the header padded to 16 bytes
IDENTIFIER = b"XN01"
IDENTIFIERS = (b"XN00", b"XN01")  # the stock runtime reads both
ALIGNMENT = 16

VALUE_FLAG_EXTERNAL_INPUT = 1
VALUE_FLAG_EXTERNAL_OUTPUT = 2
MAX_TENSOR_BYTES = 1 << 48  # beyond any address space: such dims are corrupt

_HEADER = struct.Struct("<4s4sHIIIQ")

# --- datatypes ---------------------------------------------------------------------------------

_DT = fb.XNNDatatype

# The schema's datatype numbers <-> names (fp32 = 1, fp16 = 2, ..., int32 = 12, bf16 = 14).
DATATYPE_NAMES: dict[int, str] = {
    number: name for name, number in vars(_DT).items() if not name.startswith("_")
}
DATATYPE_NUMBERS: dict[str, int] = {name: number for number, name in DATATYPE_NAMES.items()}

# `enum xnn_datatype` of XNNPACK's include/xnnpack.h at 92a7ad50, by name. qpint8, int32 and
# qbint4 differ from the schema's numbers.
_XNN_DATATYPE_BY_NAME = {
    "invalid": 0,
    "fp32": 1,
    "fp16": 2,
    "qint8": 3,
    "quint8": 4,
    "qint32": 5,
    "qcint8": 6,
    "qcint32": 7,
    "qcint4": 8,
    "qdint8": 9,
    "qpint8": 10,
    "int32": 11,
    "qbint4": 12,
    "pfp32": 13,
    "bf16": 14,
}
# Schema datatype number -> XNNPACK C `enum xnn_datatype` value.
XNN_DATATYPE: dict[int, int] = {
    number: _XNN_DATATYPE_BY_NAME[name] for number, name in DATATYPE_NAMES.items()
}

# Bits per element of the types whose constant size follows from the dims (packed types,
# pfp32 and qpint8, have layouts of their own).
_ELEMENT_BITS = {
    _DT.fp32: 32,
    _DT.fp16: 16,
    _DT.bf16: 16,
    _DT.int32: 32,
    _DT.qint8: 8,
    _DT.quint8: 8,
    _DT.qint32: 32,
    _DT.qcint8: 8,
    _DT.qcint32: 32,
    _DT.qcint4: 4,
    _DT.qdint8: 8,
    _DT.qbint4: 4,
}
_PLAIN_DATATYPES = {_DT.fp32, _DT.fp16, _DT.bf16, _DT.int32, _DT.pfp32}
_ZERO_POINT_RANGE = {_DT.qint8: (-128, 127), _DT.quint8: (0, 255), _DT.qint32: (0, 0)}
_PER_CHANNEL_DATATYPES = {_DT.qcint8, _DT.qcint32, _DT.qcint4}

# --- node kinds --------------------------------------------------------------------------------

# Union discriminant -> node kind name (XNNAdd = 1 ... XNNCos = 47, then xnnc's own).
NODE_KIND_NAMES: dict[int, str] = {
    number: name
    for name, number in vars(fb.NodeUnion).items()
    if not name.startswith("_") and name != "NONE"
}
STOCK_NODE_KINDS = range(1, LAST_STOCK_NODE_KIND + 1)  # what stock ExecuTorch 1.5.1 knows

# Node kind -> its object-API table class (XNNAdd -> XNNNode2x1T, ...). The generated union
# creator is the one place that knows; an all-default table (empty vtable) asks it.
_EMPTY_TABLE = Table(bytearray(8), 0)
NODE_TABLES: dict[int, type] = {
    kind: type(fb.NodeUnionCreator(kind, _EMPTY_TABLE)) for kind in NODE_KIND_NAMES
}


# --- packing -----------------------------------------------------------------------------------


def _padding(size: int) -> int:
    return -size % ALIGNMENT


def pack_blob(
    graph: fb.XNNGraphT, constants: Sequence[bytes | memoryview], *, validate: bool = True
) -> bytes:
    """Serializes `graph` with `constants` in the blob's constant region (offset mode).

    `constants[k]` becomes constant index k + 1 (index 0 means "no data"), so a value refers
    to it with `constant_buffer_idx = k + 1`. `graph.constantData` must be empty: it is written
    here, with `named_key` absent. The graph itself is left unchanged. With `validate`, the blob
    is read back with `read_blob` so that an invalid graph fails here and not in the runtime.
    """
    views = [memoryview(data).cast("B") for data in constants]
    entries, chunks, offset = [fb.ConstantDataOffsetT()], [], 0
    for view in views:
        entry = fb.ConstantDataOffsetT()
        entry.offset, entry.size = offset, view.nbytes
        entries.append(entry)
        chunks += [view, bytes(_padding(view.nbytes))]
        offset += view.nbytes + _padding(view.nbytes)
    blob = b"".join([_pack_graph(graph, entries, offset), *chunks])
    if validate:
        read_blob(blob)
    return blob


def pack_blob_named(
    graph: fb.XNNGraphT, constants: Sequence[bytes | memoryview], *, validate: bool = True
) -> tuple[bytes, dict[str, memoryview]]:
    """`pack_blob` with the constants left where they are: the blob refers to constant k + 1
    by the named key `str(k + 1)` and the returned named data maps the keys to views of
    `constants` (no copy), as stock ExecuTorch's `.pte` mode does with its named data map.
    The caller keeps `constants` alive as long as a runtime reads them."""
    named, entries = {}, [fb.ConstantDataOffsetT()]
    for k, data in enumerate(constants, start=1):
        named[str(k)] = view = memoryview(data).cast("B")
        entry = fb.ConstantDataOffsetT()
        entry.namedKey, entry.size = str(k), view.nbytes
        entries.append(entry)
    blob = _pack_graph(graph, entries, 0)
    if validate:
        read_blob(blob, named)
    return blob, named


def pack_blob_hashed(graph: fb.XNNGraphT, constants: list[Any]) -> tuple[bytes, dict[str, bytes]]:
    """`pack_blob` with each constant named by the SHA-256 of its bytes (hex), as stock
    ExecuTorch's serializer names a `.pte`'s constants, and the named data: those bytes by
    name, each name once. ExecuTorch stores a name once per program, and an ExecuTorch built
    with its XNNPACK weights cache (its Android and Apple presets) packs one copy per weight
    name however many nodes read it. `constants[k]` is let go of once copied (becomes None),
    so that a caller holding no other reference frees them one by one."""
    named: dict[str, bytes] = {}
    entries = [fb.ConstantDataOffsetT()]
    for k, data in enumerate(constants):
        view = memoryview(data).cast("B")
        key = hashlib.sha256(view).hexdigest()
        if key not in named:
            named[key] = bytes(view)
        entry = fb.ConstantDataOffsetT()
        entry.offset, entry.size, entry.namedKey = _NAMED_OFFSET, view.nbytes, key
        entries.append(entry)
        constants[k] = view = data = None
    return _pack_graph(graph, entries, 0), named


def inline_constants(blob: bytes | memoryview, named_data: Mapping[str, bytes]) -> bytes:
    """A blob whose constants are named (a `.pte`'s) with those constants back in its own
    region (`pack_blob`), the form `serialize_subgraph` gives: the two compare byte for
    byte."""
    read = read_blob(blob, named_data)
    graph = copy.copy(read.graph)
    count, graph.constantData = len(graph.constantData or ()), []
    return pack_blob(graph, [read.constant(k) for k in range(1, count)], validate=False)


_NAMED_OFFSET = 2**64 - 1  # a named constant's offset, as stock ExecuTorch writes it (unused)


def _pack_graph(graph: fb.XNNGraphT, entries: list[Any], constant_size: int) -> bytes:
    """The header and the padded flatbuffer of `graph` with `entries` as its constant data."""
    if graph.constantData or graph.constantBuffer:
        raise ValueError("pack_blob: the graph's constant_data/constant_buffer must be empty")
    packed = copy.copy(graph)
    packed.constantData = entries
    builder = flatbuffers.Builder(1024)
    builder.Finish(packed.Pack(builder), file_identifier=IDENTIFIER)
    flatbuffer = builder.Output()
    flatbuffer_size = len(flatbuffer) + _padding(len(flatbuffer))
    header = _HEADER.pack(
        bytes(4),
        HEADER_MAGIC,
        HEADER_LENGTH,
        HEADER_SIZE,
        flatbuffer_size,
        HEADER_SIZE + flatbuffer_size,
        constant_size,
    )
    tail = bytes(_padding(len(flatbuffer)))
    return b"".join([header, bytes(HEADER_SIZE - HEADER_LENGTH), flatbuffer, tail])


# --- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Blob:
    """A validated blob. Views (constants, numpy vectors in `graph`) share the caller's buffer."""

    graph: fb.XNNGraphT
    identifier: bytes  # b"XN00" or b"XN01"
    has_header: bool  # False: a raw flatbuffer with legacy inline constant_buffer data
    tensors: Mapping[int, fb.XNNTensorValueT]  # by value id (id_out)
    quant_params: Mapping[int, Any]  # value id -> its Per*QuantT, for quantized values
    inputs: tuple[int, ...]  # value ids of the external inputs, by external_id
    outputs: tuple[int, ...]  # likewise for the external outputs
    node_kinds: tuple[str, ...]  # flatbuffer node kind name per node, e.g. "XNNConv2d"
    _constants: list[memoryview | None]

    def release(self, idx: int) -> memoryview | None:
        """Forgets constant `idx` (its data may be freed) and returns it; reading it again
        is an error."""
        view, self._constants[idx] = self._constants[idx], None
        return view

    def constant(self, idx: int) -> memoryview | None:
        """The bytes of constant `idx` (a `constant_buffer_idx`); None for 0, "no data"."""
        if not 0 <= idx < len(self._constants):
            raise IndexError(f"constant {idx} is out of range ({len(self._constants)} constants)")
        if idx and self._constants[idx] is None:
            raise ValueError(f"constant {idx} was released")
        return self._constants[idx] if idx else None

    def value_data(self, value_id: int) -> memoryview | None:
        """The constant bytes of value `value_id`, or None if it has none."""
        return self.constant(self.tensors[value_id].constantBufferIdx)


def read_blob(data: bytes | memoryview, named_data: Mapping[str, bytes] | None = None) -> Blob:
    """Decodes and validates a delegate blob; raises ValueError on anything malformed.

    Accepts the `XH00`-headed form and, like the runtime, a raw `XN00`/`XN01` flatbuffer whose
    constants live in the legacy `constant_buffer`. Constants with a `named_key` (stock
    ExecuTorch's `.pte` mode) are looked up in `named_data`.
    """
    buf = memoryview(data).cast("B")
    size = len(buf)
    if size < 8:
        raise ValueError(f"blob: {size} bytes is too short for a header or a flatbuffer")
    region: memoryview | None = None
    flatbuffer, fb_offset = buf, 0
    if bytes(buf[4:8]) == HEADER_MAGIC:
        flatbuffer, fb_offset, region = _split(buf)
    identifier = bytes(flatbuffer[4:8])
    if identifier not in IDENTIFIERS:
        if region is None:
            raise ValueError(
                f"blob: {identifier!r} at offset 4 is neither the XH00 header magic nor an "
                "XN00/XN01 flatbuffer identifier"
            )
        raise ValueError(
            f"blob: flatbuffer identifier {identifier!r} at offset {fb_offset + 4} is not XN00 "
            "or XN01"
        )
    graph = _decode(flatbuffer)
    return _Validator(graph, identifier, region, named_data).run()


def _split(buf: memoryview) -> tuple[memoryview, int, memoryview]:
    """The flatbuffer, its offset and the constant region of a headed blob, bounds-checked."""
    size = len(buf)
    if size < HEADER_LENGTH:
        raise ValueError(
            f"blob: {size}-byte buffer is shorter than the {HEADER_LENGTH}-byte header"
        )
    _, _, length, fb_offset, fb_size, const_offset, const_size = _HEADER.unpack_from(buf)
    if length != HEADER_LENGTH:
        raise ValueError(f"blob: header length {length} is not {HEADER_LENGTH}")
    if fb_offset < HEADER_LENGTH:
        raise ValueError(f"blob: flatbuffer_offset {fb_offset} overlaps the header")
    if fb_size < 8:
        raise ValueError(f"blob: flatbuffer_size {fb_size} is below the 8-byte minimum")
    if fb_offset + fb_size > size:
        raise ValueError(
            f"blob: flatbuffer_offset {fb_offset} + flatbuffer_size {fb_size} exceeds the "
            f"{size}-byte buffer"
        )
    if const_offset < fb_offset + fb_size:
        raise ValueError(
            f"blob: constant_data_offset {const_offset} overlaps the flatbuffer "
            f"[{fb_offset}, {fb_offset + fb_size})"
        )
    if const_offset + const_size > size:
        raise ValueError(
            f"blob: constant_data_offset {const_offset} + constant_data_size {const_size} "
            f"exceeds the {size}-byte buffer"
        )
    flatbuffer = buf[fb_offset : fb_offset + fb_size]
    return flatbuffer, fb_offset, buf[const_offset : const_offset + const_size]


class _Overrun(Exception):
    """A vector or string claims more than the buffer holds."""


def _decode(flatbuffer: memoryview) -> fb.XNNGraphT:
    """Unpacks the whole object tree; any failure means a corrupt flatbuffer.

    The Python runtime has no verifier, so reads past the end surface as exceptions of every
    kind. The schema is not recursive and scalar vectors become numpy views, so the work is
    linear in the buffer size once the table vectors fit and strings are not shared.
    """
    size = len(flatbuffer)
    try:
        root = fb.XNNGraph.GetRootAs(flatbuffer, 0)
        for name in (
            "Xnodes",
            "Xvalues",
            "InputIds",
            "OutputIds",
            "ConstantBuffer",
            "ConstantData",
        ):
            count = getattr(root, name + "Length")()
            if 4 * count > size:
                raise _Overrun(f"{_snake(name)} claims {count} entries")
        key_bytes = len(root.Version() or b"")
        for i in range(root.ConstantDataLength()):
            key_bytes += len(root.ConstantData(i).NamedKey() or b"")
            if key_bytes > size:
                raise _Overrun("named keys share storage")
        return fb.XNNGraphT.InitFromObj(root)
    except Exception as e:  # every failure here means a corrupt buffer
        detail = (str(e).splitlines() or [""])[0]
        if not isinstance(e, _Overrun):
            detail = f"{type(e).__name__}: {detail}"
        raise ValueError(f"blob: corrupt {size}-byte flatbuffer ({detail})") from None


def _snake(name: str) -> str:
    """`input1Id` -> `input1_id`: the schema's field name of an object-API attribute."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _ints(vector: Any) -> list[int]:
    """A vector field as Python ints (decoded vectors are numpy views; absent ones None)."""
    if vector is None:
        return []
    if isinstance(vector, np.ndarray):
        return vector.tolist()
    return [int(x) for x in vector]


class _Validator:
    """One pass over a decoded graph; `run` raises ValueError at the first problem."""

    def __init__(
        self,
        graph: fb.XNNGraphT,
        identifier: bytes,
        region: memoryview | None,
        named_data: Mapping[str, bytes] | None,
    ) -> None:
        self.graph, self.identifier, self.region, self.named_data = (
            graph,
            identifier,
            region,
            named_data,
        )
        self.tensors: dict[int, fb.XNNTensorValueT] = {}
        self.quant: dict[int, fb.XNNQuantizedTensorValueT] = {}
        self.checked_scales: set[tuple[int, int]] = set()

    def run(self) -> Blob:
        graph = self.graph
        if graph.xvalues is None or graph.xnodes is None:
            raise ValueError("graph: xvalues or xnodes is missing")
        self.constants = self._constants()
        self._collect_values()
        for vid in sorted(self.tensors):
            self._check_value(vid)
        inputs, outputs = self._externals()
        for name in ("inputIds", "outputIds"):
            for vid in _ints(getattr(graph, name)):
                if vid not in self.tensors:
                    raise ValueError(f"graph: {_snake(name)} names {vid}, not a defined value")
        kinds = self._check_nodes(inputs, outputs)
        return Blob(
            graph=graph,
            identifier=self.identifier,
            has_header=self.region is not None,
            tensors=self.tensors,
            quant_params={vid: q.quantParams for vid, q in self.quant.items()},
            inputs=inputs,
            outputs=outputs,
            node_kinds=kinds,
            _constants=list(self.constants),
        )

    # -- constants --

    def _constants(self) -> tuple[memoryview, ...]:
        if self.region is None:  # headerless: the legacy inline buffers, as the runtime does
            return tuple(
                memoryview(b"") if b is None or b.storage is None else memoryview(b.storage)
                for b in self.graph.constantBuffer or []
            )
        region, found = self.region, [memoryview(b"")]
        for idx, entry in enumerate(self.graph.constantData or []):
            if idx == 0:  # reserved for "no data", never read (stock blobs put a "" key there)
                continue
            if entry.namedKey is not None:
                found.append(self._named(idx, entry))
                continue
            offset, size = entry.offset, entry.size
            if offset > len(region) or size > len(region) - offset:
                raise ValueError(
                    f"constant {idx}: range [{offset}, {offset + size}) is outside the "
                    f"{len(region)}-byte constant region"
                )
            found.append(region[offset : offset + size])
        return tuple(found)

    def _named(self, idx: int, entry: fb.ConstantDataOffsetT) -> memoryview:
        try:
            key = entry.namedKey.decode()
        except UnicodeDecodeError:
            raise ValueError(f"constant {idx}: named_key is not UTF-8") from None
        if self.named_data is None:
            raise ValueError(f"constant {idx}: named_key {key!r} needs named_data")
        if key not in self.named_data:
            raise ValueError(f"constant {idx}: named_key {key!r} is missing from named_data")
        data = memoryview(self.named_data[key]).cast("B")
        if len(data) < entry.size:
            raise ValueError(
                f"constant {idx}: named data {key!r} has {len(data)} bytes, fewer than its "
                f"size {entry.size}"
            )
        return data[: entry.size]

    def _constant(self, what: str, idx: int) -> memoryview:
        if idx >= len(self.constants):
            raise ValueError(
                f"{what} {idx} is out of range (the blob has {len(self.constants)} constants)"
            )
        return self.constants[idx]

    # -- values --

    def _collect_values(self) -> None:
        count = len(self.graph.xvalues)
        for i, xvalue in enumerate(self.graph.xvalues):
            kind, union = xvalue.xvalueUnionType, xvalue.xvalueUnion
            if kind == fb.ValueUnion.XNNTensorValue and union is not None:
                tensor, quant = union, None
            elif kind == fb.ValueUnion.XNNQuantizedTensorValue and union is not None:
                tensor, quant = union.tensorValue, union
                if tensor is None:
                    raise ValueError(f"xvalues[{i}]: quantized value has no tensor_value")
            else:
                raise ValueError(f"xvalues[{i}]: value kind {kind} is not a tensor value")
            vid = tensor.idOut
            if vid >= count:
                raise ValueError(f"xvalues[{i}]: id_out {vid} is not below the value count {count}")
            if vid in self.tensors:
                raise ValueError(f"xvalues[{i}]: id_out {vid} is defined twice")
            self.tensors[vid] = tensor
            if quant is not None:
                self.quant[vid] = quant

    def _check_value(self, vid: int) -> None:
        tensor = self.tensors[vid]
        where = f"value {vid}"
        dtype = tensor.datatype
        if dtype not in DATATYPE_NAMES or dtype == _DT.invalid:
            raise ValueError(f"{where}: unknown datatype {dtype}")
        if tensor.dqDatatype not in (_DT.invalid, _DT.qint8):
            raise ValueError(f"{where}: dq_datatype {tensor.dqDatatype} is not qint8 (3) or unset")
        if tensor.dims is None:
            raise ValueError(f"{where}: dims is missing")
        if len(tensor.dims) > MAX_TENSOR_DIMS:  # before reading them: vectors can be shared
            raise ValueError(
                f"{where}: {len(tensor.dims)} dims exceed XNN_MAX_TENSOR_DIMS = {MAX_TENSOR_DIMS}"
            )
        dims = _ints(tensor.dims)
        if tensor.numDims != len(dims):
            raise ValueError(f"{where}: num_dims {tensor.numDims} != {len(dims)} dims")
        numel = math.prod(dims)  # dims of 0 are allowed: XNNPACK supports empty tensors
        bits = _ELEMENT_BITS.get(dtype, 8)
        if numel * bits > MAX_TENSOR_BYTES * 8:
            raise ValueError(f"{where}: dims {dims} product overflows (over 2**48 bytes)")
        quant = self.quant.get(vid)
        if quant is None:
            if dtype not in _PLAIN_DATATYPES:
                raise ValueError(
                    f"{where}: datatype {DATATYPE_NAMES[dtype]} needs quantization parameters"
                )
        else:
            self._check_quantization(where, tensor, dims, quant)
        self._check_flags(where, tensor)
        if tensor.constantBufferIdx:
            if tensor.flags:
                raise ValueError(f"{where}: an external value cannot have constant data")
            data = self._constant(f"{where}: constant_buffer_idx", tensor.constantBufferIdx)
            self._check_constant_size(where, dtype, numel, len(data))

    def _check_flags(self, where: str, tensor: fb.XNNTensorValueT) -> None:
        flags, ext = tensor.flags, tensor.externalId
        if flags & ~(VALUE_FLAG_EXTERNAL_INPUT | VALUE_FLAG_EXTERNAL_OUTPUT):
            raise ValueError(
                f"{where}: flags {flags:#x} has bits other than EXTERNAL_INPUT=1, EXTERNAL_OUTPUT=2"
            )
        if flags == VALUE_FLAG_EXTERNAL_INPUT | VALUE_FLAG_EXTERNAL_OUTPUT:
            raise ValueError(f"{where}: flags 3 make it both an external input and output")
        if flags and ext >= self.graph.numExterns:
            raise ValueError(
                f"{where}: external_id {ext} is not below num_externs {self.graph.numExterns}"
            )
        if not flags and ext != INVALID_VALUE_ID:
            raise ValueError(
                f"{where}: internal value has external_id {ext}; internal values need 0xFFFFFFFF"
            )
        if tensor.dqDatatype and not flags & VALUE_FLAG_EXTERNAL_INPUT:
            raise ValueError(f"{where}: dq_datatype is set on a value that is not an input")

    def _check_constant_size(self, where: str, dtype: int, numel: int, size: int) -> None:
        bits = _ELEMENT_BITS.get(dtype)
        if bits is None:  # packed layouts
            return
        want = (numel * bits + 7) // 8
        if bits % 8 == 0 and size != want:
            raise ValueError(
                f"{where}: constant has {size} bytes, expected {want} ({numel} x "
                f"{DATATYPE_NAMES[dtype]})"
            )
        if size < want:  # 4-bit rows may be padded to whole bytes
            raise ValueError(f"{where}: constant has {size} bytes, fewer than {want}")

    def _check_quantization(
        self, where: str, tensor: fb.XNNTensorValueT, dims: list[int], value: Any
    ) -> None:
        dtype, kind, params = tensor.datatype, value.quantParamsType, value.quantParams
        name = DATATYPE_NAMES[dtype]
        if params is None:
            raise ValueError(f"{where}: quantization kind {kind} is unknown or missing")
        if isinstance(params, fb.PerTensorQuantT):
            if dtype not in _ZERO_POINT_RANGE:
                raise ValueError(f"{where}: per-tensor quantization of {name}")
            low, high = _ZERO_POINT_RANGE[dtype]
            if not low <= params.zeroPoint <= high:
                raise ValueError(f"{where}: zero_point {params.zeroPoint} outside [{low}, {high}]")
            if not (math.isfinite(params.scale) and params.scale > 0):
                raise ValueError(f"{where}: scale {params.scale} is not finite and positive")
        elif isinstance(params, fb.PerChannelQuantT):
            if dtype not in _PER_CHANNEL_DATATYPES:
                raise ValueError(f"{where}: per-channel quantization of {name}")
            channels = self._channels(where, dims, params.channelDim)
            if params.scale is None:  # the stock runtime dereferences it unconditionally
                raise ValueError(f"{where}: per-channel scale vector is missing")
            if params.scaleBufferIdx:
                data = self._constant(f"{where}: scale_buffer_idx", params.scaleBufferIdx)
                if len(data) != 4 * channels:
                    raise ValueError(
                        f"{where}: scale buffer has {len(data)} bytes, expected {channels} floats"
                    )
                scales = np.frombuffer(data, dtype="<f4")
            else:
                scales = np.asarray(params.scale, dtype="<f4")
                if len(scales) != channels:
                    raise ValueError(f"{where}: {len(scales)} scales for {channels} channels")
            # Values may share one scale vector: check each stretch of memory once.
            stretch = (scales.__array_interface__["data"][0], len(scales))
            if stretch not in self.checked_scales:
                if not np.all(np.isfinite(scales) & (scales > 0)):
                    raise ValueError(f"{where}: a per-channel scale is not finite and positive")
                self.checked_scales.add(stretch)
        elif isinstance(params, fb.PerChannelGroupQuantT):
            if dtype != _DT.qbint4:
                raise ValueError(f"{where}: blockwise quantization of {name}")
            if len(dims) < 2:
                raise ValueError(f"{where}: blockwise quantization needs 2 or more dims")
            self._channels(where, dims, params.channelDim)
            if params.groupSize <= 0 or dims[1] % params.groupSize:
                raise ValueError(
                    f"{where}: group_size {params.groupSize} does not divide {dims[1]} channels"
                )
            want = dims[0] * dims[1] // params.groupSize
            if params.scaleBufferIdx:
                data = self._constant(f"{where}: scale_buffer_idx", params.scaleBufferIdx)
                got, size = params.numScales, len(data)
                if size != 2 * got:
                    raise ValueError(f"{where}: scale buffer has {size} bytes for {got} bf16s")
            else:
                got = 0 if params.scale is None else len(params.scale)
            if got != want:
                raise ValueError(f"{where}: {got} block scales, expected {want}")
        elif isinstance(params, fb.PerTokenDynamicQuantT):
            if dtype != _DT.qdint8:
                raise ValueError(f"{where}: dynamic quantization of {name}")
            if not 0 <= params.numNonbatchDims <= len(dims):
                raise ValueError(
                    f"{where}: num_nonbatch_dims {params.numNonbatchDims} outside [0, {len(dims)}]"
                )
            if tensor.constantBufferIdx:
                raise ValueError(f"{where}: a dynamically quantized value cannot be constant")

    @staticmethod
    def _channels(where: str, dims: list[int], channel_dim: int) -> int:
        if not 0 <= channel_dim < len(dims):
            raise ValueError(f"{where}: channel_dim {channel_dim} outside the {len(dims)} dims")
        return dims[channel_dim]

    def _externals(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """External inputs then outputs, by external_id, numbered 0..n-1 without gaps."""
        ins = sorted((t.externalId, vid) for vid, t in self.tensors.items() if t.flags == 1)
        outs = sorted((t.externalId, vid) for vid, t in self.tensors.items() if t.flags == 2)
        for expected, (ext, vid) in enumerate(ins + outs):
            if ext != expected:
                role = "input" if expected < len(ins) else "output"
                raise ValueError(
                    f"value {vid}: external {role} has external_id {ext}, expected {expected} "
                    f"(inputs take 0..{len(ins) - 1}, then outputs)"
                )
        if self.graph.numExterns != len(ins) + len(outs):
            raise ValueError(
                f"graph: num_externs {self.graph.numExterns} != {len(ins)} inputs + "
                f"{len(outs)} outputs"
            )
        return tuple(vid for _, vid in ins), tuple(vid for _, vid in outs)

    # -- nodes --

    def _check_nodes(self, inputs: tuple[int, ...], outputs: tuple[int, ...]) -> tuple[str, ...]:
        ready = set(inputs) | {v for v, t in self.tensors.items() if t.constantBufferIdx}
        kinds = []
        broadcasts: dict[int, int] = {}  # a static broadcast's output -> its input
        for i, xnode in enumerate(self.graph.xnodes):
            kind = xnode.xnodeUnionType
            name = NODE_KIND_NAMES.get(kind)
            if name is None:
                raise ValueError(f"node {i}: unknown node kind {kind}")
            where = f"node {i} ({name})"
            table = xnode.xnodeUnion
            if table is None:
                raise ValueError(f"{where}: the node table is missing")
            reads, writes = self._operands(where, name, table)
            for field, vid in reads:
                if vid not in self.tensors:
                    raise ValueError(f"{where}: {field} {vid} is not a defined value")
                if vid not in ready:
                    raise ValueError(f"{where}: {field} {vid} is read before it is produced")
            for field, vid in writes:
                if vid not in self.tensors:
                    raise ValueError(f"{where}: {field} {vid} is not a defined value")
                if vid in ready:
                    raise ValueError(
                        f"{where}: {field} {vid} is already an input, a constant or an output"
                    )
                ready.add(vid)
            self._check_node(where, name, table)
            self._check_clamp(where, xnode.outputMinMax)
            self._check_broadcast_use(where, name, table, broadcasts)
            kinds.append(name)
        for vid in outputs:
            if vid not in ready:
                raise ValueError(f"value {vid}: external output is not produced by any node")
        return tuple(kinds)

    def _operands(
        self, where: str, name: str, table: Any
    ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """(field, value id) pairs a node reads and writes: every `*_id` field and `input_ids`,
        but for the ones its node kind ignores or lets be XNN_INVALID_VALUE_ID (no bias)."""
        reads, writes = [], []
        kind = KINDS.get(name)
        optional = () if kind is None else kind.optional_ids
        unused = () if kind is None else kind.unused_ids
        for attr, vid in vars(table).items():
            field = _snake(attr)
            if attr == "inputIds":
                count = 0 if vid is None else len(vid)
                if not 1 <= count <= MAX_CONCATENATE_INPUTS:
                    raise ValueError(
                        f"{where}: {count} inputs, expected 1 to {MAX_CONCATENATE_INPUTS}"
                    )
                reads += [(f"input_ids[{j}]", v) for j, v in enumerate(_ints(vid))]
                continue
            if not attr.endswith("Id") or field in unused:
                continue
            if field in optional and vid == INVALID_VALUE_ID:
                continue
            (writes if attr.startswith("output") else reads).append((field, vid))
        return reads, writes

    def _check_node(self, where: str, name: str, table: Any) -> None:
        """The node fields the runtime uses as lengths, counts or enum values (the node
        table's `validate` checks of its kind)."""
        kind = KINDS.get(name)
        if kind is None:
            return
        view = NodeView(where, table, self.tensors)
        for check in kind.validate:
            check(view)

    def _check_broadcast_use(
        self, where: str, name: str, table: Any, broadcasts: dict[int, int]
    ) -> None:
        """A binary node reading a static broadcast XNNPACK would drop to a smaller shape."""
        spec = KINDS[name].op.name if name in KINDS else ""
        if spec == "xnn.static_broadcast":
            broadcasts[table.outputId] = table.inputId
        if spec != "xnn.binary":
            return
        ids = (table.input1Id, table.input2Id)
        sources = [broadcasts.get(vid, vid) for vid in ids]
        out = self._dims(table.outputId)
        if sources != list(ids) and broadcast_drop_misshapes([self._dims(s) for s in sources], out):
            k = next(k for k, (a, b) in enumerate(zip(ids, sources)) if a != b)
            raise ValueError(
                f"{where}: input{k + 1}_id {ids[k]} is a static broadcast of value "
                f"{sources[k]}, which XNNPACK 92a7ad50 drops before a binary node, leaving "
                f"it a shape other than its output's {out} (xnn-legalize-broadcasts moves "
                "the broadcast below the node)"
            )

    def _dims(self, vid: int) -> list[int]:
        dims = self.tensors[vid].dims
        return [] if dims is None else [int(d) for d in dims]

    @staticmethod
    def _check_clamp(where: str, clamp: fb.OutputMinMaxT | None) -> None:
        if clamp is None:
            return
        low, high = clamp.outputMin, clamp.outputMax
        if math.isnan(low) or math.isnan(high) or low > high:
            raise ValueError(f"{where}: output_min_max [{low}, {high}] is not a range")


def bf16_scales(scales: Sequence[float]) -> bytes:
    """Blockwise scales as XNNPACK's qb4w reads them and stock ExecuTorch 1.5.1 stores them:
    bf16, rounded to nearest even from f32 (as `torch.Tensor.to(torch.bfloat16)`)."""
    bits = np.asarray(scales, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2").tobytes()
