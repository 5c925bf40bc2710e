"""xnnc's extended runtime: ExecuTorch XNNPACK delegate blobs (stock ExecuTorch's and xnnc's,
with its extension node kinds) run on XNNPACK's C API through ctypes."""

from xnnc.backend_xnnpack.runtime.runtime import XnnpackError, XnnRuntime

__all__ = ["XnnRuntime", "XnnpackError"]
