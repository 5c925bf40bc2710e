"""xnnc's dialects: `aten` (PyTorch's ops), `xnn` (XNNPACK's subgraph nodes) and `xnnc`
(weights by reference). `get_all_dialects` is the registry every tool and context uses."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect


def _aten() -> Dialect:
    from xnnc.dialects.aten import Aten

    return Aten


def _xnn() -> Dialect:
    from xnnc.dialects.xnn import Xnn

    return Xnn


def _xnnc() -> Dialect:
    from xnnc.dialects.weights import Xnnc

    return Xnnc


def _builtin() -> Dialect:
    from xdsl.dialects.builtin import Builtin

    return Builtin


def _func() -> Dialect:
    from xdsl.dialects.func import Func

    return Func


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> a loader, as xDSL's `get_all_dialects`; loaded on first use."""
    return {"builtin": _builtin, "func": _func, "aten": _aten, "xnn": _xnn, "xnnc": _xnnc}
