"""`.pte` files whose delegates are xnnc blobs, and stock ExecuTorch to run them.

    pte = to_pte(model, inputs, CompileOptions(target="stock", fp16="fp32"))
    write_pte("m.pte", model, inputs)      # the same, streamed to a file
    StockRuntime(pte)(x)

`to_executorch(edge)` and `retarget(edge)` remain for older callers: `XnncPartitioner`'s
delegates already name `XnnpackBackend`, so ExecuTorch's own `edge.to_executorch()` does.
"""

from __future__ import annotations

import gc
import importlib.metadata
import tempfile
from typing import Any, BinaryIO

import sympy
import torch
from executorch.exir._serialize._serialize import serialize_for_executorch
from executorch.exir.capture._config import EdgeCompileConfig, ExecutorchBackendConfig
from executorch.exir.lowered_backend_module import LoweredBackendModule
from executorch.exir.schema import DelegateCall
from torch.export import ExportedProgram
from torch.utils._sympy.value_ranges import bound_sympy

from xnnc import heap
from xnnc.errors import XnncError
from xnnc.frontend.fx_importer import torch_leftovers_dropped
from xnnc.frontend.symbolic_lstm import describe, symbolic_lstms
from xnnc.pipeline.options import CompileOptions
from xnnc.pte import lstm_calls
from xnnc.pte.backend import XnncBackend, copy_sharing_tensors
from xnnc.pte.partitioner import XnncPartitioner, stock_kernels
from xnnc.pte.verify import STOCK_BACKEND_ID


def retarget(edge_manager: Any) -> Any:
    """Compatibility: point modules lowered with `to_backend("XnncBackend", ...)` at the
    stock `XnnpackBackend` delegate; returns `edge_manager`."""
    for method in edge_manager.methods:
        gm = edge_manager.exported_program(method).graph_module
        for sub in gm.modules():
            if isinstance(sub, LoweredBackendModule) and sub.backend_id == XnncBackend.__name__:
                sub._backend_id = STOCK_BACKEND_ID
    return edge_manager


def to_executorch(edge_manager: Any) -> Any:
    """Compatibility alias of `edge_manager.to_executorch()` (after `retarget`)."""
    return retarget(edge_manager).to_executorch()


def to_pte(
    model: Any,
    example_inputs: Any = None,
    options: CompileOptions | None = None,
    *,
    dynamic_shapes: Any = None,
    **fields: Any,
) -> bytes:
    """A `.pte` whose delegates are xnnc blobs, for stock ExecuTorch: an nn.Module with
    inputs, or an ExportedProgram, compiled under `options` (or its fields as keywords) with
    the target's runtime set to stock. `dynamic_shapes` is torch.export's argument, as for
    `xnnc.compile`: the `.pte` then runs at any size in range. An LSTM xnnc takes whole
    runs as calls of one delegate per step (`xnnc.pte.lstm_calls`: one packed W_hh on a
    runtime without XNNPACK's weights cache, such as the pip wheel's);
    `disable=("lstm-step-calls",)` keeps its steps in one delegate.

    Streamed to a temporary file and read back once the blobs are gone: joining it in
    memory (ExecuTorch's `.buffer`) held the blobs and the `.pte` at once, 2x the weights."""
    with tempfile.TemporaryFile() as f:
        with torch_leftovers_dropped():
            _write(f, _program(model, example_inputs, options, dynamic_shapes, **fields))
        _collect()
        f.seek(0)
        return f.read()


def write_pte(
    path: str,
    model: Any,
    example_inputs: Any = None,
    options: CompileOptions | None = None,
    *,
    dynamic_shapes: Any = None,
    constant_methods: dict[str, Any] | None = None,
    **fields: Any,
) -> None:
    """`to_pte` written to `path` piece by piece, without joining the `.pte` in memory
    first (the blobs are not copied a second time). `constant_methods`: methods that return
    a constant (ExecuTorch's argument), such as a streaming step's layout."""
    with torch_leftovers_dropped():
        program = _program(model, example_inputs, options, dynamic_shapes,
                           constant_methods=constant_methods, **fields)  # fmt: skip
        with open(path, "wb") as f:  # not before: a refused program leaves no file
            _write(f, program)
        del program
    _collect()


def _write(f: BinaryIO, program: Any) -> None:
    """Writes `program` (ExecuTorch's program manager) to `f`, then empties the cache that
    would keep its delegate blobs alive after the caller lets go of it."""
    program.write_to_file(f)
    del program
    _forget_lowered_modules()


def _forget_lowered_modules() -> None:
    """Lets go of the lowered program (its blobs: about the size of the weights) that
    ExecuTorch's `is_same_node`, an unbounded lru_cache of graph nodes, keeps alive after
    the `.pte` is written; torch's fake-tensor cache, which keys `executorch_call_delegate`
    by the lowered module, is emptied of the call's entries by `torch_leftovers_dropped`."""
    from executorch.exir.backend.utils import is_same_node

    is_same_node.cache_clear()


def _collect() -> None:
    """Frees the call's graphs and lowered modules once no cache holds them (they sit in
    reference cycles), and returns their heap to the system."""
    gc.collect()
    heap.trim()


def _program(
    model: Any,
    example_inputs: Any,
    options: CompileOptions | None,
    dynamic_shapes: Any = None,
    constant_methods: dict[str, Any] | None = None,
    **fields: Any,
):
    """ExecuTorch's program manager for `to_pte`'s arguments."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.frontend.fx_importer import export_program

    options = CompileOptions.of(options, **fields)
    options = options.replace(target=options.target.replace(runtime="stock"))
    ep = copy_sharing_tensors(export_program(model, example_inputs, dynamic_shapes))
    refuse_symbolic_lstm(ep)
    ranges = dict(ep.range_constraints)  # the export's, before any fake run can narrow them
    partitioner = XnncPartitioner(options)
    steps = None
    if "lstm-step-calls" not in options.disable:
        steps = lstm_calls.stepped(ep, partitioner._lstms_taken(ep))
    complex_scalars_as_tensors(steps or ep)
    lowered = to_edge_transform_and_lower(
        steps or ep, partitioner=[partitioner], compile_config=edge_config(ep),
        constant_methods=constant_methods,
    )  # fmt: skip
    del ep, steps
    lstm_calls.call_steps(lowered, options)
    config = ExecutorchBackendConfig()
    program = lowered.to_executorch(config)
    check_kernels(program)
    check_planned_bounds(program.exported_program(), ranges)
    if lstm_calls.expand_calls(program) + share_identical_delegates(program):
        _serialize_again(program, config)
    return program


def complex_scalars_as_tensors(ep: ExportedProgram) -> None:
    """Each complex scalar argument (`x * 1j`) becomes a 0-d tensor made by `aten.full` in
    the graph: ExecuTorch 1.5.1's dtype-promotion pass (RemoveMixedTypeOperators) fails on
    a Python complex. xnnc folds the `full` into the piece it delegates."""
    graph, changed = ep.graph, False
    for node in list(graph.nodes):
        if node.op != "call_function" or not any(isinstance(a, complex) for a in node.args):
            continue
        val = node.meta.get("val")
        complex128 = isinstance(val, torch.Tensor) and val.dtype == torch.complex128
        dtype = torch.complex128 if complex128 else torch.complex64
        args = list(node.args)
        for i, a in enumerate(args):
            if isinstance(a, complex):
                with graph.inserting_before(node):
                    full = graph.call_function(
                        torch.ops.aten.full.default, ([], a), {"dtype": dtype}
                    )
                full.meta["val"] = torch.full([], a, dtype=dtype)
                args[i] = full
        node.args, changed = tuple(args), True
    if changed:
        graph.lint()
        ep.graph_module.recompile()


def edge_config(ep: ExportedProgram) -> EdgeCompileConfig:
    """ExecuTorch's edge checks, but for a program with complex values: its verifier
    refuses an op on a complex and a real tensor (`z * 1j`, `magnitude * phase`), which
    xnnc lowers to real parts (`aten-lower-complex`). What stays outside is still checked
    for kernels (`check_kernels`)."""
    has_complex = any(
        isinstance(v := node.meta.get("val"), torch.Tensor) and v.is_complex()
        for node in ep.graph.nodes
    )
    return EdgeCompileConfig(_check_ir_validity=not has_complex)


def missing_kernels(manager: Any) -> list[str]:
    """The operators the emitted program of `manager` (ExecuTorch's program manager) calls
    outside its delegates that the installed stock runtime has no kernel for."""
    kernels = stock_kernels()
    missing = []
    for plan in manager.executorch_program.execution_plan:
        for op in plan.operators:
            name = f"{op.name}.{op.overload}" if op.overload else op.name
            if name not in kernels and name not in missing:
                missing.append(name)
    return missing


def check_kernels(manager: Any) -> None:
    """XnncError, at save time, naming the operators the `.pte` calls outside XNNPACK that
    stock ExecuTorch has no kernel for: it would fail at load ("Missing operator")."""
    missing = missing_kernels(manager)
    if missing:
        also = f" (also {', '.join(missing[1:])})" if missing[1:] else ""
        raise XnncError(
            f"to_pte: {missing[0]}{also} has no kernel in ExecuTorch "
            f"{importlib.metadata.version('executorch')}'s portable library, so the stock "
            "runtime could not load this .pte; compile it for target='extended' (xnnc's "
            "runtime runs it on torch), or keep the op out of the model"
        )


def share_identical_delegates(manager: Any) -> int:
    """Makes every call of a delegate whose blob and compile specs another call already has
    call that one entry of its method's delegate list in `manager`'s emitted program
    (ExecuTorch's program manager); returns how many entries went (`_serialize_again`
    writes the change).

    ExecuTorch 1.5.1's emitter stores identical blobs once but gives each call site its own
    delegate entry, and its runtime initializes each entry: for XNNPACK, a runtime that
    packs its own copy of every weight (the pip wheel has no XNNPACK weights cache). One
    entry called N times packs once; XNNPACK's executor sets a runtime up for each call's
    arguments, so calls in sequence are as correct as N entries (tested)."""
    dropped = 0
    for plan in manager.executorch_program.execution_plan:
        first: dict[tuple, int] = {}
        kept: list[Any] = []
        moved: dict[int, int] = {}
        for i, delegate in enumerate(plan.delegates):
            data = delegate.processed
            specs = tuple((spec.key, bytes(spec.value)) for spec in delegate.compile_specs)
            key = (delegate.id, data.location, data.index, specs)
            if key not in first:
                first[key] = len(kept)
                kept.append(delegate)
            moved[i] = first[key]
        if len(kept) == len(plan.delegates):
            continue
        dropped += len(plan.delegates) - len(kept)
        plan.delegates = kept
        for chain in plan.chains:
            for instruction in chain.instructions:
                if isinstance(instruction.instr_args, DelegateCall):
                    call = instruction.instr_args
                    call.delegate_index = moved[call.delegate_index]
    return dropped


def _serialize_again(manager: Any, config: Any) -> None:
    """Serializes `manager` (emitted with `config`) from its changed emitted program."""
    # let go of the first serialization before the next
    manager._pte_data = manager._tensor_data = manager._buffer = None
    manager._pte_data, manager._tensor_data = serialize_for_executorch(
        manager._emitter_output, config, manager._data_serializer, manager._named_data
    )


def refuse_symbolic_lstm(ep: ExportedProgram) -> None:
    """One line instead of a `.pte` stock ExecuTorch cannot run: an LSTM over a symbolic
    time axis stays whole (frontend/symbolic_lstm.py), and ExecuTorch 1.5.1's kernels have
    no `aten::lstm` (nor XNNPACK a recurrent node), while unrolling needs the frame count."""
    if lstms := symbolic_lstms(ep.graph):
        raise XnncError(
            f"to_pte: {describe(ep, lstms[0])}: an LSTM over a symbolic time axis has no .pte form "
            "(ExecuTorch 1.5.1 has no LSTM kernel, XNNPACK no recurrent node, and unrolling "
            "needs the frame count); export with a static frame count for a .pte"
        )


def check_planned_bounds(planned: ExportedProgram, ranges: dict) -> None:
    """Raise XnncError if ExecuTorch planned a user input for less than the export's
    `ranges` allow, rather than write a `.pte` that fails above the planned size: memory
    planning reads the ranges from the program's ShapeEnv, which any guard recorded during
    `to_executorch` narrows (a stock delegate's fake run does; xnnc's do not:
    `backend.install_unguarded_fake_run`)."""
    users = set(planned.graph_signature.user_inputs)
    for node in planned.graph.nodes:
        val, spec = node.meta.get("val"), node.meta.get("spec")
        if node.name not in users or not isinstance(val, torch.Tensor) or spec is None:
            continue
        for d, (size, planned_size) in enumerate(zip(val.shape, spec.shape)):
            if not isinstance(size, torch.SymInt):
                continue
            upper = bound_sympy(size.node.expr, ranges).upper
            if isinstance(upper, sympy.Integer) and planned_size < int(upper):
                raise XnncError(
                    f"to_pte: ExecuTorch planned input '{node.name}' dim {d} for at most "
                    f"{planned_size} but the export allows {upper} (its memory planning read "
                    "a narrowed range)"
                )
