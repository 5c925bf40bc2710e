"""`xnn-bf16-precision{mode=fp32}`: bf16 values between the GEMMs of each `xnn.subgraph`
stay in fp32.

    %n = xnn.convert %h : (tensor<64x2048xf32>) -> tensor<64x2048xbf16>    // h.type_as(x)
    %m = xnn.binary multiply %n, %w : (tensor<64x2048xbf16>, tensor<2048xbf16>) -> ...bf16
    %y = xnn.fully_connected %m, %k : (bf16, bf16) -> f32                  // native GEMM
    %r = xnn.convert %y : f32 -> bf16
    %s = xnn.binary add %x, %r : (bf16, bf16) -> bf16
  ==>
    %x32 = xnn.convert %x : bf16 -> f32                                    // once, at entry
    %m = xnn.binary multiply %h, %w32 : (tensor<64x2048xf32>, tensor<2048xf32>) -> ...f32
    %m16 = xnn.convert %m : f32 -> bf16
    %y = xnn.fully_connected %m16, %k : (bf16, bf16) -> f32
    %s = xnn.binary add %x32, %y : (f32, f32) -> f32

XNNPACK 92a7ad50 has no bf16 kernel but its GEMMs: its subgraph computes every other bf16
node in fp32 between converts of its own, and `xnn-legalize-casts` does the same, explicitly,
for the nodes it must. So a LLaMA-style residual stream pays two converts per elementwise
node and rounds each result to bf16, as eager does. In `fp32` mode each bf16 node but the
bf16 GEMMs (and converts) computes in fp32 (`legalize.widen`): the round trips through bf16
between nodes cancel, so bf16 values remain where a native bf16 x bf16 -> fp32 GEMM reads
them and at the subgraph's inputs and outputs. The output is closer to the fp32 result
than eager's (on the bf16 residual stack, half eager's mean error against the model in
fp32) and differs from eager's by the roundings left out; inductor's fused kernels (by
default, `emulate_precision_casts` off) and ONNX Runtime compute such chains the same way.

Measured on the AMD EPYC Zen 4 (AVX512-BF16, 1 thread, one process, the two forms
alternating): the bf16 residual stack's prefill 12.2 -> 11.9 ms (29 converts -> 6; 12.68 ->
12.57 in a slower hour), the LLaMA block 2.64 -> 2.59 ms; its decode the same (1.000 ->
1.001 ms: four 8 MiB weight reads).

`mode=native` rounds each bf16 result of a torch op to bf16, as eager does. Left to itself,
XNNPACK would not: its subgraph runs a bf16 node it has no kernel for (all but the GEMMs) in
fp32 and converts only at the subgraph's inputs and outputs, so `floor(x * 3.0)` floors the
unrounded fp32 product (on the Zen 4: Convert, Multiply, Floor, Convert in its profile). So
native mode widens the same nodes and keeps each rounding explicit, a pair

    %r = xnn.convert %m : f32 -> bf16      // at the producer's location (torch op)
    %w = xnn.convert %r : bf16 -> f32      // at the reader's

where a value passes from one torch op to another, which XNNPACK runs as written. A pair
goes (`FoldUnroundedPair`) inside one torch op's expansion (both converts at one known
location: eager computes e.g. hardswish's x * (x + 3) / 6 in fp32 and rounds once) and
where the value is a bf16 value already (a converted input, moved or sliced); two readers
share one widening (`ReuseWidening`). On the Zen 4 this costs nothing measurable over
XNNPACK's own fallback, which converted at each node too (benchmarks/RESULTS.md).

Left alone: bf16 GEMMs (their form is `xnn-legalize-casts`'s decision), fp16 and fp32 nodes,
and everything outside `xnn.subgraph`s.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnknownLoc, bf16, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.dialects import xnn
from xnnc.dialects.types import has_element_type
from xnnc.legalize.casts import BF16_GEMMS
from xnnc.legalize.widen import (
    FoldConvertRoundTrip,
    Widening,
    check_mode,
    touches,
    widen_node,
    widening_patterns,
)

# The modes of the pass: "fp32" computes between the GEMMs in fp32, "native" rounds every
# bf16 result as the model does.
MODES = ("fp32", "native")

# Nodes whose results are values of their inputs: bf16 values when the inputs are.
MOVING = (xnn.StaticReshapeOp, xnn.StaticTransposeOp, xnn.StaticSliceOp, xnn.ConcatenateOp,
          xnn.CopyOp, xnn.StaticBroadcastOp)  # fmt: skip


@dataclass(frozen=True)
class ComputeBf16InF32(Widening):
    """A bf16 node other than a GEMM: convert its bf16 operands to fp32, run it in fp32,
    convert its bf16 results back (`widen_node`)."""

    def widens(self, op: Operation) -> bool:
        """Whether the node `op` computes in fp32: every node but the bf16 GEMMs."""
        return not isinstance(op, BF16_GEMMS)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not touches(op, bf16) or not self.widens(op):
            return
        new_ops, results, _ = widen_node(op, bf16)
        rewriter.replace(op, new_ops, results)


def is_bf16_value(value: SSAValue) -> bool:
    """Whether the fp32 `value` holds bf16 values: a bf16 value converted, or moved."""
    op = value.owner
    if isinstance(op, xnn.ConvertOp):
        return has_element_type(op.input, bf16)
    if isinstance(op, MOVING):
        return all(is_bf16_value(v) for v in op.operands if has_element_type(v, f32))
    return False


def one_torch_op(a: Operation, b: Operation) -> bool:
    """Whether `a` and `b` come from one torch op (one known location)."""
    return a.location == b.location and not isinstance(a.location, UnknownLoc)


@dataclass(frozen=True)
class FoldUnroundedPair(FoldConvertRoundTrip):
    """A rounding to bf16 read back in fp32 goes where eager does not round: inside one
    torch op, or where the value is a bf16 value already."""

    def drops_rounding(self, rounding: xnn.ConvertOp, widening: xnn.ConvertOp) -> bool:
        return one_torch_op(rounding, widening) or is_bf16_value(rounding.input)


class ReuseWidening(RewritePattern):
    """Of two converts of one bf16 value to fp32 (each reader widens its operands) the
    first serves both."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.ConvertOp, rewriter: PatternRewriter) -> None:
        if not has_element_type(op.input, bf16):
            return
        for use in op.input.uses:
            first = use.operation
            if (
                isinstance(first, xnn.ConvertOp)
                and first.output.type == op.output.type
                and first.parent is op.parent
                and first.is_before_in_block(op)
            ):
                rewriter.replace(op, [], [first.output])
                return


@dataclass(frozen=True)
class Bf16PrecisionPass(ModulePass):
    """bf16 computation in `xnn.subgraph`s: `fp32` (between the GEMMs in fp32) or `native`
    (in fp32, each torch op's bf16 result rounded as in eager); module docstring."""

    name = "xnn-bf16-precision"

    mode: str = "fp32"

    def __post_init__(self) -> None:
        check_mode(self.name, self.mode, MODES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        native = self.mode == "native"
        fold = FoldUnroundedPair(bf16) if native else None
        patterns = widening_patterns(bf16, ComputeBf16InF32(), fold)
        if native:
            patterns.append(ReuseWidening())
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
