"""xnnc inside ExecuTorch: `XnncPartitioner` (a drop-in for XnnpackPartitioner),
`XnncBackend`, `.pte` export for the stock runtime, and `check_pte`.

ExecuTorch's standard flow works unmodified:

    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner()])
    pte = edge.to_executorch().buffer      # stock ExecuTorch runs it

How: a `.pte` names each delegate by its backend id and the stock runtime registers only
`XnnpackBackend`, so `XnncPartitioner`'s delegation spec names `XnnpackBackend` and carries
xnnc's `CompileOptions` as a compile spec (`backend.OPTIONS_KEY`). ExecuTorch finds the
`BackendDetails` by class name, so importing `xnnc.pte.backend` (as `XnncPartitioner` does)
wraps the stock class's `preprocess` (once per process, `backend.install_dispatch`): a piece
carrying xnnc's spec is compiled by `XnncBackend.preprocess`, every other piece
(`XnnpackPartitioner`'s) by the original. A second class named `XnnpackBackend` was
rejected: ExecuTorch's lookups disagree on which of two same-named classes wins (first match
in `to_backend`, last in `lower_all_submodules_to_backend`).

The run side (`runtime`: `StockRuntime`) imports nothing of ExecuTorch's compiler, so the
names load on first use (PEP 562): running a `.pte`, or importing `xnnc.pte.runtime` for it,
does not load `executorch.exir`; `XnncPartitioner` and `to_pte` do.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "PteError": "xnnc.pte.verify",
    "PteInputError": "xnnc.pte.runtime",
    "StockRuntime": "xnnc.pte.runtime",
    "XnncBackend": "xnnc.pte.backend",
    "XnncPartitioner": "xnnc.pte.partitioner",
    "check_pte": "xnnc.pte.verify",
    "retarget": "xnnc.pte.export",
    "to_executorch": "xnnc.pte.export",
    "to_pte": "xnnc.pte.export",
    "write_pte": "xnnc.pte.export",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'xnnc.pte' has no attribute '{name}'")
