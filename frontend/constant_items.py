"""Sizes a model computes from its own constant tensors, folded to integers.

Some models keep layer hyper-parameters as buffers and compute their padding with tensor
arithmetic: Hugging Face's Mimi and EnCodec (`MimiConv1d`, `EncodecConv1d`) hold `stride`,
`kernel_size` and `padding_total` as 0-d buffers, and `F.pad` takes the result through
`.item()`. torch.export does not look into a buffer's value, so each such size is an
unbacked symbol (`u0`) with runtime asserts over it (`_assert_scalar(2*s75 + u0 + u1 >= 7)`),
and every shape after it is unknown.

The values are the program's constants, and the arithmetic is on scalars, so it folds:
each `aten.item` is evaluated exactly (sympy) over the buffers' values and the sizes it
reads (a symbolic time axis stays a symbol). An item that comes out an integer for every
size (a stride-1 convolution's extra padding is 0 at any length) takes the place of its
uses; an assert over folded values is checked over the sizes' ranges and dropped when it
always holds. The program is then retraced with plain integers. An item
that depends on a size (the extra padding of a strided convolution) stays.

Exact arithmetic where torch's is float32: the two agree on sizes below 2^24. A quotient of
such an integer by a small integer is an integer or at least 1/divisor from one, farther
than float32's rounding moves it, so `ceil` and `floor` give what eager gives.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import sympy
import torch
from torch.export import ExportedProgram
from torch.fx import Node
from torch.fx.node import map_arg
from torch.utils._sympy.value_ranges import bound_sympy

from xnnc.errors import ModelImportError
from xnnc.frontend.symbolic_lstm import keep_lstm_whole

aten = torch.ops.aten


def _to(x: sympy.Expr, dtype: torch.dtype) -> sympy.Expr | None:
    """A conversion: to an integer type only when the value is an integer already."""
    if dtype.is_floating_point or x.is_integer:
        return x
    return None


# Scalar arithmetic as sympy: torch's ops on 0-d tensors and Python's on sizes.
_ADD: Callable[..., Any] = lambda a, b, alpha=1: a + alpha * b  # noqa: E731
_SUB: Callable[..., Any] = lambda a, b, alpha=1: a - alpha * b  # noqa: E731
_RSUB: Callable[..., Any] = lambda a, b, alpha=1: b - alpha * a  # noqa: E731
_MUL: Callable[..., Any] = lambda a, b: a * b  # noqa: E731
_DIV: Callable[..., Any] = lambda a, b: a / b  # noqa: E731
_SAME: Callable[..., Any] = lambda a, *_, **__: a  # noqa: E731
_RULES: dict[Any, Callable[..., Any]] = {
    aten.add.Tensor: _ADD,
    aten.add.Scalar: _ADD,
    operator.add: _ADD,
    aten.sub.Tensor: _SUB,
    aten.sub.Scalar: _SUB,
    operator.sub: _SUB,
    aten.rsub.Scalar: _RSUB,
    aten.rsub.Tensor: _RSUB,
    aten.mul.Tensor: _MUL,
    aten.mul.Scalar: _MUL,
    operator.mul: _MUL,
    aten.div.Tensor: _DIV,
    aten.div.Scalar: _DIV,
    operator.truediv: _DIV,
    operator.floordiv: lambda a, b: sympy.floor(a / b),
    aten.neg.default: operator.neg,
    operator.neg: operator.neg,
    aten.ceil.default: sympy.ceiling,
    aten.floor.default: sympy.floor,
    aten.to.dtype: lambda a, dtype, *_, **__: _to(a, dtype),
    aten._to_copy.default: lambda a, dtype=torch.float32, **_: _to(a, dtype),
    aten.clone.default: _SAME,
    aten.lift_fresh_copy.default: _SAME,
    aten.item.default: _SAME,
    operator.ge: sympy.Ge,
    operator.gt: sympy.Gt,
    operator.le: sympy.Le,
    operator.lt: sympy.Lt,
    operator.eq: sympy.Eq,
}
_CHECKS = (aten._assert_scalar.default, aten._assert_tensor_metadata.default)


def fold_constant_items(ep: ExportedProgram) -> ExportedProgram:
    """`ep` with each `.item()` that is an integer at every size replaced by that integer
    and the asserts that hold with it dropped, retraced so that shapes read the folded
    sizes (an LSTM stays one node); `ep` itself when none folds. `ep` is not changed.
    Raises ModelImportError naming the node when such an assert can never hold."""
    if not any(n.target is aten.item.default for n in ep.graph.nodes):
        return ep
    with keep_lstm_whole():
        ep = ep.run_decompositions({})  # a copy, whose graph the fold edits
    if not _fold(ep):
        return ep
    with keep_lstm_whole():
        return ep.run_decompositions({})


def _fold(ep: ExportedProgram) -> bool:
    """The fold, in `ep`'s graph; whether an item folded."""
    graph = ep.graph
    items = [n for n in graph.nodes if n.target is aten.item.default]
    values = _Scalars(ep)
    folded = [(n, v) for n in items if (v := values.of(n)) is not None and v.is_Integer]
    for item, value in folded:
        _replace(item, int(value))
    for node in list(graph.nodes):
        if node.target in _CHECKS and values.of(node.args[0]) is not None:
            _check(node, values)
    graph.eliminate_dead_code()
    ep.graph_module.recompile()
    return bool(folded)


class _Scalars:
    """Nodes' values as sympy expressions where they are scalars computed from constants,
    literals and sizes; None elsewhere."""

    def __init__(self, ep: ExportedProgram):
        sig = ep.graph_signature
        self.ranges = ep.range_constraints
        self.sources = {**sig.inputs_to_parameters, **sig.inputs_to_buffers}
        self.sources.update(getattr(sig, "inputs_to_lifted_tensor_constants", {}))
        self.ep = ep
        self.memo: dict[Node, Any] = {}

    def of(self, arg: Any) -> Any:
        if not isinstance(arg, Node):
            return _literal(arg)
        if arg not in self.memo:
            self.memo[arg] = self._compute(arg)
        return self.memo[arg]

    def _compute(self, node: Node) -> Any:
        if node.op == "placeholder" and node.name in self.sources:
            name = self.sources[node.name]
            return _literal(self.ep.state_dict.get(name, self.ep.constants.get(name)))
        value = self._apply(node)
        val = node.meta.get("val")  # else a size as torch.export knows it (`2*s75`, `u0`)
        return val.node.expr if value is None and isinstance(val, torch.SymInt) else value

    def _apply(self, node: Node) -> Any:
        """The node's op on its arguments' values, where it is scalar arithmetic."""
        rule = _RULES.get(node.target) if node.op == "call_function" else None
        if rule is None or any(isinstance(v, Node) for v in node.kwargs.values()):
            return None
        args = [self.of(a) if isinstance(a, (Node, int, float)) else a for a in node.args]
        if any(a is None for a, raw in zip(args, node.args) if isinstance(raw, Node)):
            return None
        try:
            return rule(*args, **node.kwargs)
        except (TypeError, ValueError):  # not arithmetic on numbers (a relation's ceiling)
            return None

    def always(self, condition: Any) -> bool | None:
        """Whether `condition` holds at every size in range: True, False (at none), or
        None (at some)."""
        if condition in (sympy.true, sympy.false):
            return bool(condition)
        if not isinstance(condition, sympy.core.relational.Relational):
            return None
        gap = bound_sympy(condition.lhs - condition.rhs, self.ranges)
        low, high = gap.lower, gap.upper
        holds = {
            sympy.Ge: (low >= 0, high < 0),
            sympy.Gt: (low > 0, high <= 0),
            sympy.Le: (high <= 0, low > 0),
            sympy.Lt: (high < 0, low >= 0),
            sympy.Eq: (low == high == 0, low > 0 or high < 0),
        }.get(type(condition))
        if holds is None:
            return None
        if bool(holds[0]):
            return True
        return False if bool(holds[1]) else None


def _literal(value: Any) -> Any:
    """A constant as sympy: a one-element tensor or a Python number (exactly)."""
    if isinstance(value, torch.Tensor):
        if value.numel() != 1 or value.is_complex():
            return None
        value = value.item()
    if isinstance(value, bool):
        return sympy.true if value else sympy.false
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Rational(value)
    return None


def _check(node: Node, values: _Scalars) -> None:
    """Drop a check on folded values: an assert that holds at every size of the inputs, or
    a tensor metadata check of a value that is gone. Refuse the model if an assert never
    holds. An assert over an unbacked symbol (`u0`, a value that did not fold) stays."""
    if node.target is aten._assert_scalar.default:
        condition = values.of(node.args[0])
        if any(s.name.startswith("u") for s in getattr(condition, "free_symbols", ())):
            return  # over a value that did not fold: the assert is what bounds it
        holds = values.always(condition)
        if holds is None:
            return
        if not holds:
            raise ModelImportError(f"node {node.name}: {node.args[1]}")
    node.graph.erase_node(node)


def _replace(node: Node, value: int) -> None:
    """Every use of `node` reads `value` instead."""
    for user in list(node.users):
        user.args = map_arg(user.args, lambda a: value if a is node else a)
        user.kwargs = map_arg(user.kwargs, lambda a: value if a is node else a)
