"""`.pte` files whose delegates are xnnc blobs, and stock ExecuTorch to run them.

    pte = to_pte(model, inputs, CompileOptions(target="stock", fp16="fp32"))
    write_pte("m.pte", model, inputs)      # the same, streamed to a file
    StockRuntime(pte)(x)

`to_executorch(edge)` and `retarget(edge)` remain for older callers: `XnncPartitioner`'s
delegates already name `XnnpackBackend`, so ExecuTorch's own `edge.to_executorch()` does.
"""

from __future__ import annotations

import gc
import tempfile
import threading
from typing import Any, BinaryIO

import torch
from executorch.exir.lowered_backend_module import LoweredBackendModule

from xnnc import heap
from xnnc.backend_xnnpack.runtime.runtime import check_threads
from xnnc.frontend.fx_importer import forget_trace_nodes
from xnnc.options import CompileOptions
from xnnc.pte.backend import STOCK_BACKEND_ID, XnncBackend, copy_sharing_tensors
from xnnc.pte.partitioner import XnncPartitioner
from xnnc.pte.verify import check_pte


def retarget(edge_manager: Any) -> Any:
    """Compatibility: point modules lowered with `to_backend("XnncBackend", ...)` at the
    stock `XnnpackBackend` delegate; returns `edge_manager`."""
    for method in edge_manager.methods:
        gm = edge_manager.exported_program(method).graph_module
        for sub in gm.modules():
            if isinstance(sub, LoweredBackendModule) and sub.backend_id == XnncBackend.__name__:
                sub._backend_id = STOCK_BACKEND_ID
    return edge_manager


def to_executorch(edge_manager: Any) -> Any:
    """Compatibility alias of `edge_manager.to_executorch()` (after `retarget`)."""
    return retarget(edge_manager).to_executorch()


def to_pte(
    model: Any,
    example_inputs: Any = None,
    options: CompileOptions | None = None,
    *,
    dynamic_shapes: Any = None,
    **fields: Any,
) -> bytes:
    """A `.pte` whose delegates are xnnc blobs, for stock ExecuTorch: an nn.Module with
    inputs, or an ExportedProgram, compiled under `options` (or its fields as keywords) with
    the target's runtime set to stock. `dynamic_shapes` is torch.export's argument, as for
    `xnnc.compile`: the `.pte` then runs at any size in range.

    Streamed to a temporary file and read back once the blobs are gone: joining it in
    memory (ExecuTorch's `.buffer`) held the blobs and the `.pte` at once, 2x the weights."""
    with tempfile.TemporaryFile() as f:
        _write(f, _program(model, example_inputs, options, dynamic_shapes, **fields))
        f.seek(0)
        return f.read()


def write_pte(
    path: str,
    model: Any,
    example_inputs: Any = None,
    options: CompileOptions | None = None,
    *,
    dynamic_shapes: Any = None,
    **fields: Any,
) -> None:
    """`to_pte` written to `path` piece by piece, without joining the `.pte` in memory
    first (the blobs are not copied a second time)."""
    program = _program(model, example_inputs, options, dynamic_shapes, **fields)
    with open(path, "wb") as f:
        _write(f, program)


def _write(f: BinaryIO, program: Any) -> None:
    """Writes `program` (ExecuTorch's program manager, the last reference to it) to `f`,
    then lets go of its delegate blobs."""
    program.write_to_file(f)
    del program
    _forget_lowered_modules()


def _forget_lowered_modules() -> None:
    """Empties the two process-wide caches that kept every lowered program (and its blobs,
    about the size of the weights) alive after the `.pte` was written: ExecuTorch's
    `is_same_node` (an unbounded lru_cache of graph nodes) and the entries of torch's
    fake-tensor dispatch cache keyed by a lowered module (`executorch_call_delegate`'s
    argument), which a dead module can never hit again."""
    from executorch.exir.backend.utils import is_same_node
    from torch._subclasses.fake_tensor import FakeTensorMode

    is_same_node.cache_clear()
    cache = FakeTensorMode.cache
    for key in [k for k in cache if any(isinstance(e, LoweredBackendModule) for e in k.key)]:
        del cache[key]
    forget_trace_nodes()  # to_edge's last decomposition
    gc.collect()  # the modules sit in reference cycles (graph modules)
    heap.trim()


def _program(
    model: Any,
    example_inputs: Any,
    options: CompileOptions | None,
    dynamic_shapes: Any = None,
    **fields: Any,
):
    """ExecuTorch's program manager for `to_pte`'s arguments."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.frontend.fx_importer import export_program

    options = CompileOptions.of(options, **fields)
    options = options.replace(target=options.target.replace(runtime="stock"))
    ep = copy_sharing_tensors(export_program(model, example_inputs, dynamic_shapes))
    return to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner(options)]).to_executorch()


class StockRuntime:
    """A `.pte` on stock ExecuTorch's pybindings; keeps the buffer alive with the module.

    Callable from several threads: an ExecuTorch method plans its activations into memory
    owned by the loaded module, so calls take turns (ExecuTorch 1.5.1's pybindings also hold
    the GIL through `forward`; the lock keeps the guarantee if they stop). Outputs are cloned
    out of that memory, so a later call cannot change them."""

    def __init__(self, pte: bytes, threads: int | None = None, name: str = ".pte buffer"):
        """`name` (the file) is what an error about a malformed `pte` names (`PteError`:
        checked first, as ExecuTorch's loader aborts the process on some)."""
        from executorch.extension.pybindings import portable_lib

        if threads is not None:
            check_threads(threads)  # the check (and message) of xnnc's own runtime
        check_pte(pte, name)
        if threads is not None:
            portable_lib._unsafe_reset_threadpool(threads)
        self._buffer = bytes(pte)
        self._module = portable_lib._load_for_executorch_from_buffer(self._buffer)
        self._lock = threading.Lock()

    def __call__(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        with self._lock:
            return tuple(self._module.forward(list(inputs), clone_outputs=True))
