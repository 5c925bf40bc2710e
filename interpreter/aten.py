"""The `aten` dialect on xDSL's interpreter, every op computed by its ATen overload.

An op's operands and properties are bound back to the overload's schema by name (the
same names the importer used), so one generic implementation serves every named op.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation

from xnnc.backend_xnnpack.dims import DimError, DimExpr, bind_dims
from xnnc.dialects import aten
from xnnc.dialects.dynamic_quant import dynamic_quant_type
from xnnc.dialects.quant import is_quantized, quant_type
from xnnc.dialects.types import dims_of_type, shape_of, symbol_ranges
from xnnc.errors import InputError, XnncError
from xnnc.interpreter.dynamic_quant import fake_quantize
from xnnc.interpreter.quant import dequantize, quantize
from xnnc.ir.constants import tensor_of
from xnnc.ir.dtypes import TORCH_DTYPES, torch_dtype
from xnnc.ir.schema import from_attr, torch_overload


class ReferenceRunError(XnncError):
    """Bad inputs to the reference interpreter, or an op it cannot run."""


def _accepts(schema_type: str, value: Any) -> bool:
    if value is None:
        return schema_type.startswith("Optional[")
    if isinstance(value, torch.Tensor):
        return "Tensor" in schema_type
    if isinstance(value, list) and value and isinstance(value[0], torch.Tensor):
        return "List[Tensor]" in schema_type
    return "Tensor" not in schema_type or schema_type == "Tensor"


def bind(op: IRDLOperation, operands: Sequence[Any]) -> tuple[Any, list[Any], dict[str, Any]]:
    """The first of the op's overloads whose schema takes all its set fields (else the first
    that takes those it needs), with the call args: `aten.round` with `decimals` calls
    round.decimals whichever overload `OVERLOADS` lists first."""
    op_def = type(op).get_irdl_definition()
    by_name: dict[str, Any] = {}
    for (name, _), value in zip(op_def.operands, _group_operands(op, operands)):
        by_name[name] = value
    for name in op_def.properties:
        prop = op.properties.get(name)
        if prop is not None and name != "operandSegmentSizes":
            by_name[name] = from_attr(prop)
    scalar = by_name.pop("scalar", None)
    is_set = {name for name, value in by_name.items() if value is not None}
    bound = []
    for qualified in type(op).OVERLOADS:
        overload = torch_overload(qualified)
        call = _bind_overload(overload, type(op), by_name, scalar, dict(op_def.operands))
        if call is not None:
            bound.append((overload, *call))
    if not bound:
        raise ReferenceRunError(f"{op.name}: no overload of {type(op).OVERLOADS} takes its fields")
    overload, args, kwargs, _ = next((b for b in bound if is_set <= b[3]), bound[0])
    return overload, args, kwargs


def _bind_overload(
    overload: Any, op_type: type, by_name: dict[str, Any], scalar: Any, operands: dict
) -> tuple[list[Any], dict[str, Any], set[str]] | None:
    """`overload`'s args and kwargs from the op's fields and the fields it used, or None
    when its schema does not take them."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    used: set[str] = set()
    for arg in overload._schema.arguments:
        field = op_type.RENAMES.get(arg.name, arg.name)
        value = by_name.get(field)
        if value is None and scalar is not None and field in operands:
            value = scalar
        if value is None and field not in by_name:
            if arg.has_default_value():
                # Positional defaults must be passed to keep later arguments in place.
                if not arg.kwarg_only:
                    args.append(arg.default_value)
                continue
            if not str(arg.type).startswith("Optional["):
                return None
        if not _accepts(str(arg.type), value):
            return None
        used.add(field)
        if arg.kwarg_only:
            kwargs[arg.name] = value
        else:
            args.append(value)
    return args, kwargs, used


def _group_operands(op: IRDLOperation, operands: Sequence[Any]) -> list[Any]:
    """Operand values per operand field (a list for variadic, None for absent)."""
    out: list[Any] = []
    i = 0
    for name, _ in type(op).get_irdl_definition().operands:
        got = getattr(op, name)
        if got is None:
            out.append(None)
        elif isinstance(got, SSAValue):
            out.append(operands[i])
            i += 1
        else:
            out.append(list(operands[i : i + len(got)]))
            i += len(got)
    return out


def _results(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _run_named(self: Any, interpreter: Interpreter, op: Operation, args: tuple) -> tuple:
    overload, call_args, kwargs = bind(op, args)
    return _results(overload(*call_args, **kwargs))


def _run_constant(self: Any, interpreter: Interpreter, op: aten.ConstantOp, args: tuple) -> tuple:
    made = getattr(self, "constants", {}).get(op)
    return (made if made is not None else tensor_of(op.value, op.result.type),)


def _run_generic(self: Any, interpreter: Interpreter, op: aten.GenericOp, args: tuple) -> tuple:
    operands = list(args)
    call_args = [from_attr(a, operands) for a in op.args.data]
    if op.target.data.startswith("aten::arange") and DYNAMIC_INDEX in call_args:
        (length,) = shape_of(op.results[0])  # a symbolic end (`fx_importer._sized_arange`)
        end = length.evaluate(getattr(self, "sizes", {})) if isinstance(length, DimExpr) else length
        call_args = [end if a == DYNAMIC_INDEX else a for a in call_args]
    kwargs = {k: from_attr(v, operands) for k, v in op.kwargs.data.items()}
    return _results(torch_overload(op.target.data)(*call_args, **kwargs))


def _run_to_dim_order_copy(self: Any, interpreter: Interpreter, op: Operation, args: tuple):
    # ExecuTorch's dim_order_ops namespace is registered only when executorch is imported.
    dtype = op.properties.get("dtype")
    return (args[0].to(dtype=TORCH_DTYPES[dtype] if dtype else None, copy=True),)


def _run_quantize(self: Any, interpreter: Interpreter, op: aten.QuantizeOp, args: tuple):
    if (d := dynamic_quant_type(op.result.type.element_type)) is not None:
        return (fake_quantize(args[0], d),)
    return (quantize(args[0], quant_type(op.result.type.element_type)),)


def _run_dequantize(self: Any, interpreter: Interpreter, op: aten.DequantizeOp, args: tuple):
    if dynamic_quant_type(op.input.type.element_type) is not None:
        return (args[0],)  # held as its real numbers
    return (dequantize(args[0], quant_type(op.input.type.element_type)),)


def _run_sized(self: Any, interpreter: Interpreter, op: Operation, args: tuple) -> tuple:
    """A view, expand or slice whose size argument is `?`: its result's dims at the call's
    sizes (`self.sizes`, bound from the inputs by `bind_sizes`) give the size."""
    size = op.properties.get("size")
    end = op.properties.get("end")
    if not (
        (size is not None and DYNAMIC_INDEX in size.get_values())
        or (end is not None and end.value.data == DYNAMIC_INDEX)
    ):
        return _on_real_numbers(_run_named)(self, interpreter, op, args)
    env = getattr(self, "sizes", {})
    shape = [d.evaluate(env) if isinstance(d, DimExpr) else d for d in shape_of(op.results[0])]
    x = args[0]
    if isinstance(op, aten.SliceOp):
        d = op.dim.value.data % x.dim() if op.dim is not None else 0
        return (x.narrow(d, 0, shape[d]),)
    return (x.expand(shape) if isinstance(op, aten.ExpandOp) else x.reshape(shape),)


def _on_real_numbers(run: Any) -> Any:
    """An op on quantized tensors computed as PT2E's converted model computes it: its
    quantized operands dequantized, the float op, its quantized results quantized."""

    def run_quantized(self: Any, interpreter: Interpreter, op: Operation, args: tuple) -> tuple:
        if not any(is_quantized(v.type) for v in (*op.operands, *op.results)):
            return run(self, interpreter, op, args)
        reals = tuple(
            dequantize(a, quant_type(v.type.element_type)) if is_quantized(v.type) else a
            for v, a in zip(op.operands, args)
        )
        outs = run(self, interpreter, op, reals)
        return tuple(
            quantize(o, quant_type(r.type.element_type)) if is_quantized(r.type) else o
            for r, o in zip(op.results, outs)
        )

    return run_quantized


def _make_functions() -> type[InterpreterFunctions]:
    special = {
        aten.ConstantOp: _run_constant,
        aten.GenericOp: _on_real_numbers(_run_generic),
        aten.ToDimOrderCopyOp: _run_to_dim_order_copy,
        aten.QuantizeOp: _run_quantize,
        aten.DequantizeOp: _run_dequantize,
        aten.MatmulOp: lambda self, interpreter, op, args: (torch.matmul(*args),),
        aten.ViewOp: _run_sized,
        aten.ExpandOp: _run_sized,
        aten.SliceOp: _run_sized,
    }
    namespace = {
        f"run_{cls.__name__}": impl(cls)(special.get(cls, _on_real_numbers(_run_named)))
        for cls in aten.ATEN_OPS
    }
    return register_impls(type("AtenFunctions", (InterpreterFunctions,), namespace))


AtenFunctions = _make_functions()


class InputBinder:
    """Checks a function's inputs against its signature (count, dtype, shape; symbolic sizes
    against their ranges and expressions) and binds the size symbols. Built once per
    function, so a call reads no IR: what it checks is precomputed, and a call at the shapes
    last accepted skips the size check (the pair is replaced whole, so threads may share a
    binder)."""

    def __init__(self, func: Any) -> None:
        arg_types = func.function_type.inputs.data
        self._name = func.sym_name.data
        # (shape, or None where a dim is symbolic and `bind_dims` checks it; dtype; type)
        self._expected = [
            (None if DYNAMIC_INDEX in t.get_shape() else t.get_shape(),
             torch_dtype(t.element_type), t)
            for t in arg_types
        ]  # fmt: skip
        self._symbolic = any(shape is None for shape, _, _ in self._expected)
        if self._symbolic:
            args = func.body.block.args
            self._names = [
                f"'{a.name_hint}'" if a.name_hint else str(i) for i, a in enumerate(args)
            ]
            self._specs = [dims_of_type(t) for t in arg_types]
            self._ranges = symbol_ranges(func)
        self._accepted: tuple[tuple, dict[str, int]] | None = None

    def __call__(self, inputs: Sequence[Any]) -> tuple[tuple[torch.Tensor, ...], dict]:
        """The inputs as torch tensors and the values of the size symbols ({} if static)."""
        expected = self._expected
        if len(inputs) != len(expected):
            raise InputError(f"@{self._name} takes {len(expected)} inputs, got {len(inputs)}")
        checked = list(inputs)
        for i, t in enumerate(checked):
            shape, dtype, _ = expected[i]
            if (
                type(t) is not torch.Tensor
                or t.dtype is not dtype
                or (shape is not None and t.shape != shape)
            ):  # numpy, a subclass, or an error to raise
                checked[i] = _as_tensor(t, i, *expected[i])
        tensors = tuple(checked)
        if not self._symbolic:
            return tensors, {}
        shapes = tuple([t.shape for t in tensors])
        accepted = self._accepted
        if accepted is not None and accepted[0] == shapes:
            return tensors, accepted[1]
        try:
            env = bind_dims(self._specs, self._ranges, shapes, self._names)
        except DimError as e:
            raise InputError(str(e)) from None
        self._accepted = (shapes, env)
        return tensors, env


def _as_tensor(
    value: Any, index: int, shape: tuple[int, ...] | None, dtype: torch.dtype, expected: TensorType
) -> torch.Tensor:
    t = torch.from_numpy(value) if isinstance(value, np.ndarray) else value
    if not isinstance(t, torch.Tensor):
        raise InputError(f"input {index}: expected a tensor, got {type(value).__name__}")
    if (shape is not None and t.shape != shape) or t.dtype != dtype:
        raise InputError(
            f"input {index}: expected {dtype} {list(dims_of_type(expected))}, "
            f"got {t.dtype} {list(t.shape)}"
        )
    return t


def op_interpreter(module: ModuleOp) -> Interpreter:
    """An interpreter of `module`'s `aten` ops on torch, for rewrites that compute an op
    (`Interpreter.run_op`): folding constants, reading constant indices."""
    interpreter = Interpreter(module)
    interpreter.register_implementations(AtenFunctions())
    return interpreter


def run_reference(
    module: ModuleOp,
    inputs: Sequence[Any],
    func: str = "forward",
    *,
    traced: bool = False,
    constants: dict[Operation, torch.Tensor] | None = None,
) -> tuple[torch.Tensor, ...]:
    """Run `func` of an `aten` module on torch; inputs are torch tensors or numpy arrays.
    `traced`: under torch.export's tracing (the ops recorded as they run), so autograd is
    left as it is instead of switched off. `constants`: the tensors of `aten.constant` ops
    made beforehand (a traced module's buffers: the program records them as they are, not
    as tensors made and reshaped inside it)."""
    from xdsl.dialects.func import FuncOp

    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    if func not in funcs:
        raise ReferenceRunError(f"no function @{func}; the module has {sorted(funcs)}")
    tensors, sizes = InputBinder(funcs[func])(inputs)
    interpreter = Interpreter(module)
    interpreter.register_implementations(FuncFunctions())
    functions = AtenFunctions()
    functions.sizes = sizes
    functions.constants = constants or {}
    interpreter.register_implementations(functions)
    with contextlib.nullcontext() if traced else torch.no_grad():
        return tuple(interpreter.call_op(func, tensors))
