"""`xnn-fp16-precision{mode=fp32}`: fp16 computation inside each `xnn.subgraph` runs in fp32.

    %h = xnn.convert %x : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf16>
    %w = xnn.constant #xnnc.weight<"w"> : tensor<8x1x1x4xf16>
    %y = xnn.convolution_2d %h, %w ... -> tensor<1x8x8x8xf16>
    %r = xnn.convert %y : (tensor<1x8x8x8xf16>) -> tensor<1x8x8x8xf32>
  ==>
    %w = xnn.constant #xnnc.weight<"w.f32"> : tensor<8x1x1x4xf32>
    %r = xnn.convolution_2d %x, %w ... -> tensor<1x8x8x8xf32>

On CPUs without fp16 arithmetic (x86 without AVX512-FP16), XNNPACK's fp16 kernels convert
to fp32 and back around the arithmetic anyway; computing in fp32 throughout drops those
conversions and the rounding of every intermediate value to fp16 (ONNX Runtime does the
same). Each fp16 node is rewritten to convert its fp16 operands to fp32, run in fp32 and
convert its fp16 results back; then fp16 constants are widened at compile time and each
round trip through fp16 cancels, so converts remain only at the subgraph's boundary: its
inputs and outputs keep their element types (an fp16 output is converted back to fp16), and
so does the model. What disappears with the round trips is the rounding to fp16 they did,
including that of casts the user wrote (`x.half().float()` inside a subgraph is x): values
that were fp16 inside the subgraph hold fp32 results.

`mode=auto` decides per region: a maximal set of fp16 nodes connected by fp16 values that
holds an fp16 convolution, fully-connected or batch matmul (`fp16_regions`). A region is
one decision ("native" or "fp32"): the one recorded on its layers (`xnn.decision`, by
`xnn-tune{form=fp16-compute}`, which times each region as a whole), else the target's static
rule (`cost.rules.fp16_native`: native on arm64 with FP16 arithmetic); the pass records it
on each layer. One decision per region keeps converts out of it: decided layer by layer
within a budget, a first compile mixed the layers it timed with the rule's, paying converts
between them that no timing saw. Layers whose recorded decisions disagree (IR written by
hand or before regions) are followed one by one, a native one among fp32 ones keeping
converts around it. fp16 nodes outside any region follow the static rule. A symbolic size
changes nothing: the rule reads the target only, so a region of symbolic sizes is decided
as a whole too (the tuner, which times one size, leaves it to the rule).

Left alone: `mode=native` (the pass does nothing), fp32 and bf16 nodes, and everything
outside `xnn.subgraph`s.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, f16
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
)

from xnnc.cost import forms, rules
from xnnc.cost.decision import Decision, decide, record, recorded, rule_source
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import Fp16Layer, Fp16Region, Layer
from xnnc.dialects import xnn
from xnnc.dialects.locations import where
from xnnc.dialects.types import has_element_type, shape_of, size_symbols
from xnnc.dialects.xnn import target_of
from xnnc.legalize.widen import Widening, check_mode, touches, widen_node, widening_patterns
from xnnc.target import Target

# The modes of the pass: "auto" is "native" where the module's target has fp16 arithmetic.
MODES = ("auto", "native", "fp32")


# The layers decided one by one in `auto` mode: the GEMM-like nodes, where the kernels differ
# most between fp16 and fp32 (on a Sapphire Rapids Xeon, XNNPACK's fp16 1x1 convolutions run
# up to 4x faster than fp32 ones, its fp16 depthwise ones 3-12x slower). Deconvolutions follow
# the module's rule: most become polyphase convolutions later (canonicalize), so their time
# as a deconvolution says nothing about the form that runs.
FP16_LAYERS = (xnn.Convolution2dOp, xnn.DepthwiseConvolution2dOp, xnn.FullyConnectedOp,
               xnn.BatchMatrixMultiplyOp)  # fmt: skip


def is_fp16_layer(op: Operation) -> bool:
    """Whether `op` is an fp16 layer: the regions `auto` mode decides are built around them."""
    return isinstance(op, FP16_LAYERS) and has_element_type(op.results[0], f16)


def is_fp16_node(op: Operation) -> bool:
    """Whether `op` is a node with an fp16 operand or result (converts are not: they are a
    region's boundary)."""
    return touches(op, f16)


def _fp16_neighbours(op: Operation) -> Iterator[Operation]:
    """The fp16 nodes `op` exchanges an fp16 value with."""
    for v in op.operands:
        if has_element_type(v, f16) and isinstance(v.owner, Operation) and is_fp16_node(v.owner):
            yield v.owner
    for r in op.results:
        if has_element_type(r, f16):
            yield from (u.operation for u in r.uses if is_fp16_node(u.operation))


def _in_block_order(ops: set[Operation], block: Block) -> list[Operation]:
    return [op for op in block.ops if op in ops]


def region_of(op: Operation) -> list[Operation]:
    """The fp16 nodes connected to the fp16 node `op` by fp16 values, in block order."""
    seen, stack = {op}, [op]
    while stack:
        for other in _fp16_neighbours(stack.pop()):
            if other not in seen:
                seen.add(other)
                stack.append(other)
    assert op.parent is not None
    return _in_block_order(seen, op.parent)


def fp16_regions(block: Block) -> list[list[Operation]]:
    """The regions of `block`: its maximal sets of fp16 nodes connected by fp16 values that
    hold an fp16 layer, each in block order."""
    regions, seen = [], set()
    for op in block.ops:
        if op in seen or not is_fp16_node(op):
            continue
        region = region_of(op)
        seen.update(region)
        if any(is_fp16_layer(n) for n in region):
            regions.append(region)
    return regions


def with_boundary(region: list[Operation]) -> list[Operation]:
    """`region` with the converts feeding it and those reading it, in block order: what
    the region costs in either form (fp32 folds the converts away, native pays them)."""
    nodes = set(region)
    for op in region:
        nodes.update(v.owner for v in op.operands if isinstance(v.owner, xnn.ConvertOp))
        nodes.update(u.operation for r in op.results for u in r.uses
                     if isinstance(u.operation, xnn.ConvertOp))  # fmt: skip
    assert region[0].parent is not None
    return _in_block_order(nodes, region[0].parent)


def describe_region(region: list[Operation]) -> str:
    """ "region of 3 fp16 layers, 5 nodes, from <where its first layer is>"."""
    layers = [op for op in region if is_fp16_layer(op)]
    counts = f"{_count(len(layers), 'fp16 layer')}, {_count(len(region), 'node')}"
    return f"region of {counts}, from {where(layers[0])}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


# Integer parameters whose default is 1 (the others default to 0): left out of signatures.
_ONE_BY_DEFAULT = {"dilation_height", "dilation_width", "subsampling_height", "subsampling_width",
                   "depth_multiplier", "groups"}  # fmt: skip


def fp16_layer(op: Operation) -> Fp16Layer:
    """An fp16 layer: its kind, operand and result shapes and the integer parameters that are
    not at their defaults."""
    shapes = ",".join("x".join(map(str, shape_of(v))) for v in op.operands)
    params = " ".join(
        f"{k}={v.value.data}"
        for k, v in sorted(op.properties.items())
        if isinstance(v, IntegerAttr) and v.value.data != (k in _ONE_BY_DEFAULT)
    )
    out = shape_of(op.results[0])
    signature = f"{op.name.removeprefix('xnn.')} {shapes}->{'x'.join(map(str, out))} {params}"
    # Per output element: the filter's taps times its input channels ([O, kh, kw, I]); a
    # depthwise filter ([1, kh, kw, C]) has one input channel per output channel.
    taps = shape_of(op.operands[1])[1 : 3 if isinstance(op, xnn.DepthwiseConvolution2dOp) else None]
    return Fp16Layer(signature.strip(), math.prod(out) * math.prod(taps))


def fp16_region(ops: Sequence[Operation], layers: Sequence[Operation]) -> Fp16Region:
    """The fp16 region of `layers` (`fp16_regions`), from `ops`: its nodes and the converts
    at its boundary, in block order. The digest covers each op's kind, properties and result
    types, and where each operand comes from (an op of the region, a constant of its type,
    or the k-th distinct input of its type), so equal regions share one database entry
    wherever they sit."""
    produced: dict[SSAValue, str] = {}
    inputs: dict[SSAValue, str] = {}
    inside = set(ops)
    lines = []
    for i, op in enumerate(ops):
        refs = []
        for v in op.operands:
            if v in produced:
                refs.append(produced[v])
            elif isinstance(v.owner, xnn.ConstantOp):
                refs.append(f"const {v.type}")
            else:
                refs.append(inputs.setdefault(v, f"in{len(inputs)} {v.type}"))
        outs = []
        for j, r in enumerate(op.results):
            produced[r] = f"%{i}.{j}"
            used_outside = any(u.operation not in inside for u in r.uses)
            outs.append(f"{r.type}{' out' if used_outside else ''}")
        props = " ".join(f"{k}={v}" for k, v in sorted(op.properties.items()))
        lines.append(f"{op.name} ({', '.join(refs)}) {props} -> {', '.join(outs)}")
    digest = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:12]
    first = fp16_layer(layers[0]).signature
    macs = sum(fp16_layer(op).macs for op in layers)
    nodes = sum(not isinstance(op, xnn.ConvertOp) for op in ops)
    return Fp16Region(len(layers), nodes, first, digest, macs)


def _region_anchor(op: Operation) -> bool:
    """The first layer of an fp16 region of static sizes (a region is timed at one size)."""
    if not is_fp16_layer(op):
        return False
    region = region_of(op)
    return next(n for n in region if is_fp16_layer(n)) is op and not any(map(size_symbols, region))


def _region_layer(op: Operation) -> Fp16Region:
    region = region_of(op)
    return fp16_region(with_boundary(region), [n for n in region if is_fp16_layer(n)])


# Timing an fp16 region costs about this many runs of it: each of its two forms rewritten and
# built (canonicalize, weights packed: ~2 runs each), run twice to warm up and three times in
# rounds (`tuning.tuner.time_on_xnnpack` once a layer used its `LAYER_BUDGET_MS`). The
# MI-GAN-like model (`examples/models.py`, 256x256, one region of 28 layers, 1.1 GMAC) cost
# 1.4 s at 80-86 ms a run on a loaded Sapphire Rapids Xeon (AVX512-FP16), 1 thread.
REGION_TIMING_RUNS = 14
# Multiply-accumulates per ms an fp16 region runs at: MI-GAN-like runs 43-47 ms at 1 thread in
# either form on the quiet Xeon, 24-26 MMAC/ms (its depthwise layers and copies keep it far
# below the GEMM peak). A CPU or a load that halves it makes a compile overshoot its budget
# by the region's timing (a few hundred ms), once: the result is kept in the database.
REGION_MACS_PER_MS = 25e6


def region_timing_ms(layer: Layer, target: Target) -> float:
    """What timing an fp16 region's forms costs, in ms (the tuner's budget)."""
    return REGION_TIMING_RUNS * layer.macs / (REGION_MACS_PER_MS * target.threads)


def region_decision(region: list[Operation]) -> Decision | None:
    """The one decision for `region`'s layers: the one recorded on them, else the static
    rule's; None when they must be decided one by one (their recorded decisions disagree)."""
    layers = [op for op in region if is_fp16_layer(op)]
    found = [d for op in layers if (d := recorded(op, "fp16-compute")) is not None]
    if len({d.choice for d in found}) > 1:
        return None
    if found:
        return found[0]
    whole = fp16_region(with_boundary(region), layers)
    rule = forms.decide(target_of(region[0]), whole)
    why = f"{describe_region(region)}: {rule.why}"
    return Decision(whole.form, rule.choice, rule_source(rule), whole.key(), why)


def region_decisions(module: ModuleOp) -> dict[Operation, Decision]:
    """Each node of every region decided as a whole under `module`, to its region's
    decision (the layers that hold one of their own, to theirs)."""
    decided: dict[Operation, Decision] = {}
    for sub in module.walk():
        if not isinstance(sub, xnn.SubgraphOp):
            continue
        for region in fp16_regions(sub.body.block):
            decision = region_decision(region)
            if decision is not None:
                for op in region:
                    decided[op] = recorded(op, decision.form) or decision
    return decided


@dataclass(frozen=True)
class ComputeF16InF32(Widening):
    """An fp16 node: convert its fp16 operands to fp32, run it in fp32, convert its fp16
    results back (`widen_node`). Converts themselves are not nodes to widen
    (`FoldConvertRoundTrip` removes them). With `per_layer` (`auto` mode), a node of a
    region decided as a whole (`regions`: node -> decision) follows its region, another fp16
    layer its own decision, and other nodes `others` ("native" leaves them alone)."""

    per_layer: bool = False
    others: str = "fp32"
    regions: dict[Operation, Decision] = field(default_factory=dict, hash=False, compare=False)

    def decision(self, op: Operation) -> Decision | None:
        """The decision about `op`'s fp16 computation: its region's, or a layer's own."""
        if op in self.regions:
            return self.regions[op]
        return decide(op, fp16_layer(op)) if self.per_layer and is_fp16_layer(op) else None

    def widens(self, op: Operation) -> bool:
        """Whether the node `op` computes in fp32."""
        decision = self.decision(op)
        if decision is not None:
            return decision.choice == "fp32"
        return not self.per_layer or self.others == "fp32"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not is_fp16_node(op):
            return
        decision = self.decision(op)
        layer = decision is not None and is_fp16_layer(op)
        if decision is not None:
            if decision.choice == "native":
                if layer:
                    record(op, decision)
                return
        elif self.per_layer and self.others == "native":
            return
        new_ops, results, inner = widen_node(op, f16)
        if layer:
            record(inner, decision)  # type: ignore[arg-type]
        rewriter.replace(op, new_ops, results)


@dataclass(frozen=True)
class Fp16PrecisionPass(ModulePass):
    """fp16 computation in `xnn.subgraph`s: `native` (XNNPACK's fp16 kernels, the pass does
    nothing), `fp32` (computed in fp32, converts only at the subgraph boundary) or `auto`
    (per region, the cost model's decision; module docstring)."""

    name = "xnn-fp16-precision"
    # The layers of the fp16-compute form, for `xnn-tune` (`cost.forms`): a region, anchored
    # at its first layer, timed with the converts at its boundary, decided on each layer.
    form_layers: ClassVar = FormLayers(
        _region_anchor,
        _region_layer,
        lambda op: with_boundary(region_of(op)),
        lambda op: [n for n in region_of(op) if is_fp16_layer(n)],
        where=lambda op: describe_region(region_of(op)),
        timing_ms=region_timing_ms,
    )

    mode: str = "auto"

    def __post_init__(self) -> None:
        check_mode(self.name, self.mode, MODES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode == "native":
            return
        auto = self.mode == "auto"
        regions = region_decisions(op) if auto else {}
        compute = ComputeF16InF32(auto, resolve_mode(self.mode, target_of(op)), regions)
        patterns = widening_patterns(f16, compute)
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)


def resolve_mode(mode: str, target: Target) -> str:
    """ "native" or "fp32": what `mode` stands for on `target`."""
    if mode != "auto":
        return mode
    return rules.fp16_native(target).choice
