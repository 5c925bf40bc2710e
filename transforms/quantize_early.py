"""`xnn-quantize-early`: a convert to a quantized type after a concatenate or depth-to-space
moves before it, so the data movement copies int8 instead of fp32.

    %j = xnn.concatenate %a, %b : f32            %qa = xnn.convert %a : f32 -> qs8
    %d = xnn.depth_to_space_2d %j : f32    ==>   %qb = xnn.convert %b : f32 -> qs8
    %q = xnn.convert %d : f32 -> qs8             %j = xnn.concatenate %qa, %qb : qs8
                                                 %q = xnn.depth_to_space_2d %j : qs8

Quantizing is elementwise and these ops only move elements, so the result is the same
integers; the converts do the same work as the one before, and the copies move a quarter of
the bytes. This is where a float op meets a qs8 one in a PT2E program: a depthwise transposed
conv that XNNPACKQuantizer leaves float (it skips groups > 1), in polyphase form, feeding a
quantized conv (MI-GAN-style decoders).

Does nothing when: the convert's input has other uses; it is not produced by a concatenate
or depth-to-space; the convert's result is not a quantized tensor of a known shape (static,
or symbolic with its `#xnnc.dims`: the converts follow the size as the ops they pass do).
Slices are left alone (converting first would convert the elements they drop), and so are
transposes and reshapes, which `xnn-layout` moves past converts itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.dialects import xnn
from xnnc.dialects.quant import is_quantized
from xnnc.dialects.types import element_type, has_known_shape, shape_of, tensor_type
from xnnc.ir.emitter import Emitter
from xnnc.ir.rebuild import rebuilt

MOVEMENT = (xnn.ConcatenateOp, xnn.DepthToSpace2dOp)


@dataclass(frozen=True)
class QuantizeBeforeMovement(RewritePattern):
    """convert(concatenate(a, b)) as concatenate(convert(a), convert(b)); the same for
    depth-to-space. Applied again, the converts climb a chain of such ops."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.ConvertOp, rewriter: PatternRewriter) -> None:
        moved = op.input.owner
        if not isinstance(moved, MOVEMENT) or not op.input.has_one_use():
            return
        if not is_quantized(op.output.type) or not has_known_shape(op.output.type):
            return
        elem = element_type(op.output)
        e = Emitter(rewriter, moved)
        inputs = [e.node(xnn.ConvertOp, v, shape=shape_of(v), elem=elem) for v in moved.operands]
        new = rebuilt(moved, operands=inputs, result_types=[tensor_type(elem, shape_of(op.output))])
        rewriter.insert(new)
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(moved)


CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]] = {
    xnn.ConvertOp: (QuantizeBeforeMovement(),),
}


@dataclass(frozen=True)
class QuantizeEarlyPass(ModulePass):
    """Quantizing converts before concatenates and depth-to-space (int8 copies)."""

    name = "xnn-quantize-early"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([QuantizeBeforeMovement()])
        ).rewrite_module(op)
