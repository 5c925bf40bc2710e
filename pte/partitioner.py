"""`XnncPartitioner`: xnnc as an ExecuTorch partitioner, a drop-in for XnnpackPartitioner.

    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner(options)])
    pte = edge.to_executorch().buffer                  # runs on stock ExecuTorch

It tags the FX nodes that xnnc's own partitioner (`xnn-partition`, with the options'
`exclude`) puts in each `xnn.subgraph`; `XnncBackend` then compiles each piece under the
same `CompileOptions`, so a delegate is what `xnnc.compile` makes of the same ops. The
delegates name stock `XnnpackBackend` (see `xnnc.pte.backend` for how they reach xnnc).
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch.export import ExportedProgram
from xdsl.dialects.builtin import FusedLoc, NameLoc
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

import xnnc
from xnnc.conversion.aten_to_xnn import CAST_TYPES, lowered_ops
from xnnc.conversion.partition import PartitionPass
from xnnc.dialects import xnn
from xnnc.frontend.fx_importer import import_model, torch_overload
from xnnc.frontend.schema import TORCH_DTYPES
from xnnc.options import CompileOptions
from xnnc.pipeline import raising_passes
from xnnc.pte.backend import STOCK_BACKEND_ID, options_spec
from xnnc.target import Target

# The dtypes conversion lowers (bf16 too: without it a bf16 linear was decomposed into
# addmm on a transposed weight, which conversion does not take).
_FLOATS = tuple(TORCH_DTYPES[t] for t in CAST_TYPES)


def _user_inputs(ep: ExportedProgram) -> set[str]:
    return {spec.arg.name for spec in ep.graph_signature.input_specs
            if spec.kind.name == "USER_INPUT"}  # fmt: skip


def fx_node_names(loc: Attribute) -> list[str]:
    """The FX nodes behind a location: one, or each of a fused location's (an op that a
    raising pattern made of several, e.g. `aten._safe_softmax`)."""
    if isinstance(loc, FusedLoc):
        return [name for inner in loc.locations.data for name in fx_node_names(inner)]
    name = None
    while isinstance(loc, NameLoc):
        name = loc.desc.data
        loc = loc.location
    return [] if name is None else [name]


def _op_name(target: Any) -> str | None:
    """`aten.linear` for torch.ops.aten.linear.default: the name `exclude` uses."""
    schema = getattr(target, "_schema", None)
    return None if schema is None else schema.name.replace("::", ".")


def kept_whole() -> list[Any]:
    """The non-core ATen overloads xnnc lowers as they are (linear, hardswish, ...): those
    that torch.export's default decompositions would otherwise split up."""
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
    return keep


class XnncPartitioner(Partitioner):
    """Delegates what xnnc's partitioner puts in `xnn.subgraph`s, compiled under `options`
    (a CompileOptions), or its fields as keywords; the target's runtime defaults to stock
    ExecuTorch. fp16="auto" resolves against the target: name a preset for a .pte meant for
    another CPU (e.g. target="stock,arm64-fp16-dotprod")."""

    def __init__(
        self,
        options: CompileOptions | Target | str | None = None,
        *,
        target: Target | str | None = None,
        threads: int | None = None,
        fp16: str | None = None,
        exclude: Any = None,
        disable: Any = None,
    ):
        super().__init__()
        if isinstance(options, str | Target):  # XnncPartitioner("stock")
            options, target = None, options if target is None else target
        if options is None and target is None:
            target = "stock"
        self.options = CompileOptions.of(
            options, target=target, threads=threads, fp16=fp16, exclude=exclude, disable=disable
        )
        self.delegation_spec = DelegationSpec(STOCK_BACKEND_ID, [options_spec(self.options)])

    def ops_to_not_decompose(self, ep: ExportedProgram) -> tuple[list[Any], Any]:
        """Keep the non-core ops xnnc lowers whole when the node will be delegated:
        ExecuTorch requires that."""

        def delegated(node: Any) -> bool:
            tensors = [a for a in node.args if isinstance(a, torch.fx.Node)]
            vals = [a.meta.get("val") for a in tensors]
            if not all(isinstance(v, torch.Tensor) and v.dtype in _FLOATS for v in vals):
                return False
            if _op_name(node.target) in self.options.exclude:
                return False
            if node.target == torch.ops.aten.linear.default:
                return all(a.op == "placeholder" and a.name not in _user_inputs(ep)
                           for a in tensors[1:])  # fmt: skip
            return True

        return kept_whole(), delegated

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        # Only the grouping is needed here (the program may hold no weight data yet).
        module = import_model(exported_program)
        ctx = xnnc.make_context()
        for raising in raising_passes():
            raising.apply(ctx, module)
        PartitionPass(exclude=self.options.exclude).apply(ctx, module)
        func = next(op for op in module.ops if isinstance(op, FuncOp))
        tag_of: dict[str, str] = {}
        subs = [op for op in func.body.block.ops if isinstance(op, xnn.SubgraphOp)]
        # A piece computed from weights alone (a weight's transpose before addmm) folds to a
        # constant when compiled, leaving no subgraph to delegate: ExecuTorch keeps it.
        for i, sub in enumerate(sub for sub in subs if sub.inputs):
            for inner in sub.walk():
                if not isinstance(inner, xnn.ConstantOp):
                    tag_of.update(dict.fromkeys(fx_node_names(inner.location), f"xnnc_{i}"))
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
