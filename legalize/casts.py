"""`xnn-legalize-casts`: bf16 nodes XNNPACK cannot define on bf16 values run in fp32 between
converts, explicitly in the IR; a bf16 GEMM takes XNNPACK's bf16 x bf16 -> fp32 form where the
cost model chooses the native form (the decision recorded on the op, `xnn.decision`, else
the static rule `cost.rules.bf16_gemm` for the module's `#xnn.target`), else it computes in
fp32 too. The GEMM that results carries the decision followed.

    %y = xnn.static_reduce mean %x : (tensor<1x64x512xbf16>) -> tensor<1x64x1xbf16>
  ==>
    %a = xnn.convert %x : (tensor<1x64x512xbf16>) -> tensor<1x64x512xf32>
    %b = xnn.static_reduce mean %a : (tensor<1x64x512xf32>) -> tensor<1x64x1xf32>
    %y = xnn.convert %b : (tensor<1x64x1xf32>) -> tensor<1x64x1xbf16>

    %y = xnn.fully_connected %x, %w, %b : (bf16, bf16, bf16) -> bf16
  ==> (decision "native")
    %f = xnn.fully_connected %x, %w, %b32 : (bf16, bf16, f32) -> f32   // bias widened
    %y = xnn.convert %f : f32 -> bf16
  ==> (otherwise)
    %x32 = xnn.convert %x : bf16 -> f32
    %f = xnn.fully_connected %x32, %w32, %b32 : (f32, f32, f32) -> f32  // constants widened
    %y = xnn.convert %f : f32 -> bf16

At this XNNPACK (92a7ad50) the fp32 nodes are convolutions, deconvolutions, pooling,
reductions, softmax and bilinear resizing: their bf16 constants (filters, biases) are
widened at compile time, other bf16 operands converted. The bf16 x bf16 -> fp32 GEMM form
records the decision in the IR and carries it in the blob: XNNPACK's subgraph would still
rewrite it to fp32 (its bf16 fallback keeps no GEMM), so the extended runtime runs such
nodes through XNNPACK's operator API (backend_xnnpack/runtime/bf16_gemm.py); stock
ExecuTorch accepts the form and runs it in fp32. bf16 unary, binary and data-movement nodes
are left alone (XNNPACK defines them, falling back to fp32 internally where it must), as
are fp16 and fp32 nodes. A node whose bf16 constant has no data (weights elided) is left
alone too: the extended runtime applies the same rule at load to blobs made elsewhere.
Dtype casts themselves are lowered to `xnn.convert` by conversion: fp32 <-> fp16 <-> bf16
inside the delegate, integer casts and memory-format changes left outside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, bf16, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xnnc.backend_xnnpack import nodes
from xnnc.cost.decision import Decision, decide, record
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import GemmLayer
from xnnc.dialects import xnn
from xnnc.dialects.types import has_element_type, shape_of, tensor_type
from xnnc.ir.constants import constant_op, constant_tensor, weight_name, xnn_constant

# The node table's bf16 capabilities: nodes XNNPACK 92a7ad50 rejects on bf16 values, and its
# bf16 x bf16 -> fp32 GEMMs (fp32 too where the cost model chooses it).
NO_BF16_KERNEL = xnn.node_ops(nodes.ops_with(lambda spec: spec.bf16 is nodes.Bf16.VIA_FP32))
BF16_GEMMS = xnn.node_ops(nodes.ops_with(lambda spec: spec.bf16 is nodes.Bf16.GEMM))


def _f32(shape: tuple) -> TensorType:
    return tensor_type(f32, shape)


def _widened_constants(operands: list[SSAValue]) -> dict[int, xnn.ConstantOp] | None:
    """fp32 copies of the bf16 constant operands (by index); None when one has no data."""
    widened = {}
    for i, v in enumerate(operands):
        if has_element_type(v, bf16) and constant_op(v) is not None:
            data = constant_tensor(v)
            if data is None:
                return None
            widened[i] = xnn_constant(data.float(), f"{weight_name(v)}.f32")
    return widened


def _rebuild(op: Operation, operands: list[SSAValue], result: TensorType) -> Operation:
    """`op` with new operands and result type (an absent optional bias stays absent)."""
    groups: list[SSAValue | list[SSAValue]] = list(operands)
    if getattr(op, "bias", 0) is None:
        groups.append([])
    return type(op).build(operands=groups, result_types=[result], properties=dict(op.properties))


def _replace_with_fp32_output(
    op: Operation, operands: list[SSAValue], new: list[Operation], rewriter: PatternRewriter
) -> None:
    """Replace `op` by `new` + `op` on `operands` with an fp32 result + a convert back."""
    y = op.results[0]
    inner = _rebuild(op, operands, _f32(shape_of(y)))
    decision = gemm_decision(op)
    if decision is not None:
        record(inner, decision)
    narrowed = xnn.ConvertOp.make(inner.results[0], result_type=y.type)
    new += [inner, narrowed]
    for n in new:
        n.location = op.location
    rewriter.replace(op, new, [narrowed.output])


def gemm_layer(op: Operation) -> GemmLayer:
    """A fully-connected ([..., K] x [N, K]) or batch matmul ([B..., M, K] x [B..., K, N])."""
    x, y = shape_of(op.operands[0]), shape_of(op.results[0])
    if isinstance(op, xnn.FullyConnectedOp):
        return GemmLayer("fc", 1, math.prod(x[:-1]), x[-1], y[-1])
    return GemmLayer("bmm", math.prod(y[:-2]), x[-2], x[-1], y[-1])


def bf16_gemm(op: Operation) -> bool:
    """Whether `op` is a bf16 GEMM: the layers of the bf16-gemm form."""
    return isinstance(op, BF16_GEMMS) and has_element_type(op.results[0], bf16)


def gemm_decision(op: Operation) -> Decision | None:
    """The cost model's decision for a bf16 GEMM; None for any other op."""
    return decide(op, gemm_layer(op)) if bf16_gemm(op) else None


def _native_gemm(op: Operation) -> bool:
    decision = gemm_decision(op)
    return decision is not None and decision.choice == "native"


def _runs_in_fp32(op: Operation) -> bool:
    if isinstance(op, NO_BF16_KERNEL):
        return True
    return isinstance(op, BF16_GEMMS) and not _native_gemm(op)


class ComputeBf16InFp32(RewritePattern):
    """One bf16 node XNNPACK rejects, or a bf16 GEMM on a target without XNNPACK's bf16 GEMM:
    constants widened, inputs converted, output converted back."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not _runs_in_fp32(op) or not has_element_type(op.results[0], bf16):
            return
        operands = list(op.operands)
        widened = _widened_constants(operands)
        if widened is None:
            return
        new: list[Operation] = list(widened.values())
        for i, v in enumerate(operands):
            if i in widened:
                operands[i] = widened[i].output
            elif has_element_type(v, bf16):
                convert = xnn.ConvertOp.make(v, result_type=_f32(shape_of(v)))
                new.append(convert)
                operands[i] = convert.output
        _replace_with_fp32_output(op, operands, new, rewriter)


class Bf16GemmToFp32Output(RewritePattern):
    """A bf16 -> bf16 fully-connected or batch matmul as XNNPACK's bf16 x bf16 -> fp32 GEMM
    (a bf16 bias widened), converted back to bf16, where the cost model chooses "native"."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not _native_gemm(op) or not has_element_type(op.results[0], bf16):
            return
        operands = list(op.operands)
        bias = 2 if isinstance(op, xnn.FullyConnectedOp) and op.bias is not None else None
        new: list[Operation] = []
        if bias is not None and has_element_type(operands[bias], bf16):
            widened = _widened_constants([operands[bias]])
            if widened is None or not widened:  # elided data, or a bias computed in-graph
                return
            new.append(widened[0])
            operands[bias] = widened[0].output
        _replace_with_fp32_output(op, operands, new, rewriter)


PATTERNS = (ComputeBf16InFp32(), Bf16GemmToFp32Output())


@dataclass(frozen=True)
class LegalizeCastsPass(ModulePass):
    """Run bf16 nodes XNNPACK lacks in fp32 between explicit converts; bf16 GEMMs bf16 x bf16
    -> fp32 where the target has XNNPACK's bf16 GEMM, else in fp32 too."""

    name = "xnn-legalize-casts"
    # The layers of the bf16-gemm form, for `xnn-tune` (`cost.forms`).
    form_layers: ClassVar = FormLayers(bf16_gemm, gemm_layer)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(PATTERNS))).rewrite_module(op)
