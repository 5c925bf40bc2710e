"""XNNPACK's C API (include/xnnpack.h at google/XNNPACK 92a7ad50) through ctypes.

The executorch wheel's `lib/libexecutorch_backend_xnnpack.so` exports every `xnn_*` symbol
of that header; pthreadpool lives in `lib/libexecutorch_threadpool.so`. Every function used
is declared below with its exact C signature: ctypes passes undeclared arguments as C ints,
which truncates pointers and crashes the process.

Only the current entry points are bound. The deprecated ones stock ExecuTorch 1.5.1 still
calls are replaced by what XNNPACK itself forwards them to: `xnn_define_unary` (convert,
clamp, elu, leaky_relu, tanh, ...), `xnn_define_binary` (add, prelu, ...),
`xnn_define_concatenate` (concatenate2..5), `xnn_define_static_constant_pad_v2`,
`xnn_define_static_reduce_v2` (static_mean, global_average_pooling_2d) and
`xnn_define_static_slice_v3`.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.machinery
import importlib.util
import os
import threading
from ctypes import (
    POINTER,
    Structure,
    c_bool,
    c_float,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path

from xnnc.backend_xnnpack.nodes import define_signatures

EXTRA_BYTES = 16  # XNN_EXTRA_BYTES: XNNPACK may read this far past the end of an array
FLAG_BASIC_PROFILING = 0x8  # XNN_FLAG_BASIC_PROFILING (xnn_create_runtime_v4)

# enum xnn_status
STATUS_NAMES = (
    "xnn_status_success",
    "xnn_status_uninitialized",
    "xnn_status_invalid_parameter",
    "xnn_status_invalid_state",
    "xnn_status_unsupported_parameter",
    "xnn_status_unsupported_hardware",
    "xnn_status_out_of_memory",
    "xnn_status_reallocation_required",
    "xnn_status_deprecated",
)
STATUS_OUT_OF_MEMORY = 6

# enum xnn_datatype values used by the runtime itself (schema numbers are mapped in blob.py)
DATATYPE_FP32 = 1

# enum xnn_profile_info
PROFILE_NUM_OPERATORS = 0
PROFILE_OPERATOR_NAME = 1
PROFILE_OPERATOR_TIMING = 2


def status_name(status: int) -> str:
    if 0 <= status < len(STATUS_NAMES):
        return STATUS_NAMES[status]
    return f"xnn_status {status}"


class ExternalValue(Structure):
    """struct xnn_external_value"""

    _fields_ = [("id", c_uint32), ("data", c_void_p)]


_u32, _size, _f32, _ptr = c_uint32, c_size_t, c_float, c_void_p
_SIZES, _I64S, _U32S = POINTER(c_size_t), POINTER(c_int64), POINTER(c_uint32)
_enum = c_int  # C enums are ints

# name -> argument types after the leading handle (subgraph or runtime); every function
# returns enum xnn_status. The node define functions come from the node table.
_SUBGRAPH_FUNCTIONS: dict[str, list] = {
    # values
    "xnn_define_tensor_value": [_enum, _size, _SIZES, _ptr, _u32, _u32, _U32S],
    "xnn_define_quantized_tensor_value": [
        _enum, c_int32, _f32, _size, _SIZES, _ptr, _u32, _u32, _U32S,
    ],
    "xnn_define_channelwise_quantized_tensor_value_v2": [
        _enum, c_int32, POINTER(c_float), _size, _size, _SIZES, _ptr, _u32, _u32, _U32S,
    ],
    "xnn_define_blockwise_quantized_tensor_value": [
        _enum, c_int32, POINTER(ctypes.c_uint16), _size, _size, _size, _SIZES, _ptr, _u32, _u32,
        _U32S,
    ],
    "xnn_define_dynamically_quantized_tensor_value": [
        _enum, _size, _size, _SIZES, _u32, _u32, _U32S,
    ],
}  # fmt: skip


def _library_dir() -> Path:
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("xnnc's runtime needs the executorch wheel (it ships XNNPACK)")
    return Path(spec.submodule_search_locations[0]) / "lib"


class Library:
    """The bound functions. `subgraph` functions are looked up by name through `define`;
    the per-call ones are attributes so the hot path does no lookups."""

    def __init__(self) -> None:
        lib_dir = _library_dir()
        xnn = ctypes.CDLL(str(lib_dir / "libexecutorch_backend_xnnpack.so"))
        pool = ctypes.CDLL(str(lib_dir / "libexecutorch_threadpool.so"))

        def bind(lib: ctypes.CDLL, name: str, restype, argtypes: list):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
            return fn

        s, r = c_void_p, c_void_p  # xnn_subgraph_t, xnn_runtime_t
        functions = {**_SUBGRAPH_FUNCTIONS, **define_signatures()}
        self.define = {name: bind(xnn, name, _enum, [s, *args]) for name, args in functions.items()}
        self.xnn = xnn  # for operator-API bindings beside the subgraph runtime (bf16_gemm.py)
        self.initialize = bind(xnn, "xnn_initialize", _enum, [c_void_p])
        self.create_subgraph = bind(
            xnn, "xnn_create_subgraph", _enum, [_u32, _u32, POINTER(c_void_p)]
        )
        self.delete_subgraph = bind(xnn, "xnn_delete_subgraph", _enum, [s])
        self.create_runtime_v4 = bind(
            xnn,
            "xnn_create_runtime_v4",
            _enum,
            [s, c_void_p, c_void_p, c_void_p, _u32, POINTER(c_void_p)],
        )
        self.delete_runtime = bind(xnn, "xnn_delete_runtime", _enum, [r])
        self.reshape_external_value = bind(
            xnn, "xnn_reshape_external_value", _enum, [r, _u32, _size, _SIZES]
        )
        self.get_external_value_shape = bind(
            xnn, "xnn_get_external_value_shape", _enum, [r, _u32, POINTER(c_size_t), _SIZES]
        )
        self.reshape_runtime = bind(xnn, "xnn_reshape_runtime", _enum, [r])
        self.invoke_runtime = bind(xnn, "xnn_invoke_runtime", _enum, [r])
        # xnn_setup_runtime_v2 taking the externals' address (`struct xnn_external_value*`)
        # as an integer: a run passes its table's and a recurrent loop's steps slices of one
        # array, with no ctypes object made or checked per call.
        self.setup_runtime_at = bind(xnn, "xnn_setup_runtime_v2", _enum, [r, _size, c_void_p])
        self.get_runtime_profiling_info = bind(
            xnn,
            "xnn_get_runtime_profiling_info",
            _enum,
            [r, _enum, _size, c_void_p, POINTER(c_size_t)],
        )
        self.pthreadpool_create = bind(pool, "pthreadpool_create", c_void_p, [c_size_t])
        self.pthreadpool_destroy = bind(pool, "pthreadpool_destroy", None, [c_void_p])
        # bool xnn_is_f16_native_supported(void): fp16 arithmetic in hardware. It initializes
        # the hardware config itself; the wheel's x86-64 build always returns false.
        self.is_f16_native_supported = bind(xnn, "xnn_is_f16_native_supported", c_bool, [])
        self.initialized_status = self.initialize(None)


_LIBRARY: Library | None = None


def library() -> Library:
    """The loaded library, with `xnn_initialize(NULL)` called once per process."""
    global _LIBRARY
    if _LIBRARY is None:
        _LIBRARY = Library()
    return _LIBRARY


_POOLS: dict[int, int] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(threads: int) -> int:
    """The process's pthreadpool of `threads` threads (threads > 1), made at first use and
    kept for the process's life, as ExecuTorch keeps one pool for all its programs: every
    runtime at that count runs on it. A pool per runtime gave a program of many runtimes
    (EnCodec at 2 threads: its pieces and each LSTM cell's 7 step runtimes) a worker thread
    per runtime, all on the same cores. Sharing is safe: `pthreadpool_parallelize` takes the
    pool's execution mutex, so callers from several threads take turns per parallel
    operation. A forked child starts without pools (the parent's workers do not exist there)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = library().pthreadpool_create(threads)
            if not pool:
                raise MemoryError(f"pthreadpool_create({threads}) failed")
            _POOLS[threads] = pool
        return pool


def _forget_pools() -> None:
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def f16_native_supported() -> bool:
    """Whether XNNPACK runs fp16 arithmetic natively on this machine."""
    return bool(library().is_f16_native_supported())


def sizes(values) -> ctypes.Array:
    """A `const size_t*` argument."""
    return (c_size_t * len(values))(*(int(v) for v in values))


def int64s(values) -> ctypes.Array:
    """A `const int64_t*` argument."""
    return (c_int64 * len(values))(*(int(v) for v in values))


def uint32s(values) -> ctypes.Array:
    """A `const uint32_t*` argument."""
    return (c_uint32 * len(values))(*(int(v) for v in values))


def uint64_array(count: int) -> ctypes.Array:
    return (c_uint64 * count)()


class RowRunner:
    """`rows.c`'s `xnnc_run_rows`, built with the package (`pyproject.toml`'s ext-modules):
    a table's rows of set-up and invoke in one call, with copies before and after.
    `run(rows, count, copies, copies_in, copies_out, failure)`: the rows' address ([count, 5]
    uint64: runtime, externals, table address, owner word address, token or 0), the copies'
    ([copies_in + copies_out, 3]: destination, source, bytes) and that of an int32[2] for a
    failure's status and stage; returns the failing row's index, or `count`."""

    def __init__(self, path: Path, lib: Library):
        fn = ctypes.CDLL(str(path)).xnnc_run_rows
        fn.restype = c_size_t
        fn.argtypes = [c_void_p, c_void_p, c_void_p, c_size_t, c_void_p, c_size_t, c_size_t,
                       c_void_p]  # fmt: skip
        setup = ctypes.cast(lib.setup_runtime_at, c_void_p).value
        invoke = ctypes.cast(lib.invoke_runtime, c_void_p).value
        self.run = functools.partial(fn, setup, invoke)


@functools.cache
def row_runner() -> RowRunner | None:
    """The C row loop, or None where the package was not built (a source tree on the path):
    the callers then loop in Python."""
    here = Path(__file__).parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = here / f"_rows{suffix}"
        if path.exists():
            return RowRunner(path, library())
    return None
