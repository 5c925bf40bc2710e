"""`aten-fold-qdq`: PT2E's dequantize -> float op -> quantize, as the op on quantized types
(the way MLIR's quant dialect and TOSA carry quantized ops).

    %a = aten.dequantize %xq              %c = aten.convolution %xq, %wq, %b
    %w = aten.dequantize %wq        ==>          : (q8, q8w, f32) -> q8'
    %c = aten.convolution %a, %w, %b      %r = aten.relu %c : (q8') -> q8'
    %r = aten.relu %c
    %y = aten.quantize %r : (f32) -> q8'

An op on quantized tensors means exactly what the chain computed: its quantized operands
dequantized, the float op, the result quantized to the result type (the reference
interpreter computes it so). A relu, hardtanh or clamp between the op and the quantize comes
along on the quantized type: quantization is monotonic, so clamping before or after it is
the same, and conversion fuses it into the node's output range. So does a constant pad or
a slice (elementwise, quantizing the padding value is the same before or after).

Does nothing unless: the quantize's input is one op (or op + a clamp, pad or slice) whose
result is used only there, at least one of the op's operands is a dequantize, and the op
on quantized types lowers to XNNPACK (`convertible`). A chain left alone stays float between
its quantize and dequantize, which lower to converts, so the float op may still run in
XNNPACK, and an op that stays outside keeps float inputs and outputs, which a partition
boundary (a `.pte` delegate's arguments) can carry. Operands
that are not dequantized (a float bias) stay float. The new op's location fuses those it
replaces, so `XnncPartitioner` tags all their FX nodes; dequantizes left unused are erased.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.conversion.aten_to_xnn import convertible
from xnnc.dialects import aten
from xnnc.dialects.dynamic_quant import is_dynamic
from xnnc.ir.raising import erase_unused, fused_location
from xnnc.ir.rebuild import rebuilt

# Activations that commute with quantization (clamps), so they may follow the fused op.
CLAMPS = (aten.ReluOp, aten.HardtanhOp, aten.ClampOp)
# Ops that commute with quantization too: quantize(pad(y, v)) = pad(quantize(y), quantize(v))
# elementwise, and a slice moves values. SEANet's causal conv pads after the ELU.
COMMUTING = (*CLAMPS, aten.ConstantPadNdOp, aten.SliceOp)
_NOT_COMPUTE = (aten.QuantizeOp, aten.DequantizeOp, aten.ConstantOp)


def _sole_use(value: SSAValue) -> Operation | None:
    return value.get_user_of_unique_use() if value.has_one_use() else None


def _compute_op(value: SSAValue) -> Operation | None:
    """The op producing `value` if it may move onto quantized types: an aten op whose one
    used result is `value`, used once."""
    op = value.owner
    if not isinstance(op, aten.AtenOp) or isinstance(op, _NOT_COMPUTE):
        return None
    if _sole_use(value) is None or any(r.uses for r in op.results if r is not value):
        return None
    return op


def _quantized_like(value: SSAValue, quantized: TensorType) -> TensorType:
    """`value`'s tensor type with the element type of `quantized` (a pad or slice after the
    op changes the shape, not the quantization)."""
    return TensorType(quantized.element_type, value.type.get_shape(), value.type.encoding)


def _retyped(op: Operation, operands: list[SSAValue], result: SSAValue, type_) -> Operation:
    """`op` on new operands, with `result`'s type replaced by `type_`."""
    return rebuilt(
        op, operands=operands, result_types=[type_ if r is result else r.type for r in op.results]
    )


class FoldQdq(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, q: aten.QuantizeOp, rewriter: PatternRewriter) -> None:
        if is_dynamic(q.result.type):
            return  # parameters chosen at run time: no static quantized result type
        act = q.input.owner if isinstance(q.input.owner, COMMUTING) else None
        core = _compute_op(act.input) if act is not None else None
        if core is None:
            # no op before the clamp, pad or slice: that is the op (XNNPACKQuantizer
            # annotates a relu6 apart from the conv before it)
            act, core = None, _compute_op(q.input)
        if core is None or (act is not None and _sole_use(q.input) is None):
            return
        dqs = [v.owner for v in core.operands if isinstance(v.owner, aten.DequantizeOp)]
        if not dqs:
            return
        quantized = q.result.type
        operands = [v.owner.input if isinstance(v.owner, aten.DequantizeOp) else v
                    for v in core.operands]  # fmt: skip
        used = act.input if act is not None else q.input
        new_core = _retyped(core, operands, used, _quantized_like(used, quantized))
        index = list(core.results).index(used)
        new = [new_core]
        if act is not None:
            new.append(_retyped(act, [new_core.results[index]], act.result, quantized))
        if any(convertible(o) is not None for o in new):
            for o in reversed(new):
                o.erase(safe_erase=False)
            return
        last = new[-1].results[index if act is None else 0]
        new[-1].location = fused_location([core, *([act] if act else []), q, *dqs])
        rewriter.insert(new)
        rewriter.replace(q, [], [last])
        erase_unused(rewriter, [*([act] if act else []), core, *dqs])


@dataclass(frozen=True)
class FoldQdqPass(ModulePass):
    """Fold dequantize -> op -> quantize chains into ops on quantized types."""

    name = "aten-fold-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldQdq()]), apply_recursively=False
        ).rewrite_module(op)
