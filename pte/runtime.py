"""Running a `.pte` on stock ExecuTorch: `StockRuntime` and its input checks.

The run side of `xnnc.pte`: it imports nothing of ExecuTorch's compiler (`executorch.exir`),
so compiling for, or running on, xnnc's own runtime never loads it. (ExecuTorch's
pybindings, loaded by the first `StockRuntime`, do import it.)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import torch

from xnnc.backend_xnnpack.runtime.runtime import check_threads
from xnnc.errors import InputError
from xnnc.pte.schema.program_generated import TensorShapeDynamism as Dynamism
from xnnc.pte.verify import PteInput, checked_inputs

# The method of a streaming `.pte` that returns its layout (`xnnc.pte.stream`).
LAYOUT_METHOD = "xnnc_stream"

# ExecuTorch's ScalarType (c10's numbering) -> torch dtype: `executorch.exir.tensor`'s table,
# here so that checking an input needs no `exir` (a test compares the two).
DTYPES = {
    0: torch.uint8,
    1: torch.int8,
    2: torch.int16,
    3: torch.int32,
    4: torch.int64,
    5: torch.float16,
    6: torch.float32,
    7: torch.float64,
    8: torch.complex32,
    9: torch.complex64,
    10: torch.complex128,
    11: torch.bool,
    12: torch.qint8,
    13: torch.quint8,
    14: torch.qint32,
    15: torch.bfloat16,
    16: torch.quint4x2,
    23: torch.float8_e5m2,
    24: torch.float8_e4m3fn,
    27: torch.uint16,
    28: torch.uint32,
}


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
        self._inputs = checked_inputs(pte, name)
        if threads is not None:
            portable_lib._unsafe_reset_threadpool(threads)
        self._buffer = bytes(pte)
        self._module = portable_lib._load_for_executorch_from_buffer(self._buffer)
        self._lock = threading.Lock()

    def constant(self, method: str) -> Any:
        """The value a constant method of the `.pte` returns (KeyError if it has none)."""
        if method not in self._module.method_names():
            raise KeyError(method)
        with self._lock:
            return self._module.run_method(method, [])[0]

    def __call__(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """`forward` on `inputs`, each checked against the `.pte`'s declaration first (stock
        ExecuTorch checks only that a bounded input's element count fits its memory, so
        65 frames of 4 channels would pass a bound of 5 channels, 64 frames)."""
        check_inputs(self._inputs, inputs)
        with self._lock:
            return tuple(self._module.forward(list(inputs), clone_outputs=True))


class PteInputError(InputError):
    """An input a `.pte`'s method does not take: the count, dtype, rank or a size."""


def check_inputs(declared: list[PteInput | None], inputs: Sequence[Any]) -> None:
    """Raise PteInputError naming the first input (and dim) that does not fit `declared`,
    what `checked_inputs` read from the file; no check where it declares nothing."""
    if declared and len(inputs) != len(declared):
        raise PteInputError(f"the .pte's forward takes {len(declared)} input(s); got {len(inputs)}")
    for i, (want, got) in enumerate(zip(declared, inputs)):
        if want is None or not isinstance(got, torch.Tensor):
            continue
        dtype = DTYPES.get(want.scalar_type, got.dtype)  # another type: ExecuTorch decides
        if got.dtype != dtype:
            raise PteInputError(f"input {i} is {got.dtype}; the .pte takes {dtype}")
        if got.dim() != len(want.sizes):
            raise PteInputError(
                f"input {i} has {got.dim()} dims; the .pte takes {len(want.sizes)} "
                f"(sizes {list(want.sizes)})"
            )
        for d, (size, bound) in enumerate(zip(got.shape, want.sizes)):
            if want.dynamism == Dynamism.STATIC and size != bound:
                raise PteInputError(f"input {i} dim {d} is {size}; allowed: {bound}")
            if want.dynamism == Dynamism.DYNAMIC_BOUND and size > bound:
                raise PteInputError(
                    f"input {i} dim {d} is {size}; allowed: at most {bound} (the .pte's bound)"
                )
