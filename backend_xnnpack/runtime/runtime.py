"""xnnc's extended runtime: an ExecuTorch XNNPACK delegate blob run on XNNPACK from Python.

    rt = XnnRuntime(blob, named_data, threads=4, profile=True)
    (y,) = rt.run(x)          # torch tensors or numpy arrays in, fresh torch tensors out
    rt.profile()              # [(operator name, microseconds), ...] of the last run

Loading mirrors ExecuTorch's `XNNCompiler::compileModel`: every value is defined first
(serialized ids remapped to XNNPACK's; external values keep their external id), then every
node through the define call its kind's entry in the node table describes
(backend_xnnpack/nodes.py), then `xnn_create_runtime_v4`. Nothing reaches XNNPACK before the
blob is fully validated (`read_blob`, plus the node kinds' runtime checks for what XNNPACK
would read out of bounds rather than reject).

bf16 legalization: XNNPACK 92a7ad50 rejects bf16 for the node kinds in `BF16_VIA_FP32`
(found by defining each one on bf16 values). For those, each bf16 operand is converted to an
fp32 temporary (`xnn_define_unary(convert)`; bf16 constants are widened once at load), the
node runs in fp32, and its bf16 output is converted back. Fully-connected and
batch-matrix-multiply nodes instead take their bf16 operands as they are (`NATIVE_BF16_GEMM`:
XNNPACK's bf16 x bf16 -> fp32 form); only a bf16 bias is widened and the fp32 output
converted back. Inside one subgraph XNNPACK's bf16 fallback rewrite still computes them in
fp32 on every CPU: `open_runtime` (bf16_gemm.py) runs them on XNNPACK's native bf16 GEMM.

XNNPACK may read up to XNN_EXTRA_BYTES (16) past the end of an array. Constants therefore get
an aligned copy with that padding unless the blob's own buffer already provides it; inputs
are passed in place, as ExecuTorch does (heap blocks are followed by allocator metadata, so
the over-read cannot fault in practice).

Reshape: a runtime is reshaped at its first run, not when built: XNNPACK takes the
activation workspace there (sized by the activations at those dims), so building or loading
a program holds its weights alone; the check that XNNPACK computes the blob's declared
output dims runs at that reshape, before any set-up.

Set-up: a run whose inputs and outputs sit where the last set-up's did skips
`xnn_setup_runtime_v2` (XNNPACK 92a7ad50's invoke runs on the last set-up's pointers). A
caller passes new inputs and keeps the last outputs, so each run would set up again, which
costs 0.5-6 us and slows the invoke after it; when all the externals together take at most
`COPIED_BYTES`, they are copied through buffers of the runtime's own instead (`_io`), set up
once per shape.

Threads: `run` and `profile` may be called from any number of threads. A lock serializes
set-up, invoke, the copies through the runtime's buffers and the profile read of one runtime
(XNNPACK keeps the external pointers, the activations and the timings in the runtime), so
there is one set of packed weights and one workspace however many threads call; the
process's pthreadpool for the runtime's thread count (`capi.shared_pool`) parallelizes
inside each run. Input checks, contiguous copies and output allocation happen outside the
lock. Outputs are fresh tensors per run, never reused, so a later run cannot change an
earlier result.
"""

from __future__ import annotations

import ctypes
import math
import mmap
import threading
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple, Self

import numpy as np
import torch

from xnnc import heap
from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.blob import (
    DATATYPE_NAMES,
    XNN_DATATYPE,
    Blob,
    bf16_scales,
    read_blob,
)
from xnnc.backend_xnnpack.dims import DimError, DimExpr, Ranges, bind_dims
from xnnc.backend_xnnpack.nodes import KINDS, KINDS_LIST, Bf16, NodeView, camel
from xnnc.backend_xnnpack.runtime import capi
from xnnc.backend_xnnpack.runtime.packed_weights import PackedWeights, PackedWeightsError
from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.errors import InputError

_DT = fb.XNNDatatype
_INVALID = nodes.INVALID_VALUE_ID
_UNARY_CONVERT = nodes.c_value(nodes.UnaryOperator.CONVERT)
_UNARY_CLAMP = nodes.c_value(nodes.UnaryOperator.CLAMP)

# Schema datatype of an external input or output -> its torch dtype.
TORCH_DTYPES: dict[int, torch.dtype] = {
    _DT.fp32: torch.float32,
    _DT.fp16: torch.float16,
    _DT.bf16: torch.bfloat16,
    _DT.int32: torch.int32,
    _DT.qint8: torch.int8,
    _DT.quint8: torch.uint8,
}

# Externals copied through the runtime's buffers when together at most this large: a copy of
# 32 KiB takes ~1-2 us; a set-up 0.5-6 us plus a slower invoke after it (EnCodec small, static
# at 4-13 frames with a new input per call: 3-10 us a run; Xeon Sapphire Rapids-class).
COPIED_BYTES = 32 * 1024

# Input shapes whose reshape results a runtime keeps (`_reshape`), as the plan keeps sizes.
SHAPES_KEPT = 4

# struct xnn_external_value (capi.ExternalValue) as a numpy record.
_EXTERNAL_VALUE = np.dtype([("id", "<u4"), ("data", "<u8")], align=True)
assert _EXTERNAL_VALUE.itemsize == ctypes.sizeof(capi.ExternalValue)
_EXTERNAL_VALUE_SIZE = _EXTERNAL_VALUE.itemsize


def external_values(rows: int, count: int) -> np.ndarray:
    """A [rows, count] table of `struct xnn_external_value` (fields "id", "data"), each row's
    ids 0..count-1: the external values of one set-up per row (`run_tables`)."""
    table = np.zeros((rows, count), dtype=_EXTERNAL_VALUE)
    table["id"] = np.arange(count, dtype=np.uint32)
    return table


# Node kinds XNNPACK 92a7ad50 rejects on bf16 values and that run in fp32 between converts;
# the bf16 GEMMs among them keep their bf16 operands when all of them are bf16.
BF16_VIA_FP32 = nodes.kinds_with(lambda k: k.op.bf16 in (Bf16.VIA_FP32, Bf16.GEMM))
NATIVE_BF16_GEMM: dict[str, tuple[str, ...]] = {
    kind.name: tuple(camel(f) for f in kind.native_bf16) for kind in KINDS_LIST if kind.native_bf16
}


class XnnpackError(RuntimeError):
    """An XNNPACK call returned a status other than xnn_status_success."""

    def __init__(self, what: str, function: str, status: int):
        self.function = function
        self.status = status
        self.status_name = capi.status_name(status)
        super().__init__(f"{what}{function} failed with {self.status_name}")


def check_threads(threads: Any) -> None:
    """ValueError unless `threads` is an int >= 1. Checked before any pool is made: XNNPACK's
    and ExecuTorch's pools take 0 or a negative count silently (ExecuTorch reads -1 as
    4294967295 threads)."""
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int, got {threads!r}")


def _check(status: int, function: str, what: str = "") -> None:
    if status:
        raise XnnpackError(what, function, status)


def _dims(tensor: fb.XNNTensorValueT) -> list[int]:
    return [] if tensor.dims is None else [int(d) for d in tensor.dims]


def _type_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _bf16_to_f32(data: memoryview) -> np.ndarray:
    bits = np.frombuffer(data, dtype="<u2").astype("<u4") << 16
    return bits.view("<f4")


class _Constants:
    """Constant buffers XNNPACK may read, alive as long as the runtime needs them.

    Constants XNNPACK packs (filters and biases of GEMMs and convolutions, `_packed_only`)
    are passed in place when 16-byte aligned, as stock ExecuTorch passes its named data: the
    packing routines read within bounds, and these are released once XNNPACK has copied
    them. Constants operators read while running need XNN_EXTRA_BYTES readable after them;
    they are passed in place only from caller-owned named data with that room, else copied,
    so that no view pins the blob once the runtime is built."""

    def __init__(self) -> None:
        self.buffers: dict[Hashable, Any] = {}  # a value id (or a tagged one) -> the bytes

    def pointer(
        self, key: Hashable, data: memoryview | np.ndarray, *, packed: bool = False,
        shared: bool = False,
    ) -> int:  # fmt: skip
        """`packed`: XNNPACK copies it at runtime creation; `shared`: the caller keeps it
        alive (named data), so a view of it pins nothing."""
        view = memoryview(data).cast("B")
        address = _in_place_address(view, 0 if packed else capi.EXTRA_BYTES)
        if address is None or not (packed or shared):
            padded = np.zeros(len(view) + capi.EXTRA_BYTES + 64, dtype=np.uint8)
            start = -padded.ctypes.data % 64
            padded[start : start + len(view)] = np.frombuffer(view, dtype=np.uint8)
            self.buffers[key] = padded
            return padded.ctypes.data + start
        self.buffers[key] = view
        return address

    def release(self, key: Hashable) -> None:
        self.buffers.pop(key, None)


def _in_place_address(view: memoryview, extra: int) -> int | None:
    """The address of `view` if XNNPACK may read it, and `extra` bytes after it, in place."""
    if not len(view) or view.obj is None:
        return None
    try:
        base = np.frombuffer(view.obj, dtype=np.uint8)
    except (TypeError, ValueError):
        return None
    start = np.frombuffer(view, dtype=np.uint8).ctypes.data
    end = base.ctypes.data + base.nbytes
    if start % 16 or start + len(view) + extra > end:
        return None
    return start


class DefineContext:
    """What a node kind's define arguments (`nodes.NodeKind.args`) read: the node's clamp
    and ids, and `call`.

    `node` is the decoded flatbuffer table (XNNNodeConvT, ...); ids in it are serialized
    ids, which `input`/`output` map to XNNPACK's. Pointer arguments are built with
    `sizes`, `int64s` and `inputs`; operator parameters with `unary_params` and
    `binary_params`.
    """

    def __init__(self, rt: XnnRuntime, subgraph: int):
        self._rt, self._lib, self._subgraph = rt, rt._lib, subgraph
        self.index, self.kind = -1, ""
        self._clamp: tuple[float, float] = (-math.inf, math.inf)
        self._clamp_used = False
        self._legalize = False
        self._after: list[tuple[str, tuple]] = []
        self._fp32: dict[int, int] = {}  # bf16 value id -> its fp32 copy (legalization)
        self._native: tuple[int, ...] = ()  # bf16 operands a native bf16 GEMM reads as is

    # -- the node being defined --

    @property
    def min(self) -> float:
        """The node's fused output clamp, lower bound (-inf when absent)."""
        self._clamp_used = True
        return self._clamp[0]

    @property
    def max(self) -> float:
        self._clamp_used = True
        return self._clamp[1]

    def call(self, function: str, *args: Any) -> None:
        """Calls an `xnn_define_*` function on the subgraph; failures name the node."""
        status = self._lib.define[function](self._subgraph, *args)
        _check(status, function, f"node {self.index} ({self.kind}): ")

    # -- ids --

    def input(self, vid: int) -> int:
        """The XNNPACK id of serialized value `vid`, read by the node."""
        if self._widens(vid):
            return self._widened(vid)
        return self._rt._ids[vid]

    def optional_input(self, vid: int) -> int:
        """Like `input`, passing XNN_INVALID_VALUE_ID (no bias) through."""
        return _INVALID if vid == _INVALID else self.input(vid)

    def inputs(self, vids: Sequence[int]) -> ctypes.Array:
        """A `const uint32_t*` of input ids (xnn_define_concatenate)."""
        return capi.uint32s([self.input(v) for v in vids])

    def output(self, vid: int) -> int:
        """The XNNPACK id the node writes serialized value `vid` to."""
        if self._widens(vid):
            temp = self._temporary(vid)
            convert = (_UNARY_CONVERT, None, temp, self._rt._ids[vid], 0)
            self._after.append(("xnn_define_unary", convert))
            return temp
        return self._rt._ids[vid]

    def clamped_output(self, vid: int) -> int:
        """`output`, through a clamp node with the node's output_min_max when it is bounded:
        for define functions without output_min/output_max parameters."""
        lo, hi = self.min, self.max
        out = self.output(vid)
        if lo == -math.inf and hi == math.inf:
            return out
        if vid in self._rt._blob.quant_params:
            raise ValueError(f"node {self.index} ({self.kind}): output clamp on a quantized value")
        dtype = _DT.fp32 if self._widens(vid) else self._rt._blob.tensors[vid].datatype
        temp = self._temporary(vid, dtype)
        clamp = (_UNARY_CLAMP, self.unary_params(lo, hi), temp, out, 0)
        self._after.insert(0, ("xnn_define_unary", clamp))  # before a convert back to bf16
        return temp

    # -- arguments --

    sizes = staticmethod(capi.sizes)
    int64s = staticmethod(capi.int64s)

    @staticmethod
    def unary_params(a: float | None = None, b: float | None = None) -> Any:
        """`union xnn_unary_params*`: (min, max) for clamp, (alpha,) for elu,
        (negative_slope,) for leaky_relu; NULL when no parameter is given."""
        if a is None and b is None:
            return None
        return ctypes.byref(nodes.UnaryParams(0.0 if a is None else a, 0.0 if b is None else b))

    def binary_params(self) -> Any:
        """`struct xnn_binary_params*` carrying the node's output clamp."""
        return ctypes.byref(nodes.BinaryParams(self.min, self.max))

    # -- the runtime's side --

    def define_node(self, index: int, kind: str, xnode: fb.XNodeT) -> None:
        self.index, self.kind = index, kind
        clamp = xnode.outputMinMax
        self._clamp = (-math.inf, math.inf) if clamp is None else (clamp.outputMin, clamp.outputMax)
        self._clamp_used, self._after = False, []
        self._legalize = kind in BF16_VIA_FP32
        self._native = ()
        if kind in NATIVE_BF16_GEMM:
            vids = tuple(getattr(xnode.xnodeUnion, f) for f in NATIVE_BF16_GEMM[kind])
            if all(self._rt._blob.tensors[v].datatype == _DT.bf16 for v in vids):
                self._native = vids
        entry, node = KINDS[kind], xnode.xnodeUnion
        self.call(entry.define, *(v for arg in entry.args for v in arg.values(self, node)))
        for function, args in self._after:
            self.call(function, *args)
        if not self._clamp_used and self._clamp != (-math.inf, math.inf):
            raise ValueError(
                f"node {index} ({kind}): output_min_max {list(self._clamp)} is set but "
                f"{kind} has no output clamp"
            )

    def _widens(self, vid: int) -> bool:
        if vid in self._native:
            return False
        return self._legalize and self._rt._blob.tensors[vid].datatype == _DT.bf16

    def _temporary(self, vid: int, dtype: int = _DT.fp32) -> int:
        """A new internal value shaped like `vid`."""
        dims = _dims(self._rt._blob.tensors[vid])
        out = ctypes.c_uint32()
        self.call(
            "xnn_define_tensor_value",
            XNN_DATATYPE[dtype],
            len(dims),
            capi.sizes(dims),
            None,
            _INVALID,
            0,
            ctypes.byref(out),
        )
        return out.value

    def _widened(self, vid: int) -> int:
        """The fp32 copy of bf16 value `vid`: widened at load if constant, else converted."""
        if vid in self._fp32:
            return self._fp32[vid]
        data = self._rt._blob.value_data(vid)
        if data is None:
            temp = self._temporary(vid)
            self.call("xnn_define_unary", _UNARY_CONVERT, None, self._rt._ids[vid], temp, 0)
        else:
            dims = _dims(self._rt._blob.tensors[vid])
            pointer = self._rt._constants.pointer(("fp32", vid), _bf16_to_f32(data))
            out = ctypes.c_uint32()
            self.call("xnn_define_tensor_value", capi.DATATYPE_FP32, len(dims),
                      capi.sizes(dims), pointer, _INVALID, 0, ctypes.byref(out))  # fmt: skip
            temp = out.value
        self._fp32[vid] = temp
        return temp


class RuntimeHandle:
    """What every runtime shares: closing (`close`, also as a context manager and when
    collected) and the external values' (dtype, shape) in `_specs` and `_out_specs`."""

    _specs: list[tuple[torch.dtype, torch.Size]]
    _out_specs: list[tuple[torch.dtype, torch.Size]]
    # Symbolic input dims and their symbols' ranges; None: every input shape is static.
    _input_dims: list[tuple[int | DimExpr, ...]] | None = None
    _ranges: Ranges = {}
    _accepted: list[torch.Size] | None = None  # the input shapes of the last checked call

    def close(self) -> None:
        raise NotImplementedError

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may already be gone
            pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _checked_inputs(
        self, inputs: Sequence[Any]
    ) -> tuple[list[torch.Tensor], list[torch.Size] | None]:
        """`inputs` as contiguous CPU tensors of the external inputs' dtypes and shapes, and
        their shapes (None when every input shape is static); ValueError naming the first
        that is not."""
        specs = self._specs
        if len(inputs) != len(specs):
            raise InputError(f"expected {len(specs)} inputs, got {len(inputs)}")
        static = self._input_dims is None
        tensors = list(inputs)
        for i, t in enumerate(tensors):
            dtype, shape = specs[i]
            if type(t) is not torch.Tensor:
                t = tensors[i] = self._as_tensor(i, t)
            if t.dtype is not dtype or not t.is_cpu or (static and t.shape != shape):
                raise InputError(self._mismatch(i, t))
            if not t.is_contiguous():
                tensors[i] = t.contiguous()
        if static:
            return tensors, None
        shapes = [t.shape for t in tensors]
        if shapes != self._accepted:  # a repeat of accepted sizes needs no new check
            try:  # DimError names the input and dim
                bind_dims(self._input_dims, self._ranges, shapes,
                          [str(i) for i in range(len(tensors))])  # fmt: skip
            except DimError as e:
                raise InputError(str(e)) from None
            self._accepted = shapes
        return tensors, shapes

    def _as_tensor(self, i: int, value: Any) -> torch.Tensor:
        if isinstance(value, torch.Tensor):  # a subclass, e.g. nn.Parameter
            return value
        if isinstance(value, np.ndarray):
            try:
                return torch.from_numpy(value)
            except TypeError:
                pass
        dtype, shape = self._specs[i]
        raise InputError(
            f"input {i}: expected a torch tensor or numpy array of {_type_name(dtype)} "
            f"{list(shape)}, got {type(value).__name__}"
        )

    def _mismatch(self, i: int, t: torch.Tensor) -> str:
        dtype, shape = self._specs[i]
        where = "" if t.is_cpu else f" on {t.device}"
        return (
            f"input {i}: expected {_type_name(dtype)} {list(shape)}, got "
            f"{_type_name(t.dtype)} {list(t.shape)}{where}"
        )

    @property
    def input_specs(self) -> list[tuple[torch.dtype, torch.Size]]:
        """(dtype, shape) of each external input, in order."""
        return list(self._specs)

    @property
    def output_specs(self) -> list[tuple[torch.dtype, torch.Size]]:
        return list(self._out_specs)


class XnnRuntime(RuntimeHandle):
    """A delegate blob loaded into an XNNPACK runtime. See the module docstring."""

    def __init__(
        self,
        blob: bytes | memoryview | Blob,
        named_data: Mapping[str, bytes] | None = None,
        threads: int = 1,
        profile: bool = False,
        *,
        threadpool: int | None = None,
        consume: bool = False,
        packed: PackedWeights | None = None,
        input_dims: Sequence[Sequence[int | DimExpr]] | None = None,
        symbols: Ranges | None = None,
        resizable: bool = False,
    ):
        """`blob` may be an already read `Blob`; `threadpool` is a pthreadpool_t the caller
        owns and keeps alive (it replaces `threads`). `consume`: the caller hands the weights
        over (`named_data` is emptied): they are packed a few nodes at a time and each is
        released (its pages returned, if the blob is mmap'd) once packed, so that the blob's
        unpacked and packed weights never all coexist (`_stage`). `packed`: this blob's
        packed weights saved by another runtime (`packed_weights()`); the weights found there
        are not read from the blob, and PackedWeightsError says if XNNPACK did not find one
        of them (a runtime built without `packed` then packs from the blob). `input_dims`:
        each input's dims, symbolic ones as `DimExpr`s over `symbols` (their ranges); the
        blob declares them at their upper bound, and each call at a new shape reshapes the
        runtime once (`reshapes` counts it). `resizable`: the inputs may take any shape, which
        the caller has checked (a piece of a `SplitRuntime` with symbolic sizes)."""
        self._runtime: int | None = None
        if input_dims is not None and any(isinstance(d, DimExpr) for s in input_dims for d in s):
            self._input_dims = [tuple(s) for s in input_dims]
            self._ranges = dict(symbols or {})
        elif resizable:
            self._input_dims = []  # no dims to check: reshape whenever the shapes change
        self.reshapes = 0
        self._shaped_once = False
        self._subgraph: int | None = None
        self._weights: PackedWeights | None = None
        self._pool: int | None = None
        self._profiling = profile
        self._lock = threading.Lock()  # one set-up + invoke (+ profile read) at a time
        # The token of the `FusedCall` row that set the runtime up last (0: none; every other
        # set-up or reshape clears it): such a row runs without a set-up (`rows.c`).
        self._owner = np.zeros(1, dtype=np.uint64)
        self._last_profile: list[tuple[str, float]] | None = None  # of the last run, any thread
        self._thread_profile = threading.local()  # .rows: of the calling thread's last run
        check_threads(threads)
        self._blob = blob if isinstance(blob, Blob) else read_blob(blob, named_data)
        if consume and isinstance(named_data, dict):
            named_data.clear()
        check_blob_runs(self._blob)
        self._packed, self._cached = _packed_only(self._blob)
        self._packed_constants = {self._blob.tensors[v].constantBufferIdx for v in self._cached}
        self._staged = _stageable(self._blob, self._cached) if consume and not packed else {}
        # Always a cache of ours when there are weights to pack, so that they can be saved.
        self._weights = packed if packed is not None else PackedWeights() if self._cached else None
        self._released: dict[int, int] = {}  # constant index -> its size, data released
        self._lib = capi.library()
        _check(self._lib.initialized_status, "xnn_initialize")
        self._constants = _Constants()
        self._ids: dict[int, int] = {}
        try:
            if threadpool is not None:
                self._pool = threadpool
            elif threads > 1:
                self._pool = capi.shared_pool(threads)
            self._build(profile)
            self._prepare()
        except BaseException:
            self.close()
            raise
        # XNNPACK holds packed copies and the constants it reads in place are in
        # `_constants`: the blob (maybe the only copy of the weights) can go.
        self._blob = None

    # -- loading --

    def _build(self, profile: bool) -> None:
        lib, blob = self._lib, self._blob
        if self._staged:
            self._stage()
        elif self._weights is not None and self._weights.nbytes:
            self._release_prepacked()
        reserved = self._reserve_released()
        self._subgraph = self._create_subgraph(blob.graph.numExterns)
        for xvalue in blob.graph.xvalues:
            self._define_value(xvalue, reserved=reserved)
        x = DefineContext(self, self._subgraph)
        for index, (kind, xnode) in enumerate(zip(blob.node_kinds, blob.graph.xnodes)):
            x.define_node(index, kind, xnode)
        runtime = ctypes.c_void_p()
        flags = capi.FLAG_BASIC_PROFILING if profile else 0
        cache = None if self._weights is None else self._weights.handle
        _check(lib.create_runtime_v4(self._subgraph, cache, None, self._pool, flags,
                                     ctypes.byref(runtime)), "xnn_create_runtime_v4")  # fmt: skip
        self._runtime = runtime.value
        if self._weights is not None:
            self._check_found()
        lib.delete_subgraph(self._subgraph)  # the runtime does not need it
        self._subgraph = None
        for vid in self._packed:  # XNNPACK packed these: its copies are all it reads
            self._constants.release(vid)

    def _check_found(self) -> None:
        """Every released weight was found packed (else XNNPACK packed zeros for it)."""
        weights, released = self._weights, {("constant", idx) for idx in self._released}
        weights.finalize()
        weights.forget()
        lost = weights.misses or sorted(released - weights.hits)
        weights.hits.clear()
        if not lost:
            return
        (_, idx), *_ = lost
        if self._staged:
            raise PackedWeightsError(
                f"constant {idx}: XNNPACK did not find the weights it packed while the "
                "runtime was built in stages (its packing key changed); build it with "
                "consume=False"
            )
        raise PackedWeightsError(f"constant {idx}: not found in the saved packed weights")

    def packed_weights(self) -> PackedWeights | None:
        """The packed weights, if another runtime of the same blob can be created from them
        alone (every weight XNNPACK packs has its entry, keyed by constant)."""
        weights = self._weights
        if weights is None or self._packed_constants - weights.constants():
            return None
        return self._weights

    def _release_prepacked(self) -> None:
        """Releases the weights only XNNPACK's packing reads whose packed form is in the
        given packed weights: their pages are never read."""
        have = self._weights.constants()
        for vid in sorted(self._cached):
            if self._blob.tensors[vid].constantBufferIdx in have:
                self._release(vid)

    def _create_subgraph(self, externals: int) -> int:
        subgraph = ctypes.c_void_p()
        _check(self._lib.create_subgraph(externals, 0, ctypes.byref(subgraph)),
               "xnn_create_subgraph")  # fmt: skip
        self._ids = {}
        return subgraph.value

    # -- staged packing (consume=True) --

    def _stage(self) -> None:
        """Packs the staged weights into `_weights` with throwaway runtimes of a few nodes
        each (about 1/16 of the staged bytes), releasing each weight once every node that
        reads it is packed: the blob's unpacked weights shrink as the packed ones grow.
        The packing key names constants, not addresses, so the final runtime finds them."""
        blob, staged = self._blob, self._staged
        readers = Counter(v for reads in staged.values() for v in reads)
        sizes = {v: len(blob.value_data(v)) for v in readers}
        budget = max(sum(sizes.values()) // 16, 1)
        chunk, size = [], 0
        for index in sorted(staged):
            chunk.append(index)
            size += sum(sizes[v] for v in staged[index])
            if size >= budget or index == max(staged):
                self._pack_nodes(chunk)
                for vid in (v for i in chunk for v in staged[i]):
                    readers[vid] -= 1
                    if not readers[vid]:
                        self._release(vid)
                # Released copies below malloc's mmap threshold stay in its heap: their
                # pages go back as the packed weights grow, not after them all.
                heap.trim()
                chunk, size = [], 0

    def _pack_nodes(self, indices: list[int]) -> None:
        """A runtime of the nodes `indices` alone (their activations external), created
        with `_weights` so that XNNPACK packs their weights there, then deleted."""
        blob, lib = self._blob, self._lib
        values: dict[int, int] = {}  # value id -> its external flags (0: a constant)
        for index in indices:
            for attr, vid in vars(blob.graph.xnodes[index].xnodeUnion).items():
                if attr.endswith("Id") and vid != _INVALID:
                    constant = blob.value_data(vid) is not None
                    values[vid] = 0 if constant else (2 if attr.startswith("output") else 1)
        externals = [v for v in sorted(values) if values[v]]
        self._subgraph = self._create_subgraph(len(externals))
        try:
            by_id = {_tensor(xv).idOut: xv for xv in blob.graph.xvalues}
            for vid in sorted(values):
                io = (externals.index(vid), values[vid]) if values[vid] else (_INVALID, 0)
                self._define_value(by_id[vid], io=io)
            x = DefineContext(self, self._subgraph)
            for index in indices:
                x.define_node(index, blob.node_kinds[index], blob.graph.xnodes[index])
            runtime = ctypes.c_void_p()
            cache = self._weights.handle
            out = ctypes.byref(runtime)
            status = lib.create_runtime_v4(self._subgraph, cache, None, None, 0, out)
            _check(status, "xnn_create_runtime_v4")
            lib.delete_runtime(runtime.value)
        finally:
            lib.delete_subgraph(self._subgraph)
            self._subgraph = None
            self._weights.forget()

    def _release(self, vid: int) -> None:
        """Drops the blob's data of staged weight `vid`, returning its pages if mmap'd."""
        idx = self._blob.tensors[vid].constantBufferIdx
        self._constants.release(vid)
        view = self._blob.release(idx) if idx not in self._released else None
        if view is not None:
            self._released[idx] = len(view)
            _return_pages(view)

    def _reserve_released(self) -> dict[int, int]:
        """An address per released constant, in a read-only mapping never written: the
        final runtime's look-ups find them packed, and a miss reads zeros, not freed
        memory (and is reported)."""
        if not self._released:
            return {}
        self._reservation = mmap.mmap(-1, sum(s + 64 for s in self._released.values()),
                                      prot=mmap.PROT_READ)  # fmt: skip
        base = np.frombuffer(self._reservation, dtype=np.uint8).ctypes.data
        addresses, offset = {}, 0
        for idx, size in self._released.items():
            addresses[idx] = base + offset
            offset += size + 64
        return addresses

    def _define_value(
        self, xvalue: fb.XValueT, io: tuple[int, int] | None = None,
        reserved: Mapping[int, int] | None = None,
    ) -> None:  # fmt: skip
        """`io` overrides the value's (external id, flags); `reserved` gives released
        constants their address (see `_reserve_released`)."""
        tensor = _tensor(xvalue)
        vid = tensor.idOut
        dims = _dims(tensor)
        idx = tensor.constantBufferIdx
        data = None if idx in self._released else self._blob.value_data(vid)
        pointer = None
        if idx in self._released:
            pointer = reserved[idx]
        elif data is not None:
            entries = self._blob.graph.constantData if self._blob.has_header else None
            shared = bool(entries) and entries[tensor.constantBufferIdx].namedKey is not None
            pointer = self._constants.pointer(vid, data, packed=vid in self._packed,
                                              shared=shared)  # fmt: skip
        if pointer is not None and self._weights is not None:
            self._weights.name(pointer, ("constant", idx), expect=idx in self._released)
        dtype = XNN_DATATYPE[tensor.datatype]
        common = (len(dims), capi.sizes(dims))
        io = (tensor.externalId, tensor.flags) if io is None else io
        out = ctypes.c_uint32()
        define = self._lib.define
        params = self._blob.quant_params.get(vid)
        where = f"value {vid}: "
        if params is None:
            status = define["xnn_define_tensor_value"](
                self._subgraph, dtype, *common, pointer, *io, ctypes.byref(out)
            )
            function = "xnn_define_tensor_value"
        elif isinstance(params, fb.PerTensorQuantT):
            function = "xnn_define_quantized_tensor_value"
            status = define[function](self._subgraph, dtype, params.zeroPoint, params.scale,
                                      *common, pointer, *io, ctypes.byref(out))  # fmt: skip
        elif isinstance(params, fb.PerChannelQuantT):
            function = "xnn_define_channelwise_quantized_tensor_value_v2"
            scales = self._scales(vid, params)
            zero_point = 8 if tensor.datatype == _DT.qcint4 else 0
            status = define[function](self._subgraph, dtype, zero_point, scales,
                                      len(dims), params.channelDim, capi.sizes(dims), pointer,
                                      *io, ctypes.byref(out))  # fmt: skip
        elif isinstance(params, fb.PerChannelGroupQuantT):
            # As stock ExecuTorch: 4-bit values stored + 8, so the zero point is 8.
            function = "xnn_define_blockwise_quantized_tensor_value"
            scales = self._block_scales(vid, params)
            status = define[function](self._subgraph, dtype, 8, scales, len(dims),
                                      params.channelDim, params.groupSize, capi.sizes(dims),
                                      pointer, *io, ctypes.byref(out))  # fmt: skip
        else:
            assert isinstance(params, fb.PerTokenDynamicQuantT)
            function = "xnn_define_dynamically_quantized_tensor_value"
            status = define[function](self._subgraph, dtype, len(dims), params.numNonbatchDims,
                                      capi.sizes(dims), *io, ctypes.byref(out))  # fmt: skip
        _check(status, function, where)
        self._ids[vid] = out.value

    def _scales(self, vid: int, params: fb.PerChannelQuantT) -> Any:
        """Per-channel scales as `const float*`; XNNPACK keeps the pointer."""
        if params.scaleBufferIdx:
            data = np.frombuffer(self._blob.constant(params.scaleBufferIdx), dtype="<f4")
        else:
            data = np.asarray(params.scale, dtype="<f4")
        pointer = self._constants.pointer(("scales", vid), data)
        return ctypes.cast(pointer, ctypes.POINTER(ctypes.c_float))

    def _block_scales(self, vid: int, params: fb.PerChannelGroupQuantT) -> Any:
        """Blockwise scales as `const uint16_t*` (bf16): from constant data, or f32 ones
        rounded as stock ExecuTorch does; kept alive with the constants."""
        if params.scaleBufferIdx:
            data = np.frombuffer(self._blob.constant(params.scaleBufferIdx), dtype="<u2")
        else:
            data = np.frombuffer(bf16_scales(params.scale), dtype="<u2")
        pointer = self._constants.pointer(("scales", vid), data)
        return ctypes.cast(pointer, ctypes.POINTER(ctypes.c_uint16))

    def _prepare(self) -> None:
        """The per-call state for the blob's declared dims. XNNPACK is not reshaped yet: its
        reshape takes the activation workspace, which waits for the first run (`_shaped`)."""
        blob = self._blob
        self._specs = [self._spec(vid) for vid in blob.inputs]
        self._out_specs = [self._spec(vid) for vid in blob.outputs]
        self._out_like = _like(self._out_specs)
        # Per input shapes of a recent reshape: what it computed (`_Shaped`), most recent last.
        self._by_shapes: dict[tuple[torch.Size, ...], _Shaped] = {}
        self._declared = [shape for _, shape in self._specs]
        self._declared_out = [shape for _, shape in self._out_specs]
        self._shapes: list[torch.Size] | None = None  # of the last reshape; None: none yet
        count = len(blob.inputs) + len(blob.outputs)
        self._externals = (capi.ExternalValue * count)()
        for ext_id in range(count):
            self._externals[ext_id].id = ext_id
        # The externals as (id, address) words: a call writes its addresses with one slice
        # assignment and passes the table's address, an int, to xnn_setup_runtime_v2.
        self._words = (ctypes.c_uint64 * (2 * count)).from_buffer(self._externals)
        self._table = ctypes.addressof(self._externals)
        self._pointers: list[int] | None = None  # those of the last set-up; None: none valid
        self._io = self._io_for(self._declared, self._out_specs)

    def _spec(self, vid: int) -> tuple[torch.dtype, torch.Size]:
        tensor = self._blob.tensors[vid]
        return TORCH_DTYPES[tensor.datatype], torch.Size(_dims(tensor))

    def _io_for(
        self, shapes: Sequence[Sequence[int]], out_specs: Sequence[tuple[torch.dtype, torch.Size]]
    ) -> _Io | None:
        """Buffers of the runtime's own for the externals at input `shapes` (and outputs of
        `out_specs`), or None if together larger than `COPIED_BYTES`."""
        specs = [(dtype, shape) for (dtype, _), shape in zip(self._specs, shapes)]
        sizes = [math.prod(s) * d.itemsize for d, s in (*specs, *out_specs)]
        if sum(sizes) > COPIED_BYTES:
            return None
        buffers = [np.zeros(n + capi.EXTRA_BYTES + 64, dtype=np.uint8) for n in sizes]
        at = [b.ctypes.data + -b.ctypes.data % 64 for b in buffers]
        n = len(specs)
        return _Io(at, list(zip(at[:n], sizes[:n])), list(zip(at[n:], sizes[n:])), buffers)

    # -- running --

    def run(self, *inputs: torch.Tensor | np.ndarray) -> tuple[torch.Tensor, ...]:
        """Runs the blob on `inputs` (in external-id order); returns fresh output tensors.
        Safe to call from several threads: their runs take turns on this runtime."""
        tensors, shapes = self._checked_inputs(inputs)  # copies stay alive until the invoke
        if shapes is None:
            outputs = [_empty_like(t, memory_format=_CONTIGUOUS) for t in self._out_like]
            with self._lock:
                if self._shapes is None:
                    self._shaped(None)
                self._invoke(tensors, outputs)
            return tuple(outputs)
        with self._lock:
            self._shaped(shapes)
            outputs = [_empty_like(t, memory_format=_CONTIGUOUS) for t in self._out_like]
            self._invoke(tensors, outputs)
        return tuple(outputs)

    def _shaped(self, shapes: list[torch.Size] | None) -> None:
        """XNNPACK shaped for input `shapes` (None: the declared ones) before a set-up: the
        first call reshapes it (which takes the workspace), later ones when the shapes
        change. Called with the lock held."""
        if shapes is None:
            if self._shapes is None:
                self._reshape(self._declared)
        elif shapes is not self._shapes and shapes != self._shapes:
            self._reshape(shapes)

    def _reshape(self, shapes: list[torch.Size]) -> None:
        """XNNPACK reshaped for checked input `shapes`: the outputs take the shapes it
        computes (at the declared input dims they must be the declared output dims, or
        ValueError), and every pointer is set up again (XNNPACK refuses to invoke a reshaped
        runtime that was not set up since). `reshapes` counts those away from the declared
        dims or after the first. What a reshape computes besides XNNPACK's state (the output
        shapes, their templates, the copy buffers) is kept for the `SHAPES_KEPT` most recent
        input shapes: a program called at sizes that alternate pays XNNPACK's reshape alone.
        Called with the lock held."""
        lib, rt = self._lib, self._runtime
        if rt is None:
            raise RuntimeError("the runtime is closed")
        first = not self._shaped_once
        self._shapes = None  # a failure below leaves the runtime to reshape next call
        self._pointers = None
        self._owner[0] = 0
        for ext_id, dims in enumerate(shapes):
            _check(lib.reshape_external_value(rt, ext_id, len(dims), capi.sizes(dims)),
                   "xnn_reshape_external_value", f"input {ext_id}: ")  # fmt: skip
        _check(lib.reshape_runtime(rt), "xnn_reshape_runtime")
        key = tuple(shapes)
        shaped = self._by_shapes.pop(key, None) or self._shaped_for(shapes)
        if len(self._by_shapes) >= SHAPES_KEPT:
            del self._by_shapes[next(iter(self._by_shapes))]
        self._by_shapes[key] = shaped
        self._out_specs, self._out_like, self._io = shaped
        self._shapes = shapes
        self._shaped_once = True
        if not (first and key == tuple(self._declared)):
            self.reshapes += 1

    def _shaped_for(self, shapes: list[torch.Size]) -> _Shaped:
        """The output specs XNNPACK computed at its last reshape (to input `shapes`), their
        templates and the copy buffers at those shapes."""
        lib, rt, n = self._lib, self._runtime, len(shapes)
        declared = list(shapes) == self._declared
        out_specs = []
        for j, (dtype, _) in enumerate(self._out_specs):
            num_dims, dims = ctypes.c_size_t(), (ctypes.c_size_t * nodes.MAX_TENSOR_DIMS)()
            _check(lib.get_external_value_shape(rt, n + j, ctypes.byref(num_dims), dims),
                   "xnn_get_external_value_shape", f"output {j}: ")  # fmt: skip
            got = torch.Size(dims[: num_dims.value])
            if declared and got != self._declared_out[j]:  # a blob XNNPACK reads otherwise
                raise ValueError(
                    f"output {j}: the blob declares dims {list(self._declared_out[j])} but "
                    f"XNNPACK computes {list(got)}"
                )
            out_specs.append((dtype, got))
        return _Shaped(out_specs, _like(out_specs), self._io_for(shapes, out_specs))

    def _invoke(self, tensors: list[torch.Tensor], outputs: list[torch.Tensor]) -> None:
        """Runs XNNPACK on `tensors` into `outputs`: through the runtime's buffers (`_io`)
        or in place, set up only where the last set-up was not (XNNPACK 92a7ad50's invoke
        runs its operators on the pointers of the last `xnn_setup_runtime_v2`). Called with
        the lock held: the external pointers and the timings live in the runtime."""
        io = self._io
        if self._runtime is None:
            raise RuntimeError("the runtime is closed")
        if io is not None:
            pointers = io.pointers
            for (address, size), t in zip(io.inputs, tensors):
                _memmove(address, t.data_ptr(), size)
        else:
            pointers = [t.data_ptr() for t in tensors]
            pointers += [t.data_ptr() for t in outputs]
        self._set_up_and_invoke(pointers)
        if io is not None:
            for (address, size), t in zip(io.outputs, outputs):
                _memmove(t.data_ptr(), address, size)
        if self._profiling:  # the next invoke overwrites XNNPACK's timings: copy them now
            self._last_profile = self._thread_profile.rows = self._read_profile()

    def _set_up_and_invoke(self, pointers: list[int]) -> None:
        """Invokes XNNPACK on the external values at `pointers`, set up first unless the last
        set-up was at those. Called with the lock held."""
        rt, lib = self._runtime, self._lib
        if pointers != self._pointers:
            self._pointers = None  # a failed set-up leaves no pointer valid
            self._owner[0] = 0
            self._words[1::2] = pointers
            if status := lib.setup_runtime_at(rt, len(pointers), self._table):
                raise XnnpackError("", "xnn_setup_runtime_v2", status)
            self._pointers = pointers
        if status := lib.invoke_runtime(rt):
            raise XnnpackError("", "xnn_invoke_runtime", status)

    def run_at(self, pointers: list[int]) -> None:
        """Runs on the external values at `pointers` (inputs then outputs, by external id),
        memory the caller owns, of the declared shapes and dtypes, each with XNN_EXTRA_BYTES
        readable after it. Nothing is checked or copied: for a caller that made that memory
        itself (a stream's buffers, `xnnc.program.stream`); `run` checks its inputs."""
        if len(pointers) != len(self._externals):
            raise ValueError(f"{len(pointers)} addresses for {len(self._externals)} externals")
        with self._lock:
            if self._runtime is None:
                raise RuntimeError("the runtime is closed")
            if self._shapes is None:
                self._shaped(None)
            self._set_up_and_invoke(pointers)
            if self._profiling:
                self._last_profile = self._thread_profile.rows = self._read_profile()

    __call__ = run

    def run_steps(self, addresses: np.ndarray) -> None:
        """Invokes once per row of `addresses` ([steps, externals] integers: the addresses of
        the external values, inputs then outputs), each set up without a reshape
        (`xnn_setup_runtime_v2`), so that a recurrence's state moves between invokes without
        a copy. The caller keeps that memory alive and of the external values' declared
        shapes and dtypes. The lock is held for all the steps: those of concurrent callers
        never interleave."""
        steps, count = addresses.shape
        if count != len(self._externals):
            raise ValueError(f"{count} addresses per step for {len(self._externals)} externals")
        table = external_values(steps, count)
        table["data"] = addresses
        run_tables(((self, 0, steps, None),), table.ctypes.data)

    # -- profiling --

    def profile(self) -> list[tuple[str, float]]:
        """(XNNPACK operator name, microseconds) per operator of the calling thread's last
        `run` (of the last run of any thread if this one has made none), in execution order.
        XNNPACK's operators are its nodes after its own fusions (a clamp folded into a
        convolution is one operator)."""
        if not self._profiling:
            raise RuntimeError("profile() needs a runtime created with profile=True")
        rows = getattr(self._thread_profile, "rows", None) or self._last_profile
        if rows is None:
            raise RuntimeError("profile() reports the last run; call run() first")
        return list(rows)

    def _read_profile(self) -> list[tuple[str, float]]:
        """XNNPACK's timings of the invoke that just finished (the lock is held)."""
        lib, rt = self._lib, self._runtime
        get = lib.get_runtime_profiling_info
        count, size = ctypes.c_size_t(), ctypes.c_size_t()
        _check(get(rt, capi.PROFILE_NUM_OPERATORS, ctypes.sizeof(count), ctypes.byref(count),
                   ctypes.byref(size)), "xnn_get_runtime_profiling_info")  # fmt: skip
        status = get(rt, capi.PROFILE_OPERATOR_NAME, 0, None, ctypes.byref(size))
        if status not in (0, capi.STATUS_OUT_OF_MEMORY):  # out_of_memory: size query answered
            _check(status, "xnn_get_runtime_profiling_info")
        names = ctypes.create_string_buffer(size.value)
        _check(get(rt, capi.PROFILE_OPERATOR_NAME, size.value, names, ctypes.byref(size)),
               "xnn_get_runtime_profiling_info")  # fmt: skip
        timings = capi.uint64_array(count.value)
        _check(get(rt, capi.PROFILE_OPERATOR_TIMING, ctypes.sizeof(timings), timings,
                   ctypes.byref(size)), "xnn_get_runtime_profiling_info")  # fmt: skip
        labels = names.raw[: size.value].split(b"\0")[: count.value]
        return [(label.decode(), float(us)) for label, us in zip(labels, timings)]

    # -- teardown --

    def close(self) -> None:
        """Frees the XNNPACK runtime and subgraph (not the thread pool: the process's);
        idempotent. Waits for a run in another thread to finish."""
        with self._lock:
            self._free()

    def _free(self) -> None:
        lib = getattr(self, "_lib", None)
        if lib is not None:
            if self._runtime is not None:
                lib.delete_runtime(self._runtime)
            if self._subgraph is not None:
                lib.delete_subgraph(self._subgraph)
        self._runtime = self._subgraph = self._pool = None
        self._constants = self._weights = None  # after the runtime, which reads them


_empty_like, _CONTIGUOUS, _memmove = torch.empty_like, torch.contiguous_format, ctypes.memmove


class _Shaped(NamedTuple):
    """What a runtime's reshape to some input shapes computed, besides XNNPACK's state: the
    outputs' (dtype, shape), their `_like` templates and the copy buffers (`_Io`, or None)."""

    out_specs: list[tuple[torch.dtype, torch.Size]]
    out_like: list[torch.Tensor]
    io: _Io | None


class _Io(NamedTuple):
    """A runtime's buffers for its externals: the set-up's `pointers` (inputs, then
    outputs), (address, bytes) of each input and output, and the arrays that hold them
    (with XNN_EXTRA_BYTES after each)."""

    pointers: list[int]
    inputs: list[tuple[int, int]]
    outputs: list[tuple[int, int]]
    buffers: list[np.ndarray]


def _like(specs: Sequence[tuple[torch.dtype, torch.Size]]) -> list[torch.Tensor]:
    """Per (dtype, shape), one element expanded to that shape: `empty_like` of it makes a
    call's output in about half the time `torch.empty(shape, dtype=dtype)` takes to parse a
    torch.Size. With contiguous_format: an expanded tensor whose dims are all 1 counts as
    dense, and its zero strides would be copied."""
    return [torch.empty((), dtype=dtype).expand(shape) for dtype, shape in specs]


def _tensor(xvalue: fb.XValueT) -> fb.XNNTensorValueT:
    quantized = xvalue.xvalueUnionType == fb.ValueUnion.XNNQuantizedTensorValue
    return xvalue.xvalueUnion.tensorValue if quantized else xvalue.xvalueUnion


def _stageable(blob: Blob, packed: set[int]) -> dict[int, list[int]]:
    """node index -> the weights it packs, for the nodes whose weights can be packed ahead
    of the runtime (`XnnRuntime._stage`): plain fp32/fp16 activations and weights (bf16 ones
    are widened at definition; quantized activations cannot be external). A weight is
    staged only if every node packing it is, and no other value shares its constant."""
    plain = (_DT.fp32, _DT.fp16)
    users = Counter(t.constantBufferIdx for t in blob.tensors.values() if t.constantBufferIdx)
    nodes_of: dict[int, list[int]] = {}
    unstaged: set[int] = set()
    for index, (kind, xnode) in enumerate(zip(blob.node_kinds, blob.graph.xnodes)):
        table, fields = xnode.xnodeUnion, {camel(f) for f in KINDS[kind].packed}
        weights = [v for a, v in vars(table).items() if a in fields and v in packed]
        if not weights:
            continue
        ok = all(
            blob.tensors[v].datatype in plain and v not in blob.quant_params
            for a, v in vars(table).items()
            if a.endswith("Id") and v != _INVALID and v not in packed
        ) and all(
            blob.tensors[v].datatype in plain and users[blob.tensors[v].constantBufferIdx] == 1
            for v in weights
        )
        if ok:
            nodes_of[index] = weights
        else:
            unstaged.update(weights)
    return {i: ws for i, ws in nodes_of.items() if not unstaged & set(ws)}


def _return_pages(view: memoryview) -> None:
    """Gives the whole pages of `view` back to the system if it lies in an mmap (file
    backed: they are read again from the file if touched)."""
    if not isinstance(view.obj, mmap.mmap) or not len(view):
        return
    base = np.frombuffer(view.obj, dtype=np.uint8).ctypes.data
    start = np.frombuffer(view, dtype=np.uint8).ctypes.data - base
    lo = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    hi = (start + len(view)) // mmap.PAGESIZE * mmap.PAGESIZE
    if hi > lo:
        view.obj.madvise(mmap.MADV_DONTNEED, lo, hi - lo)


def _packed_only(blob: Blob) -> tuple[set[int], set[int]]:
    """Constant value ids XNNPACK reads only to pack them while the runtime is created:
    (all of them, those it packs into the weights cache). The others (`packed_per_node`) are
    packed into their operator's own memory, so they can be neither staged nor found in saved
    packed weights; a constant another value also holds is cached only if all its readers
    pack it there."""
    cached, own, other = set(), set(), set()
    for kind, xnode in zip(blob.node_kinds, blob.graph.xnodes):
        spec = KINDS[kind]
        to_cache, to_own = {camel(f) for f in spec.packed}, {camel(f) for f in spec.packed_per_node}
        for attr, vid in vars(xnode.xnodeUnion).items():
            if attr == "inputIds":
                other.update(int(v) for v in vid)
            elif attr.endswith("Id"):
                (cached if attr in to_cache else own if attr in to_own else other).add(vid)
    static = {v for v in cached | own if blob.tensors.get(v) and blob.value_data(v) is not None}
    packed = static - other
    uncached = {blob.tensors[v].constantBufferIdx for v in (other | own) & blob.tensors.keys()}
    return packed, {v for v in packed & cached if blob.tensors[v].constantBufferIdx not in uncached}


# --- blob checks -------------------------------------------------------------------------------


def check_blob_runs(blob: Blob) -> None:
    """What `read_blob` leaves to the runtime: every node kind has a node table entry, its
    `runtime_checks` pass (the static weights XNNPACK packs are as large as the node's
    parameters say, else it would read out of bounds; int32-only operators get int32), and
    the values use what this runtime supports."""
    for index, (kind, xnode) in enumerate(zip(blob.node_kinds, blob.graph.xnodes)):
        where = f"node {index} ({kind})"
        if kind not in KINDS:
            raise ValueError(f"{where}: xnnc's runtime does not support this node kind")
        view = NodeView(where, xnode.xnodeUnion, blob.tensors, blob.value_data)
        for check in KINDS[kind].runtime_checks:
            check(view)
    for role, vids in (("input", blob.inputs), ("output", blob.outputs)):
        for vid in vids:
            dtype = blob.tensors[vid].datatype
            if dtype not in TORCH_DTYPES:
                raise ValueError(
                    f"value {vid}: external {role} of datatype {DATATYPE_NAMES[dtype]} is not "
                    "supported (fp32, fp16, bf16, int32, qint8 and quint8 are)"
                )
    for vid, tensor in blob.tensors.items():
        if tensor.dqDatatype:
            raise ValueError(
                f"value {vid}: dq_datatype (legacy dynamic quantization of an input) is not "
                "supported; quantize with an XNNConvert to a qdint8 value"
            )


def run_tables(runs: Sequence[tuple[XnnRuntime, int, int, list | None]], base: int) -> None:
    """Runs each (runtime, table, rows, shapes) in turn: the runtime set up from each of
    `rows` rows of `struct xnn_external_value` (`external_values`, one entry per external
    value, inputs then outputs) from address `base + table` on, and invoked after each; a
    runtime of symbolic shapes is first reshaped for its inputs' `shapes` if they changed
    (None: a runtime of static shapes). For a caller that built the rows over memory it
    sized itself (the recurrent loop: a projection, then a step per frame): nothing is
    checked, so that no per-call work repeats its checks; each array must be contiguous,
    of its value's dtype and shape (outputs: the shapes XNNPACK computes, `output_specs`).
    A runtime's lock is held for all its rows: concurrent callers' rows never interleave."""
    lib = capi.library()
    setup, invoke = lib.setup_runtime_at, lib.invoke_runtime
    for rt, table, rows, shapes in runs:
        count = len(rt._externals)
        start = base + table
        with rt._lock:
            if shapes is None and rt._input_dims is not None:
                raise RuntimeError("a runtime of symbolic shapes needs its input shapes")
            if rt._shapes is None or (shapes is not None and shapes is not rt._shapes):
                rt._shaped(shapes)  # `_reshape` keeps the shapes it was given
            handle = rt._runtime
            if handle is None:
                raise RuntimeError("the runtime is closed")
            rt._pointers = None  # the next `run` sets up again, from its own table
            rt._owner[0] = 0
            rows_end = start + rows * count * _EXTERNAL_VALUE_SIZE
            for row in range(start, rows_end, count * _EXTERNAL_VALUE_SIZE):
                if status := setup(handle, count, row):
                    raise XnnpackError("", "xnn_setup_runtime_v2", status)
                if status := invoke(handle):
                    raise XnnpackError("", "xnn_invoke_runtime", status)
