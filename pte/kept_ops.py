"""The ops `XnncPartitioner` keeps whole through ExecuTorch's `to_edge`.

Non-core ops xnnc lowers as they are (linear, hardswish, ...) are kept where conversion
lowers them (`kept_whole`).

ExecuTorch's default decompositions unroll an LSTM into a few nodes per time step (EnCodec's
2-layer, 75-frame SLSTM: 2804 FX nodes), and its passes and verifiers retrace that graph
several times (2.8x the weights at peak before xnnc's partitioner ran). An LSTM xnnc takes
whole (`xnn.lstm` runs it: `conversion.lstm`) becomes `xnnc::lstm` before `to_edge`
decomposes (`XnncPartitioner.transform_for_pre_decomposition`): an op of xnnc's own
namespace with aten.lstm.input's schema and kernel, which no decomposition table names
and the edge verifier's core-ATen check leaves alone. `ops_to_not_decompose` cannot keep
it: ExecuTorch 1.5.1 drops any op with several results from that list ("aliases output",
torchgen's `aliased_return_names` is [None, None, None]). The partitioner groups it and
`XnncBackend.preprocess` compiles it as one `xnn.lstm`, whose steps exist only as nodes of
the serialized blob (`backend_xnnpack.lstm_steps`). An LSTM xnnc does not take is left to
`to_edge`, which unrolls it as before.
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch.fx import Node
from xdsl.dialects.builtin import ModuleOp, StringAttr

from xnnc.conversion.aten_to_xnn import lowered_ops
from xnnc.dialects.aten import GenericOp
from xnnc.frontend.symbolic_lstm import KEPT_LSTM, LSTM, keep_lstms  # noqa: F401 (re-exported)
from xnnc.ir.schema import qualified_name, torch_overload


def kept_whole() -> list[Any]:
    """The non-core ATen overloads xnnc lowers as they are (linear, hardswish, ...): those
    that torch.export's default decompositions would otherwise split up."""
    return list(_kept_whole())


@functools.cache
def _kept_whole() -> tuple[Any, ...]:
    """Once per process: ExecuTorch asks `ops_to_not_decompose` five times per lowering,
    and each look-up in the default decompositions lists torch's composite ops anew
    (0.43 s on the Zen 4)."""
    decomposed = torch.export.default_decompositions()
    keep = []
    for op in lowered_ops():
        for qualified in op.OVERLOADS:
            try:
                overload = torch_overload(qualified)
            except AttributeError:  # an overload this torch lacks
                continue
            if overload in decomposed:
                keep.append(overload)
    return tuple(keep)


def is_lstm(node: Node) -> bool:
    """Whether `node` calls `aten.lstm.input` or `xnnc::lstm` (ATen or ExecuTorch's edge
    op)."""
    if node.op != "call_function":
        return False
    return aten_overload(node.target) in (LSTM, KEPT_LSTM)


def is_kept_lstm(node: Node) -> bool:
    return node.op == "call_function" and aten_overload(node.target) is KEPT_LSTM


def aten_overload(target: Any) -> Any:
    """An FX node's target with an ExecuTorch EdgeOpOverload unwrapped to its ATen overload."""
    return getattr(target, "_op", target)


def take_lstms(module: ModuleOp) -> ModuleOp:
    """`module` with each `aten.lstm.input` op (one `to_edge` kept by `preserve_ops`)
    retargeted to `xnnc::lstm`: the `.pte` path delegates an LSTM whole or not at all
    (stock ExecuTorch has no LSTM kernel); conversion says whether `xnn.lstm` runs it."""
    for op in module.walk():
        if isinstance(op, GenericOp) and op.target.data == qualified_name(LSTM):
            op.target = StringAttr(qualified_name(KEPT_LSTM))
    return module
