"""A narrow float type (fp16 or bf16) computed in fp32 inside an `xnn.subgraph`: the patterns
`xnn-fp16-precision` and `xnn-bf16-precision` share.

    %y = xnn.binary add %a, %b : (bf16, bf16) -> bf16
  ==> (`widen_node`)
    %a32 = xnn.convert %a : bf16 -> f32
    %b32 = xnn.convert %b : bf16 -> f32
    %s = xnn.binary add %a32, %b32 : (f32, f32) -> f32
    %y = xnn.convert %s : f32 -> bf16

Once every node of a chain is widened, each round trip f32 -> narrow -> f32 between two of
them cancels (`FoldConvertRoundTrip`), narrow constants are widened at compile time
(`WidenConstant`) and each narrow subgraph input is converted once, at entry
(`WidenArguments`): converts remain at the subgraph's boundary and before the nodes that
keep the narrow type. What disappears with a round trip is the rounding to the narrow type
it did, including that of casts the user wrote (`x.half().float()` inside a subgraph is x).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import torch
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType, f32
from xdsl.ir import Attribute, Operation, SSAValue, Use
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xnnc.dialects import xnn
from xnnc.dialects.types import element_type, has_element_type
from xnnc.errors import OptionError
from xnnc.ir.constants import constant_op, constant_tensor, weight_name, xnn_constant
from xnnc.ir.rebuild import rebuilt


def _as_f32(t: Attribute, narrow: Attribute) -> Attribute:
    """`t` with `narrow` elements replaced by f32; any other type unchanged."""
    if isinstance(t, TensorType) and t.element_type == narrow:
        return TensorType(f32, t.get_shape(), t.encoding)
    return t


def convert(value: SSAValue, to: Attribute, like: Operation) -> xnn.ConvertOp:
    """`xnn.convert` of `value` to element type `to`, at `like`'s location."""
    assert isinstance(value.type, TensorType)
    op = xnn.ConvertOp.make(
        value, result_type=TensorType(to, value.type.get_shape(), value.type.encoding)
    )
    op.location = like.location
    return op


def touches(op: Operation, narrow: Attribute) -> bool:
    """Whether `op` is a node with a `narrow` operand or result (converts are not: they are
    where the narrow type begins and ends)."""
    if not isinstance(op, xnn.XnnNode) or isinstance(op, xnn.ConvertOp):
        return False
    return any(has_element_type(v, narrow) for v in (*op.operands, *op.results))


def widen_node(
    op: Operation, narrow: Attribute
) -> tuple[list[Operation], list[SSAValue], Operation]:
    """`op` computed in fp32: converts of its `narrow` operands, `op` rebuilt on fp32, converts
    of its results back to `narrow`. Returns the new ops, the values replacing `op`'s results
    and the rebuilt node."""
    new_ops: list[Operation] = []
    operands = []
    for value in op.operands:
        if has_element_type(value, narrow):
            new_ops.append(convert(value, f32, op))
            value = new_ops[-1].results[0]
        operands.append(value)
    result_types = [_as_f32(r.type, narrow) for r in op.results]
    inner = rebuilt(op, operands=operands, result_types=result_types)
    new_ops.append(inner)
    results = []
    for old, value in zip(op.results, inner.results, strict=True):
        value.name_hint = old.name_hint
        if has_element_type(old, narrow):
            new_ops.append(convert(value, narrow, op))
            value = new_ops[-1].results[0]
        results.append(value)
    return new_ops, results, inner


@dataclass(frozen=True)
class FoldConvertRoundTrip(RewritePattern):
    """`convert(convert(x : f32 -> narrow) : narrow -> f32)` is x when computing in fp32 (the
    rounding is what the mode drops); `convert(convert(x : narrow -> f32) : f32 -> narrow)` is
    x exactly."""

    narrow: Attribute

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.ConvertOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, xnn.ConvertOp):
            return
        x = inner.input
        pair = {element_type(x), element_type(inner.output)}
        if x.type != op.output.type or pair != {self.narrow, f32}:
            return
        if element_type(x) == f32 and not self.drops_rounding(inner, op):
            return
        rewriter.replace(op, [], [x])

    def drops_rounding(self, rounding: xnn.ConvertOp, widening: xnn.ConvertOp) -> bool:
        """Whether the pair `rounding` (f32 -> narrow), `widening` (narrow -> f32) may go:
        always when computing in fp32."""
        return True


@dataclass(frozen=True)
class WidenConstant(RewritePattern):
    """`convert(constant : narrow -> f32)` is an fp32 constant, widened at compile time."""

    narrow: Attribute

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.ConvertOp, rewriter: PatternRewriter) -> None:
        const = constant_op(op.input)
        if const is None or not has_element_type(op.input, self.narrow):
            return
        if element_type(op.output) != f32:
            return
        tensor = constant_tensor(op.input)
        if tensor is None:  # a weight printed without its data: XNNPACK converts it
            return
        wide = tensor.to(torch.float32).contiguous()
        if isinstance(const.properties["value"], DenseIntOrFPElementsAttr):
            wide_type = TensorType(f32, wide.shape)
            data = BytesAttr(wide.numpy().tobytes())
            new = xnn.ConstantOp(DenseIntOrFPElementsAttr(wide_type, data), wide_type)
        else:
            new = xnn_constant(wide, f"{weight_name(op.input)}.f32")
        new.location = const.location
        new.output.name_hint = const.results[0].name_hint
        rewriter.replace(op, [new], [new.output])


class Widening(RewritePattern):
    """The pattern that widens nodes: which nodes it computes in fp32."""

    @abstractmethod
    def widens(self, op: Operation) -> bool: ...


@dataclass(frozen=True)
class WidenArguments(RewritePattern):
    """A `narrow` external input is converted to fp32 once, at entry: its converts to fp32
    become that one, and the nodes reading it that compute in fp32 (`compute`) take
    `convert(convert(arg : narrow -> f32) : f32 -> narrow)`, a round trip that folds into
    each node's own widening."""

    narrow: Attribute
    compute: Widening

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.SubgraphOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        for arg in block.args:
            if not has_element_type(arg, self.narrow):
                continue
            widening = [u.operation for u in arg.uses if _widening(u.operation)]
            nodes = any(self._widens(u) for u in arg.uses)
            if not nodes and len(widening) <= 1:
                continue
            wide = convert(arg, f32, op)
            rewriter.insert(wide, InsertPoint.at_start(block))
            for widen in widening:
                rewriter.replace(widen, [], [wide.output])
            if nodes:
                narrow = convert(wide.output, self.narrow, op)
                rewriter.insert(narrow, InsertPoint.after(wide))
                rewriter.replace_uses_with_if(arg, narrow.output, self._widens)

    def _widens(self, use: Use) -> bool:
        """A use `compute` will widen (not a convert, not the subgraph's output, not a node
        keeping the narrow type)."""
        op = use.operation
        return not isinstance(op, (xnn.ConvertOp, xnn.OutputOp)) and self.compute.widens(op)


def _widening(op: Operation) -> bool:
    return isinstance(op, xnn.ConvertOp) and element_type(op.output) == f32


def widening_patterns(
    narrow: Attribute, compute: Widening, fold: FoldConvertRoundTrip | None = None
) -> list[RewritePattern]:
    """`compute` with what cleans up after it (`fold`, by default every round trip), for one
    walk."""
    fold = FoldConvertRoundTrip(narrow) if fold is None else fold
    return [WidenArguments(narrow, compute), compute, fold, WidenConstant(narrow)]


def check_mode(pass_name: str, mode: str, modes: tuple[str, ...]) -> None:
    """A precision pass's `mode` option, one of `modes`."""
    if mode not in modes:
        raise OptionError(
            f"{pass_name}: unknown mode '{mode}'; expected one of " + ", ".join(modes)
        )
