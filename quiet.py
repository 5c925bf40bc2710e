"""Upstream noise a command-line tool cannot act on, kept off its output. The tools and the
demo call these; library calls never do, so a program embedding xnnc sees what its
libraries say.

- torch 2.13's pytree warns (FutureWarning, "isinstance(treespec, LeafSpec)") each time an
  exported program is copied, from inside torch and ExecuTorch;
- ExecuTorch's runtime writes cpuinfo and thread-pool log lines ("[cpuinfo_utils.cpp:71]
  Reading file ...") to the process's stdout when it loads and first runs a program.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
import warnings
from collections.abc import Iterator


def quiet_warnings() -> None:
    """Ignore, for the rest of the process, the upstream warnings listed above, and the log
    lines torchao and torch print when ExecuTorch imports them (torchao's CUDA kernels that
    do not load on a CPU build, torch's pytree notice about an enum)."""
    warnings.filterwarnings("ignore", message=r".*LeafSpec.*", category=FutureWarning)
    logging.getLogger("torchao").setLevel(logging.ERROR)
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)


@contextlib.contextmanager
def native_output_silenced() -> Iterator[None]:
    """Within the block, what native code writes to file descriptors 1 and 2 is dropped
    (ExecuTorch logs to stdout, buffered by C when it is not a terminal). Python's streams
    are flushed before, C's before the descriptors come back, so nothing written in the
    block surfaces after it; print nothing inside it."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
        yield
    finally:
        ctypes.CDLL(None).fflush(None)
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
