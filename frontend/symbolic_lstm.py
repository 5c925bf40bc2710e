"""Export an `nn.LSTM` whose time axis is symbolic as one `aten.lstm.input` node.

torch.export (torch 2.13) records `aten.lstm.input` as one node, but computes its value on
fake tensors with torch's Python decomposition (`torch/_decomp/decompositions.py:
lstm_impl`), which iterates over the time axis (`inp.unbind(0)`): that pins a symbolic
frame count to the example's ("You marked T as dynamic but your code specialized it"). Two
places run it:
- tracing (export, `run_decompositions`): the proxy mode records the node, then calls the
  op on the fake inputs; the Python dispatcher sends it to the op's `py_kernels`
  (Autograd and CompositeImplicitAutograd both hold `lstm_impl`);
- FakeTensorMode itself: with symbolic sizes it prefers an op's Python decomposition
  (`torch._decomp.decomposition_table`, "post_autograd") over any registered fake impl,
  unless the op has a Python meta (`meta_table`); a fake impl (`register_fake`) would
  come after the decomposition and `torch.library` refuses one for an op with a
  CompositeImplicitAutograd kernel in core anyway.

`keep_lstm_whole()` swaps these three entries, for its duration only, for one function
that computes the outputs' shapes (`[T, B, D*H]`, `h_n`/`c_n` as `h_0`/`c_0`) when it
runs on fake tensors with a symbolic size and no graph is being traced through it, and
calls torch's decomposition otherwise (real tensors, static sizes, or a decomposition
being traced: then unrolling is what is asked for). This is the pattern of torch's own
`torch.export._patches.register_lstm_while_loop_decomposition`, which swaps the same
table entry and py_kernel. What export records is unchanged: one `aten.lstm.input` node
with the symbol's full range and no guard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch._C import DispatchKey
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram

from xnnc.backend_xnnpack.nodes import lstm_loop_refusal
from xnnc.errors import ModelImportError
from xnnc.frontend.symbols import SymbolTable

LSTM = torch.ops.aten.lstm.input


def _contiguous_lstm(*args: Any) -> tuple[torch.Tensor, ...]:
    """aten.lstm.input with contiguous results: batch_first's output is a transposed view,
    whose dim order ExecuTorch would plan for the delegate's output (XNNPACK writes it
    contiguous: `xnn.lstm` ends in a transpose)."""
    return tuple(t.contiguous() for t in LSTM(*args))


# `xnnc::lstm`: aten.lstm.input's schema and kernel in a namespace no decomposition table
# names, for an LSTM xnnc runs as one `xnn.lstm` (conversion/lstm.py): the `.pte` path keeps
# it whole through ExecuTorch's `to_edge` (pte/kept_ops.py), and `decompose` names a static
# LSTM so where the recurrent loop is not chosen (`keep_lstms`).
_LIBRARY = torch.library.Library("xnnc", "DEF")
_LIBRARY.define(str(LSTM._schema).replace("aten::lstm.input", "lstm"))
_LIBRARY.impl("lstm", _contiguous_lstm, "CompositeExplicitAutograd")
KEPT_LSTM = torch.ops.xnnc.lstm.default


def keep_lstms(ep: ExportedProgram, names: set[str] | None = None) -> None:
    """Make the `aten.lstm.input` nodes of `ep` named in `names` (None: all) call
    `xnnc::lstm`."""
    for node in ep.graph.nodes:
        if node.op == "call_function" and node.target is LSTM:
            if names is None or node.name in names:
                node.target = KEPT_LSTM
    ep.graph_module.recompile()


_KEYS = (DispatchKey.Autograd, DispatchKey.CompositeImplicitAutograd)


def _lstm_shapes(
    input: torch.Tensor, hx: Any, params: Any, has_biases: bool, num_layers: int,
    dropout: float, train: bool, bidirectional: bool, batch_first: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # fmt: skip
    """aten.lstm.input's outputs, shape only (what its meta would compute)."""
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else input.shape[:2]
    h0, c0 = hx
    width = (2 if bidirectional else 1) * h0.shape[-1]
    out = input.new_empty((batch, steps, width) if batch_first else (steps, batch, width))
    return out, h0.new_empty(h0.shape), c0.new_empty(c0.shape)


# On fake tensors (ExecuTorch's passes re-run the graph some 20 times) `xnnc::lstm` gives
# its outputs' shapes; its kernel would run torch's decomposition of the LSTM, which unrolls
# every time step (0.9 s per run for EnCodec's 2-layer, 75-frame LSTM on the Zen 4).
torch.library.register_fake("xnnc::lstm", _lstm_shapes, lib=_LIBRARY)


def _symbolic(t: Any) -> bool:
    return isinstance(t, FakeTensor) and any(isinstance(d, torch.SymInt) for d in t.shape)


def _tracing() -> bool:
    """Whether a proxy mode records what runs now (a decomposition being traced)."""
    return torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.PROXY) is not None


def _shape_only_on_symbolic(decomposition: Callable[..., Any]) -> Callable[..., Any]:
    def lstm(*args: Any, **kwargs: Any) -> Any:
        if args and _symbolic(args[0]) and not _tracing():
            return _lstm_shapes(*args, **kwargs)
        return decomposition(*args, **kwargs)

    return lstm


@contextmanager
def keep_lstm_whole() -> Iterator[None]:
    """For its duration, torch.export keeps an LSTM over a symbolic time axis as one
    `aten.lstm.input` node with the symbol's range (see the module docstring). Use it
    around your own export to hand xnnc such a program:

        with xnnc.frontend.symbolic_lstm.keep_lstm_whole():
            ep = torch.export.export(model, (x,), dynamic_shapes={"x": {2: T}})
    """
    from torch._decomp import global_decomposition_table

    op = torch.ops.aten.lstm.input
    table = global_decomposition_table["post_autograd"]
    saved_table = table.get(op)
    saved_kernels = {k: op.py_kernels.get(k) for k in _KEYS}
    try:
        if saved_table is not None:
            table[op] = _shape_only_on_symbolic(saved_table)
        for key, kernel in saved_kernels.items():
            if kernel is not None:
                op.py_kernels[key] = _shape_only_on_symbolic(kernel)
        op._dispatch_cache.clear()
        yield
    finally:
        if saved_table is not None:
            table[op] = saved_table
        for key, kernel in saved_kernels.items():
            if kernel is not None:
                op.py_kernels[key] = kernel
        op._dispatch_cache.clear()


def symbolic_lstms(graph: torch.fx.Graph) -> list[torch.fx.Node]:
    """The graph's `aten.lstm.input` nodes that run over a symbolic size."""
    op = torch.ops.aten.lstm.input
    return [
        n for n in graph.nodes
        if n.op == "call_function" and n.target is op and _symbolic(n.args[0].meta.get("val"))
    ]  # fmt: skip


def has_symbolic_lstm(graph: torch.fx.Graph) -> bool:
    """Whether the graph has an LSTM that must stay whole (see `symbolic_lstms`)."""
    return bool(symbolic_lstms(graph))


def loop_refusal(ep: ExportedProgram, node: torch.fx.Node) -> str | None:
    """Why xnnc's recurrent loop could not run this `aten.lstm.input` node (None: it can),
    read from the exported graph: the importer keeps a static LSTM whole only then, since one
    the loop declines would run on torch instead of unrolled on XNNPACK."""
    args = node.args
    if node.kwargs or len(args) != 9:
        return lstm_loop_refusal(arguments=len(args), keywords=bool(node.kwargs))
    x, hx, params, has_biases, layers, _, train, bidirectional, batch_first = args
    vals = [n.meta.get("val") for n in (x, *hx, *params)]
    f32 = len(hx) == 2 and all(
        isinstance(v, torch.Tensor) and v.dtype == torch.float32 for v in vals
    )
    sizes = list(vals[0].shape) + list(vals[1].shape) if f32 else []
    if sizes:
        del sizes[1 if batch_first else 0]  # the time axis may be symbolic
    signature = ep.graph_signature
    held = {*signature.inputs_to_parameters, *signature.inputs_to_buffers,
            *signature.inputs_to_lifted_tensor_constants}  # fmt: skip
    per_cell = (4 if has_biases else 2) * (2 if bidirectional else 1)
    return lstm_loop_refusal(
        train=bool(train), f32=f32,
        projected=f32 and (vals[1].shape[-1] != vals[2].shape[-1]
                           or len(params) != layers * per_cell),
        static=not any(isinstance(d, torch.SymInt) for d in sizes),
        constant_weights=all(p.op == "get_attr" or (p.op == "placeholder" and p.name in held)
                             for p in params),
    )  # fmt: skip


def describe(ep: ExportedProgram, node: torch.fx.Node) -> str:
    """`nn.LSTM 'model.1.lstm' (time axis T)`: the module that holds the node, its time dim
    as xnnc names it (the `Dim`'s name where torch kept it)."""
    stack = node.meta.get("nn_module_stack") or {}
    path = next(reversed(stack.values()))[0] if stack else node.name
    val = node.args[0].meta["val"]
    steps = val.shape[1] if node.args[8] else val.shape[0]
    try:
        steps = SymbolTable(ep).dim(steps, node.name)
    except ModelImportError:
        pass  # no upper bound: torch's own name says enough here
    return f"nn.LSTM '{path}' (time axis {steps})"
