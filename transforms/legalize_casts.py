"""`xnn-legalize-casts`: bf16 nodes XNNPACK has no bf16 kernel for run in fp32 between
converts, explicitly in the IR.

    %y = xnn.static_reduce mean %x : (tensor<1x64x512xbf16>) -> tensor<1x64x1xbf16>
  ==>
    %a = xnn.convert %x : (tensor<1x64x512xbf16>) -> tensor<1x64x512xf32>
    %b = xnn.static_reduce mean %a : (tensor<1x64x512xf32>) -> tensor<1x64x1xf32>
    %y = xnn.convert %b : (tensor<1x64x1xf32>) -> tensor<1x64x1xbf16>

At this XNNPACK (92a7ad50) that is reductions, softmax and global average pooling; bf16
unary, binary and data-movement nodes run natively and are left alone, as are fp16 and fp32
nodes. (The extended runtime applies the same rule at load to blobs made elsewhere; doing it
here makes it visible, testable, and lets converts cancel against neighbouring casts.)
Dtype casts themselves are lowered to `xnn.convert` by conversion: fp32 <-> fp16 <-> bf16
inside the delegate, integer casts and memory-format changes left outside.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, bf16, f32
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xnnc.dialects import xnn
from xnnc.dialects.aten import shape_of

# Nodes without a bf16 kernel at XNNPACK 92a7ad50 (checked by defining each on bf16 values).
NO_BF16_KERNEL = (xnn.StaticReduceOp, xnn.SoftmaxOp, xnn.GlobalAveragePooling2dOp)


def _f32(shape: tuple[int, ...]) -> TensorType:
    return TensorType(f32, list(shape))


class ComputeBf16InFp32(RewritePattern):
    """One bf16 reduction/softmax/pooling node: convert in, run in fp32, convert out."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, NO_BF16_KERNEL):
            return
        x, y = op.operands[0], op.results[0]
        if x.type.element_type != bf16 or y.type.element_type != bf16:
            return
        widened = xnn.ConvertOp.make(x, result_type=_f32(shape_of(x)))
        inner = type(op).build(
            operands=[widened.output],
            result_types=[_f32(shape_of(y))],
            properties=dict(op.properties),
        )
        narrowed = xnn.ConvertOp.make(inner.output, result_type=y.type)
        for new in (widened, inner, narrowed):
            new.location = op.location
        rewriter.replace(op, [widened, inner, narrowed], [narrowed.output])


CANONICALIZATION = {cls: (ComputeBf16InFp32(),) for cls in NO_BF16_KERNEL}


@dataclass(frozen=True)
class LegalizeCastsPass(ModulePass):
    """Run bf16 nodes XNNPACK lacks in fp32 between explicit converts."""

    name = "xnn-legalize-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([ComputeBf16InFp32()])).rewrite_module(op)
