"""`xnn-polyphase`: a strided transposed convolution as stride-1 convolutions over its output
phases, an interleave of the phases and a slice.

    %y = xnn.deconvolution_2d %x, %w, %b {kernel m*s x m*s, upsampling s x s, padding p}
  ==>
    %c = xnn.convolution_2d %x, %w_phases, %b_phases {kernel m x m, padding m - 1}  // s*s*C
    %d = xnn.depth_to_space_2d %c {block_size = s}     // 1-D, unequal strides: reshape(s)
    %y = xnn.static_slice %d {offsets = [0, p, p, 0]}  // padding and adjustment

Along an axis with stride s and kernel k = m*s, output phase j of the full (uncropped)
transposed convolution is a stride-1 convolution of the low-resolution input,

    y[s*q + j] = sum_{u<m} x[q + u - (m-1)] * w[s*(m-1-u) + j],

so one convolution with m taps, padding m - 1 and s (1-D) or s_h*s_w (2-D) phase-major groups
of output channels computes every phase; the bias is repeated per phase. Its padding covers
only the positions the slice keeps. The interleave is `xnn.depth_to_space_2d` when the
strides are equal (its block-major order is phase-major), else reshapes, with a transpose
between them when both axes have phases.

A depthwise transposed convolution becomes one depthwise convolution per phase, concatenated
phase-major (nested beyond 5 phases) and interleaved. When every output phase has the same
length, each convolution computes exactly the outputs of its phase (its own padding), so no
slice is left.

On a symbolic size the single convolution's crop may end a fixed distance before the dim's
end (DAC's and HiFi-GAN's crop of s/2 at each end): the extended runtime's slice counts that
end from the dim's end (`XNNStaticSliceV3`), the stock one cannot. On the stock target a
dense one takes the depthwise form instead ("per-phase"): output phases are grouped into
runs of consecutive phases whose windows agree, one convolution per run, each computing
exactly its phases' outputs:

    %a = xnn.convolution_2d %x, %w_phases_0_3 {padding_left = 1}   // phases 0..3: 4*C
    %b = xnn.convolution_2d %x, %w_phases_4_7 {padding_right = 1}  // phases 4..7: 4*C
    %y = xnn.static_reshape (xnn.concatenate %a, %b)               // interleave, no slice

On a static size the static rule keeps the single convolution; the tuner times both.

Kernels that are not a multiple of the stride are zero-padded to the next multiple. Whether
the rewrite pays is the cost model's decision per layer ("polyphase", "per-phase" or
"deconvolution"; `xnn.decision` on the op, by `xnn-tune`), else the static rule
`cost.rules.polyphase` (always for depthwise kernels, whose deconvolution XNNPACK runs
slowly, and for dense ones while the padded kernel has at most 1.4 times the taps). A choice
whose form does not fit the layer (`forms`) becomes the one that does, saying why. The
pattern records the decision it followed on the convolution over all phases, or the
concatenate joining the phases' convolutions (per-phase, depthwise): ops the later rewrites
keep or rebuild with their decisions, where layout folds the interleave and `xnn-fold-pad`
the slice. Pass options other than the defaults replace
the rule (source "option"): `max-kernel-growth`, `pad-kernels=false` (growth 1).

A qs8 deconvolution (XNNPACK's qs8 input and output, qcint8 or qint8 filter, int32 bias)
becomes qs8 convolutions with the same scales: a phase's taps are the deconvolution's
integers, the padded taps are 0 (symmetric filters: real 0), per-channel scales and the
bias repeat per phase like the channels, and the convolutions pad with the input's zero
point (real 0), as the deconvolution's implicit zeros are.

Does nothing when: the decision is "deconvolution"; the dilation is not 1; both strides are
1; the filter or bias is not a constant with data; the input and filter are neither float
types nor qs8 with a symmetric int8 filter; the groups are neither 1 nor depthwise (1 input
and 1 output channel per group), or depthwise with `depthwise=false`; a size is symbolic and
no form follows it (recorded as `xnn.declined`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import torch
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

from xnnc.backend_xnnpack.dims import NotAffine
from xnnc.backend_xnnpack.shapes import relative_end
from xnnc.conversion.quant_to_xnn import activation_reason, filter_reason, repeated_type
from xnnc.cost.decision import DECLINED_ATTR, Decision, decide, declined, record, record_moved
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import MAX_KERNEL_GROWTH, DeconvLayer
from xnnc.dialects import xnn
from xnnc.dialects.quant import is_quantized, quant_type
from xnnc.dialects.types import element_type, int_value, ints, shape_of, size_symbols
from xnnc.ir.constants import (
    constant_tensor,
    mapped_empty,
    replace_dropping_weights,
    weight_name,
)
from xnnc.ir.dtypes import TORCH_DTYPES
from xnnc.ir.emitter import Emitter
from xnnc.ir.rebuild import rebuilt

FLOAT_TYPES = (f32, f16, bf16)


# --- the math --------------------------------------------------------------------------------


def polyphase_filter(w: torch.Tensor, stride: tuple[int, int]) -> torch.Tensor:
    """A deconvolution filter [O, KH, KW, I] (XNNPACK's layout) as the filter of the stride-1
    convolution computing all its output phases: [sh * sw * O, MH, MW, I] with M = ceil(K / s)
    taps, output channel (jh * sw + jw) * O + o, and

        phases[(jh, jw, o), uh, uw, i] = w[o, sh * (MH-1-uh) + jh, sw * (MW-1-uw) + jw, i]

    where taps beyond the kernel are zero. Each tap is written into the result, in a mapping
    of its own when large (`mapped_empty`): padding, flipping and permuting the whole filter
    left two freed copies in the heap per layer (EnCodec's canonicalize peaked 0.6x its
    weights higher)."""
    o, kh, kw, i = w.shape
    sh, sw = stride
    mh, mw = -(-kh // sh), -(-kw // sw)
    phases = mapped_empty((sh, sw, o, mh, mw, i), w.dtype).zero_()
    for uh in range(mh):
        r = sh * (mh - 1 - uh)
        for uw in range(mw):
            c = sw * (mw - 1 - uw)
            # phases[jh, jw, :, uh, uw, :] = w[:, r + jh, c + jw, :] inside the kernel
            tap = w[:, r : r + sh, c : c + sw, :]
            phases[: tap.shape[1], : tap.shape[2], :, uh, uw, :] = tap.permute(1, 2, 0, 3)
    return phases.view(sh * sw * o, mh, mw, i)


@dataclass(frozen=True)
class Window:
    """A stride-1 convolution along one axis: its taps, its padding and its output length."""

    taps: int
    pad_before: int
    pad_after: int
    steps: int


def plan_axis(size: int, kernel: int, stride: int, crop: int, out: int) -> tuple[Window, int]:
    """One convolution for every phase along an axis of a deconvolution (input length `size`,
    output length `out`, the first `crop` outputs of the full transposed convolution cropped
    by its padding; the kernel zero-padded to a multiple of the stride), and the offset of
    the deconvolution's output in the interleaved phases.

    Full output s*q + j comes from convolution position q. Only positions [crop // s,
    ceil((crop + out) / s)) are needed; those past the input (an adjustment beyond the
    padding) see only zeros and give the bias."""
    taps = -(-kernel // stride)
    first, end = crop // stride, -(-(crop + out) // stride)
    pad_before = max(taps - 1 - first, 0)
    pad_after = max(end - size, 0)  # on a symbolic size: NotAffine unless a fixed distance
    start = taps - 1 - pad_before  # the position of the convolution's first output
    steps = size + pad_before + pad_after - taps + 1
    return Window(taps, pad_before, pad_after, steps), crop - stride * start


def plan_output_phases(
    size: int, kernel: int, stride: int, crop: int, out: int
) -> list[tuple[int, Window]] | None:
    """One convolution per output phase r (outputs r, r + s, ...) along an axis, as
    (the kernel phase it takes, its window), so that interleaving them gives the output with
    nothing to slice: output s*t + r is full output s*t + r + crop. None when the output
    phases differ in length or one would need negative padding."""
    taps, steps = -(-kernel // stride), out // stride
    if out - steps * stride:
        return None
    phases = []
    for r in range(stride):
        pad_before = taps - 1 - (r + crop) // stride
        pad_after = steps - size - pad_before + taps - 1
        if pad_before < 0 or pad_after < 0:
            return None
        phases.append(((r + crop) % stride, Window(taps, pad_before, pad_after, steps)))
    return phases


# An output phase of a 2-D deconvolution: the kernel phase it takes (phase-major index) and
# its windows along H and W.
Phase = tuple[int, Window, Window]


def phase_runs(phases: Sequence[Phase]) -> list[tuple[tuple[int, ...], Window, Window]]:
    """Output phases (phase-major) as runs of consecutive phases with the same windows: one
    dense convolution computes a run (its kernel phases' channels side by side), and
    concatenating the runs keeps the phase-major order. DAC's k = 2s, crop s/2 gives two
    runs: phases [0, s/2) with padding (1, 0), [s/2, s) with (0, 1)."""
    runs: list[tuple[tuple[int, ...], Window, Window]] = []
    for kernel_phase, rows, cols in phases:
        if runs and runs[-1][1:] == (rows, cols):
            runs[-1] = ((*runs[-1][0], kernel_phase), rows, cols)
        else:
            runs.append(((kernel_phase,), rows, cols))
    return runs


# --- the patterns ----------------------------------------------------------------------------


def _int(op: Operation, name: str) -> int:
    return op.properties[name].value.data


def _stride(op: xnn.Deconvolution2dOp) -> tuple[int, int]:
    return _int(op, "upsampling_height"), _int(op, "upsampling_width")


def _axes(op: xnn.Deconvolution2dOp) -> tuple[tuple[int, int, int, int, int], ...]:
    """(input length, kernel, stride, crop, output length) along H and W."""
    top, _, _, left = op.padding()
    _, h, w, _ = shape_of(op.input)
    _, oh, ow, _ = shape_of(op.output)
    kernel = (_int(op, "kernel_height"), _int(op, "kernel_width"))
    stride = _stride(op)
    return (h, kernel[0], stride[0], top, oh), (w, kernel[1], stride[1], left, ow)


def _matched_weights(op: xnn.Deconvolution2dOp) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    """The filter and bias data when `op` can be rewritten, else None."""
    if (_int(op, "dilation_height"), _int(op, "dilation_width")) != (1, 1):
        return None
    if max(_stride(op)) == 1:
        return None
    if not _types_fit(op):
        return None
    w = constant_tensor(op.filter)
    b = None if op.bias is None else constant_tensor(op.bias)
    if w is None or (op.bias is not None and b is None):
        return None
    return w, b


def _depthwise(op: xnn.Deconvolution2dOp) -> bool:
    per_group = (_int(op, "group_input_channels"), _int(op, "group_output_channels"))
    return _int(op, "groups") > 1 and per_group == (1, 1)


def deconv_layer(op: xnn.Deconvolution2dOp) -> DeconvLayer:
    n, h, w, cin = shape_of(op.input)
    return DeconvLayer(
        str(op.input.type.element_type),  # type: ignore[attr-defined]
        (n, h, w, cin), shape_of(op.output)[3], int_value(op.groups),
        (int_value(op.kernel_height), int_value(op.kernel_width)),
        (int_value(op.upsampling_height), int_value(op.upsampling_width)),
        op.padding(),
    )  # fmt: skip


def rewritable(op: xnn.Deconvolution2dOp) -> bool:
    """Whether a polyphase pattern has a decision to make about `op` (the weights' data is
    only looked at by the rewrite itself)."""
    if not (_int(op, "groups") == 1 or _depthwise(op)):
        return False
    if (_int(op, "dilation_height"), _int(op, "dilation_width")) != (1, 1):
        return False
    return max(_stride(op)) > 1 and _types_fit(op)


def _types_fit(op: xnn.Deconvolution2dOp) -> bool:
    """Float, or qs8 with an int8 filter (what XNNPACK's qs8 convolutions take)."""
    if element_type(op.filter) in FLOAT_TYPES and element_type(op.input) in FLOAT_TYPES:
        return True
    q = quant_type(element_type(op.filter))
    return (
        q is not None
        and activation_reason(op.input, "") is None
        and activation_reason(op.output, "") is None
        and filter_reason(op.filter, 0) is None
    )


def _decision(op: xnn.Deconvolution2dOp, max_growth: float | None) -> Decision:
    """The cost model's decision, or with `max_growth` (pass options) the options'."""
    layer = deconv_layer(op)
    if max_growth is None:
        return decide(op, layer)
    choice = "polyphase" if layer.kernel_growth <= max_growth else "deconvolution"
    return Decision(layer.form, choice, "option", layer.key(), "xnn-polyphase options")


def _decided_weights(
    op: xnn.Deconvolution2dOp, max_growth: float | None
) -> tuple[Decision, torch.Tensor, torch.Tensor | None] | None:
    """The decision and the weights when `op` is rewritten, its choice one of `forms(op)`;
    None otherwise (a "deconvolution" decision or the reason no form follows the size
    recorded on `op`, or a trim still to fold into its padding)."""
    if _trim_pending(op) or (weights := _matched_weights(op)) is None:
        return None
    fitting = forms(op)
    if not fitting and declined(op, "xnn-polyphase", _SIZED):
        return None
    decision = _decision(op, max_growth)
    if decision.choice == "deconvolution":
        record(op, decision)
        return None
    if decision.choice not in fitting:
        decision = _refitted(op, decision, fitting[0])
    return decision, *weights


def _refitted(op: xnn.Deconvolution2dOp, decision: Decision, choice: str) -> Decision:
    """`decision` moved to `choice`, the form that fits `op`, with why (a tuned one keeps
    no times: they were measured for the other form)."""
    if choice == "per-phase":
        why = (
            f"symbolic size {', '.join(size_symbols(op))}: the single convolution's crop "
            "would end before the end of a symbolic dim; per-phase convolutions need none"
        )
    else:
        why = "per-phase convolutions need output phases of one length and a dense filter"
    why = f"{decision.why}; {why}" if decision.why else why
    source = "rule" if decision.source == "tuned" else decision.source
    return Decision(decision.form, choice, source, decision.layer, why)


def _as_input(tensor: torch.Tensor, op: xnn.Deconvolution2dOp) -> torch.Tensor:
    """Convolutions take weights of their input's type (the fp16 deconvolution takes fp32);
    quantized weights keep their integers."""
    if is_quantized(op.input.type):
        return tensor
    return tensor.to(TORCH_DTYPES[element_type(op.input)])


def _weight_type(
    weight: SSAValue, shape: Sequence[int], repeats: int = 1, axis: int = 0
) -> TensorType | None:
    """A new weight's type: None for a float one (its dtype says it); for a quantized one
    the quantization of `weight`, per-channel parameters repeated `repeats` times along
    `axis` (the phase-major channels)."""
    q = quant_type(element_type(weight))
    return None if q is None else repeated_type(q, shape, repeats, axis)


def _window(rows: Window, cols: Window, op: xnn.Deconvolution2dOp) -> dict[str, object]:
    """A stride-1 convolution's window parameters, the deconvolution's fused clamp kept."""
    return dict(
        padding_top=rows.pad_before, padding_right=cols.pad_after,
        padding_bottom=rows.pad_after, padding_left=cols.pad_before,
        kernel_height=rows.taps, kernel_width=cols.taps,
        output_min=op.output_min, output_max=op.output_max,
    )  # fmt: skip


def _interleave(e: Emitter, phases: SSAValue, sh: int, sw: int) -> SSAValue:
    """[N, QH, QW, sh * sw * C] phase-major -> [N, QH * sh, QW * sw, C]."""
    n, qh, qw, channels = shape_of(phases)
    c = channels // (sh * sw)
    if sh == sw:
        return e.node(xnn.DepthToSpace2dOp, phases, shape=(n, qh * sh, qw * sw, c), block_size=sh)
    if sh > 1 and qw > 1:  # both axes have phases: the row phase moves in front of QW
        split = e.reshape(phases, (n, qh, qw, sh, sw, c))
        phases = e.transpose(split, (0, 1, 3, 2, 4, 5))
    return e.reshape(phases, (n, qh * sh, qw * sw, c))


def _concatenate(e: Emitter, values: list[SSAValue]) -> SSAValue:
    """Channel concatenation of any number of values, in nodes of at most 5 inputs."""
    while len(values) > 1:
        head = values[: xnn.MAX_CONCATENATE_INPUTS]
        n, h, w, _ = shape_of(head[0])
        channels = sum(shape_of(v)[3] for v in head)
        joined = e.node(xnn.ConcatenateOp, head, shape=(n, h, w, channels), axis=3)
        values = [joined] + values[len(head) :]
    return values[0]


def _slice(e: Emitter, y: SSAValue, offsets: tuple[int, int], out: Sequence[int]) -> SSAValue:
    if shape_of(y) == tuple(out):
        return y
    full = shape_of(y)
    sizes = [relative_end(d, o, n) for d, o, n in zip(full, (0, *offsets, 0), out, strict=True)]
    return e.node(xnn.StaticSliceOp, y, shape=out, offsets=(0, *offsets, 0), sizes=sizes)


# Why a symbolic size keeps the deconvolution (which XNNPACK reshapes at run time).
_SIZED = (
    "the phases' crop ends before the end of a symbolic dim, and the stock XNNStaticSlice "
    "node takes only absolute unsigned sizes (a slice to the end is the most it can follow); "
    "per-phase convolutions need output phases of one length"
)


def output_phases(op: xnn.Deconvolution2dOp) -> list[Phase] | None:
    """Each output phase of `op`, phase-major, with the window that computes exactly its
    outputs (`plan_output_phases` per axis); None when an axis's phases differ in length,
    one would need negative padding, or a padding depends on a symbolic size."""
    try:
        rows, cols = (plan_output_phases(*axis) for axis in _axes(op))
    except NotAffine:
        return None
    if rows is None or cols is None:
        return None
    pads = [p for _, w in rows + cols for p in (w.pad_before, w.pad_after)]
    if not all(isinstance(p, int) for p in pads):
        return None
    sw = _stride(op)[1]
    return [(jh * sw + jw, r, c) for jh, r in rows for jw, c in cols]


def _single_follows(op: xnn.Deconvolution2dOp) -> bool:
    """Whether the single convolution's form follows `op`'s symbolic sizes: every window is
    a fixed distance from the input's ends and the crop, if any, keeps a symbolic dim up to
    its end (a depthwise one with exact phases has no crop), or, on the extended runtime,
    ends a fixed distance before it (its from-end slice, `XNNStaticSliceV3`)."""
    if _depthwise(op) and output_phases(op) is not None:
        return True
    from_end = xnn.target_of(op).runtime == "extended"
    try:
        for size, kernel, stride, crop, out in _axes(op):
            window, offset = plan_axis(size, kernel, stride, crop, out)
            gap = stride * window.steps - offset - out
            if not isinstance(size, int) and gap != 0:
                if not (from_end and isinstance(gap, int) and gap > 0):
                    return False
    except NotAffine:
        return False
    return True


def forms(op: xnn.Deconvolution2dOp) -> tuple[str, ...]:
    """The rewritten forms of `op` (`cost.forms.FORMS["polyphase"].choices` other than the
    deconvolution) that fit it and follow its sizes: "polyphase", the single convolution
    (depthwise: per phase) and its crop; "per-phase" (dense only), one convolution per run
    of output phases, no crop. Empty on a symbolic size whose trim is still to fold."""
    symbolic = bool(size_symbols(op))
    if symbolic and trim_to_fold(op) is not None:
        return ()
    fitting = []
    if not symbolic or _single_follows(op):
        fitting.append("polyphase")
    if _int(op, "groups") == 1 and output_phases(op) is not None:
        fitting.append("per-phase")
    return tuple(fitting)


def choices(op: xnn.Deconvolution2dOp) -> tuple[str, ...]:
    """The polyphase choices that are distinct forms of `op`: what the tuner times. Output
    phases of one run (one window for all: SEANet's causal upsample, k = 2s) make per-phase
    one convolution over all phases computing exactly the kept outputs, the single
    convolution once `xnn-fold-pad` has folded its crop: the same program, not timed twice."""
    fitting = forms(op)
    if "per-phase" in fitting and len(phase_runs(output_phases(op))) == 1:  # type: ignore[arg-type]
        fitting = tuple(f for f in fitting if f != "per-phase")
    return ("deconvolution", *fitting)


def trim_to_fold(op: xnn.Deconvolution2dOp) -> xnn.StaticSliceOp | None:
    """The slice a symbolic deconvolution's result goes to, alone, through the reshapes and
    transposes that wrap it (the layout patterns move it next to the deconvolution)."""
    value: SSAValue = op.output
    while len(uses := list(value.uses)) == 1:
        user = uses[0].operation
        if isinstance(user, xnn.StaticSliceOp):
            # One starting from the end (a pad's edge piece) is no trim: padding cannot say it.
            return user if min(ints(user.offsets)) >= 0 else None
        if not isinstance(user, xnn.StaticReshapeOp | xnn.StaticTransposeOp):
            return None
        value = user.output
    return None


def folding_trim(op: xnn.StaticSliceOp) -> xnn.Deconvolution2dOp | None:
    """The deconvolution whose rows and columns `op` trims, when `FoldTrimIntoDeconvolution`
    folds `op` into its padding: `op` is the deconvolution's only user, keeps the batch and
    the channels whole and starts inside it."""
    deconv = op.input.owner
    if not isinstance(deconv, xnn.Deconvolution2dOp) or not op.input.has_one_use():
        return None
    x, out = shape_of(op.input), shape_of(op.output)
    if (x[0], x[3]) != (out[0], out[3]) or min(ints(op.offsets)) < 0:
        return None
    return deconv


def _trim_pending(op: xnn.Deconvolution2dOp) -> bool:
    """Whether a slice of `op`'s result is still to fold into its padding: the rewrites wait
    for it, so that the convolutions compute only the outputs kept."""
    uses = list(op.output.uses)
    user = uses[0].operation if len(uses) == 1 else None
    return isinstance(user, xnn.StaticSliceOp) and folding_trim(user) is op


@dataclass(frozen=True)
class FoldTrimIntoDeconvolution(RewritePattern):
    """A slice of a deconvolution's rows or columns as its padding, which XNNPACK applies
    at every size (the trim of a SEANet or causal transposed convolution):

        %d = xnn.deconvolution_2d %x, %w {padding 0}          : 1x1xTx8 -> 1x1x(2*T + 2)x4
        %y = xnn.static_slice %d {offsets [0, 0, 0, 0], sizes [1, 1, -2, 4]}
      ==>
        %y = xnn.deconvolution_2d %x, %w {padding_right = 2}  : 1x1xTx8 -> 1x1x(2*T)x4

    The polyphase rewrites wait for it: their convolutions then compute only the outputs
    kept, with no slice left (a static trim left to the phases' slice computed a row of
    phases more and copied the rest: Mimi's four upsamples, 1.7 ms of 27 at two threads on
    the AMD EPYC Zen 4 when the copies read the other core's rows).

    Does nothing when (`folding_trim`): the slice cuts the batch or channels or starts before
    the deconvolution (from its end); the deconvolution has other users."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticSliceOp, rewriter: PatternRewriter) -> None:
        if (deconv := folding_trim(op)) is None:
            return
        x, out, offsets = shape_of(op.input), shape_of(op.output), ints(op.offsets)
        gaps = [d - o - n for d, o, n in zip(x, offsets, out, strict=True)]
        top, right, bottom, left = deconv.padding()
        props = dict(deconv.properties)
        for name, value in (
            ("padding_top", top + offsets[1]),
            ("padding_bottom", bottom + gaps[1]),
            ("padding_left", left + offsets[2]),
            ("padding_right", right + gaps[2]),
        ):
            props[name] = IntegerAttr(value, i64)
        attrs = {k: v for k, v in deconv.attributes.items() if k != DECLINED_ATTR}
        new = rebuilt(deconv, result_types=[op.output.type], properties=props, attributes=attrs)
        rewriter.replace(op, new)
        rewriter.erase(deconv)


def _kernel_phases(filters: torch.Tensor, phases: Sequence[int]) -> torch.Tensor:
    """The filter of a convolution computing `phases` (phase-major channels), from the
    polyphase filter as [phases, O, MH, MW, I]: a view when they are consecutive, so that
    the runs of one deconvolution share one copy of its filter."""
    first = phases[0]
    if list(phases) == list(range(first, first + len(phases))):
        taken = filters[first : first + len(phases)]
    else:
        taken = filters[list(phases)]
    return taken.flatten(0, 1)


def _dense_phases(
    e: Emitter,
    op: xnn.Deconvolution2dOp,
    weights: tuple[torch.Tensor, torch.Tensor | None],
    phases: Sequence[int],
    windows: tuple[Window, Window],
    suffix: str = "",
) -> SSAValue:
    """One stride-1 convolution of `op`'s input computing the kernel `phases` of its
    polyphase filter (`weights[0]` as [phases, O, MH, MW, I]) over `windows`."""
    (w, b), (rows, cols), k = weights, windows, len(phases)
    cin, cout = _int(op, "group_input_channels"), _int(op, "group_output_channels")
    taken = _as_input(_kernel_phases(w, phases), op)
    filt = e.const(taken, f"{weight_name(op.filter)}.polyphase{suffix}",
                   _weight_type(op.filter, taken.shape, k))  # fmt: skip
    bias = None
    if b is not None:
        bias = e.const(_as_input(b.repeat(k), op), f"{weight_name(op.bias)}.polyphase{suffix}",
                       _weight_type(op.bias, [k * b.numel()], k))  # fmt: skip
    return e.node(
        xnn.Convolution2dOp, op.input, filt, bias, elem=element_type(op.output),
        shape=(shape_of(op.input)[0], rows.steps, cols.steps, k * cout),
        group_input_channels=cin, group_output_channels=k * cout, **_window(rows, cols, op),
    )  # fmt: skip


@dataclass(frozen=True)
class DeconvolutionToPolyphase(RewritePattern):
    """A dense (groups = 1) strided deconvolution as one stride-1 convolution over all its
    output phases, an interleave and a slice ("polyphase"), or as one convolution per run of
    output phases that computes exactly their outputs, and the interleave ("per-phase")."""

    max_kernel_growth: float | None = None  # None: the cost model decides

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.Deconvolution2dOp, rewriter: PatternRewriter) -> None:
        if _int(op, "groups") != 1:
            return
        if (decided := _decided_weights(op, self.max_kernel_growth)) is None:
            return
        decision, w, b = decided
        sh, sw = _stride(op)
        filters = polyphase_filter(w, (sh, sw))
        weights = filters.view(sh * sw, -1, *filters.shape[1:]), b
        e = Emitter(rewriter, op)
        if decision.choice == "per-phase":
            runs = phase_runs(output_phases(op))  # type: ignore[arg-type]
            convs = [_dense_phases(e, op, weights, phases, (rows, cols), str(i))
                     for i, (phases, rows, cols) in enumerate(runs)]  # fmt: skip
            joined = _concatenate(e, convs)
            y = _interleave(e, joined, sh, sw)
            record_moved(op, joined.owner, decision)  # type: ignore[arg-type]
        else:
            (rows, top), (cols, left) = (plan_axis(*axis) for axis in _axes(op))
            phases = _dense_phases(e, op, weights, range(sh * sw), (rows, cols))
            y = _slice(e, _interleave(e, phases, sh, sw), (top, left), shape_of(op.output))
            record_moved(op, phases.owner, decision)  # type: ignore[arg-type]
        replace_dropping_weights(rewriter, op, y)


@dataclass(frozen=True)
class DepthwiseDeconvolutionToPolyphase(RewritePattern):
    """A depthwise (1 input and 1 output channel per group) strided deconvolution as one
    depthwise convolution per output phase, a concatenate, an interleave and, unless each
    convolution computes exactly its phase, a slice."""

    max_kernel_growth: float | None = None  # None: the cost model decides

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.Deconvolution2dOp, rewriter: PatternRewriter) -> None:
        if not _depthwise(op):
            return
        channels = _int(op, "groups")
        if (decided := _decided_weights(op, self.max_kernel_growth)) is None:
            return
        decision, w, b = decided
        sh, sw = _stride(op)
        if (exact := output_phases(op)) is not None:
            plan, offsets = exact, (0, 0)
        else:
            (rows, top), (cols, left) = (plan_axis(*axis) for axis in _axes(op))
            plan = [(p, rows, cols) for p in range(sh * sw)]
            offsets = (top, left)
        # [P * C, MH, MW, 1] -> per kernel phase the depthwise layout [1, MH, MW, C]
        filters = _as_input(polyphase_filter(w, (sh, sw)), op)
        filters = filters.reshape(sh * sw, channels, *filters.shape[1:3]).permute(0, 2, 3, 1)
        e = Emitter(rewriter, op)
        bias = None
        if b is not None:
            bias = e.const(_as_input(b, op), f"{weight_name(op.bias)}.polyphase",
                           _weight_type(op.bias, b.shape))  # fmt: skip
        name, n = weight_name(op.filter), shape_of(op.input)[0]
        # XNNPACK's depthwise filter [1, MH, MW, C] keeps per-channel scales along axis 3.
        filter_type = _weight_type(op.filter, [1, *filters.shape[1:]], axis=3)
        phases = [
            e.node(
                xnn.DepthwiseConvolution2dOp, op.input,
                e.const(filters[p].unsqueeze(0), f"{name}.polyphase{p}", filter_type), bias,
                elem=element_type(op.output),
                shape=(n, rows.steps, cols.steps, channels), input_channels=channels,
                **_window(rows, cols, op),
            )
            for p, rows, cols in plan
        ]  # fmt: skip
        joined = _concatenate(e, phases)
        y = _slice(e, _interleave(e, joined, sh, sw), offsets, shape_of(op.output))
        record_moved(op, joined.owner, decision)  # type: ignore[arg-type]
        replace_dropping_weights(rewriter, op, y)


CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]] = {
    xnn.Deconvolution2dOp: (DeconvolutionToPolyphase(), DepthwiseDeconvolutionToPolyphase()),
    xnn.StaticSliceOp: (FoldTrimIntoDeconvolution(),),
}


@dataclass(frozen=True)
class PolyphasePass(ModulePass):
    """Strided transposed convolutions as stride-1 convolutions over their output phases.

    pad-kernels: zero-pad kernels that are not a multiple of the stride; max-kernel-growth:
    the most a dense kernel may grow by padding (with the defaults, true and 1.4, the cost
    model decides per layer: module docstring); depthwise: rewrite depthwise
    deconvolutions too."""

    name = "xnn-polyphase"
    option_ranges: ClassVar = {"max_kernel_growth": (1.0, math.inf)}
    # The layers of its form, for `xnn-tune` (`cost.forms`).
    form_layers: ClassVar = FormLayers(
        lambda op: isinstance(op, xnn.Deconvolution2dOp) and rewritable(op),
        deconv_layer,  # type: ignore[arg-type]
        choices=choices,  # type: ignore[arg-type]
    )
    pad_kernels: bool = True
    max_kernel_growth: float = MAX_KERNEL_GROWTH
    depthwise: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        dense: float | None = None
        depthwise: float | None = None
        if not self.pad_kernels:
            dense, depthwise = 1.0, 1.0
        elif self.max_kernel_growth != MAX_KERNEL_GROWTH:
            dense, depthwise = self.max_kernel_growth, math.inf
        patterns: list[RewritePattern] = [
            FoldTrimIntoDeconvolution(),
            DeconvolutionToPolyphase(dense),
        ]
        if self.depthwise:
            patterns.append(DepthwiseDeconvolutionToPolyphase(depthwise))
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
