"""`fold-batch-norm`: inference batch norm folded into the convolution before it.

    %c = aten.convolution %x, %w, %b {...}             %c = aten.convolution %x, %w', %b' {...}
    %y:3 = aten._native_batch_norm_legit_no_training  ==>
             %c, %gamma, %beta, %mean, %var {eps}

with scale = gamma / sqrt(var + eps), w' = w * scale (per output channel) and
b' = (b - mean) * scale + beta, computed in fp32 and cast back to the weights' dtype.
Does nothing when: the convolution has other users, is transposed, any parameter is not a
constant with data, or the statistics results are used. A batch norm left alone is lowered
on its own as a per-channel multiply and add.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
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

from xnnc.dialects import aten
from xnnc.ir.constants import aten_constant, constant_tensor, mapped_empty, weight_name


def fold_into_conv(
    w: torch.Tensor,
    b: torch.Tensor | None,
    mean: torch.Tensor,
    var: torch.Tensor,
    gamma: torch.Tensor | None,
    beta: torch.Tensor | None,
    eps: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(w', b') of the convolution that equals conv(w, b) followed by the batch norm."""
    mean, var = mean.float(), var.float()
    gamma = torch.ones_like(mean) if gamma is None else gamma.float()
    beta = torch.zeros_like(mean) if beta is None else beta.float()
    bias = torch.zeros_like(mean) if b is None else b.float()
    scale = gamma / torch.sqrt(var + eps)
    shape = (-1,) + (1,) * (w.dim() - 1)
    # Straight into pages of its own: no heap temporary left behind per layer.
    new_w = mapped_empty(w.shape, w.dtype)
    if w.dtype == torch.float32:
        torch.mul(w, scale.reshape(shape), out=new_w)
    else:
        new_w.copy_(w.float() * scale.reshape(shape))
    return new_w, ((bias - mean) * scale + beta).to(w.dtype)


class FoldBatchNormIntoConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, bn: aten.BatchNormOp, rewriter: PatternRewriter) -> None:
        conv = bn.input.owner
        if not isinstance(conv, aten.ConvolutionOp) or conv.transposed.value.data:
            return
        if not conv.result.has_one_use() or bn.save_mean.uses or bn.save_rstd.uses:
            return
        values = [conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.weight, bn.bias]
        tensors = [None if v is None else constant_tensor(v) for v in values]
        if any(t is None for v, t in zip(values, tensors, strict=True) if v is not None):
            return
        w, b, mean, var, gamma, beta = tensors
        new_w, new_b = fold_into_conv(w, b, mean, var, gamma, beta, bn.eps.value.data)
        name = weight_name(conv.weight)
        w_op, b_op = aten_constant(new_w, f"{name}.bn"), aten_constant(new_b, f"{name}.bn_bias")
        folded = aten.ConvolutionOp.build(
            operands=[conv.input, w_op.result, b_op.result],
            properties=dict(conv.properties),
            result_types=[conv.result.type],
        )
        folded.location = conv.location
        rewriter.insert([w_op, b_op, folded])
        rewriter.replace(bn, [], [folded.result, None, None])
        rewriter.erase(conv)


@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    """Fold inference batch norms into the convolutions that feed them."""

    name = "fold-batch-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([FoldBatchNormIntoConv()])).rewrite_module(
            op
        )
