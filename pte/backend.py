"""`XnncBackend`: ExecuTorch's `BackendDetails` for xnnc. It compiles one tagged piece of an
edge program with the pipeline, under the `CompileOptions` the partitioner put in its
compile specs, into one ExecuTorch XNNPACK delegate blob.

`XnncPartitioner`'s delegates name ExecuTorch's own `XnnpackBackend`, the id the stock
runtime registers, so an unmodified `to_executorch()` makes a runnable `.pte`. At import this
module wraps `XnnpackBackend.preprocess` (once per process): a piece whose compile specs
carry `OPTIONS_KEY` goes to `XnncBackend.preprocess`, any other piece to the original, so
`XnnpackPartitioner` flows in the same process are unchanged. A second class named
`XnnpackBackend` would not do: ExecuTorch looks backends up by class name, first match in
one place and last in another. It also wraps `executorch_call_delegate`'s fake
implementation (`install_unguarded_fake_run`): an xnnc piece's original graph is fake-run
without recording guards, so `to_executorch` keeps a dynamic input's range.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import torch
from executorch.exir._serialize._named_data_store import NamedDataStore
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch._guards import detect_fake_mode
from torch.export import ExportedProgram
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp

from xnnc import heap
from xnnc.backend_xnnpack.blob import inline_constants, read_blob
from xnnc.backend_xnnpack.serialize import SerializeError
from xnnc.dialects import aten, xnn
from xnnc.frontend.fx_importer import import_model
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import lower
from xnnc.pte.kept_ops import take_lstms
from xnnc.translate.xnnpack import serialize_subgraph_hashed

OPTIONS_KEY = "xnnc_options"
# The named data's alignment: stock ExecuTorch's XNNPACK serializer's CONSTANT_TENSOR_ALIGNMENT.
CONSTANT_ALIGNMENT = 16


def options_spec(options: CompileOptions) -> CompileSpec:
    """The compile spec carrying `options` into `XnncBackend.preprocess`."""
    return CompileSpec(OPTIONS_KEY, json.dumps(options.to_spec()).encode())


def options_of(compile_specs: list[CompileSpec]) -> CompileOptions:
    for spec in compile_specs:
        if spec.key == OPTIONS_KEY:
            return CompileOptions.from_spec(json.loads(spec.value.decode()))
    return CompileOptions(target="stock")


class XnncBackend(BackendDetails):
    """Compiles one tagged piece of an edge program into an xnnc XNNPACK blob."""

    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> Any:
        options = options_of(compile_specs)
        sizes = [
            n.name for n in edge_program.graph.find_nodes(op="placeholder")
            if isinstance(n.meta.get("val"), torch.SymInt)
        ]  # fmt: skip
        if sizes:
            raise SerializeError(
                f"xnnc: a delegated piece takes the symbolic size {', '.join(sizes)} as an "
                "argument, which stock ExecuTorch's XNNPACK executor refuses (it passes "
                "tensors only); compile it with xnnc.compile, or keep the op making that "
                "piece need it outside (exclude=...)"
            )
        module = _imported_piece(edge_program)
        lower(module, options, piece=True)
        func = next(op for op in module.ops if isinstance(op, FuncOp))
        subs = [op for op in func.body.block.ops if isinstance(op, xnn.SubgraphOp)]
        outside = [
            op.name for op in func.body.block.ops
            if not isinstance(op, (xnn.SubgraphOp, ReturnOp, aten.ConstantOp))
        ]  # fmt: skip
        if len(subs) != 1 or outside:
            raise SerializeError(
                f"xnnc: a delegated piece must become one subgraph; got {len(subs)} "
                f"and ops outside: {outside}"
            )
        sub = subs[0]
        args = list(func.body.block.args)
        if list(sub.inputs) != args:
            raise SerializeError(
                "xnnc: the subgraph's inputs must be the delegate's arguments in order"
            )
        ret = func.body.block.last_op
        if list(ret.operands) != list(sub.outputs):
            raise SerializeError("xnnc: the subgraph's outputs must be the delegate's results")
        # The constants go to ExecuTorch's named data, named by their SHA-256 as stock
        # ExecuTorch's serializer names them (one copy per program; one packed copy per name
        # where ExecuTorch's XNNPACK weights cache is on). Each IR weight is let go of once
        # copied, so the IR's copies and the named data do not all coexist.
        blob, named = serialize_subgraph_hashed(sub, options.target.runtime)
        del sub, subs, func, module
        heap.trim()  # the piece's IR and copies
        read_blob(blob, named)  # validates it, as serialize_subgraph does
        store = NamedDataStore()
        for key in list(named):
            store.add_named_data(key, named.pop(key), alignment=CONSTANT_ALIGNMENT)
        return PreprocessResult(
            processed_bytes=blob, data_store_output=store.get_named_data_store_output()
        )


def inlined_blob(lowered: Any) -> bytes:
    """The blob of an xnnc piece lowered by ExecuTorch (a `LoweredBackendModule`), the
    constants it names in its named data put back in its own region: the form
    `xnnc.compile` serializes a blob in."""
    out = lowered.named_data_store_output
    named = {} if out is None else {k: out.buffers[e.buffer_index] for k, e in out.pte_data.items()}
    return inline_constants(lowered.processed_bytes, named)


def _imported_piece(piece: ExportedProgram) -> ModuleOp:
    """The piece in the `aten` dialect, an LSTM `XnncPartitioner` took as one op
    (`xnnc.pte.kept_ops`)."""
    return take_lstms(import_model(piece))


def carries_xnnc_options(compile_specs: list[CompileSpec]) -> bool:
    """Whether a piece was tagged by `XnncPartitioner` (its specs hold xnnc's options)."""
    return any(spec.key == OPTIONS_KEY for spec in compile_specs)


def copy_sharing_tensors(ep: ExportedProgram) -> ExportedProgram:
    """A copy of `ep` whose graph may be changed (ExecuTorch's lowering takes lifted
    constants out of the program it lowers), sharing the weights' storage with `ep`."""
    tensors = [*ep.state_dict.values(), *ep.constants.values()]
    memo = {id(t): t for t in tensors if isinstance(t, torch.Tensor)}
    return copy.deepcopy(ep, memo)


def install_dispatch() -> None:
    """Route `XnnpackBackend.preprocess` to `XnncBackend.preprocess` for xnnc's pieces;
    idempotent. Their pieces are copied for preprocess without copying the weights
    (`XnncBackend.preprocess` only reads them): ExecuTorch's default deep copy put a
    second copy of every weight beside the blob."""
    from executorch.backends.xnnpack.xnnpack_preprocess import XnnpackBackend

    stock = XnnpackBackend.__dict__["preprocess"].__func__
    if getattr(stock, "xnnc_stock_preprocess", None) is not None:
        return
    stock_copy = XnnpackBackend.copy_exported_program_for_preprocess.__func__

    def copy_for_preprocess(cls: type, edge_program: ExportedProgram,
                            compile_specs: list[CompileSpec]) -> ExportedProgram:  # fmt: skip
        if carries_xnnc_options(compile_specs):
            return copy_sharing_tensors(edge_program)
        return stock_copy(cls, edge_program, compile_specs)

    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> Any:
        if carries_xnnc_options(compile_specs):
            return XnncBackend.preprocess(edge_program, compile_specs)
        return stock(edge_program, compile_specs)

    preprocess.xnnc_stock_preprocess = stock  # type: ignore[attr-defined]
    preprocess.__doc__ = stock.__doc__
    XnnpackBackend.preprocess = staticmethod(preprocess)
    XnnpackBackend.copy_exported_program_for_preprocess = classmethod(copy_for_preprocess)


def install_unguarded_fake_run() -> None:
    """Fake-run the original graph of xnnc's delegates with the ShapeEnv's guards
    suppressed; idempotent. `to_executorch`'s ExportPasses fake-run each delegate's
    original ATen graph on the program's symbolic inputs; the guards torch's kernels record
    there (the conv kernel's backend choice, `1024*T <= 20480` at the example size) narrow
    the range that memory planning reads as the input's bound (Mimi small: 20 frames, not
    64). A delegate runs no torch kernel, and the output shapes come out the same without
    them (docs/dynamic-shapes.md). Stock `XnnpackPartitioner` pieces run as before."""
    from torch._higher_order_ops.executorch_call_delegate import executorch_call_delegate
    from torch._higher_order_ops.utils import registered_hop_fake_fns

    stock = registered_hop_fake_fns[executorch_call_delegate]
    if getattr(stock, "xnnc_stock_fake_run", None) is not None:
        return

    def fake_run(lowered_module: Any, *args: Any) -> Any:
        mode = detect_fake_mode(args)
        shape_env = None if mode is None else mode.shape_env
        specs = getattr(lowered_module, "compile_specs", [])
        if shape_env is None or not carries_xnnc_options(specs):
            return stock(lowered_module, *args)
        with shape_env.suppress_guards():
            return stock(lowered_module, *args)

    fake_run.xnnc_stock_fake_run = stock  # type: ignore[attr-defined]
    registered_hop_fake_fns[executorch_call_delegate] = fake_run


install_dispatch()
install_unguarded_fake_run()
