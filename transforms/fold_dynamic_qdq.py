"""`aten-fold-dynamic-qdq`: a linear or 2-D convolution over a dynamically quantized activation
and a quantized weight, as the op on quantized types (XNNPACK's qd8 fully-connected,
convolution and deconvolution).

    %xq = aten.quantize %x : f32 -> !xnn.quant.dynamic<...>
    %a  = aten.dequantize %xq                          %xq = aten.quantize %x
    %w  = aten.dequantize %wq                  ==>     %y  = aten.linear %xq, %wq, %b
    %y  = aten.linear %a, %w, %b                             : (dyn, q8w|q4w, f32) -> f32

The linear on quantized operands means what the chain computed: its operands dequantized,
the float linear (the reference interpreter computes it so). The result stays f32: XNNPACK's
dynamically quantized fully-connected writes f32.

Does nothing unless the input is a dequantize of a dynamically quantized value and the weight
a dequantize of a quantized constant (any scheme: conversion says which XNNPACK runs). The
new op's location fuses those it replaces; dequantizes left unused are erased.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.conversion.dynamic_quant_to_xnn import qd8_convolution
from xnnc.dialects import aten
from xnnc.dialects.dynamic_quant import is_dynamic
from xnnc.dialects.quant import is_quantized
from xnnc.ir.raising import erase_unused, fused_location


def _fold(op: aten.LinearOp | aten.ConvolutionOp, rewriter: PatternRewriter) -> None:
    """`op` on the dynamically quantized activation and the quantized weight its dequantizes
    read, where they are such."""
    act, weight = op.input.owner, op.weight.owner
    if not (isinstance(act, aten.DequantizeOp) and is_dynamic(act.input.type)):
        return
    if not (isinstance(weight, aten.DequantizeOp) and is_quantized(weight.input.type)):
        return
    if not isinstance(weight.input.owner, aten.ConstantOp):
        return
    operands = [act.input, weight.input, *([op.bias] if op.bias is not None else [])]
    new = type(op).create(
        operands=operands,
        result_types=[op.result.type],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    new.location = fused_location([op, act, weight])
    rewriter.replace(op, new)
    erase_unused(rewriter, [act, weight])


class FoldDynamicLinear(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.LinearOp, rewriter: PatternRewriter) -> None:
        _fold(op, rewriter)


class FoldDynamicConv(RewritePattern):
    """A 2-D convolution XNNPACK runs on qd8 (`qd8_convolution`); others keep the float
    chain, which the reference interpreter computes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.ConvolutionOp, rewriter: PatternRewriter) -> None:
        if qd8_convolution(op):
            _fold(op, rewriter)


@dataclass(frozen=True)
class FoldDynamicQdqPass(ModulePass):
    """Fold dequantize(dynamic) x dequantize(weight) linears and 2-D convolutions into the ops
    on quantized types."""

    name = "aten-fold-dynamic-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldDynamicLinear(), FoldDynamicConv()]),
            apply_recursively=False,
        ).rewrite_module(op)
