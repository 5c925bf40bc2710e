"""The process's heap: give the memory Python and torch freed back to the system.

glibc keeps freed blocks in its heap for reuse, and raises its mmap threshold to the size
of the largest block freed, so that after a compile stage's transient arrays and graphs are
gone the process still holds their pages: EnCodec's decoder kept ~1x its weights of freed
heap through lowering, which then sat under the packed weights XNNPACK allocates next.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _malloc_trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None


def trim() -> None:
    """Return the free pages of every malloc arena to the system (glibc's `malloc_trim`;
    a no-op elsewhere). Costs a walk of the heap, a few milliseconds: call it between
    stages, before a large allocation, not per op."""
    malloc_trim = _malloc_trim()
    if malloc_trim is not None:
        malloc_trim(0)
