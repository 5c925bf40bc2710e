"""`xnn-conv-as-gemm`: a stride-1 convolution as fully-connected layers over shifted
slices of its (padded) input, summed, so it runs on XNNPACK's GEMM microkernels instead of
its IGEMM ones.

    %y = xnn.convolution_2d %x, %w, %b {kernel kh x kw, dilation dh x dw, padding t/r/b/l}
  ==>
    %p    = xnn.static_constant_pad %x {pre [0, t, l, 0], post [0, b, r, 0]}  // if padded
    %s_ij = xnn.static_slice %p {offsets [0, i*dh, j*dw, 0]}   // [N, OH, OW, Cin] per tap
    %f_ij = xnn.fully_connected %s_ij, %w_ij (, %b on the first)  // %w_ij = %w[:, i, j, :]
    %y    = xnn.binary add (... (%f_00 + %f_01) ...) + %f_last     // the conv's clamp last

    y[r, c] = b + sum_{i<kh, j<kw} x_pad[r + i*dh, c + j*dw] @ w_ij^T

On a symbolic size the same form serves every size: along a symbolic axis of kernel k and
dilation d, tap j starts j*d into the padded input and ends (k-1-j)*d before its end, a
slice counted from the end (`XNNStaticSliceV3`: extended runtime only; the stock slice
stops at most at the end itself). The decision evaluates the static rule at both ends of
the symbol's range (`cost.decision`).

Why: at XNNPACK 92a7ad50 on x86-64 CPUs with AVX2/FMA3 and no model-specific case (Zen 2/3
here), convolutions run the 5x16 fma3 IGEMM microkernel written in C, which needs 17 vector
registers of AVX2's 16 and keeps one accumulator on the stack: 25-33 GFLOP/s at every size
(its output-channel tiling is also sized for whole rows, so 1-D layers with few frames
re-read their weights per row tile). Fully-connected runs the 6x16 assembly GEMM: 45-75
GFLOP/s on the same layers (`benchmarks/rewrites_bench.py`, the conv-as-gemm rows; whole
models: Mimi 1.9x, HiFi-GAN 2.0x, DAC 1.7x, ResNet-18 1.7x). The tap slices and adds cost
far less at the channel counts of these models. With AVX-512 XNNPACK picks other kernels,
and at two threads and more each extra node is a thread-pool barrier: whether the rewrite
pays is the cost model's decision per layer (`xnnc.cost`): the choice recorded on the op
(`xnn.decision`, by `xnn-tune` or a previous run), else the static rule
`cost.rules.conv_as_gemm` for the module's `#xnn.target`; the pass records what it
followed on the op computing the layer's result. `ignore-target=true` rewrites anyway, for
experiments.

Does nothing when: the decision is "direct" (the default target assumes no CPU feature, so
a module without `xnn.target` and decisions is left alone); the kernel is 1x1 (XNNPACK
already runs a 1x1 stride-1 convolution as a GEMM); groups != 1 (depthwise and grouped); a
stride is not 1; there are fewer than `min-output-channels` (16) output channels (a
matrix-vector product per tap is slower than the IGEMM); the element type is not f32 (fp16
and bf16 GEMM kernels were not measured); the filter or bias is not a constant with data;
TensorFlow SAME padding; with `two-d=false`, 2-D convolutions (input or kernel height
above 1); and, on the stock target, a kernel wider than one tap along a symbolic axis (the
decision says why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.backend_xnnpack.shapes import relative_end
from xnnc.cost.decision import Decision, record_moved, rewriting, taps_cannot_follow
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import ConvLayer
from xnnc.dialects import xnn
from xnnc.dialects.types import int_value, shape_of, size_symbols
from xnnc.dialects.xnn import BinaryOperator, ReduceOperator, target_of
from xnnc.ir.constants import (
    constant_tensor,
    mapped_empty,
    replace_dropping_weights,
    weight_name,
)
from xnnc.ir.emitter import Emitter

MIN_OUTPUT_CHANNELS = 16


def conv_layer(op: xnn.Convolution2dOp) -> ConvLayer:
    n, h, w, cin = shape_of(op.input)
    return ConvLayer(
        str(op.input.type.element_type),  # type: ignore[attr-defined]
        n, h, w, cin, int_value(op.group_output_channels),
        (int_value(op.kernel_height), int_value(op.kernel_width)),
        (int_value(op.dilation_height), int_value(op.dilation_width)),
        op.padding(),
    )  # fmt: skip


def _decision(op: xnn.Convolution2dOp, ignore_target: bool) -> Decision | None:
    """The layer's decision when it is "gemm", else None (the "direct" one recorded on `op`)."""
    layer = conv_layer(op)
    # The option forces the GEMM form only where it follows the sizes.
    forced = ignore_target and (not size_symbols(op) or taps_cannot_follow(op, layer) is None)
    return rewriting(op, layer, "gemm", forced)


def taps_apply(op: xnn.Convolution2dOp, min_output_channels: int, two_d: bool) -> bool:
    """Whether ConvAsGemm can rewrite `op`, whatever the decision (the module docstring)."""
    _, h, _, _ = shape_of(op.input)
    kh, kw = int_value(op.kernel_height), int_value(op.kernel_width)
    if kh * kw == 1 or int_value(op.groups) != 1 or (not two_d and (h != 1 or kh != 1)):
        return False
    if (int_value(op.subsampling_width), int_value(op.subsampling_height)) != (1, 1):
        return False
    if (
        int_value(op.group_output_channels) < min_output_channels
        or op.input.type.element_type != f32
    ):
        return False
    return not op.has_flag(xnn.FLAG_TENSORFLOW_SAME_PADDING) and _constant_weights(op)


def depthwise_applies(op: xnn.Convolution2dOp) -> bool:
    """Whether SingleOutputConvAsDepthwise can rewrite `op`, whatever the decision."""
    if int_value(op.group_output_channels) != 1 or int_value(op.groups) != 1:
        return False
    if op.input.type.element_type != f32 or op.has_flag(xnn.FLAG_TENSORFLOW_SAME_PADDING):
        return False
    return int_value(op.kernel_height) * int_value(op.kernel_width) != 1 and _constant_weights(op)


def _constant_weights(op: xnn.Convolution2dOp) -> bool:
    if constant_tensor(op.filter) is None:
        return False
    return op.bias is None or constant_tensor(op.bias) is not None


def rewritable(op: xnn.Convolution2dOp) -> bool:
    """Whether the pass, with its default options, has a decision to make about `op`."""
    return taps_apply(op, MIN_OUTPUT_CHANNELS, True) or depthwise_applies(op)


def tap_offsets(kernel: int, dilation: int) -> list[int]:
    """Where tap j's slice starts along one axis of the padded input: y[t] reads
    x_pad[t + j*d]."""
    return [j * dilation for j in range(kernel)]


def tap_filter(w: torch.Tensor, i: int, j: int) -> torch.Tensor:
    """Tap (i, j)'s [Cout, Cin] filter of the OHWI filter `w`, a contiguous copy made by
    numpy in one thread: torch copies a strided tensor on its intra-op thread pool, whose
    threads wait on each other on a shared machine (HiFi-GAN's 256x256 taps: 5-6 ms each at
    2 threads against 0.02 ms in one, loaded 2-core Sapphire Rapids Xeon)."""
    tap = w[:, i, j, :].detach()
    copy = mapped_empty(tap.shape, tap.dtype)
    np.copyto(copy.numpy(), tap.numpy())
    return copy


@dataclass(frozen=True)
class ConvAsGemm(RewritePattern):
    """One stride-1 convolution as kh * kw fully-connected layers on shifted slices, summed."""

    min_output_channels: int = MIN_OUTPUT_CHANNELS
    two_d: bool = True
    ignore_target: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.Convolution2dOp, rewriter: PatternRewriter) -> None:
        if not taps_apply(op, self.min_output_channels, self.two_d):
            return
        decision = _decision(op, self.ignore_target)
        if decision is None:
            return
        n, h, width, cin = shape_of(op.input)
        kh, kw = int_value(op.kernel_height), int_value(op.kernel_width)
        cout = int_value(op.group_output_channels)
        w = constant_tensor(op.filter)
        assert w is not None
        top, right, bottom, left = op.padding()
        _, out_h, out_w, _ = shape_of(op.output)
        e = Emitter(rewriter, op)
        x: SSAValue = op.input
        if top or right or bottom or left:
            padded = (n, h + top + bottom, width + left + right, cin)
            x = e.node(xnn.StaticConstantPadOp, x, shape=padded, pre_paddings=[0, top, left, 0],
                       post_paddings=[0, bottom, right, 0])  # fmt: skip
        name = weight_name(op.filter)
        total: SSAValue | None = None
        taps = [(i, j) for i in range(kh) for j in range(kw)]
        rows = tap_offsets(kh, int_value(op.dilation_height))
        cols = tap_offsets(kw, int_value(op.dilation_width))
        out = [n, out_h, out_w, cin]
        for i, j in taps:
            offsets = [0, rows[i], cols[j], 0]
            # On a symbolic dim, tap j ends (k-1-j)*d before the padded input's end.
            sizes = [
                relative_end(d, o, m) for d, o, m in zip(shape_of(x), offsets, out, strict=True)
            ]
            tap = e.node(xnn.StaticSliceOp, x, shape=out, offsets=offsets, sizes=sizes)
            filter_ij = e.const(tap_filter(w, i, j), f"{name}.tap{i * kw + j}")
            y = e.node(xnn.FullyConnectedOp, tap, filter_ij, op.bias if total is None else None,
                       shape=(n, out_h, out_w, cout))  # fmt: skip
            if total is None:
                total = y
                continue
            lo, hi = op.output_range() if (i, j) == taps[-1] else (None, None)
            total = e.node(xnn.BinaryOp, total, y, shape=(n, out_h, out_w, cout),
                           kind=BinaryOperator.ADD, output_min=_finite(lo),
                           output_max=_finite(hi))  # fmt: skip
        assert total is not None
        record_moved(op, total.owner, decision)
        replace_dropping_weights(rewriter, op, total)


@dataclass(frozen=True)
class SingleOutputConvAsDepthwise(RewritePattern):
    """A convolution to one output channel (an audio decoder's last layer) as a depthwise
    convolution over the input channels and a sum of them:

        %y = xnn.convolution_2d %x, %w, %b : [N, H, W, C] -> [N, OH, OW, 1]
      ==>
        %d = xnn.depthwise_convolution_2d %x, %w_t, [b, 0, ..., 0] {same window}
                                                                 : -> [N, OH, OW, C]
        %y = xnn.static_reduce sum %d {axes = [3], keep dims}

    y = b + sum_c sum_taps x * w: the same sum, taps first. XNNPACK's depthwise kernels
    run a 64 -> 1, k7 convolution over 24960 samples ~3x faster than its IGEMM. The sum is
    XNNPACK's reduction on the extended runtime: its fully-connected form (`ones[1, C]`,
    the bias, the conv's clamp) pads the one output column to the GEMM kernel's 16, and
    took 1.5-2.2 ms on that layer against 0.5 for the reduction (AMD EPYC Zen 3, AVX2,
    1 thread). The stock target, and a layer with a clamp, keep the fully-connected form:
    stock's legalization would make the reduction that fully-connected again, and the
    reduction has no output range.
    Does nothing when the layer's decision is "direct", there is more than one output
    channel, groups != 1, the element type is not f32 or the filter is not a
    constant with data; strides and dilations are kept."""

    ignore_target: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.Convolution2dOp, rewriter: PatternRewriter) -> None:
        if not depthwise_applies(op):
            return
        decision = _decision(op, self.ignore_target)
        if decision is None:
            return
        w = constant_tensor(op.filter)
        assert w is not None
        n, _, _, cin = shape_of(op.input)
        _, out_h, out_w, _ = shape_of(op.output)
        top, right, bottom, left = op.padding()
        e = Emitter(rewriter, op)
        name = weight_name(op.filter)
        window = {
            k: getattr(op, k)
            for k in ("kernel_height", "kernel_width", "subsampling_height", "subsampling_width",
                      "dilation_height", "dilation_width")
        }  # fmt: skip
        lo, hi = op.output_range()
        reduce = (_finite(lo), _finite(hi)) == (None, None) and target_of(op).runtime == "extended"
        bias = None
        if reduce and op.bias is not None:
            # The bias rides on channel 0 of the depthwise layer, whose sum then adds it once.
            b = constant_tensor(op.bias)
            assert b is not None
            bias = e.const(torch.cat([b.reshape(1), b.new_zeros(cin - 1)]), f"{name}.bias0")
        taps = e.node(xnn.DepthwiseConvolution2dOp, op.input, e.const(w, f"{name}.depthwise"),
                      bias, shape=(n, out_h, out_w, cin), input_channels=cin,
                      padding_top=top, padding_right=right, padding_bottom=bottom,
                      padding_left=left, **window)  # fmt: skip
        if reduce:
            y = e.node(xnn.StaticReduceOp, taps, shape=(n, out_h, out_w, 1),
                       kind=ReduceOperator.SUM, axes=[3], flags=xnn.FLAG_KEEP_DIMS)  # fmt: skip
        else:
            ones = e.const(torch.ones(1, cin, dtype=w.dtype), f"{name}.channel_sum")
            y = e.node(xnn.FullyConnectedOp, taps, ones, op.bias, shape=(n, out_h, out_w, 1),
                       output_min=_finite(lo), output_max=_finite(hi))  # fmt: skip
        record_moved(op, y.owner, decision)
        replace_dropping_weights(rewriter, op, y)


def _finite(bound: float | None) -> float | None:
    """A clamp bound to set, or None for an unbounded side."""
    return None if bound is None or abs(bound) == float("inf") else bound


def conv_as_gemm_patterns(
    min_output_channels: int = MIN_OUTPUT_CHANNELS, two_d: bool = True, ignore_target: bool = False
) -> list[RewritePattern]:
    """The optimize-stage pattern set of this rewrite (MLIR's `populate*Patterns`)."""
    return [
        ConvAsGemm(min_output_channels, two_d, ignore_target),
        SingleOutputConvAsDepthwise(ignore_target),
    ]


@dataclass(frozen=True)
class ConvAsGemmPass(ModulePass):
    """Stride-1 convolutions as sums of fully-connected layers over shifted input slices.

    min-output-channels: leave convolutions with fewer output channels alone (16);
    two-d: rewrite 2-D convolutions too (true);
    ignore-target: rewrite whatever the module's target (false; for experiments and tests)."""

    name = "xnn-conv-as-gemm"
    option_ranges: ClassVar = {"min_output_channels": (1, math.inf)}
    # The layers of its form, for `xnn-tune` (`cost.forms`).
    form_layers: ClassVar = FormLayers(
        lambda op: isinstance(op, xnn.Convolution2dOp) and rewritable(op),
        conv_layer,  # type: ignore[arg-type]
    )
    min_output_channels: int = MIN_OUTPUT_CHANNELS
    two_d: bool = True
    ignore_target: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = conv_as_gemm_patterns(self.min_output_channels, self.two_d, self.ignore_target)
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
