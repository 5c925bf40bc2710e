"""xnnc inside ExecuTorch: `XnncPartitioner` (a drop-in for XnnpackPartitioner),
`XnncBackend`, `.pte` export for the stock runtime, and `check_pte`.

ExecuTorch's standard flow works unmodified:

    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner()])
    pte = edge.to_executorch().buffer      # stock ExecuTorch runs it

How: a `.pte` names each delegate by its backend id and the stock runtime registers only
`XnnpackBackend`, so `XnncPartitioner`'s delegation spec names `XnnpackBackend` and carries
xnnc's `CompileOptions` as a compile spec (`backend.OPTIONS_KEY`). ExecuTorch finds the
`BackendDetails` by class name, so importing this package wraps the stock class's
`preprocess` (once per process, `backend.install_dispatch`): a piece carrying xnnc's spec is
compiled by `XnncBackend.preprocess`, every other piece (`XnnpackPartitioner`'s) by the
original. A second class named `XnnpackBackend` was rejected: ExecuTorch's lookups disagree
on which of two same-named classes wins (first match in `to_backend`, last in
`lower_all_submodules_to_backend`).
"""

from xnnc.pte.backend import XnncBackend
from xnnc.pte.export import (
    PteInputError,
    StockRuntime,
    retarget,
    to_executorch,
    to_pte,
    write_pte,
)
from xnnc.pte.partitioner import XnncPartitioner
from xnnc.pte.verify import PteError, check_pte

__all__ = [
    "PteError",
    "PteInputError",
    "StockRuntime",
    "XnncBackend",
    "XnncPartitioner",
    "check_pte",
    "retarget",
    "to_executorch",
    "to_pte",
    "write_pte",
]
