"""`xnn-space-to-depth`: a strided int8 convolution over few input channels (an image model's
first layer) as a stride-1 convolution over the stride x stride blocks of its padded input.

    %y = xnn.convolution_2d %x, %w, %b {kernel kh x kw, stride s, padding t/r/b/l}
                                                            : [N, H, W, C] -> [N, OH, OW, O]
  ==>
    %p = xnn.static_constant_pad %x {pre [0, t, l, 0], post [0, b', r', 0]}
                                                            : -> [N, s * H', s * W', C]
    %r = xnn.static_reshape %p                              : -> [N, H', s, W', s, C]
    %t = xnn.static_transpose %r {perm [0, 1, 3, 2, 4, 5]}  : -> [N, H', W', s, s, C]
    %q = xnn.static_reshape %t                              : -> [N, H', W', s * s * C]
    %y = xnn.convolution_2d %q, %w', %b {kernel kh' x kw'}  : -> [N, OH, OW, O]

    kh' = ceil(kh / s), H' = OH + kh' - 1, b' = s * H' - t - H (likewise for the width)
    w'[o, i, j, (a * s + b) * C + c] = w[o, s * i + a, s * j + b, c], 0 past the kernel

Output row r of the original reads padded rows s * r + (s * i + a): block row r + i, row a
of the block. The int32 sums are the original's terms and zeros (the pad is the input's
zero point, as the convolution's own padding is), so the result is bit for bit the same.
Rows no window reads (b' < 0) are sliced off before the pad. The reshape, transpose,
reshape is the space-to-depth (XNNPACK's own node is an extended-only kind and is this
transpose), so the form runs on the stock runtime too.

Why: XNNPACK's int8 IGEMM kernels take each tap's channels in groups of 8 on x86, so a tap
over 3 channels computes 8; over blocks, ResNet's 7x7/2 stem computes 16 taps of 12
channels (16) instead of 49 of 3 (8): 1.45x faster on the AMD EPYC Zen 3 (the rule,
`cost.rules.space_to_depth`, with its measurements). The pass follows the layer's decision
(`xnn.decision`: the tuner's, or the rule of the module's target) and records what it
followed on the op computing the result.

Does nothing when: the decision is "direct"; the input is not an int8 tensor quantized per
tensor, or the filter (int8, per tensor or per output channel) or bias is not a constant
with data; groups != 1; the strides differ or are 1; a dilation is not 1; there are more than
`MAX_INPUT_CHANNELS` input channels (the padding the rewrite saves is within one group of
channels); the kernel is 1x1; TensorFlow SAME padding; a size is symbolic (recorded on the op
as `xnn.declined`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.cost.decision import declined, record_moved, rewriting
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import StemLayer
from xnnc.dialects import xnn
from xnnc.dialects.quant import quant_type
from xnnc.dialects.types import element_type, int_value, shape_of, size_symbols
from xnnc.ir.constants import constant_tensor, replace_dropping_weights, weight_name
from xnnc.ir.emitter import Emitter

# Image stems: RGB, RGBA, gray. Past 8 channels a tap's padding is under 2x and shrinks.
MAX_INPUT_CHANNELS = 4


def _int8(value, per_tensor: bool) -> bool:
    q = quant_type(element_type(value))
    if q is None or q.bitwidth != 8 or q.blockwise:
        return False
    return q.per_tensor if per_tensor else q.per_tensor or q.axis.data == 0


def applies(op: xnn.Convolution2dOp, any_size: bool = False) -> bool:
    """Whether the pass has a decision to make about `op` (the module docstring); with
    `any_size`, whether it would at static sizes."""
    if int_value(op.groups) != 1 or op.has_flag(xnn.FLAG_TENSORFLOW_SAME_PADDING):
        return False
    if size_symbols(op) and not any_size:
        return False
    stride = int_value(op.subsampling_height)
    if stride < 2 or int_value(op.subsampling_width) != stride:
        return False
    if (int_value(op.dilation_height), int_value(op.dilation_width)) != (1, 1):
        return False
    if int_value(op.kernel_height) * int_value(op.kernel_width) == 1:
        return False
    channels = shape_of(op.input)[3]
    if not isinstance(channels, int) or channels > MAX_INPUT_CHANNELS:
        return False
    if not (_int8(op.input, per_tensor=True) and _int8(op.filter, per_tensor=False)):
        return False
    if constant_tensor(op.filter) is None:
        return False
    return op.bias is None or constant_tensor(op.bias) is not None


def stem_layer(op: xnn.Convolution2dOp) -> StemLayer:
    """A strided int8 convolution the pass can rewrite (static NHWC sizes)."""
    n, h, w, cin = shape_of(op.input)
    return StemLayer(
        "qs8", (n, h, w, cin), int_value(op.group_output_channels),  # type: ignore[arg-type]
        (int_value(op.kernel_height), int_value(op.kernel_width)), int_value(op.subsampling_height),
        op.padding(),
    )  # fmt: skip


def blocked_filter(w: torch.Tensor, stride: int) -> torch.Tensor:
    """The OHWI filter `w` over stride x stride blocks: [O, kh', kw', s * s * C], zero past
    the kernel (the module docstring's w')."""
    o, kh, kw, c = w.shape
    bh, bw = -(-kh // stride), -(-kw // stride)
    padded = w.new_zeros(o, bh * stride, bw * stride, c)
    padded[:, :kh, :kw, :] = w
    blocks = padded.reshape(o, bh, stride, bw, stride, c).permute(0, 1, 3, 2, 4, 5)
    return blocks.reshape(o, bh, bw, stride * stride * c).contiguous()


@dataclass(frozen=True)
class StridedConvOverBlocks(RewritePattern):
    """The module docstring's rewrite, where the layer's decision is "space-to-depth" (or
    whatever it is, with `ignore_target`)."""

    ignore_target: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.Convolution2dOp, rewriter: PatternRewriter) -> None:
        if not applies(op):
            if applies(op, any_size=True):
                declined(op, "xnn-space-to-depth", "the pad and the blocks have fixed sizes")
            return
        layer = stem_layer(op)
        decision = rewriting(op, layer, "space-to-depth", self.ignore_target)
        if decision is None:
            return
        n, h, w, c = shape_of(op.input)
        _, out_h, out_w, cout = shape_of(op.output)
        s = layer.stride
        bh, bw = layer.blocked_kernel
        top, right, bottom, left = op.padding()
        rows, cols = out_h + bh - 1, out_w + bw - 1  # H', W'
        after_h, after_w = s * rows - top - h, s * cols - left - w  # b', r'
        e = Emitter(rewriter, op)
        x = op.input
        if after_h < 0 or after_w < 0:  # rows or columns no window reads
            kept = [n, h + min(after_h, 0), w + min(after_w, 0), c]
            x = e.node(xnn.StaticSliceOp, x, shape=kept, offsets=[0, 0, 0, 0], sizes=kept)
        post = [0, max(after_h, 0), max(after_w, 0), 0]
        if top or left or any(post):
            x = e.node(xnn.StaticConstantPadOp, x, shape=(n, s * rows, s * cols, c),
                       pre_paddings=[0, top, left, 0], post_paddings=post)  # fmt: skip
        x = e.reshape(x, (n, rows, s, cols, s, c))
        x = e.transpose(x, (0, 1, 3, 2, 4, 5))
        x = e.reshape(x, (n, rows, cols, s * s * c))
        filt = constant_tensor(op.filter)
        assert filt is not None
        blocked = blocked_filter(filt, s)
        filter_type = TensorType(element_type(op.filter), blocked.shape)
        y = e.node(
            xnn.Convolution2dOp, x, e.const(blocked, f"{weight_name(op.filter)}.blocks{s}",
                                            filter_type),
            op.bias, elem=element_type(op.output), shape=(n, out_h, out_w, cout),
            kernel_height=bh, kernel_width=bw, group_input_channels=s * s * c,
            group_output_channels=cout, output_min=op.output_min, output_max=op.output_max,
        )  # fmt: skip
        record_moved(op, y.owner, decision)
        replace_dropping_weights(rewriter, op, y)


@dataclass(frozen=True)
class SpaceToDepthPass(ModulePass):
    """Strided int8 convolutions over few input channels as stride-1 convolutions over the
    blocks of their padded input, where the layer's decision says so.

    ignore-target: rewrite whatever the decision (false; for experiments and tests)."""

    name = "xnn-space-to-depth"
    # The layers of its form, for `xnn-tune` (`cost.forms`).
    form_layers: ClassVar = FormLayers(
        lambda op: isinstance(op, xnn.Convolution2dOp) and applies(op),
        stem_layer,  # type: ignore[arg-type]
    )
    ignore_target: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(StridedConvOverBlocks(self.ignore_target)).rewrite_module(op)
