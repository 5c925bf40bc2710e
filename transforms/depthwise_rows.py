"""`xnn-depthwise-rows`: a depthwise convolution (or a pooling) over a 1-D signal, laid out as
one row of W pixels, as W rows of one pixel, so that XNNPACK's threads share it.

    %y = xnn.depthwise_convolution_2d %x, %w, %b {kernel 1 x k, padding left l, right r}
                                                         : [N, 1, W, C] -> [N, 1, W', C]
  ==>
    %r = xnn.static_reshape %x                           : -> [N, W, 1, C]
    %z = xnn.depthwise_convolution_2d %r, %w', %b {kernel k x 1, padding top l, bottom r}
                                                         : -> [N, W', 1, C]
    %y = xnn.static_reshape %z                           : -> [N, 1, W', C]

The reshapes move no data (NHWC with H = 1 or W = 1 is the same bytes), nor does the filter
([1, 1, k, C] -> [1, k, 1, C]); the stride and dilation move from W to H. XNNPACK splits a
depthwise convolution among threads by output rows only, so the width form runs on one
thread: Mimi's last layer (the one-output-channel convolution as a depthwise convolution
and a channel sum, `xnn-conv-as-gemm`) was 0.75 ms of a 22 ms call at 2 threads. Whether the
rewrite pays is the layer's decision (`xnn.decision`: the tuner's, or the target's rule
`cost.rules.depthwise_rows`: rows when the threads outnumber the batch); the pass records
what it followed on the convolution over rows.

Max and average pooling over a 1-D signal are the same kind of window, split the same way by
XNNPACK (1x24000x64 on the AMD EPYC Zen 4: as long at 2 threads as at 1): their window, its
stride, dilation and padding move from W to H alike (layer keys "maxpool1d ...",
"avgpool1d ...").

On a symbolic width the reshapes infer it (XNNPACK's 0 in `new_shape`), and the rule, which
reads the threads and the batch only, decides (the tuner times static layers).

Does nothing when: the decision is "width"; the input is not one row of several pixels
(H = 1 < W, a 1 x k window, no padding above or below); a dilation or stride along H is not
1; a convolution's filter is not a constant with data; TensorFlow SAME padding; the batch or the
channels are symbolic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from xnnc.cost.decision import Decision, record_moved, rewriting
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import RowLayer
from xnnc.dialects import xnn
from xnnc.dialects.types import element_type, int_value, shape_of
from xnnc.ir.constants import constant_tensor, replace_dropping_weights, weight_name
from xnnc.ir.emitter import Emitter
from xnnc.ir.rebuild import rebuilt

POOLINGS = (xnn.MaxPooling2dOp, xnn.AveragePooling2dOp)
RowOp = xnn.DepthwiseConvolution2dOp | xnn.MaxPooling2dOp | xnn.AveragePooling2dOp


def applies(op: RowOp) -> bool:
    """Whether the pass has a decision to make about `op` (the module docstring)."""
    if op.has_flag(xnn.FLAG_TENSORFLOW_SAME_PADDING):
        return False
    n, h, w, c = shape_of(op.input)
    if not (isinstance(n, int) and isinstance(c, int)):
        return False
    top, _, bottom, _ = op.padding()
    if h != 1 or w == 1 or top or bottom:
        return False
    if isinstance(op, POOLINGS):
        dilation = op.dilation_height if isinstance(op, xnn.MaxPooling2dOp) else None
        window = (op.pooling_height, op.stride_height, dilation)
        return all(a is None or int_value(a) == 1 for a in window)
    window = (op.kernel_height, op.subsampling_height, op.dilation_height)
    return all(int_value(a) == 1 for a in window) and constant_tensor(op.filter) is not None


def row_layer(op: RowOp) -> RowLayer:
    """The layer of a depthwise convolution or pooling over one row ([N, 1, W, C])."""
    n, _, w, c = shape_of(op.input)
    _, right, _, left = op.padding()
    dtype, out_w = str(op.input.type.element_type), shape_of(op.results[0])[2]  # type: ignore[attr-defined]
    if isinstance(op, xnn.DepthwiseConvolution2dOp):
        return RowLayer(dtype, n, w, out_w, c, int_value(op.kernel_width),
                        int_value(op.subsampling_width), int_value(op.dilation_width),
                        (left, right))  # fmt: skip
    dilation = int_value(op.dilation_width) if isinstance(op, xnn.MaxPooling2dOp) else 1
    kind = "maxpool" if isinstance(op, xnn.MaxPooling2dOp) else "avgpool"
    return RowLayer(dtype, n, w, out_w, c, int_value(op.pooling_width),
                    int_value(op.stride_width), dilation, (left, right), kind)  # fmt: skip


@dataclass(frozen=True)
class DepthwiseOverRows(RewritePattern):
    """The module docstring's rewrite, where the layer's decision is "rows" (or whatever it
    is, with `ignore_target`)."""

    ignore_target: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, RowOp) or not applies(op):  # type: ignore[arg-type]
            return
        decision = rewriting(op, row_layer(op), "rows", self.ignore_target)
        if decision is None:
            return
        if isinstance(op, POOLINGS):
            _pooling_over_rows(op, decision, rewriter)
            return
        n, _, w, c = shape_of(op.input)
        out_w, out_c = shape_of(op.output)[2:]
        _, right, _, left = op.padding()
        filt = constant_tensor(op.filter)
        assert filt is not None
        k = int_value(op.kernel_width)
        e = Emitter(rewriter, op)
        column = filt.reshape(1, k, 1, out_c)
        filter_type = TensorType(element_type(op.filter), column.shape)
        z = e.node(
            xnn.DepthwiseConvolution2dOp, e.reshape(op.input, (n, w, 1, c)),
            e.const(column, f"{weight_name(op.filter)}.rows", filter_type), op.bias,
            elem=element_type(op.output), shape=(n, out_w, 1, out_c), input_channels=c,
            kernel_height=k, kernel_width=1, padding_top=left, padding_bottom=right,
            subsampling_height=int_value(op.subsampling_width),
            dilation_height=int_value(op.dilation_width),
            depth_multiplier=int_value(op.depth_multiplier),
            output_min=op.output_min, output_max=op.output_max,
        )  # fmt: skip
        record_moved(op, z.owner, decision)  # type: ignore[arg-type]
        y = e.reshape(z, (n, 1, out_w, out_c))
        replace_dropping_weights(rewriter, op, y)


# A pooling's window along W and its counterpart along H.
_POOLING_AXES = (("pooling_width", "pooling_height"), ("stride_width", "stride_height"),
                 ("dilation_width", "dilation_height"), ("padding_left", "padding_top"),
                 ("padding_right", "padding_bottom"))  # fmt: skip


def _pooling_over_rows(
    op: xnn.MaxPooling2dOp | xnn.AveragePooling2dOp, decision: Decision, rewriter: PatternRewriter
) -> None:
    """The pooling's window moved from W to H between reshapes (its clamp kept)."""
    n, _, w, c = shape_of(op.input)
    out_w = shape_of(op.output)[2]
    e = Emitter(rewriter, op)
    props = dict(op.properties)
    for along_w, along_h in _POOLING_AXES:
        if along_w in props and along_h in props:
            props[along_w], props[along_h] = props[along_h], props[along_w]
    result = TensorType(element_type(op.output), (n, out_w, 1, c))
    rows = rewriter.insert(rebuilt(op, operands=[e.reshape(op.input, (n, w, 1, c))],
                                   result_types=[result], properties=props))  # fmt: skip
    record_moved(op, rows, decision)
    rewriter.replace(op, [], [e.reshape(rows.results[0], (n, 1, out_w, c))])


@dataclass(frozen=True)
class DepthwiseRowsPass(ModulePass):
    """Depthwise convolutions and poolings over 1-D signals as ones over rows, where the layer's
    decision says so.

    ignore-target: rewrite whatever the decision (false; for experiments and tests)."""

    name = "xnn-depthwise-rows"
    # The layers of its form, for `xnn-tune` (`cost.forms`).
    form_layers: ClassVar = FormLayers(
        lambda op: isinstance(op, RowOp) and applies(op),  # type: ignore[arg-type]
        row_layer,  # type: ignore[arg-type]
    )
    ignore_target: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DepthwiseOverRows(self.ignore_target)).rewrite_module(op)
