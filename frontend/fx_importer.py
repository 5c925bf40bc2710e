"""FX graphs from `torch.export` into the `aten` dialect.

    model + inputs | ExportedProgram | .pt2  --export, decompose-->  core ATen FX graph
    FX graph  --one op per node-->  builtin.module { func.func @forward(...) { aten.* } }

Parameters, buffers and lifted constants become `aten.constant` ops whose weights share
memory with the program's tensors. Each op's location is its module path and FX node,
`loc("decoder.3.conv"("convolution_5"))`. Overloads without an `aten` op become
`aten.generic`, so every model imports whole.
"""

from __future__ import annotations

import itertools
import linecache
import logging
import operator
import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch.fx import Node
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import OptOperandDef, OptPropertyDef, VarOperandDef, VarResultDef
from xdsl.utils.exceptions import VerifyException

from xnnc.backend_xnnpack.shapes import INT64_MAX
from xnnc.dialects.aten import ATEN_OPS, ConstantOp, GenericOp
from xnnc.dialects.types import SYMBOLS_ATTR_NAME, SymbolsAttr, dims_of_type, tensor_type
from xnnc.dialects.weights import Blob, WeightAttr
from xnnc.errors import ModelImportError
from xnnc.frontend.constant_items import fold_constant_items
from xnnc.frontend.dynamic_quant_import import (
    CHOOSE_QPARAMS,
    DYNAMIC,
    erase_unused_qparams,
    import_dynamic_node,
    import_weight_by_shape,
)
from xnnc.frontend.quant_import import (
    DEQUANTIZE,
    QUANTIZE,
    import_quant_node,
    quantized_input_type,
    register_quantized_ops,
)
from xnnc.frontend.symbolic_lstm import has_symbolic_lstm, keep_lstm_whole, keep_lstms, loop_refusal
from xnnc.frontend.symbols import SymbolTable
from xnnc.frontend.views import fold_identity_views
from xnnc.ir.dtypes import DTYPES, element_type
from xnnc.ir.schema import prop_for, qualified_name, to_attr, torch_overload

# Qualified overload name ("aten::add.Tensor") -> the op that models it.
OPS_BY_OVERLOAD: dict[str, type[IRDLOperation]] = {
    ov: op for op in ATEN_OPS for ov in getattr(op, "OVERLOADS", ())
}
# Arguments a CPU compiler may drop when they hold anything (they place, not compute).
_PLACEMENT_ARGS = {"device", "layout", "pin_memory", "non_blocking"}


def export_program(
    model: Any, example_inputs: Sequence[Any] | None = None, dynamic_shapes: Any = None
) -> ExportedProgram:
    """An ExportedProgram from a module with inputs, a program, or a `.pt2` path.
    `dynamic_shapes` is torch.export's argument (`torch.export.Dim`s with min/max); a
    program or `.pt2` carries its own."""
    if isinstance(model, ExportedProgram):
        return model
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.exists(path):
            raise ModelImportError(f"{path}: no such file")
        if not zipfile.is_zipfile(path):
            raise ModelImportError(f"{path}: not a torch.export archive (not a zip file)")
        register_quantized_ops()  # a PT2E program's q/dq ops, before its graph loads
        try:
            with _quiet_torch_logs():
                return torch.export.load(path)
        except Exception as e:  # torch raises many kinds here
            raise ModelImportError(f"{path}: not a torch.export archive ({_first_line(e)})") from e
    if isinstance(model, torch.nn.Module):
        if example_inputs is None:
            raise ModelImportError(f"model {type(model).__name__}: needs example inputs to export")
        args = (
            tuple(example_inputs)
            if isinstance(example_inputs, (list, tuple))
            else (example_inputs,)
        )
        # An LSTM over a symbolic size stays one node (frontend/symbolic_lstm.py); a size
        # can be symbolic in a static export too, computed from buffers by `.item()`
        # (frontend/constant_items.py).
        lstm = any(isinstance(m, torch.nn.LSTM) for m in model.modules())
        try:
            with keep_lstm_whole() if dynamic_shapes is not None or lstm else nullcontext():
                return torch.export.export(model, args, dynamic_shapes=dynamic_shapes, strict=False)
        except Exception as e:
            raise ModelImportError(
                f"model {type(model).__name__}: torch.export failed: {_export_failure(e)}"
            ) from e
    raise ModelImportError(f"cannot import a {type(model).__name__}: expected an nn.Module, "
                       "an ExportedProgram or a .pt2 path")  # fmt: skip


@contextmanager
def _quiet_torch_logs() -> Iterator[None]:
    """torch.export logs a traceback before raising on a bad archive; we report the error."""
    logger = logging.getLogger("torch.export")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _export_failure(e: BaseException) -> str:
    """torch.export's first line; for a dynamic dim the model's code constrains
    ("Constraints violated (T)!", then a guard per line), the first guard too, which names
    the size arithmetic (`math.ceil` of a float length, a comparison) that fixed it, and
    the dims torch suggests instead; and the model's line torch names as the one that
    raised (a Python branch on a tensor's value: "Could not guard on data-dependent ...")."""
    first = _first_line(e)
    lines = [line.strip() for line in str(e).splitlines()[1:]]
    guards = [line.removeprefix("- ") for line in lines if line.startswith("- ")]
    if not first.startswith(("Constraints violated", "Specializations")) or not guards:
        return first + _raised_at(lines)
    text = f"{first.split('!')[0]}: {guards[0]}"
    if "Suggested fixes:" in lines:  # torch's dims that would export, one per line
        fixes = lines[lines.index("Suggested fixes:") + 1 :]
        if fix := ", ".join(itertools.takewhile(bool, fixes)):
            text += f" (torch suggests {fix})"
    return text


def _raised_at(lines: list[str]) -> str:
    """' at FILE:LINE in FUNCTION: CODE' from torch's "The following call raised this
    error:" and the frame after it; '' when the message has none."""
    marker = "The following call raised this error:"
    if marker not in lines:
        return ""
    frame = [line for line in lines[lines.index(marker) + 1 :] if line][:2]
    where = re.fullmatch(r'File "(.+)", line (\d+), in (\S+)', frame[0]) if frame else None
    if where is None:
        return ""
    code = f": {frame[1]}" if len(frame) > 1 and not frame[1].startswith("File ") else ""
    return f" at {where[1]}:{where[2]} in {where[3]}{code}"


def decompose(ep: ExportedProgram, loop_lstms: bool = False) -> ExportedProgram:
    """Core ATen, keeping the ops the `aten` dialect models (linear, upsampling, ...). A
    static LSTM stays one node too when XNNPACK can run every LSTM of the program
    (`loop_refusal`): `aten.lstm.input` for xnnc's recurrent loop with `loop_lstms`
    (`cost.rules.lstm_loop`), else `xnnc::lstm`, which conversion lowers to one `xnn.lstm`
    (its steps are nodes of the serialized blob alone); otherwise torch's decomposition
    unrolls it."""
    if any(_is_edge(n.target) for n in ep.graph.nodes if n.op == "call_function"):
        return ep  # an edge program is already core ATen
    ep = fold_constant_items(ep)
    lstms = [n for n in ep.graph.nodes if n.target is torch.ops.aten.lstm.input]
    symbolic = has_symbolic_lstm(ep.graph)
    if symbolic or (lstms and all(loop_refusal(ep, n) is None for n in lstms)):
        # Unrolling needs the frame count: an LSTM over a symbolic one stays whole and runs
        # outside XNNPACK (docs/dynamic-shapes.md); a static one stays whole for the loop or
        # for xnn.lstm.
        table = decomposition_table(keep_lstm=True)
        with keep_lstm_whole():
            decomposed = ep.run_decompositions(table)
        if not (symbolic or loop_lstms):
            keep_lstms(decomposed)  # a program of its own: its nodes are ours to retarget
    else:
        decomposed = ep.run_decompositions(decomposition_table())
    if fold_identity_views(decomposed.graph_module.graph):
        decomposed.graph_module.recompile()
    forget_trace_nodes()
    return decomposed


def decomposition_table(keep_lstm: bool = False) -> dict[Any, Any]:
    """torch.export's default decompositions without the ops xnnc keeps whole: the ones the
    `aten` dialect models, the quantization ops, and with `keep_lstm` `aten.lstm.input`."""
    table = torch.export.default_decompositions()
    for qualified in (*OPS_BY_OVERLOAD, *CHOOSE_QPARAMS, *DYNAMIC):
        try:
            table.pop(torch_overload(qualified), None)
        except AttributeError:  # an overload this torch lacks, e.g. another namespace
            continue
    if keep_lstm:
        table.pop(torch.ops.aten.lstm.input, None)
    return table


def forget_trace_nodes() -> None:
    """Let go of the graph torch's last trace left in a module global: non-strict export's
    fake-tensor leak check maps fake tensors to the nodes of the latest trace, and nothing
    clears it until the next trace, so the nodes of the last decomposition (EnCodec's
    unrolled LSTM: ~10 MiB, 0.35x its weights) outlived the compile. The map serves only
    the trace that filled it."""
    from torch.fx.experimental import proxy_tensor

    leftovers = getattr(proxy_tensor, "_FAKE_TENSOR_ID_TO_PROXY_MAP_FOR_EXPORT", None)
    if isinstance(leftovers, dict):
        leftovers.clear()


@contextmanager
def torch_leftovers_dropped() -> Iterator[None]:
    """Drops what a call's traces leave in torch's process-wide caches, for graphs that are
    gone when the call returns: the source of every FX module generated meanwhile
    (`torch.fx.graph_module._loader`, never emptied, with its `linecache` entry: EnCodec's
    `.pte` export, 4.6 MiB), the fake-tensor dispatch cache's new entries (1.3 MiB; keyed by
    shapes and by the call's own modules), and the last trace's node map
    (`forget_trace_nodes`). Entries that were there before stay; a module made meanwhile
    that outlives the call only loses its source lines in tracebacks, and a later trace
    recomputes what it needs."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx import graph_module

    loader = getattr(graph_module, "_loader", None)
    sources = getattr(loader, "eval_cache", None)
    before = set(list(sources)) if isinstance(sources, dict) else set()
    cached = set(list(FakeTensorMode.cache))
    try:
        yield
    finally:
        # list(): one C-level copy, which another thread's trace cannot change midway
        if isinstance(sources, dict):
            for key in set(list(sources)) - before:
                sources.pop(key, None)
                linecache.cache.pop(key, None)
        cache = FakeTensorMode.cache
        for key in set(list(cache)) - cached:
            cache.pop(key, None)
        forget_trace_nodes()


def _is_edge(target: Any) -> bool:
    return type(target).__name__ == "EdgeOpOverload"


def import_model(
    model: Any,
    example_inputs: Sequence[Any] | None = None,
    *,
    func_name: str = "forward",
    as_is: bool = False,
    loop_lstms: bool = False,
) -> ModuleOp:
    """Import an nn.Module (with example inputs), an ExportedProgram or a `.pt2` path.

    as_is=True imports a program as a partitioner sees it: not decomposed (ops the `aten`
    dialect does not model become `aten.generic`), and a node that cannot be imported
    (an ExecuTorch delegate call, a dynamic or non-tensor value) becomes function arguments
    for its tensor results, so every other op is still there to ask about. `loop_lstms`: see
    `decompose`."""
    ep = export_program(model, example_inputs)
    if not as_is:
        ep = decompose(ep, loop_lstms)
    module = FxImporter(ep, func_name, opaque=as_is).run()
    try:
        module.verify()
    except VerifyException as e:
        raise ModelImportError(f"the imported IR does not verify: {_first_line(e)}") from e
    return module


def _numpy_view(t: torch.Tensor) -> Any:
    """The tensor's bytes as a numpy array sharing its memory (bf16 via int16), or None."""
    t = t.detach()
    if isinstance(t, FakeTensor):
        # ExecuTorch's partitioners see a fake program; fake mode keeps the value of the
        # small constants it was given (the scalar bounds of torch's reflect padding).
        t = t.constant
        if t is None:
            return None  # a program traced without data: the weight is known by shape only
    if t.is_meta:
        return None
    if not t.is_contiguous():
        t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy()


def _location(node: Node) -> NameLoc:
    stack = node.meta.get("nn_module_stack") or {}
    path = ""
    if stack:
        path = list(stack.values())[-1][0]
        path = path.removeprefix("L['self'].").removeprefix("L['self']")
    inner = NameLoc(StringAttr(node.name), NoneAttr())
    return NameLoc(StringAttr(path), inner) if path else inner


class FxImporter:
    def __init__(self, ep: ExportedProgram, func_name: str, opaque: bool = False):
        self.ep = ep
        self.func_name = func_name
        self.opaque = opaque
        self.values: dict[Node, SSAValue | tuple[SSAValue, ...]] = {}
        self.retyped: list[Operation] = []  # integer weights given a quantized type
        self.symbols = SymbolTable(ep)

    def run(self) -> ModuleOp:
        sig = self.ep.graph_signature
        kinds = {spec.arg.name: spec for spec in sig.input_specs}
        user_inputs = [
            n for n in self.ep.graph.nodes
            if n.op == "placeholder" and kinds[n.name].kind == InputKind.USER_INPUT
            and isinstance(n.meta.get("val"), torch.Tensor)
        ]  # fmt: skip
        block = Block(arg_types=[self._tensor_type(n, n.meta["val"]) for n in user_inputs])
        self.block = block
        for arg, n in zip(block.args, user_inputs):
            arg.name_hint = n.name
            self.values[n] = arg
        builder = Builder(InsertPoint.at_end(block))
        user_outputs = {
            i for i, spec in enumerate(sig.output_specs) if spec.kind == OutputKind.USER_OUTPUT
        }
        returned: list[SSAValue] = []
        for node in self.ep.graph.nodes:
            if node.op == "placeholder":
                spec = kinds[node.name]
                if spec.kind != InputKind.USER_INPUT:
                    builder.insert(self._constant(node, spec))
            elif node.op == "call_function" and self.opaque:
                try:
                    self._call(node, builder)
                except ModelImportError:
                    self._as_arguments(node)
            elif node.op == "call_function":
                self._call(node, builder)
            elif node.op == "get_attr" and self.opaque:
                continue  # a lowered module: only its call's results matter
            elif node.op == "output":
                outs = node.args[0]
                for i, out in enumerate(outs):
                    if i not in user_outputs:
                        continue
                    if self.opaque and not isinstance(self.values.get(out), SSAValue):
                        continue
                    if not isinstance(out, Node) or not isinstance(self.values.get(out), SSAValue):
                        raise ModelImportError(
                            f"output {i} ({out!r}) is not a tensor; xnnc imports tensor outputs"
                        )
                    returned.append(self.values[out])  # type: ignore[arg-type]
            else:
                raise ModelImportError(f"node {node.name}: unsupported FX op kind '{node.op}'")
        builder.insert(ReturnOp(*returned))
        for op in dict.fromkeys(self.retyped):  # now read through their quantized types
            if not op.result.uses:
                block.erase_op(op)
        erase_unused_qparams(block)
        func = FuncOp(
            self.func_name,
            ([a.type for a in block.args], [v.type for v in returned]),
            Region(block),
        )
        module = ModuleOp([func])
        if self.symbols.ranges:
            module.attributes[SYMBOLS_ATTR_NAME] = SymbolsAttr.of(self.symbols.ranges)
        return module

    def _as_arguments(self, node: Node) -> None:
        """The node's static tensor results as new function arguments (opaque import)."""
        val = node.meta.get("val")
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        args = []
        for v in vals:
            if not isinstance(v, torch.Tensor) or v.dtype not in DTYPES:
                return
            try:
                arg_type = self._tensor_type(node, v)
            except ModelImportError:
                return  # a size xnnc cannot express
            args.append(self.block.insert_arg(arg_type, len(self.block.args)))
        self.values[node] = tuple(args) if isinstance(val, (list, tuple)) else args[0]

    def _tensor_type(self, node: Node, val: Any) -> TensorType:
        if not isinstance(val, torch.Tensor):
            raise ModelImportError(f"node {node.name}: produces {type(val).__name__}, not a tensor")
        shape = [d if isinstance(d, int) else self.symbols.dim(d, node.name) for d in val.shape]
        quantized = quantized_input_type(node) if node.op == "placeholder" else None
        if quantized is not None and DTYPES.get(val.dtype) == quantized.storage_type:
            return tensor_type(quantized, shape)
        return tensor_type(element_type(val.dtype, f"node {node.name}"), shape)

    def _constant(self, node: Node, spec: Any) -> Operation:
        target = spec.target
        if target in self.ep.state_dict:
            tensor = self.ep.state_dict[target]
        elif target in self.ep.constants:
            tensor = self.ep.constants[target]
        else:
            raise ModelImportError(
                f"node {node.name}: input '{target}' has no tensor in the program"
            )
        if not isinstance(tensor, torch.Tensor):
            raise ModelImportError(f"node {node.name}: '{target}' is a {type(tensor).__name__}")
        blob = Blob(target, _numpy_view(tensor))
        op = ConstantOp(WeightAttr(blob), self._tensor_type(node, tensor))
        op.location = _location(node)
        op.result.name_hint = node.name
        self.values[node] = op.result
        return op

    def _call(self, node: Node, builder: Builder) -> None:
        target = node.target
        if target is operator.getitem:
            source, index = node.args
            results = self.values.get(source)
            if not isinstance(results, tuple):
                raise ModelImportError(f"node {node.name}: getitem of a single tensor")
            self.values[node] = results[index]
            return
        if _is_edge(target):
            target = target._op
        if isinstance(node.meta.get("val"), torch.SymInt):
            return  # size arithmetic (sym_size, operator.mul, ...): sizes live in the types
        if not hasattr(target, "_schema"):
            raise ModelImportError(
                f"node {node.name}: unsupported call to {getattr(target, '__name__', target)}"
            )
        val = node.meta.get("val")
        if val is None and not node.users:
            return  # a runtime assertion such as _assert_tensor_metadata: nothing to compute
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        result_types = [self._tensor_type(node, v) for v in vals]
        qualified = qualified_name(target)
        op = None
        if qualified in QUANTIZE + DEQUANTIZE + DYNAMIC:
            real = tensor_type(f32, dims_of_type(result_types[0]))
            importer = import_dynamic_node if qualified in DYNAMIC else import_quant_node
            ops = importer(qualified, node, self.values, real)
            if ops is None and qualified in DEQUANTIZE:
                ops = import_weight_by_shape(node, self.values, real)
            if ops is not None:
                *before, op = ops
                for weight in before:
                    builder.insert(weight)
                    self.retyped.append(self.values[node.args[0]].owner)
        elif (cls := OPS_BY_OVERLOAD.get(qualified)) is not None:
            op = self._named(cls, target._schema, node, result_types)
        if op is None:
            op = self._generic(qualified, node, result_types)
        op.location = _location(node)
        builder.insert(op)
        for r in op.results:
            r.name_hint = node.name
        many = isinstance(val, (list, tuple))
        self.values[node] = tuple(op.results) if many else op.results[0]

    def _value(self, node: Node, arg: Node) -> SSAValue:
        v = self.values.get(arg)
        if isinstance(arg.meta.get("val"), torch.SymInt):
            raise ModelImportError(
                f"node {node.name}: takes the size {arg.name} ({arg.meta['val']}) as an argument;"
                " xnnc does not import size arithmetic yet"
            )
        if not isinstance(v, SSAValue):
            raise ModelImportError(f"node {node.name}: argument {arg.name} is not a tensor value")
        return v

    def _named(self, cls: Any, schema: Any, node: Node, result_types: list) -> Operation | None:
        """The modelled op, or None when an argument does not fit it (-> aten.generic)."""
        op_def = cls.get_irdl_definition()
        operand_defs = dict(op_def.operands)
        prop_defs = op_def.properties
        operands: dict[str, Any] = {}
        props: dict[str, Any] = {}
        for i, arg in enumerate(schema.arguments):
            if arg.kwarg_only or i >= len(node.args):
                if arg.name in node.kwargs:
                    value = node.kwargs[arg.name]
                elif arg.has_default_value():
                    value = arg.default_value
                else:
                    return None
            else:
                value = node.args[i]
            field = cls.RENAMES.get(arg.name, arg.name)
            if field in operand_defs:
                if isinstance(value, Node):
                    operands[field] = self._value(node, value)
                elif isinstance(value, (list, tuple)) and all(isinstance(v, Node) for v in value):
                    operands[field] = [self._value(node, v) for v in value]
                elif value is None and isinstance(operand_defs[field], OptOperandDef):
                    continue
                elif isinstance(value, (int, float, complex)) and "scalar" in prop_defs:
                    props["scalar"] = to_attr(value)
                else:
                    return None
            elif field in prop_defs:
                if isinstance(value, Node):
                    # a slice bound a fixed distance from the end of its symbolic dim; else a
                    # traced size (_symbolic_sizes below)
                    bound = self._slice_bound(node, schema, arg.name, value)
                    value = value if bound is None else bound
                optional = isinstance(prop_defs[field], OptPropertyDef)
                if value is None:
                    if not optional:
                        return None
                    continue
                if optional and arg.has_default_value() and value == arg.default_value:
                    continue
                if _has_size(value):
                    value = _symbolic_sizes(node, field, value)
                props[field] = prop_for(str(arg.type), value)
            elif not (value is None or arg.name in _PLACEMENT_ARGS or (
                arg.has_default_value() and value == arg.default_value
            )):  # fmt: skip
                return None
        ordered = []
        for name, d in op_def.operands:
            if name in operands:
                ordered.append(operands[name])
            elif isinstance(d, (OptOperandDef, VarOperandDef)):
                ordered.append([] if isinstance(d, VarOperandDef) else None)
            else:
                return None
        variadic = any(isinstance(d, VarResultDef) for _, d in op_def.results)
        return cls.build(
            operands=ordered,
            properties=props,
            result_types=[result_types] if variadic else result_types,
        )

    def _slice_bound(self, node: Node, schema: Any, name: str, bound: Node) -> int | None:
        """A slice's symbolic start or end as the int ATen reads the same way at every size:
        `y[..., : y.shape[-1] - 2]` ends at -2 (from the end), `x[..., : x.shape[-1]]` at
        the end. None when it is not a fixed distance from the end of the sliced dim."""
        if schema.name not in ("aten::slice", "aten::slice_copy") or name not in ("start", "end"):
            return None
        size = node.args[0].meta["val"].shape[node.args[1] if len(node.args) > 1 else 0]
        value = bound.meta.get("val")
        if not isinstance(value, torch.SymInt) or isinstance(size, int):
            return None
        distance = self.symbols.dim(value, node.name) - self.symbols.dim(size, node.name)
        if not isinstance(distance, int) or distance > 0:
            return None
        return distance if distance < 0 else INT64_MAX

    def _generic(self, qualified: str, node: Node, result_types: list) -> Operation:
        if qualified.startswith("aten::arange"):
            node = _sized_arange(node)
        inputs: list[Node] = []

        def collect(v: Any) -> None:
            if isinstance(v, Node):
                if v not in inputs:
                    inputs.append(v)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    collect(x)

        collect(node.args)
        collect(node.kwargs)
        # A node used twice as an argument is one operand referenced twice: duplicate it.
        index: dict[Any, int] = {}
        operands: list[SSAValue] = []
        args_attr = ArrayAttr([self._arg_attr(node, a, index, operands) for a in node.args])
        kwargs_attr = DictionaryAttr({
            k: self._arg_attr(node, v, index, operands) for k, v in node.kwargs.items()
        })  # fmt: skip
        return GenericOp.build(
            operands=[operands],
            result_types=[result_types],
            properties={"target": StringAttr(qualified), "args": args_attr, "kwargs": kwargs_attr},
        )

    def _arg_attr(self, node: Node, value: Any, index: dict, operands: list[SSAValue]) -> Any:
        if isinstance(value, Node):
            operands.append(self._value(node, value))
            return to_attr(value, {value: len(operands) - 1})
        if isinstance(value, (list, tuple)):
            return ArrayAttr([self._arg_attr(node, v, index, operands) for v in value])
        try:
            return to_attr(value)
        except ModelImportError as e:
            raise ModelImportError(f"node {node.name}: {e}") from e


def _sized_arange(node: Node) -> Node:
    """`torch.arange(T)` of a symbolic length, MLIR-style: its end is `?` (DYNAMIC_INDEX) and
    the result type's dim carries `T`, which the interpreter reads back. A copy of the node
    with that end; a start other than 0 or a step other than 1 with a symbolic bound is
    refused."""
    args = list(node.args)
    sized = [i for i, a in enumerate(args) if isinstance(a, Node)]
    if not sized:
        return node
    start, step = (args[0], args[2] if len(args) > 2 else 1) if len(args) > 1 else (0, 1)
    if sized != [len(args) - 1 if len(args) < 3 else 1] or start != 0 or step != 1:
        raise ModelImportError(
            f"node {node.name}: an arange with a symbolic bound imports only from 0 by 1 "
            f"(got args {tuple(a.name if isinstance(a, Node) else a for a in args)})"
        )
    copy = torch.fx.Node(node.graph, node.name, "call_function", node.target,
                         tuple(DYNAMIC_INDEX if isinstance(a, Node) else a for a in args),
                         node.kwargs)  # fmt: skip
    copy.meta = node.meta
    return copy


def _has_size(value: Any) -> bool:
    """Whether a property's value holds a traced size (a `sym_size` node)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return any(isinstance(v, Node) for v in items)


def _symbolic_sizes(node: Node, field: str, value: Any) -> Any:
    """A size argument that depends on a symbolic size, MLIR-style: each traced size is `?`
    (DYNAMIC_INDEX) and the result type's `#xnnc.dims` carries its expression, so a view or
    expand size keeps its static entries and a slice ends where its result's dim says."""
    start = node.args[2] if len(node.args) > 2 else node.kwargs.get("start")
    if field == "size" and isinstance(value, (list, tuple)):
        return [DYNAMIC_INDEX if isinstance(v, Node) else v for v in value]
    if field == "end" and isinstance(value, Node) and start in (None, 0):
        return DYNAMIC_INDEX
    raise ModelImportError(
        f"node {node.name}: takes the size {value} as its {field}; xnnc imports symbolic "
        "sizes as a view's or expand's size or a slice's end from 0"
    )
