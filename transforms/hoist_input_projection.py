"""`xnn-hoist-input-projection`: fully_connected nodes that apply the same weights to slices
of one tensor along a non-feature axis become one fully_connected over the whole tensor,
followed by a slice per former node.

A recurrent cell unrolled over time (nn.LSTMCell or nn.GRUCell in a Python loop, a
hand-written cell) projects each step's input on its own: T matrix-vector products, each
streaming the whole [4H, C] filter from memory. Hoisted, the filter is read once by a
[T, C] x [C, 4H] GEMM, and only the recurrent projection stays in the loop.

    %x0 = xnn.static_slice %x {offsets = [0, 0, 0], sizes = [1, 1, 16]}     // x[0]
    %r0 = xnn.static_reshape %x0 {new_shape = [1, 16]}
    %g0 = xnn.fully_connected %r0, %w, %b                         : -> 1x64
    ... the same for x[1] .. x[T-1]
  ==>
    %y  = xnn.fully_connected %x, %w, %b                          : 4x1x16 -> 4x1x64
    %y0 = xnn.static_slice %y {offsets = [0, 0, 0], sizes = [1, 1, 64]}
    %g0 = xnn.static_reshape %y0 {new_shape = [1, 64]}
    ...

torch.export's own decomposition of nn.LSTM / nn.GRU / nn.RNN already projects the whole
sequence at once (one `aten.linear` over [T, B, C]); there is nothing to hoist there.

Does nothing unless at least two fully_connected nodes of one block
- read a static_slice of the same tensor that cuts one axis, not the last (the features),
  directly or through a static_reshape that keeps the last dim;
- have equal filters and biases (the same value, or constants with equal contents) and the
  same flags and output bounds;
- and their slices together cover that axis, so the hoisted product computes no row that
  nobody reads.

On symbolic sizes (issue 13): other dims may be symbolic (a batch), kept whole by each
slice (size 0, to the end), and the hoisted form follows them; a symbolic cut axis declines
(`xnn.declined`): slices at fixed rows cover it at no size.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.shapes import whole_sizes
from xnnc.cost.decision import declined
from xnnc.dialects import xnn
from xnnc.dialects.types import ints, shape_of, tensor_type
from xnnc.dialects.weights import WeightAttr
from xnnc.ir.constants import constant_op, constant_tensor

REWRITE = "xnn-hoist-input-projection"


@dataclass(frozen=True)
class Rows:
    """A fully_connected input that is `source[start : start + size]` along `axis`."""

    source: SSAValue
    axis: int
    start: int
    size: int


def sliced_rows(value: SSAValue) -> Rows | None:
    """`value` as rows of a larger tensor: a static_slice cutting one axis other than the
    last, possibly behind a static_reshape that keeps the last dim (a fully_connected
    flattens every other dim into rows, so such a reshape only renames them)."""
    if isinstance(value.owner, xnn.StaticReshapeOp):
        if shape_of(value.owner.input)[-1:] != shape_of(value)[-1:]:
            return None
        value = value.owner.input
    cut = value.owner
    if not isinstance(cut, xnn.StaticSliceOp):
        return None
    # The slice's shape, not its sizes: a symbolic dim kept whole is size 0 ("to the end").
    whole, part, offsets = shape_of(cut.input), shape_of(cut.output), ints(cut.offsets)
    axes = [d for d in range(len(whole)) if part[d] != whole[d]]
    if len(axes) != 1 or axes[0] == len(whole) - 1:
        return None
    (axis,) = axes
    return Rows(cut.input, axis, offsets[axis], part[axis])


def covers(spans: list[tuple[int, int]], length: int) -> bool:
    """Do the (start, size) spans together cover [0, length)?

    covers([(0, 1), (1, 2)], 3) and not covers([(0, 1), (2, 1)], 3)"""
    end = 0
    for start, size in sorted(spans):
        if start > end:
            return False
        end = max(end, start + size)
    return end >= length


def same_values(a: SSAValue | None, b: SSAValue | None) -> bool:
    """The same value, or constants of one type with equal contents (conversion gives each
    fully_connected its own constant op, even when they share a weight)."""
    if a is None or b is None or a is b:
        return a is b
    if a.type != b.type or constant_op(a) is None or constant_op(b) is None:
        return False
    wa, wb = (constant_op(v).properties["value"] for v in (a, b))
    if isinstance(wa, WeightAttr) and isinstance(wb, WeightAttr):
        if not (wa.data.has_data and wb.data.has_data):
            return False
        # Bitwise equal bytes (as strict as torch.equal but for -0.0 / NaN), compared without
        # building tensors: a convolution's taps (xnn-conv-as-gemm) all meet here.
        return wa.data.raw() == wb.data.raw()
    ta, tb = constant_tensor(a), constant_tensor(b)
    if ta is None or tb is None:
        return False
    return ta.data_ptr() == tb.data_ptr() or torch.equal(ta, tb)


def _same_node(a: xnn.FullyConnectedOp, b: xnn.FullyConnectedOp) -> bool:
    return (
        a.properties == b.properties
        and same_values(a.filter, b.filter)
        and same_values(a.bias, b.bias)
    )


def _readers(rows: Rows) -> list[xnn.FullyConnectedOp]:
    """The fully_connected nodes reading slices of `rows.source` along `rows.axis`."""
    found: list[xnn.FullyConnectedOp] = []
    for use in rows.source.uses:
        cut = use.operation
        if not isinstance(cut, xnn.StaticSliceOp):
            continue
        users = [u.operation for u in cut.output.uses]
        users += [
            u.operation for r in users if isinstance(r, xnn.StaticReshapeOp) for u in r.output.uses
        ]
        for user in users:
            if isinstance(user, xnn.FullyConnectedOp) and user not in found:
                other = sliced_rows(user.input)
                if other is not None and (other.source, other.axis) == (rows.source, rows.axis):
                    found.append(user)
    return found


def _first(block: Block, ops: list[Operation]) -> Operation:
    members = set(ops)
    return next(op for op in block.ops if op in members)


class HoistSlicedFullyConnected(RewritePattern):
    """One fully_connected over the whole tensor instead of one per slice (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.FullyConnectedOp, rewriter: PatternRewriter) -> None:
        rows = sliced_rows(op.input)
        block = op.parent_block()
        if rows is None or block is None:
            return
        # Slices at fixed rows of a symbolic axis cover it at no size (the nodes themselves
        # may be static); other symbolic dims are kept whole and follow the size.
        axis = shape_of(rows.source)[rows.axis]
        if isinstance(axis, DimExpr):
            declined(op, REWRITE, "its slices sit at fixed rows", axis.symbols)
            return
        group = [
            fc
            for fc in _readers(rows)
            if fc.parent_block() is block and (fc is op or _same_node(op, fc))
        ]
        spans = [(r.start, r.size) for r in map(sliced_rows, (fc.input for fc in group)) if r]
        if len(group) < 2 or not covers(spans, shape_of(rows.source)[rows.axis]):
            return
        first = _first(block, group)
        whole = list(shape_of(rows.source))
        out = [*whole[:-1], shape_of(op.output)[-1]]
        elem = op.output.type.element_type
        hoisted = xnn.FullyConnectedOp.make(
            rows.source, first.filter, first.bias, result_type=tensor_type(elem, out),
            **op.properties,
        )  # fmt: skip
        hoisted.location = first.location
        rewriter.insert(hoisted, InsertPoint.before(first))
        for fc in group:
            r = sliced_rows(fc.input)
            assert r is not None
            offsets = [0] * len(out)
            offsets[r.axis] = r.start
            part = list(out)
            part[r.axis] = r.size
            sizes = whole_sizes(part)
            cut = xnn.StaticSliceOp.make(
                hoisted.output, result_type=tensor_type(elem, part), offsets=offsets, sizes=sizes
            )
            new: list[Operation] = [cut]
            if tuple(part) != shape_of(fc.output):
                # XNNPACK infers a 0 at run time: the fc's one symbolic dim, if any.
                shape = [0 if isinstance(d, DimExpr) else d for d in shape_of(fc.output)]
                new.append(
                    xnn.StaticReshapeOp.make(
                        cut.output, result_type=fc.output.type, new_shape=shape
                    )
                )
            for n in new:
                n.location = fc.location
            old_input = fc.input
            rewriter.replace(fc, new, [new[-1].results[0]])
            _erase_if_dead(rewriter, old_input)


def _erase_if_dead(rewriter: PatternRewriter, value: SSAValue) -> None:
    """The reshape and slice that fed a replaced node, once nothing else reads them."""
    while isinstance(value.owner, (xnn.StaticReshapeOp, xnn.StaticSliceOp)) and not value.uses:
        owner = value.owner
        value = owner.input
        rewriter.erase(owner)


def hoist_input_projection_patterns() -> list[RewritePattern]:
    """The optimize-stage pattern set of this rewrite (MLIR's `populate*Patterns`)."""
    return [HoistSlicedFullyConnected()]


@dataclass(frozen=True)
class HoistInputProjectionPass(ModulePass):
    """Merge fully_connected nodes that share weights over slices of one tensor."""

    name = "xnn-hoist-input-projection"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(hoist_input_projection_patterns())
        ).rewrite_module(op)
