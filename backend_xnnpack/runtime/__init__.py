"""xnnc's extended runtime: ExecuTorch XNNPACK delegate blobs (stock ExecuTorch's and xnnc's,
with its extension node kinds) run on XNNPACK's C API through ctypes. `open_runtime` loads a
blob with its bf16 GEMMs on XNNPACK's native kernel where the CPU has one."""

from xnnc.backend_xnnpack.runtime.bf16_gemm import SplitRuntime, open_runtime
from xnnc.backend_xnnpack.runtime.runtime import XnnpackError, XnnRuntime

__all__ = ["SplitRuntime", "XnnRuntime", "XnnpackError", "open_runtime"]
