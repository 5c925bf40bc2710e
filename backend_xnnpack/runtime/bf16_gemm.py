"""XNNPACK's native bf16 GEMM for a blob's bf16 x bf16 -> fp32 GEMM nodes.

    rt = open_runtime(blob, threads=2, profile=True)   # a SplitRuntime or an XnnRuntime
    (y,) = rt.run(x)
    rt.profile()   # [..., ("Fully Connected (NC, BF16, F32) GEMM", 310.0), ...]

Why not the subgraph: at XNNPACK 92a7ad50 `xnn_subgraph_optimize` always ends with
`xnn_subgraph_fallback_from_bf16_to_fp32` (src/subgraph.c), and that rewrite's allow-list
(`GetOpActionBf16`, src/subgraph/rewrites/cvt_to_fp32.cc) keeps only converts, bf16 min/max
reductions and data movement: every fully-connected or batch-matmul node with a bf16 value is
rewritten to fp32, whatever its flags; no runtime flag skips the rewrite. The operator API
does have the kernel (`xnn_create_fully_connected_nc_bf16_f32`,
`xnn_create_batch_matrix_multiply_nc_bf16_f32`).

So the blob's node list is cut at its native GEMM nodes (`native_gemms`): the runs of other
nodes between them load as sub-blobs on `XnnRuntime`s sharing one thread pool, and each GEMM
runs as an XNNPACK operator. xnnc's legalization emits the bf16 x bf16 -> fp32 form only
where the cost model chooses it (`cost.rules.bf16_gemm`, or a tuned decision; elsewhere the
GEMM is fp32 between converts), so the blob carries the target's decision. Where the CPU
has no bf16 GEMM kernel, creating the operator returns xnn_status_unsupported_hardware and
`open_runtime` loads the whole blob on one `XnnRuntime` instead, where XNNPACK's fallback
runs these nodes in fp32.
"""

from __future__ import annotations

import copy
import ctypes
import dataclasses
import math
import threading
import time
from collections.abc import Mapping, Sequence
from ctypes import POINTER, c_float, c_size_t, c_uint32, c_void_p
from typing import Any

import numpy as np
import torch

from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.blob import Blob, read_blob
from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.runtime import capi
from xnnc.backend_xnnpack.runtime.runtime import (
    TORCH_DTYPES,
    RuntimeHandle,
    XnnpackError,
    XnnRuntime,
    check_blob_runs,
)
from xnnc.backend_xnnpack.schema import xnnc_generated as fb

_DT = fb.XNNDatatype
_INVALID = nodes.INVALID_VALUE_ID
STATUS_UNSUPPORTED_HARDWARE = 5  # xnn_status_unsupported_hardware
# XNNPACK's operator names (src/xnnpack/operator-type-defs.inc), as its subgraph profile
# prints them, with the microkernel type.
FULLY_CONNECTED_NAME = "Fully Connected (NC, BF16, F32) GEMM"
BATCH_MATRIX_MULTIPLY_NAME = "Batch Matrix Multiply (NC, BF16_F32) GEMM"

Runtime = Any  # XnnRuntime or SplitRuntime: run, profile, close, input_specs, output_specs


def open_runtime(
    blob: bytes | memoryview,
    named_data: Mapping[str, bytes] | None = None,
    threads: int = 1,
    profile: bool = False,
    *,
    consume: bool = False,
    packed: Any = None,
    input_dims: Any = None,
    symbols: Any = None,
) -> Runtime:
    """`blob` on XNNPACK: a `SplitRuntime` when it has native bf16 GEMM nodes and the CPU
    runs XNNPACK's bf16 GEMM, else an `XnnRuntime`. Arguments as for `XnnRuntime` (`consume`
    and `packed` apply to the latter only)."""
    read = read_blob(blob, named_data)
    if native_gemms(read):
        try:
            return SplitRuntime(read, threads, profile, source=(blob, named_data),
                                input_dims=input_dims, symbols=symbols)  # fmt: skip
        except XnnpackError as e:
            if e.status != STATUS_UNSUPPORTED_HARDWARE:
                raise
    # `read` is the runtime's blob: with `consume` it releases each constant from it as
    # packed, and empties `named_data`, so no other reference to the weights is left.
    return XnnRuntime(
        read, named_data, threads=threads, profile=profile, consume=consume, packed=packed,
        input_dims=input_dims, symbols=symbols,
    )  # fmt: skip


# --- which nodes ------------------------------------------------------------------------------


def _operands(table: Any) -> tuple[list[int], list[int]]:
    """(value ids read, value ids written) by a node table; XNN_INVALID_VALUE_ID skipped."""
    reads, writes = [], []
    for attr, vid in vars(table).items():
        if attr == "inputIds":
            reads += [int(v) for v in vid]
        elif attr.endswith("Id") and vid != _INVALID:
            (writes if attr.startswith("output") else reads).append(int(vid))
    return reads, writes


def _is(blob: Blob, vid: int, datatype: int, static: bool | None = None) -> bool:
    tensor = blob.tensors[vid]
    if tensor.datatype != datatype or vid in blob.quant_params:
        return False
    return static is None or (blob.value_data(vid) is not None) == static


def native_gemms(blob: Blob) -> list[int]:
    """Indices of the nodes the operator API runs natively: fully-connected with a bf16 input,
    a static bf16 filter, no bias or a static fp32 one, and an fp32 output; batch matmul of
    two non-static bf16 inputs with an fp32 output (a static input2 stays in the subgraph)."""
    found = []
    for i, (kind, xnode) in enumerate(zip(blob.node_kinds, blob.graph.xnodes)):
        t = xnode.xnodeUnion
        if kind == "XNNFullyConnected":
            ok = (
                _is(blob, t.input1Id, _DT.bf16, static=False)
                and _is(blob, t.filterId, _DT.bf16, static=True)
                and (t.biasId == _INVALID or _is(blob, t.biasId, _DT.fp32, static=True))
                and _is(blob, t.outputId, _DT.fp32)
            )
        elif kind == "XNNBatchMatrixMultiply":
            ok = (
                _is(blob, t.input1Id, _DT.bf16, static=False)
                and _is(blob, t.input2Id, _DT.bf16, static=False)
                and _is(blob, t.outputId, _DT.fp32)
            )
        else:
            continue
        if ok:
            found.append(i)
    return found


# --- the operators ----------------------------------------------------------------------------

_OP = POINTER(c_void_p)
_SIGNATURES: dict[str, list] = {
    "xnn_create_fully_connected_nc_bf16_f32": [
        c_size_t, c_size_t, c_size_t, c_size_t, c_void_p, c_void_p, c_float, c_float, c_uint32,
        c_void_p, _OP,
    ],
    "xnn_reshape_fully_connected_nc_bf16_f32": [c_void_p, c_size_t, c_void_p],
    "xnn_setup_fully_connected_nc_bf16_f32": [c_void_p, c_void_p, c_void_p],
    "xnn_create_batch_matrix_multiply_nc_bf16_f32": [c_uint32, _OP],
    "xnn_reshape_batch_matrix_multiply_nc_bf16_f32": [
        c_void_p, c_size_t, POINTER(c_size_t), POINTER(c_size_t), c_size_t, c_size_t, c_size_t,
        POINTER(c_size_t), c_void_p,
    ],
    "xnn_setup_batch_matrix_multiply_nc_bf16_f32": [c_void_p, c_void_p, c_void_p, c_void_p,
                                                    c_void_p],
    "xnn_run_operator": [c_void_p, c_void_p],
    "xnn_delete_operator": [c_void_p],
}  # fmt: skip
_BOUND: dict[str, Any] = {}


def _fn(name: str) -> Any:
    if not _BOUND:
        lib = capi.library().xnn
        for function, argtypes in _SIGNATURES.items():
            bound = getattr(lib, function)
            bound.restype, bound.argtypes = ctypes.c_int, argtypes
            _BOUND[function] = bound
    return _BOUND[name]


def _call(name: str, *args: Any, where: str = "") -> None:
    status = _fn(name)(*args)
    if status:
        raise XnnpackError(where, name, status)


def _padded(data: memoryview) -> np.ndarray:
    """A 64-byte aligned copy with XNN_EXTRA_BYTES readable after it: packing may over-read."""
    view = np.frombuffer(data, dtype=np.uint8)
    buffer = np.zeros(view.nbytes + capi.EXTRA_BYTES + 64, dtype=np.uint8)
    start = -buffer.ctypes.data % 64
    buffer[start : start + view.nbytes] = view
    return buffer[start:]


def _dims(blob: Blob, vid: int) -> list[int]:
    dims = blob.tensors[vid].dims
    return [] if dims is None else [int(d) for d in dims]


class _Gemm:
    """One native GEMM node as an XNNPACK operator; weights packed at creation."""

    def __init__(self, blob: Blob, index: int, pool: int | None):
        xnode = blob.graph.xnodes[index]
        self.kind, t = blob.node_kinds[index], xnode.xnodeUnion
        self.where = f"node {index} ({self.kind}): "
        self.inputs = [t.input1Id] + ([t.input2Id] if self.kind == "XNNBatchMatrixMultiply" else [])
        self.output = t.outputId
        self.shape = _dims(blob, t.outputId)
        self.flags = t.flags
        self.in_shapes: tuple = tuple(tuple(_dims(blob, v)) for v in self.inputs)
        self.pool = pool
        self.op = c_void_p()
        self.workspace: torch.Tensor | None = None
        self.pointers: tuple[int, ...] = ()
        self.us = 0.0
        if self.kind == "XNNFullyConnected":
            self._create_fully_connected(blob, t, xnode.outputMinMax)
            self.name = FULLY_CONNECTED_NAME
        else:
            self._create_batch_matrix_multiply(blob, t)
            self.name = BATCH_MATRIX_MULTIPLY_NAME

    def _create_fully_connected(self, blob: Blob, t: Any, clamp: Any) -> None:
        w = _dims(blob, t.filterId)
        transposed = t.flags & nodes.FLAG_TRANSPOSE_WEIGHTS
        k, n = (w[0], w[1]) if transposed else (w[1], w[0])
        self.n = n
        kernel = _padded(blob.value_data(t.filterId))
        bias = None if t.biasId == _INVALID else _padded(blob.value_data(t.biasId))
        lo, hi = (-math.inf, math.inf) if clamp is None else (clamp.outputMin, clamp.outputMax)
        _call("xnn_create_fully_connected_nc_bf16_f32", k, n, k, n, kernel.ctypes.data,
              None if bias is None else bias.ctypes.data, lo, hi, t.flags, None,
              ctypes.byref(self.op), where=self.where)  # fmt: skip
        self._reshape(self.in_shapes)

    def _create_batch_matrix_multiply(self, blob: Blob, t: Any) -> None:
        _call("xnn_create_batch_matrix_multiply_nc_bf16_f32", t.flags, ctypes.byref(self.op),
              where=self.where)  # fmt: skip
        self._reshape(self.in_shapes)

    def _reshape(self, shapes: tuple) -> None:
        """The operator reshaped for input `shapes` (a symbolic size's new value): the
        output's shape follows, and the pointers are set up again (XNNPACK's operators
        run only after a setup that follows their last reshape)."""
        if self.kind == "XNNFullyConnected":
            (a,) = shapes
            _call("xnn_reshape_fully_connected_nc_bf16_f32", self.op, math.prod(a[:-1]),
                  self.pool, where=self.where)  # fmt: skip
            self.shape = [*a[:-1], self.n]
        else:
            a, b = list(shapes[0]), list(shapes[1])
            rank = max(len(a), len(b))
            a, b = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b  # as XNNPACK pads them
            m, k = a[-2:]
            n = b[-2] if self.flags & nodes.FLAG_TRANSPOSE_B else b[-1]
            size = c_size_t()
            _call("xnn_reshape_batch_matrix_multiply_nc_bf16_f32", self.op, rank - 2,
                  capi.sizes(a[:-2] or [1]), capi.sizes(b[:-2] or [1]), m, k, n,
                  ctypes.byref(size), self.pool, where=self.where)  # fmt: skip
            if self.workspace is None or self.workspace.numel() < size.value + 64:
                self.workspace = torch.empty(size.value + 64, dtype=torch.uint8)
            batch = [max(x, y) for x, y in zip(a[:-2], b[:-2])]
            self.shape = [*batch, m, n]
        self.in_shapes, self.pointers = shapes, ()

    def run(self, env: dict[int, torch.Tensor], profile: bool) -> None:
        shapes = tuple(tuple(env[v].shape) for v in self.inputs)
        if shapes != self.in_shapes:
            self._reshape(shapes)
        out = torch.empty(self.shape, dtype=torch.float32)
        pointers = (*(env[v].data_ptr() for v in self.inputs), out.data_ptr())
        if pointers != self.pointers:
            if self.workspace is None:
                _call("xnn_setup_fully_connected_nc_bf16_f32", self.op, *pointers,
                      where=self.where)  # fmt: skip
            else:
                space = self.workspace.data_ptr()
                _call("xnn_setup_batch_matrix_multiply_nc_bf16_f32", self.op,
                      space + -space % 64, *pointers, where=self.where)  # fmt: skip
            self.pointers = pointers
        start = time.perf_counter() if profile else 0.0
        _call("xnn_run_operator", self.op, self.pool, where=self.where)
        if profile:
            self.us = (time.perf_counter() - start) * 1e6
        env[self.output] = out

    def close(self) -> None:
        if self.op:
            _fn("xnn_delete_operator")(self.op)
            self.op = c_void_p()


# --- the split ---------------------------------------------------------------------------------


def _sub_blob(blob: Blob, indices: Sequence[int], inputs: list[int], outputs: list[int]) -> Blob:
    """The nodes `indices` of `blob` as a blob of their own, with external `inputs` and
    `outputs` (value ids, kept); constants stay views into the original."""
    used = set(inputs) | set(outputs)
    for i in indices:
        reads, writes = _operands(blob.graph.xnodes[i].xnodeUnion)
        used.update(reads, writes)
    externals = {vid: (1, j) for j, vid in enumerate(inputs)}
    externals.update({vid: (2, len(inputs) + j) for j, vid in enumerate(outputs)})
    xvalues, tensors = [], {}
    for xvalue in blob.graph.xvalues:
        xvalue = copy.copy(xvalue)
        quantized = xvalue.xvalueUnionType == fb.ValueUnion.XNNQuantizedTensorValue
        if quantized:
            xvalue.xvalueUnion = copy.copy(xvalue.xvalueUnion)
        holder = xvalue.xvalueUnion
        tensor = copy.copy(holder.tensorValue if quantized else holder)
        if tensor.idOut not in used:
            continue
        tensor.flags, tensor.externalId = externals.get(tensor.idOut, (0, _INVALID))
        if quantized:
            holder.tensorValue = tensor
        else:
            xvalue.xvalueUnion = tensor
        xvalues.append(xvalue)
        tensors[tensor.idOut] = tensor
    graph = copy.copy(blob.graph)
    graph.xvalues, graph.xnodes = xvalues, [blob.graph.xnodes[i] for i in indices]
    graph.numExterns = len(inputs) + len(outputs)
    graph.inputIds, graph.outputIds = list(inputs), list(outputs)
    return dataclasses.replace(
        blob,
        graph=graph,
        tensors=tensors,
        quant_params={v: p for v, p in blob.quant_params.items() if v in used},
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        node_kinds=tuple(blob.node_kinds[i] for i in indices),
    )


def _segments(blob: Blob, gemms: list[int]) -> list[list[int] | int]:
    """The node list cut at `gemms`: runs of other nodes (lists) and GEMM indices, in order."""
    steps: list[list[int] | int] = []
    run: list[int] = []
    for i in range(len(blob.graph.xnodes)):
        if i in gemms:
            if run:
                steps.append(run)
            steps += [i]
            run = []
        else:
            run.append(i)
    if run:
        steps.append(run)
    return steps


def _run_externals(blob: Blob, steps: list, k: int) -> tuple[list[int], list[int]]:
    """The values step `k` (a run of nodes) reads from outside it, and those it writes that a
    later step or the caller reads."""
    indices = steps[k]
    reads, writes = [], []
    for i in indices:
        r, w = _operands(blob.graph.xnodes[i].xnodeUnion)
        reads += [v for v in r if v not in writes and blob.value_data(v) is None]
        writes += w
    later = set(blob.outputs)
    for step in steps[k + 1 :]:
        for i in [step] if isinstance(step, int) else step:
            later.update(_operands(blob.graph.xnodes[i].xnodeUnion)[0])
    return list(dict.fromkeys(reads)), [v for v in writes if v in later]


class SplitRuntime(RuntimeHandle):
    """A blob whose native bf16 GEMM nodes run as XNNPACK operators and whose other nodes run
    as sub-blobs on `XnnRuntime`s, all on one thread pool. The interface is XnnRuntime's."""

    def __init__(
        self,
        blob: Blob,
        threads: int = 1,
        profile: bool = False,
        *,
        source: Any = None,
        input_dims: Any = None,
        symbols: Any = None,
    ):
        """`input_dims`/`symbols` as for `XnnRuntime`: with symbolic sizes the inputs are
        checked here, and each piece reshapes when the shapes reaching it change."""
        if input_dims is not None and any(isinstance(d, DimExpr) for s in input_dims for d in s):
            self._input_dims = [tuple(s) for s in input_dims]
            self._ranges = dict(symbols or {})
        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        self._source = source  # the constants are views into it
        self._blob, self._profiling, self._ran = blob, profile, False
        self._lib = capi.library()
        self._pool: int | None = None
        self._steps: list[XnnRuntime | _Gemm] = []
        self._reads: list[list[int]] = []  # per step, the value ids it reads
        self._writes: list[list[int]] = []  # per step, the value ids it returns
        self._owned: list[XnnRuntime | _Gemm] = []  # what close() frees
        self._closed = False
        # One run at a time: the GEMM operators keep their set-up pointers and timings.
        self._lock = threading.Lock()
        try:
            if threads > 1:
                self._pool = capi.shared_pool(threads)
            self._build()
        except BaseException:
            self.close()
            raise
        self._specs = [self._spec(v) for v in blob.inputs]
        self._out_specs = [self._spec(v) for v in blob.outputs]
        self._inputs, self._outputs = list(blob.inputs), list(blob.outputs)
        # Built: XNNPACK holds packed copies of the weights, the runtimes their own constants.
        self._blob = self._source = None

    def _build(self) -> None:
        blob = self._blob
        check_blob_runs(blob)  # whole, so that errors name the blob's node indices, not a piece's
        plan = _segments(blob, native_gemms(blob))
        externals = {
            k: _run_externals(blob, plan, k) for k, s in enumerate(plan) if isinstance(s, list)
        }
        for inputs, outputs in externals.values():
            for vid in (*inputs, *outputs):
                if blob.tensors[vid].datatype not in TORCH_DTYPES or vid in blob.quant_params:
                    raise ValueError(f"value {vid}: cannot pass between XNNPACK runtimes")
        # GEMMs first: on a CPU without the kernel, creation fails before any subgraph loads.
        gemms = {}
        for k, step in enumerate(plan):
            if isinstance(step, int):
                gemms[k] = _Gemm(blob, step, self._pool)
                self._owned.append(gemms[k])
        for k, step in enumerate(plan):
            if k in gemms:
                self._steps.append(gemms[k])
                self._reads.append(gemms[k].inputs)
                self._writes.append([gemms[k].output])
                continue
            inputs, outputs = externals[k]
            sub = _sub_blob(blob, step, inputs, outputs)
            runtime = XnnRuntime(sub, profile=self._profiling, threadpool=self._pool,
                                 resizable=self._input_dims is not None)  # fmt: skip
            self._owned.append(runtime)
            self._steps.append(runtime)
            self._reads.append(inputs)
            self._writes.append(list(sub.outputs))  # the runtime drops its blob once built

    def _spec(self, vid: int) -> tuple[torch.dtype, torch.Size]:
        return TORCH_DTYPES[self._blob.tensors[vid].datatype], torch.Size(_dims(self._blob, vid))

    def run(self, *inputs: torch.Tensor | np.ndarray) -> tuple[torch.Tensor, ...]:
        """Runs the blob on `inputs` (in external-id order); returns fresh output tensors."""
        env = dict(zip(self._inputs, self._checked_inputs(inputs)[0], strict=True))
        with self._lock:
            if self._closed:
                raise RuntimeError("the runtime is closed")
            for step, reads, writes in zip(self._steps, self._reads, self._writes):
                if isinstance(step, _Gemm):
                    step.run(env, self._profiling)
                else:
                    env.update(zip(writes, step.run(*(env[v] for v in reads)), strict=True))
            self._ran = True
        return tuple(env[v] for v in self._outputs)

    __call__ = run

    def profile(self) -> list[tuple[str, float]]:
        """(XNNPACK operator name, microseconds) per operator of the last `run`; the GEMM
        operators' times are wall-clock around `xnn_run_operator`."""
        if not self._profiling:
            raise RuntimeError("profile() needs a runtime created with profile=True")
        if not self._ran:
            raise RuntimeError("profile() reports the last run; call run() first")
        rows: list[tuple[str, float]] = []
        with self._lock:
            for step in self._steps:
                rows += [(step.name, step.us)] if isinstance(step, _Gemm) else step.profile()
        return rows

    def close(self) -> None:
        """Frees the operators and the sub-runtimes, after a run in progress; idempotent (the
        thread pool is the process's, `capi.shared_pool`)."""
        with self._lock:
            for step in self._owned:
                step.close()
            self._owned, self._steps, self._closed = [], [], True
            self._pool = None
