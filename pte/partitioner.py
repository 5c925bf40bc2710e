"""`.pte` export: xnnc as an ExecuTorch partitioner and backend.

    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner(target="stock")])
    pte = xnnc.pte.partitioner.to_executorch(edge).buffer   # runs on stock ExecuTorch

`XnncPartitioner` tags the FX nodes that xnnc's own partitioner puts in each `xnn.subgraph`;
`XnncBackend.preprocess` runs the xnnc pipeline on each tagged piece and returns our blob.
The backend has its own class name (a second `XnnpackBackend` class would silently take over
the stock flow in this process); `retarget` renames the lowered modules' backend id to
`XnnpackBackend`, the delegate the stock runtime knows, before `to_executorch()`.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from executorch.exir.lowered_backend_module import LoweredBackendModule
from torch.export import ExportedProgram
from xdsl.dialects.builtin import NameLoc
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation

import xnnc
from xnnc.backend_xnnpack.serialize import TARGETS, SerializeError, serialize_subgraph
from xnnc.conversion.partition import PartitionPass
from xnnc.dialects import aten, xnn
from xnnc.driver import resolve_fp16
from xnnc.frontend.fx_importer import import_model
from xnnc.pipeline import lower

STOCK_BACKEND_ID = "XnnpackBackend"
_TARGET_KEY = "xnnc_target"
_FP16_KEY = "xnnc_fp16"


_FLOATS = (torch.float32, torch.float16)


def _user_inputs(ep: ExportedProgram) -> set[str]:
    return {spec.arg.name for spec in ep.graph_signature.input_specs
            if spec.kind.name == "USER_INPUT"}  # fmt: skip


def _spec(compile_specs: list[CompileSpec], key: str, default: str) -> str:
    for spec in compile_specs:
        if spec.key == key:
            return spec.value.decode()
    return default


def fx_node_name(op: Operation) -> str | None:
    """The FX node an imported op came from (its location's innermost name)."""
    loc = op.location
    name = None
    while isinstance(loc, NameLoc):
        name = loc.desc.data
        loc = loc.location
    return name


class XnncBackend(BackendDetails):
    """Compiles one tagged piece of an edge program into an xnnc XNNPACK blob."""

    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> Any:
        target = _spec(compile_specs, _TARGET_KEY, "stock")
        fp16 = _spec(compile_specs, _FP16_KEY, "native")  # resolved by XnncPartitioner
        module = lower(import_model(edge_program), target, fp16=fp16)
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
        return PreprocessResult(processed_bytes=serialize_subgraph(sub, target))


class XnncPartitioner(Partitioner):
    """Delegates what xnnc's partitioner puts in `xnn.subgraph`s; `target` is the blob's,
    `fp16` how fp16 computes in it (`program.FP16_OPTIONS`). "auto" is resolved here, for the
    machine compiling: pass "native" or "fp32" for a .pte meant for another machine."""

    def __init__(self, target: str = "stock", fp16: str = "auto"):
        if target not in TARGETS:
            raise ValueError(f"unknown target '{target}'; expected one of {', '.join(TARGETS)}")
        super().__init__()
        self.target = target
        self.fp16 = resolve_fp16(fp16)
        specs = [
            CompileSpec(_TARGET_KEY, target.encode()),
            CompileSpec(_FP16_KEY, self.fp16.encode()),
        ]
        self.delegation_spec = DelegationSpec(XnncBackend.__name__, specs)

    def ops_to_not_decompose(self, ep: ExportedProgram) -> tuple[list[Any], Any]:
        """Keep the non-core ops xnnc lowers whole (linear, hardswish, bilinear upsampling,
        pixel_shuffle) when the node will be delegated: ExecuTorch requires that."""
        keep = [
            torch.ops.aten.linear.default,
            torch.ops.aten.hardswish.default,
            torch.ops.aten.upsample_bilinear2d.vec,
            torch.ops.aten.pixel_shuffle.default,
        ]

        def delegated(node: Any) -> bool:
            tensors = [a for a in node.args if isinstance(a, torch.fx.Node)]
            vals = [a.meta.get("val") for a in tensors]
            if not all(isinstance(v, torch.Tensor) and v.dtype in _FLOATS for v in vals):
                return False
            if node.target == torch.ops.aten.linear.default:
                return all(a.op == "placeholder" and a.name not in _user_inputs(ep)
                           for a in tensors[1:])  # fmt: skip
            return True

        return keep, delegated

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        # Only the grouping is needed here (the program may hold no weight data yet).
        module = import_model(exported_program)
        PartitionPass(target=self.target).apply(xnnc.make_context(), module)
        func = next(op for op in module.ops if isinstance(op, FuncOp))
        tag_of: dict[str, str] = {}
        for i, sub in enumerate(op for op in func.body.block.ops if isinstance(op, xnn.SubgraphOp)):
            for inner in sub.walk():
                name = fx_node_name(inner)
                if name is not None and not isinstance(inner, xnn.ConstantOp):
                    tag_of[name] = f"xnnc_{i}"
        tags: dict[str, DelegationSpec] = {}
        for node in exported_program.graph.nodes:
            tag = tag_of.get(node.name)
            if node.op == "call_function" and tag is not None:
                node.meta["delegation_tag"] = tag
                tags[tag] = self.delegation_spec
        for node in exported_program.graph.nodes:  # getitem follows its tuple producer
            if node.op == "call_function" and node.target is operator.getitem:
                tag = node.args[0].meta.get("delegation_tag")
                if tag is not None:
                    node.meta["delegation_tag"] = tag
        tag_constant_data(exported_program)
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)


def retarget(edge_manager: Any) -> Any:
    """Point xnnc's lowered modules at the stock `XnnpackBackend` delegate; returns it."""
    for method in edge_manager.methods:
        gm = edge_manager.exported_program(method).graph_module
        for sub in gm.modules():
            if isinstance(sub, LoweredBackendModule) and sub.backend_id == XnncBackend.__name__:
                sub._backend_id = STOCK_BACKEND_ID
    return edge_manager


def to_executorch(edge_manager: Any) -> Any:
    """`retarget`, then ExecuTorch's `to_executorch()`."""
    return retarget(edge_manager).to_executorch()


def to_pte(model: Any, example_inputs: Any, target: str = "stock", fp16: str = "auto") -> bytes:
    """A `.pte` whose delegates are xnnc blobs: nn.Module + inputs, or an ExportedProgram."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.frontend.fx_importer import export_program

    ep = export_program(model, example_inputs)
    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner(target, fp16)])
    return to_executorch(edge).buffer


class StockRuntime:
    """A `.pte` on stock ExecuTorch's pybindings; keeps the buffer alive with the module."""

    def __init__(self, pte: bytes, threads: int | None = None):
        from executorch.extension.pybindings import portable_lib

        if threads is not None:
            portable_lib._unsafe_reset_threadpool(threads)
        self._buffer = bytes(pte)
        self._module = portable_lib._load_for_executorch_from_buffer(self._buffer)

    def __call__(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(self._module.forward(list(inputs)))
