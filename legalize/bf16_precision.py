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

Left alone: `mode=native` (the pass does nothing; every bf16 result rounds as in eager), bf16
GEMMs (their form is `xnn-legalize-casts`'s decision), fp16 and fp32 nodes, and everything
outside `xnn.subgraph`s.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, bf16
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
)

from xnnc.legalize.casts import BF16_GEMMS
from xnnc.legalize.widen import Widening, check_mode, touches, widen_node, widening_patterns

# The modes of the pass: "fp32" computes between the GEMMs in fp32, "native" rounds every
# bf16 result as the model does.
MODES = ("fp32", "native")


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


@dataclass(frozen=True)
class Bf16PrecisionPass(ModulePass):
    """bf16 computation in `xnn.subgraph`s: `fp32` (between the GEMMs in fp32; module
    docstring) or `native` (the pass does nothing)."""

    name = "xnn-bf16-precision"

    mode: str = "fp32"

    def __post_init__(self) -> None:
        check_mode(self.name, self.mode, MODES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode == "native":
            return
        patterns = widening_patterns(bf16, ComputeBf16InF32())
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
