"""`XnncPartitioner`: xnnc as an ExecuTorch partitioner, a drop-in for XnnpackPartitioner.

    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner(options)])
    pte = edge.to_executorch().buffer                  # runs on stock ExecuTorch

It tags the FX nodes that xnnc's own partitioner (`xnn-partition`, with the options'
`exclude`, after the constant folding `xnnc.compile` runs first) puts in each
`xnn.subgraph`; `XnncBackend` then compiles each piece under the
same `CompileOptions`, so a delegate is what `xnnc.compile` makes of the same ops. The
delegates name stock `XnnpackBackend` (see `xnnc.pte.backend` for how they reach xnnc).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.metadata
import operator
import warnings
from typing import Any

import torch
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram
from xdsl.dialects.builtin import FusedLoc, ModuleOp, NameLoc
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.passes import PassPipeline

import xnnc
from xnnc import heap
from xnnc.backend_xnnpack.serialize import SerializeError
from xnnc.conversion.aten_to_xnn import convertible
from xnnc.conversion.lstm import check_kept_lstm, excluded_steps
from xnnc.conversion.partition import PartitionPass
from xnnc.dialects import aten, xnn
from xnnc.errors import MissingKernelWarning, OptionError
from xnnc.frontend.dynamic_quant_import import DYNAMIC
from xnnc.frontend.fx_importer import import_model
from xnnc.frontend.quant_import import DEQUANTIZE, QUANTIZE
from xnnc.ir.schema import qualified_name
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import stage_passes
from xnnc.pte.backend import copy_sharing_tensors, options_spec
from xnnc.pte.kept_ops import LSTM, is_kept_lstm, is_lstm, keep_lstms, kept_whole, take_lstms
from xnnc.pte.verify import STOCK_BACKEND_ID
from xnnc.target import Target
from xnnc.transforms.constant_fold import FoldConstantsPass
from xnnc.transforms.fold_batch_norm import FoldBatchNormPass

# A folded constant carries the location of the op it replaced, which may feed several groups.
_CONSTANTS = (aten.ConstantOp, xnn.ConstantOp)
QDQ = frozenset(QUANTIZE + DEQUANTIZE + DYNAMIC)


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
        bf16: str | None = None,
        exclude: Any = None,
        disable: Any = None,
    ):
        super().__init__()
        if isinstance(options, str | Target):  # XnncPartitioner("stock")
            options, target = None, options if target is None else target
        if options is None and target is None:
            target = "stock"
        self.options = CompileOptions.of(
            options,
            target=target,
            threads=threads,
            fp16=fp16,
            bf16=bf16,
            exclude=exclude,
            disable=disable,
        )
        if self.options.streaming:
            raise OptionError(
                "XnncPartitioner: streaming compiles the whole model into a step; use "
                "xnnc.compile(..., streaming=..., savable=True) and program.save('m.pte')"
            )
        self.delegation_spec = DelegationSpec(STOCK_BACKEND_ID, [options_spec(self.options)])
        # state name -> the real scales / zero points of a q/dq node, recorded where
        # ExecuTorch shows the real program (ops_to_not_decompose) for `partition`, which
        # it hands a copy with fake state
        self._qparams: dict[str, torch.Tensor] = {}

    def transform_for_pre_decomposition(self, exported_program: ExportedProgram) -> ExportedProgram:
        """A copy of the program (sharing its weights) in which each LSTM xnnc takes whole
        calls `xnnc::lstm`, which `to_edge` does not decompose (`xnnc.pte.kept_ops`); the
        program itself if there is none."""
        taken = self._lstms_taken(exported_program)
        if not taken:
            return exported_program
        program = copy_sharing_tensors(exported_program)
        keep_lstms(program, taken)
        return program

    def ops_to_not_decompose(self, ep: ExportedProgram) -> tuple[list[Any], Any]:
        """Keep whole the non-core ops xnnc lowers as they are, where conversion would lower
        that node (ExecuTorch requires that a kept op be delegated): the same check
        `xnn-partition` makes, on the program as it stands (weights-only computations
        folded first, as `xnnc.compile` does)."""
        self._qparams.update(quantization_parameters(ep))
        module = self._prepared(import_model(ep, as_is=True))
        lowers = self._lowered_nodes(module)

        def delegated(node: Any) -> bool:
            return node.name in lowers

        return kept_whole(), delegated

    def _lowered_nodes(self, module: ModuleOp) -> set[str]:
        """The FX nodes behind the ops of `module` that conversion lowers."""
        lowers: set[str] = set()
        for op in module.walk():
            if op.name not in self.options.exclude and convertible(op) is None:
                lowers.update(fx_node_names(op.location))
        return lowers

    def _lstms_taken(self, ep: ExportedProgram) -> set[str]:
        """The `aten.lstm.input` nodes of `ep` that `xnn.lstm` runs (`conversion.lstm`:
        fp32, static, inference, constant weights, no proj_size), asked of the program
        imported with its LSTMs whole; none when `exclude` names an op its steps
        compute. One with a symbolic size is left to ExecuTorch: torch's decomposition
        unrolls a fixed length."""
        static = {
            node.name for node in ep.graph.nodes
            if node.op == "call_function" and node.target is LSTM and not _symbolic(node)
        }  # fmt: skip
        if not static or excluded_steps(self.options.exclude) is not None:
            return set()
        module = self._prepared(import_model(ep, as_is=True))
        taken = set()
        for op in module.walk():
            if isinstance(op, aten.GenericOp) and op.target.data == qualified_name(LSTM):
                names = set(fx_node_names(op.location)) & static
                if names and check_kept_lstm(op) is None:
                    taken |= names
        return taken

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        # ExecuTorch's to_edge just dropped its intermediate graphs: their heap goes back
        # before xnnc's pieces are compiled on top of it.
        heap.trim()
        # xnnc.compile's grouping: decomposed ops raised, weights-only computations
        # folded, then xnn-partition.
        program = with_real(exported_program, self._qparams)
        module = self._prepared(take_lstms(import_model(program)))
        del program
        PartitionPass(exclude=self.options.exclude).apply(xnnc.make_context(), module)
        func = next(op for op in module.ops if isinstance(op, FuncOp))
        tag_of = _tags(func)
        remaining = {
            name for op in module.walk() if not isinstance(op, _CONSTANTS)
            for name in fx_node_names(op.location)
        }  # fmt: skip
        del module, func
        tags: dict[str, DelegationSpec] = {}
        for node in exported_program.graph.nodes:
            tag = tag_of.get(node.name)
            if node.op == "call_function" and tag is not None:
                node.meta["delegation_tag"] = tag
                tags[tag] = self.delegation_spec
        _tag_folded(exported_program, remaining)
        for node in exported_program.graph.nodes:  # getitem follows its tuple producer
            if node.op == "call_function" and node.target is operator.getitem:
                tag = node.args[0].meta.get("delegation_tag")
                if tag is not None:
                    node.meta["delegation_tag"] = tag
        _check_lstms_tagged(exported_program)
        _check_preserved_lstms(exported_program)
        _warn_missing_kernels(exported_program)
        tag_constant_data(exported_program)
        _register_quantized_kernels(exported_program)
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)

    def _prepared(self, module: ModuleOp) -> ModuleOp:
        """`module` after compile's aten stage as far as fake weights allow: the raising
        passes, constant folding by shape (an op on a weight's transpose lowers only once
        the transpose is a constant), and the rest; not batch-norm folding, which needs the
        data (a batch norm lowers on its own, in the same group)."""
        xnn.set_target(module, self.options.target)  # what lowers depends on it (from-end slices)
        passes = [
            dataclasses.replace(p, shapes_only=True) if isinstance(p, FoldConstantsPass) else p
            for p in stage_passes(self.options)["aten"]
            if not isinstance(p, FoldBatchNormPass)
        ]
        PassPipeline(tuple(passes)).apply(xnnc.make_context(), module)
        return module


def _tags(func: FuncOp) -> dict[str, str]:
    """FX node name -> delegation tag: the i-th `xnn.subgraph` with inputs is `xnnc_i` (a
    piece computed from weights alone folds to a constant when compiled, leaving no
    subgraph to delegate: ExecuTorch keeps it)."""
    tag_of: dict[str, str] = {}
    subs = [op for op in func.body.block.ops if isinstance(op, xnn.SubgraphOp) and op.inputs]
    for i, sub in enumerate(subs):
        for inner in sub.walk():
            if not isinstance(inner, _CONSTANTS):
                for name in fx_node_names(inner.location):
                    tag_of[name] = f"xnnc_{i}"
    return tag_of


def _check_lstms_tagged(ep: ExportedProgram) -> None:
    """An LSTM kept whole through `to_edge` (`xnnc::lstm`, or `aten.lstm.input` by
    `EdgeCompileConfig.preserve_ops`) has no kernel in stock ExecuTorch: one left
    undelegated (`xnn.lstm` cannot take it, e.g. under other options than the partitioner
    that kept it) is an error here, not a `.pte` that fails to load."""
    for node in ep.graph.nodes:
        if is_lstm(node) and "delegation_tag" not in node.meta:
            raise SerializeError(
                f"xnnc: node '{node.name}' (aten.lstm.input, kept whole through to_edge) "
                "cannot be delegated whole under these options, and stock ExecuTorch has no "
                "kernel for it"
            )


def _check_preserved_lstms(ep: ExportedProgram) -> None:
    """An `aten.lstm.input` that `to_edge` kept (`preserve_ops`) and xnnc takes: with
    batch_first its output is a transposed view, and ExecuTorch would plan the delegate's
    output in that dim order (a partitioner may not retarget the node to `xnnc::lstm`,
    whose results are contiguous like the delegate's)."""
    for node in ep.graph.nodes:
        if is_lstm(node) and not is_kept_lstm(node) and "delegation_tag" in node.meta:
            if not node.meta["val"][0].is_contiguous():
                raise SerializeError(
                    f"xnnc: node '{node.name}' (aten.lstm.input, batch_first) kept by "
                    "to_edge's preserve_ops: its output's dim order is not the delegate's; "
                    "pass the program through XnncPartitioner().transform_for_pre_decomposition "
                    "before to_edge instead"
                )


def _symbolic(node: Any) -> bool:
    """Whether any tensor argument of `node` has a symbolic size."""
    for arg in node.all_input_nodes:
        val = arg.meta.get("val")
        if isinstance(val, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in val.shape):
            return True
    return False


def quantization_parameters(ep: ExportedProgram) -> dict[str, torch.Tensor]:
    """The scales and zero points that PT2E's q/dq nodes read from the program's state
    (`convert_pt2e` registers them as buffers), by state name: copies of the real tensors."""
    state_of = {
        spec.arg.name: spec.target
        for spec in ep.graph_signature.input_specs
        if spec.target in ep.state_dict
    }
    found: dict[str, torch.Tensor] = {}
    for node in ep.graph.nodes:
        target = node.target
        if type(target).__name__ == "EdgeOpOverload":
            target = target._op  # its ATen overload
        if not hasattr(target, "_schema") or qualified_name(target) not in QDQ:
            continue
        for arg in node.args[1:3]:
            name = state_of.get(getattr(arg, "name", None))
            tensor = None if name is None else ep.state_dict[name]
            if isinstance(tensor, torch.Tensor) and not isinstance(tensor, FakeTensor):
                found[name] = tensor.detach().clone()
    return found


def with_real(ep: ExportedProgram, qparams: dict[str, torch.Tensor]) -> ExportedProgram:
    """`ep` (sharing its graph) with the fake state entries that `qparams` holds real
    values of, same shape and dtype, replaced by those: so the partitioner reads the
    quantization parameters `xnnc.compile` reads, not fake tensors."""
    state = dict(ep.state_dict)
    replaced = False
    for name, fake in ep.state_dict.items():
        real = qparams.get(name)
        if isinstance(fake, FakeTensor) and real is not None:
            if real.shape == fake.shape and real.dtype == fake.dtype:
                state[name], replaced = real, True
    if not replaced:
        return ep
    view = copy.copy(ep)
    view._state_dict = state
    return view


def _register_quantized_kernels(ep: ExportedProgram) -> None:
    """A q/dq node left outside runs on ExecuTorch's quantized kernels, whose out variants
    `to_executorch` finds only once their library is loaded (stock XnnpackPartitioner
    delegates them all, so its users never need it)."""
    for node in ep.graph.nodes:
        target = getattr(node.target, "_schema", None)
        outside = node.op == "call_function" and "delegation_tag" not in node.meta
        if outside and target is not None and target.name.startswith("quantized_decomposed::"):
            import executorch.kernels.quantized  # noqa: F401

            return


def stock_kernels() -> frozenset[str]:
    """The operators the installed stock runtime has kernels for ("aten::cumsum.out")."""
    from executorch.extension.pybindings import portable_lib

    return frozenset(portable_lib._get_operator_names())


def _warn_missing_kernels(ep: ExportedProgram) -> None:
    """A MissingKernelWarning naming the ops left outside the delegates that the installed
    stock runtime has no kernel for, under any overload (the `.pte` would fail at load);
    a warning, not an error: the user owns this lowering and may register kernels."""
    kernels = {name.split(".", 1)[0] for name in stock_kernels()}
    missing = []
    for node in ep.graph.nodes:
        if node.op != "call_function" or "delegation_tag" in node.meta:
            continue
        try:
            base = qualified_name(node.target).split(".", 1)[0]
        except AttributeError:  # operator.getitem and the like: no schema, no kernel
            continue
        if base not in kernels and base not in missing:
            missing.append(base)
    if missing:
        warnings.warn(
            f"XnncPartitioner: {', '.join(missing)} left outside the delegates "
            f"{'has' if len(missing) == 1 else 'have'} no kernel in ExecuTorch "
            f"{importlib.metadata.version('executorch')}'s portable library: the stock runtime "
            "will refuse the .pte unless you register one",
            MissingKernelWarning,
            stacklevel=3,
        )


def _tag_folded(ep: ExportedProgram, remaining: set[str | None]) -> None:
    """Give an op that constant folding computed (gone from the module) the tag of its
    users when they all share one: the delegate folds it again, instead of ExecuTorch
    computing it on every call and passing it in where xnnc needs a constant."""
    for node in reversed(ep.graph.nodes):
        if node.op != "call_function" or node.name in remaining:
            continue
        # A getitem goes where its producer goes: a getitem of an op left outside (max
        # pooling's values) taken into its users' delegate would lose its producer.
        if node.target is operator.getitem and node.args[0].name in remaining:
            continue
        if "delegation_tag" in node.meta:
            continue
        user_tags = {user.meta.get("delegation_tag") for user in node.users}
        if len(user_tags) == 1 and None not in user_tags:
            node.meta["delegation_tag"] = user_tags.pop()
