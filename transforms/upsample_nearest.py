"""`xnn-upsample-nearest`: an exact nearest x2 upsample, which conversion lowers to a block
broadcast in NHWC, becomes 4 copies of the input concatenated on the channels and
rearranged by `xnn.depth_to_space_2d(2)`. Depth-to-space is block-major: output channel c of
block (i, j) is input channel (i * 2 + j) * C + c, which is channel c of every copy.
Other integer scales keep the broadcast (a concatenate takes at most 5 inputs).

Which form is faster depends on the tensor and the CPU: the cost model's decision per
layer (`xnn.decision` on the upsample's last reshape, by `xnn-tune`), else the static rule
`cost.rules.upsample_nearest` for the module's `#xnn.target`; the pattern records the
decision it followed on the op computing the result. Pass options other than the defaults
replace the rule (source "option").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.cost.decision import Decision, decide, declined, record, record_moved
from xnnc.cost.forms import FormLayers
from xnnc.cost.rules import UPSAMPLE_MAX_INPUT_BYTES as MAX_INPUT_BYTES
from xnnc.cost.rules import UPSAMPLE_MIN_CHANNELS as MIN_CHANNELS
from xnnc.cost.rules import UpsampleLayer, copies_are_faster
from xnnc.dialects import xnn
from xnnc.dialects.types import element_nbytes, shape_of


def block_scales(
    x: Sequence[int], unit: Sequence[int], blocks: Sequence[int], y: Sequence[int]
) -> tuple[int, int] | None:
    """(sh, sw) when reshape x [N,H,W,C] -> unit [N,H,1,W,1,C], broadcast -> blocks
    [N,H,sh,W,sw,C], reshape -> y [N,H*sh,W*sw,C] is a nearest upsample; else None."""
    if len(x) != 4:
        return None
    n, h, w, c = x
    if tuple(unit) != (n, h, 1, w, 1, c) or len(blocks) != 6:
        return None
    sh, sw = blocks[2], blocks[4]
    if tuple(blocks) != (n, h, sh, w, sw, c) or tuple(y) != (n, h * sh, w * sw, c):
        return None
    return sh, sw


def upsample_chain(
    op: xnn.StaticReshapeOp,
) -> tuple[xnn.StaticReshapeOp, xnn.StaticBroadcastOp] | None:
    """(the inner reshape, the broadcast) when `op` ends an exact nearest x2 upsample whose
    reshape and broadcast have no other user; else None."""
    broadcast = op.input.owner
    if not isinstance(broadcast, xnn.StaticBroadcastOp) or not broadcast.output.has_one_use():
        return None
    unit = broadcast.input.owner
    if not isinstance(unit, xnn.StaticReshapeOp) or not unit.output.has_one_use():
        return None
    shapes = (shape_of(unit.output), shape_of(broadcast.output), shape_of(op.output))
    if block_scales(shape_of(unit.input), *shapes) != (2, 2):
        return None
    return unit, broadcast


def upsample_layer(x: SSAValue) -> UpsampleLayer:
    """The nearest x2 upsample of `x` (NHWC)."""
    n, h, w, c = shape_of(x)
    elem = x.type.element_type  # type: ignore[attr-defined]
    return UpsampleLayer(str(elem), (n, h, w, c), element_nbytes(elem))


def _upsample_ops(op: Operation) -> list[Operation]:
    unit, broadcast = upsample_chain(op)  # type: ignore[arg-type,misc]
    return [unit, broadcast, op]


class NearestX2AsDepthToSpace(RewritePattern):
    """
        %u = xnn.static_reshape %x {new_shape = [N, H, 1, W, 1, C]}
        %b = xnn.static_broadcast %u {new_shape = [N, H, 2, W, 2, C]}
        %y = xnn.static_reshape %b {new_shape = [N, 2H, 2W, C]}
      ==>
        %c = xnn.concatenate %x, %x, %x, %x {axis = 3}
        %y = xnn.depth_to_space_2d %c {block_size = 2}

    Does nothing for scales other than 2 x 2, when the inner reshape or the broadcast has
    another user, or when the layer's decision is "broadcast" (recorded on %y). Anchored
    on the first reshape, so that in `canonicalize` it sees the chain before xnn-layout sinks
    a transpose into it (the walk reaches ops in order).
    """

    def __init__(self, min_channels: int = MIN_CHANNELS, max_input_bytes: int = MAX_INPUT_BYTES):
        self.limits = (min_channels, max_input_bytes)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, unit: xnn.StaticReshapeOp, rewriter: PatternRewriter) -> None:
        if not unit.output.has_one_use():
            return
        broadcast = next(iter(unit.output.uses)).operation
        if not isinstance(broadcast, xnn.StaticBroadcastOp) or not broadcast.output.has_one_use():
            return
        op = next(iter(broadcast.output.uses)).operation
        if not isinstance(op, xnn.StaticReshapeOp) or upsample_chain(op) is None:
            return
        x, elem = unit.input, unit.input.type.element_type
        if declined(unit, "xnn-upsample-nearest", "its profitability is decided at one size"):
            return
        decision = self._decision(op, x)
        if decision.choice == "broadcast":
            record(op, decision)
            return
        n, h, w, c = shape_of(x)
        copies = TensorType(elem, [n, h, w, 4 * c])
        concat = xnn.ConcatenateOp.make([x] * 4, result_type=copies, axis=3)
        d2s = xnn.DepthToSpace2dOp.make(concat.output, result_type=op.output.type, block_size=2)
        for new in (concat, d2s):
            new.location = op.location
        record_moved(op, d2s, decision)
        rewriter.replace(op, [concat, d2s])
        rewriter.erase(broadcast)
        rewriter.erase(unit)

    def _decision(self, op: xnn.StaticReshapeOp, x: SSAValue) -> Decision:
        layer = upsample_layer(x)
        if self.limits == (MIN_CHANNELS, MAX_INPUT_BYTES):
            return decide(op, layer)
        faster = copies_are_faster(layer.shape, layer.elem_bytes, *self.limits)
        choice = "depth-to-space" if faster else "broadcast"
        return Decision(layer.form, choice, "option", layer.key(), "xnn-upsample-nearest options")


CANONICALIZATION: dict[type[Operation], tuple[RewritePattern, ...]] = {
    xnn.StaticReshapeOp: (NearestX2AsDepthToSpace(),),
}


@dataclass(frozen=True)
class UpsampleNearestPass(ModulePass):
    """Nearest x2 upsamples as concatenate + depth_to_space_2d, where that is faster.

    min_channels, max_input_bytes: the fewest channels and the largest input (in bytes)
    that take the copies."""

    name = "xnn-upsample-nearest"
    option_ranges: ClassVar = {"min_channels": (1, math.inf), "max_input_bytes": (0, math.inf)}
    # The layers of its form, for `xnn-tune` (`cost.forms`): anchored at the last reshape.
    form_layers: ClassVar = FormLayers(
        lambda op: isinstance(op, xnn.StaticReshapeOp) and upsample_chain(op) is not None,
        lambda op: upsample_layer(_upsample_ops(op)[0].operands[0]),
        _upsample_ops,
    )
    min_channels: int = MIN_CHANNELS
    max_input_bytes: int = MAX_INPUT_BYTES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = NearestX2AsDepthToSpace(self.min_channels, self.max_input_bytes)
        PatternRewriteWalker(GreedyRewritePatternApplier([pattern])).rewrite_module(op)
