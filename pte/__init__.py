"""xnnc inside ExecuTorch: `XnncPartitioner` (a drop-in for XnnpackPartitioner),
`XnncBackend`, and `.pte` export for the stock runtime."""

from xnnc.pte.backend import XnncBackend
from xnnc.pte.export import StockRuntime, retarget, to_executorch, to_pte, write_pte
from xnnc.pte.partitioner import XnncPartitioner
from xnnc.pte.verify import PteError, check_pte

__all__ = [
    "PteError",
    "StockRuntime",
    "XnncBackend",
    "XnncPartitioner",
    "check_pte",
    "retarget",
    "to_executorch",
    "to_pte",
    "write_pte",
]
