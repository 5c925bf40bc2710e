"""`xnn-fold-pad`: a zero constant pad on the spatial dims folds into the convolution that
reads it, as its top/right/bottom/left padding (each side on its own, so causal and other
asymmetric pads fold too).

Conversion pads in PyTorch's layout (NCHW, or NCL for 1-D convs) and reaches the NHWC conv
through a static_transpose (and a static_reshape to [N, 1, L, C] in 1-D): the padded dims are
mapped through that chain, which is rebuilt on the unpadded tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, bf16, f16, f32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.cost.decision import declined, move_decisions
from xnnc.dialects import xnn
from xnnc.dialects.quant import quant_type
from xnnc.dialects.types import element_type, ints, shape_of
from xnnc.ir.emitter import Emitter
from xnnc.ir.rebuild import rebuilt

Pads = list[tuple[int, int]]  # (before, after) per dim
LayoutOp = xnn.StaticTransposeOp | xnn.StaticReshapeOp
LAYOUT_OPS = (xnn.StaticTransposeOp, xnn.StaticReshapeOp)
Conv = xnn.Convolution2dOp | xnn.DepthwiseConvolution2dOp

FLOAT_TYPES = (f32, f16, bf16)


def through_layout(
    value: SSAValue, kinds: tuple[type[Operation], ...] = LAYOUT_OPS
) -> tuple[SSAValue, list[Operation]]:
    """Walks up from `value` through ops of `kinds` (each reading an `input`) whose result
    has a single use. Returns the value the chain starts from and the chain, nearest first."""
    chain: list[Operation] = []
    while isinstance(value.owner, kinds) and value.has_one_use():
        chain.append(value.owner)
        value = value.owner.input
    return value, chain


def pads_through_transpose(pads: Pads, perm: Sequence[int]) -> Pads:
    """Output dim i of a transpose is input dim perm[i]: so are its pads."""
    return [pads[p] for p in perm]


def pads_through_reshape(
    pads: Pads, padded_in: Sequence[int], padded_out: Sequence[int]
) -> Pads | None:
    """The pads of a reshape's output, when the reshape only inserts or removes unit dims
    (a padded dim is at least 2 long, so it is never one of them); None otherwise."""
    src = [i for i, d in enumerate(padded_in) if d != 1]
    dst = [i for i, d in enumerate(padded_out) if d != 1]
    if [padded_in[i] for i in src] != [padded_out[i] for i in dst]:
        return None
    out: Pads = [(0, 0)] * len(padded_out)
    for i, j in zip(src, dst, strict=True):
        out[j] = pads[i]
    return out


def pads_along(pads: Pads, chain: Sequence[LayoutOp]) -> list[Pads] | None:
    """The pads of each op's result along `chain` (ordered from the pad on), or None when a
    reshape cannot carry them."""
    along: list[Pads] = []
    for link in chain:
        if isinstance(link, xnn.StaticTransposeOp):
            pads = pads_through_transpose(pads, ints(link.perm))
        else:
            pads = pads_through_reshape(pads, shape_of(link.input), shape_of(link.output))
            if pads is None:
                return None
        along.append(pads)
    return along


def unpadded(value: SSAValue, pads: Pads) -> TensorType:
    shape = [d - a - b for d, (a, b) in zip(shape_of(value), pads, strict=True)]
    return TensorType(value.type.element_type, shape)


def is_zero_pad(pad: xnn.StaticConstantPadOp) -> bool:
    """Padding the conv's own reproduces: zero for a float tensor; for a quantized one, a
    value that quantizes to its zero point (XNNPACK's qs8 convs pad with the input's zero
    point, and its pad rounds the value to nearest even, as Python's `round`)."""
    elem = pad.input.type.element_type
    value = pad.padding_value.value.data
    if elem in FLOAT_TYPES:
        return value == 0.0
    q = quant_type(elem)
    return q is not None and q.per_tensor and round(value / q.scale) == 0


class FoldPadIntoConv(RewritePattern):
    """
        %p = xnn.static_constant_pad %x {pre_paddings = [0,0,1,2], post_paddings = [0,0,0,1]}
        %t = xnn.static_transpose %p {perm = [0,2,3,1]}   (any single-user transpose/reshape
        %y = xnn.convolution_2d %t, %w                      chain, or none)
      ==>
        %t = xnn.static_transpose %x {perm = [0,2,3,1]}
        %y = xnn.convolution_2d %t, %w {padding_top = 1, padding_right = 1, padding_left = 2}

    Does nothing when the pad value is not zero, when a size is symbolic and the chain is not
    empty (the layout patterns usually empty it) (for a quantized tensor: does not quantize to
    its zero point, which is what the conv pads with), when the pad or an op of the chain
    has another user, when the chain moves the padded dims anywhere but the conv's H and W
    (or merges them), when the conv uses TensorFlow SAME padding, or for a depthwise conv
    if `depthwise` is off. Transposed convs
    (deconvolution_2d) are not matched: their padding crops the output.
    """

    def __init__(self, depthwise: bool = True):
        self.depthwise = depthwise

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Conv, rewriter: PatternRewriter) -> None:
        if isinstance(op, xnn.DepthwiseConvolution2dOp) and not self.depthwise:
            return
        if op.has_flag(xnn.FLAG_TENSORFLOW_SAME_PADDING):
            return
        source, chain = through_layout(op.input)
        pad = source.owner
        if not isinstance(pad, xnn.StaticConstantPadOp) or not source.has_one_use():
            return
        if not is_zero_pad(pad):
            return
        # A pad right before the conv folds at any size; a chain is rebuilt with fixed shapes.
        if chain and declined(op, "xnn-fold-pad", "the layout chain it rebuilds has fixed-size "
                              "reshapes"):  # fmt: skip
            return
        chain = chain[::-1]  # from the pad to the conv
        pads = list(zip(ints(pad.pre_paddings), ints(pad.post_paddings), strict=True))
        along = pads_along(pads, chain)
        if along is None:
            return
        nhwc = along[-1] if along else pads
        if nhwc[0] != (0, 0) or nhwc[3] != (0, 0):
            return
        value = pad.input
        for link, link_pads in zip(chain, along, strict=True):
            value = _rebuild(link, value, unpadded(link.output, link_pads), rewriter)
        top, right, bottom, left = op.padding()
        (pt, pb), (pl, pr) = nhwc[1], nhwc[2]
        params = {**op.properties, "padding_top": top + pt, "padding_right": right + pr,
                  "padding_bottom": bottom + pb, "padding_left": left + pl}  # fmt: skip
        conv = type(op).make(value, op.filter, op.bias, result_type=op.output.type, **params)
        rewriter.replace(op, conv)
        for dead in [*chain[::-1], pad]:
            rewriter.erase(dead)


def _rebuild(
    link: LayoutOp, value: SSAValue, result_type: TensorType, rewriter: PatternRewriter
) -> SSAValue:
    """`link` again, on `value` (the unpadded tensor) instead of its input."""
    if isinstance(link, xnn.StaticTransposeOp):
        new = xnn.StaticTransposeOp.make(value, result_type=result_type, perm=link.perm)
    else:
        new = xnn.StaticReshapeOp.make(
            value, result_type=result_type, new_shape=result_type.get_shape()
        )
    rewriter.insert(new)
    return new.output


class SliceOfPad(RewritePattern):
    """A slice of a constant pad that keeps all of the pad's input, or only input, along
    every dim, read from the input directly:

        %p = xnn.static_constant_pad %x {pre_paddings = [0,2,0], post_paddings = [0,1,0]}
        %s = xnn.static_slice %p {offsets = [0,1,0], sizes = [1,T+2,C]}   (x: [1, T, C])
      ==>
        %s = xnn.static_constant_pad %x {pre_paddings = [0,1,0], post_paddings = [0,1,0]}

    (and `%x` itself when nothing is left to pad; a window inside `%x` along every dim is a
    slice of `%x`). One copy instead of two, and the pad dies with its last slice: the tap
    slices of `xnn-conv-as-gemm` over a padded input, the last tap of a causal layer and both
    phases of a polyphase one. Does nothing when a size, offset or padding is symbolic, or
    when along some dim the window cuts into `%x` and along another covers padding."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticSliceOp, rewriter: PatternRewriter) -> None:
        pad = op.input.owner
        if not isinstance(pad, xnn.StaticConstantPadOp):
            return
        dims, offsets, sizes = shape_of(pad.input), ints(op.offsets), ints(op.sizes)
        shape = shape_of(op.output)
        if not all(isinstance(d, int) for d in (*dims, *shape)) or min(offsets, default=0) < 0:
            return
        pre = ints(pad.pre_paddings)
        cover = [(a - o, o + n - a - d) for o, n, a, d in zip(offsets, sizes, pre, dims,
                                                               strict=True)]  # fmt: skip
        inside = [o - a for o, a in zip(offsets, pre, strict=True)]
        e = Emitter(rewriter, op)
        if all(lo >= 0 and hi >= 0 for lo, hi in cover):
            if not any(lo or hi for lo, hi in cover):
                rewriter.replace(op, [], [pad.input])
                return
            new = e.node(xnn.StaticConstantPadOp, pad.input, shape=shape,
                         pre_paddings=[lo for lo, _ in cover],
                         post_paddings=[hi for _, hi in cover],
                         padding_value=pad.padding_value.value.data)  # fmt: skip
        elif all(i >= 0 and i + n <= d for i, n, d in zip(inside, sizes, dims, strict=True)):
            new = e.node(xnn.StaticSliceOp, pad.input, shape=shape, offsets=inside, sizes=sizes)
        else:
            return
        rewriter.replace(op, [], [new])


Interleave = tuple[tuple[int, int], Operation | None, list[Conv]]


def _interleave_blocks(value: SSAValue) -> Interleave | None:
    """How many rows and columns of `value` each output position of the convolutions under
    it makes, the interleave between them and the convolutions (`_convolutions`): ((1, 1),
    None, ...) for their own result; a reshape moving channel groups into W ([N, H, W, P*C]
    -> [N, H, W*P, C]) or, at W = 1, into H; a depth-to-space of block b (b, b). None for
    anything else or where no convolutions are under it."""
    if (convs := _convolutions(value)) is not None:
        return (1, 1), None, convs
    link = value.owner
    if not isinstance(link, xnn.StaticReshapeOp | xnn.DepthToSpace2dOp):
        return None
    if (convs := _convolutions(link.input)) is None or not link.input.has_one_use():
        return None
    if isinstance(link, xnn.DepthToSpace2dOp):
        b = link.block_size.value.data
        return (b, b), link, convs
    (n, h, w, c), out = shape_of(link.input), shape_of(value)
    if len(out) != 4 or out[0] != n or c % out[3]:
        return None
    p = c // out[3]
    if tuple(out) == (n, h, w * p, c // p):
        return (1, p), link, convs
    if w == 1 and tuple(out) == (n, h * p, 1, c // p):
        return (p, 1), link, convs
    return None


def _convolutions(value: SSAValue) -> list[Conv] | None:
    """The convolutions computing `value`: its producer, or those a concatenate joins on
    the channels (a depthwise polyphase upsample's phases), each read only there and all of
    one spatial size; None otherwise."""
    owner = value.owner
    if isinstance(owner, Conv):
        return [owner]
    if not isinstance(owner, xnn.ConcatenateOp) or owner.axis.value.data not in (3, -1):
        return None
    convs = [v.owner for v in owner.inputs]
    if len(set(owner.inputs)) < len(convs) or not all(
        isinstance(c, Conv) and c.results[0].has_one_use() for c in convs
    ):
        return None
    if len({tuple(shape_of(c.results[0])[:3]) for c in convs}) != 1:
        return None
    return convs  # type: ignore[return-value]


def _cropped_padding(
    size: int, kernel: int, stride: int, dilation: int, pads: tuple[int, int], kept: range
) -> tuple[int, int] | None:
    """The padding (before, after) of a convolution along one axis computing only the
    outputs `kept` of the one with `pads`; None when it would need a negative padding."""
    before = pads[0] - kept.start * stride
    after = (len(kept) - 1) * stride + dilation * (kernel - 1) + 1 - size - before
    if before < 0 or after < 0:
        return None
    return before, after


class SliceOfConv(RewritePattern):
    """A slice of a convolution's rows or columns (whole output positions, through the
    interleave of a polyphase convolution) as its padding: the convolution computes only
    what is kept, and nothing is copied.

        %c = xnn.convolution_2d %x, %w {padding_left = 1, padding_right = 1}
                                                                  : 1x1x26x1024 -> 1x1x27x4096
        %d = xnn.static_reshape %c                                : -> 1x1x216x512
        %y = xnn.static_slice %d {offsets [0, 0, 0, 0], sizes [1, 1, 208, 512]}
      ==>
        %c = xnn.convolution_2d %x, %w {padding_left = 1}        : -> 1x1x26x4096
        %y = xnn.static_reshape %c                                : -> 1x1x208x512

    The trim of a causal transposed convolution after `xnn-polyphase` (Mimi's upsamples: the
    slices were 0.45 ms of 42 at one thread and 1.7 ms of 27 at two on the AMD EPYC Zen 4,
    where a slice runs on one thread and reads rows the other core wrote). A depthwise
    upsample's phases, one convolution each joined by a concatenate on the channels, are
    cropped alike, each in its own padding (Mimi's frame-rate upsample). The slice's
    decisions move to the op now computing its result.

    Does nothing when: a size is symbolic; the slice cuts the batch or channels, or cuts
    through the rows or columns one output position makes; a convolution, the concatenate
    or the interleave has another user; the convolution uses TensorFlow SAME padding; the kept
    outputs would need a negative padding (the slice drops a first or last output whose
    window does not reach into the padding)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticSliceOp, rewriter: PatternRewriter) -> None:
        if not op.input.has_one_use() or (found := _interleave_blocks(op.input)) is None:
            return
        blocks, link, convs = found
        source = op.input if link is None else link.input
        dims, out = shape_of(op.input), shape_of(op.output)
        offsets = ints(op.offsets)
        known = (*dims, *out, *(d for c in convs for d in shape_of(c.input)))
        if not all(isinstance(d, int) for d in known) or min(offsets) < 0:
            return
        if (dims[0], dims[3]) != (out[0], out[3]):
            return
        if any(offsets[axis] % b or out[axis] % b for axis, b in zip((1, 2), blocks)):
            return
        kept = [range(offsets[axis] // b, (offsets[axis] + out[axis]) // b)
                for axis, b in zip((1, 2), blocks)]  # fmt: skip
        paddings = [_crop(conv, kept) for conv in convs]
        if None in paddings:
            return
        rows, cols = (len(k) for k in kept)

        def cropped(old: Operation, **parts: object) -> SSAValue:
            n, *_, c = shape_of(old.results[0])
            result = TensorType(element_type(old.results[0]), (n, rows, cols, c))
            return rewriter.insert(rebuilt(old, result_types=[result], **parts)).results[0]

        values = [
            cropped(conv, properties={**conv.properties, **{
                side: IntegerAttr(pad, i64) for side, pad in zip(_SIDES, padding)}})
            for conv, padding in zip(convs, paddings, strict=True)
        ]  # fmt: skip
        joined = source.owner
        value = values[0]
        if isinstance(joined, xnn.ConcatenateOp):
            value = cropped(joined, operands=values)
        if link is not None:
            e = Emitter(rewriter, op)
            if isinstance(link, xnn.DepthToSpace2dOp):
                value = e.node(xnn.DepthToSpace2dOp, value, shape=out, block_size=blocks[0])
            else:
                value = e.reshape(value, out)
        move_decisions(op, value.owner)
        rewriter.replace(op, [], [value])
        for dead in (link, joined if isinstance(joined, xnn.ConcatenateOp) else None, *convs):
            if dead is not None:
                rewriter.erase(dead)


_SIDES = ("padding_top", "padding_bottom", "padding_left", "padding_right")


def _crop(conv: Conv, kept: list[range]) -> tuple[int, int, int, int] | None:
    """`conv`'s padding (top, bottom, left, right) computing only the output rows and
    columns `kept`; None where it cannot (TensorFlow SAME padding, a negative padding)."""
    if conv.has_flag(xnn.FLAG_TENSORFLOW_SAME_PADDING):
        return None
    top, right, bottom, left = conv.padding()
    sides: list[int] = []
    for axis, pads, k, s, d in (
        (1, (top, bottom), conv.kernel_height, conv.subsampling_height, conv.dilation_height),
        (2, (left, right), conv.kernel_width, conv.subsampling_width, conv.dilation_width),
    ):
        size = shape_of(conv.input)[axis]
        padding = _cropped_padding(size, k.value.data, s.value.data, d.value.data, pads,
                                   kept[axis - 1])  # fmt: skip
        if padding is None:
            return None
        sides += padding
    return sides[0], sides[1], sides[2], sides[3]


CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]] = {
    xnn.StaticSliceOp: (SliceOfPad(), SliceOfConv()),
    xnn.Convolution2dOp: (FoldPadIntoConv(),),
    xnn.DepthwiseConvolution2dOp: (FoldPadIntoConv(),),
}


@dataclass(frozen=True)
class FoldPadPass(ModulePass):
    """Fold zero spatial pads into the convolutions that read them, and slices of pads into
    the pads (or slices) of their input.

    depthwise: fold into depthwise convolutions too."""

    name = "xnn-fold-pad"
    depthwise: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [FoldPadIntoConv(depthwise=self.depthwise), SliceOfPad(), SliceOfConv()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
