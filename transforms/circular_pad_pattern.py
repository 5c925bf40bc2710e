"""`aten-recognize-circular-pad`: circular padding as torch decomposes it, raised back to
`aten._pad_circular`.

    %e = aten.generic "dim_order_ops::_empty_dim_order"() {args = [[1, 3, 10]], ...}
    %s = aten.slice %e {dim = 2, start = 1, end = 9}
    %c = aten.generic "aten::copy"(%s, %x)                   ==>  %y = aten._pad_circular %x
    %w = aten.generic "aten::slice_scatter"(%e, %c) {.., 2, 1, 9}         {pad = [1, 1]}
    ... (each end: a slice of %w copied into the other end with slice_scatter)
    %y = aten.generic "aten::slice_scatter"(...)

A program decomposed before xnnc sees it (`to_edge(...)` then `to_backend`) writes circular
padding as `empty` plus slice copies and `slice_scatter`s, none of which XNNPACK has. The
chain is a gather of one tensor x: running it on x's element numbers (and -1 for the
uninitialized `empty`) gives, per output element, the element of x it holds. The pattern
raises the chain when that map is every element defined and, per dim, circular padding of
x's dim (one dim's position never depends on another's). The new op's location fuses every
op of the chain, so `XnncPartitioner` tags all their FX nodes.

Matches at a `slice_scatter` (the walk goes last op first, so the chain's end is seen
before its parts); does nothing when the chain reads more than one tensor, has another op,
or a shape that is not static.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xnnc.dialects import aten
from xnnc.dialects.types import DYNAMIC_INDEX, element_type, shape_of
from xnnc.ir.raising import erase_unused, fused_location

_EMPTY = ("dim_order_ops::_empty_dim_order", "aten::empty.memory_format")
_UNDEFINED = -1


def _int_args(op: aten.GenericOp, first: int) -> list[int | None]:
    """The scalar arguments from `first` on (dim, start, end, step), None where not an int."""
    return [a.value.data if isinstance(a, IntegerAttr) else None for a in op.args.data[first:]]


class _Chain:
    """The gather map of a chain of empty / slice / copy / slice_scatter ops over one
    tensor, computed on element numbers."""

    def __init__(self) -> None:
        self.source: SSAValue | None = None
        self.ops: list[Operation] = []  # producers first
        self.values: dict[SSAValue, torch.Tensor] = {}

    def map_of(self, value: SSAValue) -> torch.Tensor | None:
        if value in self.values:
            return self.values[value]
        shape = shape_of(value)
        if DYNAMIC_INDEX in shape:
            return None
        out = self._compute(value, shape)
        if out is not None:
            self.values[value] = out
        return out

    def _compute(self, value: SSAValue, shape: tuple[int, ...]) -> torch.Tensor | None:
        op = value.owner
        if isinstance(op, aten.SliceOp):
            x = self.map_of(op.input)
            if x is None:
                return None
            self.ops.append(op)
            dim = op.dim.value.data if op.dim is not None else 0
            start, end, step = (a.value.data if a is not None else None
                                for a in (op.start, op.end, op.step))  # fmt: skip
            return x[(slice(None),) * (dim % x.dim()) + (slice(start, end, step),)]
        if isinstance(op, aten.GenericOp) and len(op.outputs) == 1:
            target = op.target.data
            if target in _EMPTY and not op.inputs:
                self.ops.append(op)
                return torch.full(shape, _UNDEFINED, dtype=torch.int64)
            if target == "aten::copy" and len(op.inputs) == 2:
                dst, src = (self.map_of(v) for v in op.inputs)
                if dst is None or src is None:
                    return None
                self.ops.append(op)
                return src.expand(dst.shape).clone()
            if target == "aten::slice_scatter" and len(op.inputs) == 2:
                return self._slice_scatter(op)
            if target in _EMPTY or target in ("aten::copy", "aten::slice_scatter"):
                return None
        if self.source is None or self.source == value:  # the one tensor the chain reads
            self.source = value
            return torch.arange(_numel(shape), dtype=torch.int64).view(shape)
        return None

    def _slice_scatter(self, op: aten.GenericOp) -> torch.Tensor | None:
        dst, src = (self.map_of(v) for v in op.inputs)
        args = _int_args(op, 2) + [None] * 4
        dim, start, end, step = args[0] if args[0] is not None else 0, *args[1:3], args[3] or 1
        if dst is None or src is None:
            return None
        self.ops.append(op)
        return torch.slice_scatter(dst, src, dim, start, end, step)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _per_dim(gather: torch.Tensor, source: tuple[int, ...]) -> list[list[int]] | None:
    """Per dim, the source position of each output position, when every element of
    `gather` is defined and its source position along each dim depends on that dim alone."""
    if gather.dim() != len(source) or bool((gather == _UNDEFINED).any()):
        return None
    positions = []
    stride = _numel(source)
    for d, n in enumerate(source):
        stride //= n
        coord = (gather // stride) % n
        line = coord[tuple(slice(None) if i == d else slice(0, 1) for i in range(coord.dim()))]
        if not bool((coord == line).all()):
            return None
        positions.append(line.flatten().tolist())
    return positions


def circular_padding(positions: list[int], length: int) -> tuple[int, int] | None:
    """(left, right) when `positions` is `range(length)` circularly padded by them."""
    extra = len(positions) - length
    for left in range(max(0, extra) + 1):
        if positions == [(i - left) % length for i in range(len(positions))]:
            return left, extra - left
    return None


class RecognizeCircularPad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.GenericOp, rewriter: PatternRewriter) -> None:
        if op.target.data != "aten::slice_scatter" or len(op.outputs) != 1:
            return
        chain = _Chain()
        gather = chain.map_of(op.outputs[0])
        x = chain.source
        if gather is None or x is None or element_type(x) != element_type(op.outputs[0]):
            return
        source = shape_of(x)
        per_dim = _per_dim(gather, source)
        if per_dim is None:
            return
        pads = [circular_padding(p, n) for p, n in zip(per_dim, source, strict=True)]
        padded = [d for d, p in enumerate(pads) if p is None or p != (0, 0)]
        if not padded or any(pads[d] is None for d in padded):
            return
        pad: list[int] = []
        for d in reversed(range(padded[0], len(source))):  # torch's order: the last dim first
            pad += pads[d]  # type: ignore[arg-type]
        new = aten.PadCircularOp.build(
            operands=[x],
            properties={"pad": DenseArrayBase.from_list(i64, pad)},
            result_types=[op.outputs[0].type],
        )
        new.location = fused_location(chain.ops)
        rewriter.replace(op, new)
        erase_unused(rewriter, reversed(chain.ops))


@dataclass(frozen=True)
class RecognizeCircularPadPass(ModulePass):
    """Raise circular padding's decomposition (`empty` + `slice_scatter` writes) to
    `aten._pad_circular`."""

    name = "aten-recognize-circular-pad"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([RecognizeCircularPad()]),
            apply_recursively=False,
            walk_reverse=True,
        ).rewrite_module(op)
