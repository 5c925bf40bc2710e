"""`xnn-layout`: NCHW <-> NHWC as small patterns over explicit transposes.

Conversion keeps every value in its PyTorch layout and wraps each NHWC node in transposes, so
two convolutions with a relu between them read

    %a = xnn.static_transpose %c1 {perm = [0, 3, 1, 2]}      // NHWC -> NCHW
    %r = xnn.clamp %a {output_min = 0.0}
    %b = xnn.static_transpose %r {perm = [0, 2, 3, 1]}       // NCHW -> NHWC
    %c2 = xnn.convolution_2d %b, %w
  ==>
    %r = xnn.clamp %c1 {output_min = 0.0}
    %c2 = xnn.convolution_2d %r, %w

Transposes sink: a layout-agnostic op reading a transpose is rebuilt on the transpose's input
and the transpose moves to its result (pads, slice offsets and sizes, concatenate and reduce
axes permuted with it; a binary op's other operand follows: a constant is permuted at compile
time, a low-rank broadcast operand ([C, 1, 1], [H, W], ...) is reshaped, a single-element one
is left as it is, and two operands transposed alike hoist the transpose). Transposes meet and
compose: inverse pairs cancel, and a transpose that moves only unit dims next to a reshape
folds into it.

1-D convolutions run as [N, 1, L, C] 2-D ones, behind a transpose [0, 2, 1] and a reshape
that inserts the unit H. Reshapes are pushed as well, not special-cased: a transpose sinks
below a reshape when the reshape only splits, merges, inserts or drops dims that stay together
under the permutation (unit-dim reshapes always do), and reshapes sink through elementwise
and binary ops, pads and slices like transposes do. Chains of reshapes fold into one.

A reshape that both regroups dims (a polyphase interleave) and inserts or drops unit dims
sinks whole through elementwise and binary ops; through a pad or slice of a regrouped dim
only its unit-dim part sinks and the regrouping stays.

Termination: every pattern moves a transpose or a reshape (or its unit-dim part) from an op's
input to its output, moves a transpose below a reshape, or removes layout ops; nothing moves
them up, and a reshape never moves below a transpose, so no two patterns undo each other.
Other ops are rebuilt one for one, so each transpose can only travel down the finite graph,
and canonicalize reaches a fixpoint. Cost: a transpose that also feeds a node that cannot
take it (a fully_connected, a subgraph output) stays there for that node, so it sinks through
its other users only when the copy can meet another layout change below (`worth_sinking`);
otherwise each output would get its own transpose.

Left alone: transposes feeding anything but the ops above (convolutions, fully_connected,
softmax, depth_to_space_2d, xnn.output), binary ops whose other operand is neither a constant
nor a broadcast operand that a reshape can carry nor transposed the same way, reshapes that
mix the padded, sliced or broadcast-to dims with others, and concatenates, reductions and
broadcasts of reshapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.dims import NotAffine
from xnnc.backend_xnnpack.shapes import normalize_dim, same_numel, sliced_shape, whole_sizes
from xnnc.dialects import xnn
from xnnc.dialects.dynamic_quant import is_dynamic
from xnnc.dialects.types import element_type, ints, shape_of
from xnnc.ir.constants import constant_op, constant_tensor, weight_name
from xnnc.ir.emitter import Emitter

Shape = tuple[int, ...]
Perm = tuple[int, ...]
Blocks = list[tuple[tuple[int, ...], tuple[int, ...]]]

# --- the math --------------------------------------------------------------------------------
# A transpose's output dim j is its input dim perm[j].


def compose(first: Sequence[int], second: Sequence[int]) -> Perm:
    """The perm of transpose(transpose(x, first), second)."""
    return tuple(first[j] for j in second)


def inverse(perm: Sequence[int]) -> Perm:
    out = [0] * len(perm)
    for j, p in enumerate(perm):
        out[p] = j
    return tuple(out)


def permuted(shape: Sequence[int], perm: Sequence[int]) -> Shape:
    return tuple(shape[p] for p in perm)


def is_reshape(shape: Sequence[int], perm: Sequence[int]) -> bool:
    """A transpose of `shape` that keeps the non-unit dims in order moves no data."""
    moved = [p for p in perm if shape[p] != 1]
    return moved == sorted(moved)


def moved_rank(shape: Sequence[int], perm: Sequence[int]) -> int:
    """The rank of the copy a transpose is, as XNNPACK normalizes it: unit dims dropped and
    input dims that stay next to each other, in order, merged (0: no data moves)."""
    kept = [p for p in perm if shape[p] != 1]
    if kept == sorted(kept):
        return 0
    return 1 + sum(b != a + 1 for a, b in zip(kept, kept[1:], strict=False))


def reshape_blocks(src: Sequence[int], dst: Sequence[int]) -> Blocks | None:
    """The smallest blocks of non-unit dims a reshape maps onto each other, as pairs
    (src dims, dst dims) in order: [2, 3, 1, 4] -> [6, 2, 2] is ((0, 1), (0,)), ((3,), (1, 2)).
    None when the element counts differ or a dim is empty."""
    if 0 in src or 0 in dst or not _same_numel(src, dst):
        return None
    a = [i for i, d in enumerate(src) if d != 1]
    b = [j for j, d in enumerate(dst) if d != 1]
    blocks: Blocks = []
    i = j = 0
    while i < len(a):
        xs, zs = [a[i]], [b[j]]
        pa, pb = src[a[i]], dst[b[j]]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                xs.append(a[i])
                pa, i = pa * src[a[i]], i + 1
            else:
                zs.append(b[j])
                pb, j = pb * dst[b[j]], j + 1
        blocks.append((tuple(xs), tuple(zs)))
    return blocks


def one_to_one(src: Sequence[int], dst: Sequence[int]) -> list[int | None] | None:
    """For each dst dim of a reshape, the src dim it is when a block maps exactly one dim to
    one dim (else None); None when `src` does not reshape to `dst`."""
    blocks = reshape_blocks(src, dst)
    if blocks is None:
        return None
    dims: list[int | None] = [None] * len(dst)
    for xs, zs in blocks:
        if len(xs) == len(zs) == 1:
            dims[zs[0]] = xs[0]
    return dims


def regrouped(src: Sequence[int], dst: Sequence[int]) -> Shape:
    """`src` with each block of a reshape to `dst` replaced by its dst dims, unit dims kept:
    src -> dst is src -> regrouped (splits and merges only) -> dst (unit dims only).
    [1, 1, 9, 512] -> [1, 72, 64] regroups to [1, 1, 72, 64]."""
    blocks = reshape_blocks(src, dst) or []
    first = {xs[0]: zs for xs, zs in blocks}
    inner = {i for xs, _ in blocks for i in xs[1:]}
    out: list[int] = []
    for i, d in enumerate(src):
        if i in first:
            out += [dst[j] for j in first[i]]
        elif i not in inner:
            out.append(d)
    return tuple(out)


def transpose_through_reshape(
    x: Sequence[int], perm: Sequence[int], z: Sequence[int]
) -> tuple[Shape, Perm] | None:
    """(w, perm2) with reshape(transpose(x, perm), z) == transpose(reshape(x, w), perm2), or
    None when a reshape block gathers dims that the transpose does not keep together and in
    order. Unit dims the reshape inserts sit after the block they follow (before the first
    block when they lead), so [1, C, L] -> [0, 2, 1] -> [1, 1, L, C] gives w = [1, C, 1, L] and
    perm2 = [0, 2, 3, 1]: NCHW -> NHWC with H = 1."""
    y = permuted(x, perm)
    blocks = reshape_blocks(y, z)
    if blocks is None:
        return None
    if not blocks:  # only unit dims: the transpose moves no data
        return tuple(z), tuple(range(len(z)))
    order = {d: k for k, d in enumerate(i for i, n in enumerate(x) if n != 1)}
    for ys, _ in blocks:
        at = [order[perm[j]] for j in ys]
        if at != list(range(at[0], at[0] + len(at))):
            return None

    def slot(dim: int, side: int) -> int:  # how many blocks start before `dim`
        return sum(1 for block in blocks if block[side][0] < dim)

    y_units: dict[int, list[int]] = {}
    z_units: dict[int, list[int]] = {}
    for j, n in enumerate(y):
        if n == 1:
            y_units.setdefault(slot(j, 0), []).append(j)
    for i, n in enumerate(z):
        if n == 1:
            z_units.setdefault(slot(i, 1), []).append(i)
    kept: dict[int, int] = {}  # x unit dim -> the z unit dim it stays
    extra: dict[int, list[int]] = {}  # slot -> z unit dims the reshape inserts there
    for s, zs in z_units.items():
        ys = y_units.get(s, [])
        kept.update({perm[j]: i for j, i in zip(ys, zs, strict=False)})
        extra[s] = zs[len(ys) :]
    block_of = {perm[j]: k for k, (ys, _) in enumerate(blocks) for j in ys}
    emit: list[int] = []
    for u in range(len(x)):
        if u in kept:
            emit.append(kept[u])
        elif u in block_of and u == perm[blocks[block_of[u]][0][0]]:
            k = block_of[u]
            emit += (extra.get(0, []) if k == 0 else []) + list(blocks[k][1])
            emit += extra.get(k + 1, [])
    return permuted(z, emit), inverse(emit)


def strip_leading_units(shape: Sequence[int]) -> Shape:
    """A broadcast operand needs no leading unit dims (numpy aligns trailing dims)."""
    k = 0
    while k < len(shape) - 1 and shape[k] == 1:
        k += 1
    return tuple(shape[k:])


def broadcast_through_transpose(b: Sequence[int], perm: Sequence[int]) -> Shape:
    """The shape a broadcast operand of transpose(x, perm) takes against x."""
    aligned = (1,) * (len(perm) - len(b)) + tuple(b)
    return permuted(aligned, inverse(perm))


def broadcast_through_reshape(
    b: Sequence[int], src: Sequence[int], dst: Sequence[int]
) -> Shape | None:
    """The shape a broadcast operand of reshape(x: src -> dst) takes against x: each reshape
    block must be broadcast whole or not at all. None otherwise."""
    blocks = reshape_blocks(src, dst)
    if blocks is None or len(b) > len(dst):
        return None
    aligned = (1,) * (len(dst) - len(b)) + tuple(b)
    out = [1] * len(src)
    for xs, zs in blocks:
        if all(aligned[j] == dst[j] for j in zs):
            for i in xs:
                out[i] = src[i]
        elif any(aligned[j] != 1 for j in zs):
            return None
    return tuple(out)


# --- layout ops ------------------------------------------------------------------------------


@dataclass
class Layout:
    """A static_transpose or static_reshape whose result an op reads: `value = op(source)`.

    With `unit_part`, only a reshape's unit-dim part: its source is then the input regrouped
    by the reshape's splits and merges (`regrouped`), which stays where the reshape was."""

    op: xnn.StaticTransposeOp | xnn.StaticReshapeOp
    unit_part: bool = False

    @property
    def perm(self) -> Perm | None:
        return ints(self.op.perm) if isinstance(self.op, xnn.StaticTransposeOp) else None

    @property
    def shape(self) -> Shape:
        """The source's shape."""
        x = shape_of(self.op.input)
        return regrouped(x, shape_of(self.op.output)) if self.unit_part else x

    def source(self, e: Emitter) -> SSAValue:
        return e.reshape(self.op.input, self.shape) if self.unit_part else self.op.input

    def source_dims(self) -> list[int | None]:
        """For each dim of the result, the dim of the source it is (None for none)."""
        if self.perm is not None:
            return list(self.perm)
        dims = one_to_one(self.shape, shape_of(self.op.output))
        assert dims is not None, "a verified reshape keeps the element count"
        return dims

    def redo(self, e: Emitter, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        """The same layout change on `value`, giving `shape`."""
        if self.perm is not None:
            return e.transpose(value, self.perm)
        return e.reshape(value, shape)


def layout_of(value: SSAValue, reshapes: bool = True) -> Layout | None:
    op = value.owner
    if isinstance(op, xnn.StaticTransposeOp) or (reshapes and isinstance(op, xnn.StaticReshapeOp)):
        return Layout(op)
    return None


def layouts_of(value: SSAValue, reshapes: bool = True) -> list[Layout]:
    """The layout change `value` is, then, for a reshape that both splits or merges dims and
    inserts or drops unit dims, its unit-dim part alone."""
    layout = layout_of(value, reshapes)
    if layout is None:
        return []
    if layout.perm is not None:
        return [layout]
    x, y = shape_of(layout.op.input), shape_of(layout.op.output)
    mid = regrouped(x, y)
    if mid in (x, y) or len(mid) > xnn.MAX_TENSOR_DIMS:
        return [layout]
    return [layout, Layout(layout.op, unit_part=True)]


# Ops a layout change can sink through (the node table's layout-agnostic ops; each has a
# pattern below), and the layout changes.
AGNOSTIC = xnn.node_ops(nodes.ops_with(lambda spec: spec.layout_agnostic))
LAYOUT = (xnn.StaticTransposeOp, xnn.StaticReshapeOp)


def worth_sinking(change: Operation, through: Operation, budget: int = 64) -> bool:
    """Sinking `change` below `through` leaves it in place for its other users. That pays when
    all of them can take it as well (it then leaves them all), or when the copy below
    `through` can meet another layout change within `budget` layout-agnostic ops; else the
    copy would only add a transpose (say, in front of a second subgraph output, or one per
    tap of a 1-D convolution run as fully-connected layers)."""
    uses = list(change.results[0].uses)
    if len(uses) == 1 or all(isinstance(use.operation, LAYOUT) for use in uses):
        return True
    seen: set[Operation] = set()
    work = [through]
    while work and len(seen) < budget:
        for result in work.pop().results:
            for use in result.uses:
                if isinstance(use.operation, LAYOUT):
                    return True
                if isinstance(use.operation, AGNOSTIC) and use.operation not in seen:
                    seen.add(use.operation)
                    work.append(use.operation)
    return False


def _in_source(
    layout: Layout, values: Sequence[int], neutral: Sequence[int], fill: Sequence[int]
) -> list[int] | None:
    """Per-dim parameters of an op reading `layout`'s result, for its source: dims of the
    source no result dim maps to take `fill`; None when a result dim that maps to no source
    dim has a non-`neutral` value."""
    out = list(fill)
    for j, d in enumerate(layout.source_dims()):
        if d is None:
            if values[j] != neutral[j]:
                return None
        else:
            out[d] = values[j]
    return out


def _constant(e: Emitter, like: SSAValue, tensor: torch.Tensor, suffix: str) -> SSAValue:
    """A new constant holding `tensor`: a dense literal when `like` is one, else a weight."""
    attr = constant_op(like).properties["value"]
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return e.const(tensor, f"{weight_name(like)}.{suffix}")
    t = tensor.contiguous()
    bits = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    ttype = TensorType(like.type.element_type, list(t.shape))
    new = xnn.ConstantOp(DenseIntOrFPElementsAttr(ttype, BytesAttr(bits.numpy().tobytes())), ttype)
    e.rewriter.insert(new)
    return new.output


def _transposed(e: Emitter, value: SSAValue, perm: Sequence[int]) -> SSAValue:
    return value if list(perm) == sorted(perm) else e.transpose(value, perm)


# --- folds -----------------------------------------------------------------------------------


class ComposeTransposes(RewritePattern):
    """
        %a = xnn.static_transpose %x {perm = [0, 3, 1, 2]}
        %b = xnn.static_transpose %a {perm = [0, 2, 3, 1]}   ==>   %x
    and one transpose when the composed perm is not the identity, unless that transpose is a
    copy of higher rank than each of the two (`moved_rank`): XNNPACK runs a rank-2 or rank-3
    copy with tiled kernels, a higher one element by element across its small dims. An NCHW
    -> NHWC transpose composed with a space-to-depth one (`xnn-space-to-depth`) is a rank-5
    copy of single bytes: 2.1 ms on ResNet's 3x230x230 int8 input, against 0.21 + 0.11 for
    the two (AMD EPYC Zen 3, 1 thread, XNNPACK's profile of the whole model).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticTransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, xnn.StaticTransposeOp):
            return
        perm = compose(ints(inner.perm), ints(op.perm))
        shape = shape_of(inner.input)
        ranks = (moved_rank(shape, ints(inner.perm)), moved_rank(shape_of(op.input), ints(op.perm)))
        if moved_rank(shape, perm) > max(ranks):
            return
        rewriter.replace(op, [], [_transposed(Emitter(rewriter, op), inner.input, perm)])


class TransposeAsReshape(RewritePattern):
    """
        %y = xnn.static_transpose %x {perm = [0, 2, 1]}      : 1x7680x1 -> 1x1x7680
      ==>
        %y = xnn.static_reshape %x {new_shape = [1, 1, 7680]}

    A transpose that keeps the non-unit dims in order moves no data. The identity folds
    away; another one becomes a reshape when it reads a reshape or feeds only reshapes and
    outputs (so reshapes fold into one), and otherwise stays a transpose and keeps sinking:
    its perm says which dim a later broadcast expands.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticTransposeOp, rewriter: PatternRewriter) -> None:
        perm = ints(op.perm)
        if not is_reshape(shape_of(op.input), perm):
            return
        users = [use.operation for use in op.output.uses]
        beside_reshapes = isinstance(op.input.owner, xnn.StaticReshapeOp) or all(
            isinstance(user, (xnn.StaticReshapeOp, xnn.OutputOp)) for user in users
        )
        if list(perm) == sorted(perm) or beside_reshapes:
            rewriter.replace(op, [], [Emitter(rewriter, op).reshape(op.input, shape_of(op.output))])


class FoldReshapes(RewritePattern):
    """reshape(reshape(x)) is one reshape of x, and a reshape to x's own shape is x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReshapeOp, rewriter: PatternRewriter) -> None:
        x = op.input
        if isinstance(x.owner, xnn.StaticReshapeOp):
            x = x.owner.input
        elif shape_of(x) != shape_of(op.output):
            return
        rewriter.replace(op, [], [Emitter(rewriter, op).reshape(x, shape_of(op.output))])


# --- sinking ---------------------------------------------------------------------------------


class SinkTransposeThroughReshape(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 2, 1]}       : 1x8x5 -> 1x5x8
        %r = xnn.static_reshape %t {new_shape = [1, 1, 5, 8]}
      ==>
        %u = xnn.static_reshape %x {new_shape = [1, 8, 1, 5]}
        %r = xnn.static_transpose %u {perm = [0, 2, 3, 1]}

    Does nothing when a block of dims the reshape splits or merges is not kept together and
    in order by the transpose (see `transpose_through_reshape`).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReshapeOp, rewriter: PatternRewriter) -> None:
        t = op.input.owner
        if not isinstance(t, xnn.StaticTransposeOp) or not worth_sinking(t, op):
            return
        moved = transpose_through_reshape(shape_of(t.input), ints(t.perm), shape_of(op.output))
        if moved is None:
            return
        w, perm = moved
        e = Emitter(rewriter, op)
        rewriter.replace(op, [], [_transposed(e, e.reshape(t.input, w), perm)])


ELEMENTWISE = xnn.UnaryOp | xnn.ClampOp | xnn.ConvertOp | xnn.CopyOp


@dataclass(frozen=True)
class SinkThroughElementwise(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 3, 1, 2]}
        %y = xnn.unary elu %t           (unary, clamp, convert, copy)
      ==>
        %u = xnn.unary elu %x
        %y = xnn.static_transpose %u {perm = [0, 3, 1, 2]}
    and the same for a reshape (unless `reshapes` is off). Not a convert to qd8: its
    parameters belong to rows of the innermost dim, which a layout change regroups.
    """

    reshapes: bool = True

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ELEMENTWISE, rewriter: PatternRewriter) -> None:
        if is_dynamic(op.output.type):
            return
        layout = layout_of(op.input, self.reshapes)
        if layout is None or not worth_sinking(layout.op, op):
            return
        e = Emitter(rewriter, op)
        x = layout.source(e)
        y = e.node(type(op), x, shape=layout.shape, elem=element_type(op.output), **op.properties)
        rewriter.replace(op, [], [layout.redo(e, y, shape_of(op.output))])


@dataclass(frozen=True)
class SinkThroughBinary(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 3, 1, 2]}     : 1x8x8x16 -> 1x16x8x8
        %y = xnn.binary multiply %t, %s : (1x16x8x8, 16x1x1)
      ==>
        %u = xnn.binary multiply %x, %s' : (1x8x8x16, 16)
        %y = xnn.static_transpose %u {perm = [0, 3, 1, 2]}

    The full-size operand is the transposed (or reshaped) one; the other one, `%s`, becomes:
    - itself when it has a single element (it takes no part in the decision);
    - the source of the same layout change when both operands have it (hoisted);
    - a constant permuted (reshaped) at compile time;
    - a broadcast operand (shape other than the result's) reshaped, when that carries it:
      its non-unit dims keep their order under the transpose, or each block the reshape
      splits or merges is broadcast whole or not at all.
    Does nothing otherwise, e.g. for two full-size operands of which only one is transposed.
    """

    reshapes: bool = True

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.BinaryOp, rewriter: PatternRewriter) -> None:
        out = shape_of(op.output)
        for a, b in ((op.input1, op.input2), (op.input2, op.input1)):
            layout = layout_of(a, self.reshapes)
            if layout is None or shape_of(a) != out or not worth_sinking(layout.op, op):
                continue
            e = Emitter(rewriter, op)
            other = self._other(layout, b, out, e)
            if other is None:
                continue
            x = layout.source(e)
            ins = (x, other) if a is op.input1 else (other, x)
            y = e.node(xnn.BinaryOp, *ins, shape=layout.shape, elem=element_type(op.output),
                       **op.properties)  # fmt: skip
            rewriter.replace(op, [], [layout.redo(e, y, out)])
            return

    @staticmethod
    def _other(layout: Layout, b: SSAValue, out: Shape, e: Emitter) -> SSAValue | None:
        """`b` as the other operand against the layout's source, or None."""
        x = layout.shape
        if all(d == 1 for d in shape_of(b)):  # one element (a symbolic dim is never 1)
            return b if len(shape_of(b)) <= len(x) else None
        same = layout_of(b)
        if same is not None and type(same.op) is type(layout.op) and shape_of(b) == out:
            if layout.perm is None:
                return e.reshape(same.source(e), x)
            return same.source(e) if same.perm == layout.perm else None
        aligned = (1,) * (len(out) - len(shape_of(b))) + shape_of(b)
        if layout.perm is not None:
            back = inverse(layout.perm)
            shape = broadcast_through_transpose(shape_of(b), layout.perm)
            moves_data = not is_reshape(aligned, back)
        else:
            back, moves_data = None, False
            shape = broadcast_through_reshape(shape_of(b), x, out)
            if shape is None:
                return None
        broadcast = shape_of(b) != out
        if broadcast:
            shape = strip_leading_units(shape)
        tensor = constant_tensor(b)
        if tensor is not None:
            tensor = tensor.reshape(aligned)
            if back is not None:
                tensor = tensor.permute(back)
            return _constant(e, b, tensor.reshape(shape), "layout")
        if not broadcast or moves_data:
            return None
        return e.reshape(b, shape)


@dataclass(frozen=True)
class SinkThroughPad(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 2, 1]}
        %p = xnn.static_constant_pad %t {pre_paddings = [0, 2, 0], post_paddings = [0, 1, 0]}
      ==>
        %q = xnn.static_constant_pad %x {pre_paddings = [0, 0, 2], post_paddings = [0, 0, 1]}
        %p = xnn.static_transpose %q {perm = [0, 2, 1]}

    Through a reshape only when each padded dim is one dim of the reshape's input too.
    """

    reshapes: bool = True

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticConstantPadOp, rewriter: PatternRewriter) -> None:
        zeros = [0] * len(shape_of(op.input))
        for layout in layouts_of(op.input, self.reshapes):
            if not worth_sinking(layout.op, op):
                return
            fill = [0] * len(layout.shape)
            pre = _in_source(layout, ints(op.pre_paddings), zeros, fill)
            post = _in_source(layout, ints(op.post_paddings), zeros, fill)
            if pre is None or post is None:
                continue
            shape = [d + a + b for d, a, b in zip(layout.shape, pre, post, strict=True)]
            e = Emitter(rewriter, op)
            params = {**op.properties, "pre_paddings": pre, "post_paddings": post}
            y = e.node(xnn.StaticConstantPadOp, layout.source(e), shape=shape,
                       elem=element_type(op.output), **params)  # fmt: skip
            rewriter.replace(op, [], [layout.redo(e, y, shape_of(op.output))])
            return


@dataclass(frozen=True)
class SinkThroughSlice(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 2, 1]}          : 1x8x5 -> 1x5x8
        %s = xnn.static_slice %t {offsets = [0, 1, 0], sizes = [1, 3, 8]}
      ==>
        %u = xnn.static_slice %x {offsets = [0, 0, 1], sizes = [1, 8, 3]}
        %s = xnn.static_transpose %u {perm = [0, 2, 1]}

    Through a reshape only when each sliced dim is one dim of the reshape's input too.
    """

    reshapes: bool = True

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticSliceOp, rewriter: PatternRewriter) -> None:
        whole = shape_of(op.input)
        for layout in layouts_of(op.input, self.reshapes):
            if not worth_sinking(layout.op, op):
                return
            x = layout.shape
            offsets = _in_source(layout, ints(op.offsets), [0] * len(whole), [0] * len(x))
            sizes = _in_source(layout, ints(op.sizes), whole_sizes(whole), whole_sizes(x))
            if offsets is None or sizes is None:
                continue
            e = Emitter(rewriter, op)
            params = {**op.properties, "offsets": offsets, "sizes": sizes}
            y = e.node(xnn.StaticSliceOp, layout.source(e), shape=sliced_shape(x, offsets, sizes),
                       elem=element_type(op.output), **params)  # fmt: skip
            rewriter.replace(op, [], [layout.redo(e, y, shape_of(op.output))])
            return


class SinkTransposeThroughConcatenate(RewritePattern):
    """
        %a = xnn.static_transpose %x {perm = [0, 3, 1, 2]}
        %b = xnn.static_transpose %y {perm = [0, 3, 1, 2]}
        %c = xnn.concatenate %a, %b {axis = 1}
      ==>
        %d = xnn.concatenate %x, %y {axis = 3}
        %c = xnn.static_transpose %d {perm = [0, 3, 1, 2]}

    Constant inputs are permuted at compile time. Does nothing unless every other input is
    transposed by the same perm.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.ConcatenateOp, rewriter: PatternRewriter) -> None:
        layouts = [layout_of(v, reshapes=False) for v in op.inputs]
        perms = {layout.perm for layout in layouts if layout is not None}
        if len(perms) != 1 or not all(worth_sinking(lay.op, op) for lay in layouts if lay):
            return
        (perm,) = perms
        pairs = list(zip(op.inputs, layouts, strict=True))
        constants = [constant_tensor(v) if lay is None else None for v, lay in pairs]
        if any(lay is None and t is None for (_, lay), t in zip(pairs, constants, strict=True)):
            return
        e = Emitter(rewriter, op)
        back = inverse(perm)
        inputs = [
            lay.source(e) if lay is not None else _constant(e, v, t.permute(back), "layout")
            for v, lay, t in zip(op.inputs, layouts, constants, strict=True)
        ]
        out = shape_of(op.output)
        axis = perm[normalize_dim(op.axis.value.data, len(out))]
        y = e.node(xnn.ConcatenateOp, inputs, shape=permuted(out, back),
                   elem=element_type(op.output), **{**op.properties, "axis": axis})  # fmt: skip
        rewriter.replace(op, [], [e.transpose(y, perm)])


class SinkTransposeThroughReduce(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 3, 1, 2]}      : 1x4x4x8 -> 1x8x4x4
        %m = xnn.static_reduce mean %t {axes = [2, 3]}          : -> 1x8
      ==>
        %m = xnn.static_reduce mean %x {axes = [1, 2]}

    The reduced axes are permuted; the kept dims keep the transpose (of the kept dims only
    without XNN_FLAG_KEEP_DIMS), none when it is the identity, as here.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticReduceOp, rewriter: PatternRewriter) -> None:
        layout = layout_of(op.input, reshapes=False)
        if layout is None or not worth_sinking(layout.op, op):
            return
        perm, x = layout.perm, layout.shape
        axes = {normalize_dim(a, len(x)) for a in ints(op.axes)}
        reduced = sorted(perm[a] for a in axes)
        if op.has_flag(xnn.FLAG_KEEP_DIMS):
            shape, rest = [1 if i in reduced else d for i, d in enumerate(x)], perm
        else:
            kept = [i for i in range(len(x)) if i not in reduced]
            shape = [x[i] for i in kept]
            rest = tuple(kept.index(perm[j]) for j in range(len(x)) if j not in axes)
        e = Emitter(rewriter, op)
        y = e.node(xnn.StaticReduceOp, layout.source(e), shape=shape, elem=element_type(op.output),
                   **{**op.properties, "axes": reduced})  # fmt: skip
        rewriter.replace(op, [], [_transposed(e, y, rest)])


class SinkTransposeThroughBroadcast(RewritePattern):
    """
        %t = xnn.static_transpose %x {perm = [0, 3, 1, 2]}      : 1x4x4x1 -> 1x1x4x4
        %b = xnn.static_broadcast %t {new_shape = [1, 8, 4, 4]}
      ==>
        %c = xnn.static_broadcast %x {new_shape = [1, 4, 4, 8]}
        %b = xnn.static_transpose %c {perm = [0, 3, 1, 2]}

    Does nothing when the broadcast adds dims (conversion gives it equal ranks).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xnn.StaticBroadcastOp, rewriter: PatternRewriter) -> None:
        layout = layout_of(op.input, reshapes=False)
        if layout is None or len(shape_of(op.input)) != len(shape_of(op.output)):
            return
        if not worth_sinking(layout.op, op):
            return
        back = inverse(layout.perm)
        e = Emitter(rewriter, op)
        params = {**op.properties, "new_shape": permuted(ints(op.new_shape), back)}
        shape = permuted(shape_of(op.output), back)
        y = e.node(xnn.StaticBroadcastOp, layout.source(e), shape=shape,
                   elem=element_type(op.output), **params)  # fmt: skip
        rewriter.replace(op, [], [e.transpose(y, layout.perm)])


# --- registration ----------------------------------------------------------------------------


def layout_patterns(reshapes: bool = True) -> dict[type[Operation], tuple[RewritePattern, ...]]:
    """The patterns, by the op each matches."""
    elementwise = (SinkThroughElementwise(reshapes),)
    reshape = (FoldReshapes(), SinkTransposeThroughReshape()) if reshapes else (FoldReshapes(),)
    return {
        xnn.StaticTransposeOp: (ComposeTransposes(), TransposeAsReshape()),
        xnn.StaticReshapeOp: reshape,
        xnn.UnaryOp: elementwise,
        xnn.ClampOp: elementwise,
        xnn.ConvertOp: elementwise,
        xnn.CopyOp: elementwise,
        xnn.BinaryOp: (SinkThroughBinary(reshapes),),
        xnn.StaticConstantPadOp: (SinkThroughPad(reshapes),),
        xnn.StaticSliceOp: (SinkThroughSlice(reshapes),),
        xnn.ConcatenateOp: (SinkTransposeThroughConcatenate(),),
        xnn.StaticReduceOp: (SinkTransposeThroughReduce(),),
        xnn.StaticBroadcastOp: (SinkTransposeThroughBroadcast(),),
    }


CANONICALIZATION = layout_patterns()


@dataclass(frozen=True)
class LayoutPass(ModulePass):
    """Sink NCHW <-> NHWC transposes through layout-agnostic ops and cancel them in pairs, so
    they remain only where a subgraph's inputs and outputs need PyTorch's layout.

    reshapes: push reshapes too, and transposes below them (1-D convolutions need it);
    false stops transposes at reshapes."""

    name = "xnn-layout"
    reshapes: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        by_op = layout_patterns(self.reshapes).values()
        patterns = list(dict.fromkeys(p for group in by_op for p in group))
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)


def _same_numel(src: tuple, dst: tuple) -> bool:
    try:
        return same_numel(src, dst)
    except NotAffine:
        return False  # depends on the size: not a reshape the pattern may move
