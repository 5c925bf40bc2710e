"""`aten-frames-as-conv`: cutting a signal into overlapping frames, and adding frames back
where they overlap, as convolutions with identity kernels, which XNNPACK runs.

torch.stft frames its input with `unfold`; torch.istft adds its frames back with an
`index_put` that accumulates at constant positions (frame f's sample j at f·hop + j):

    %u = aten.generic "aten::unfold"(%x) {args = [#aten.operand<0>, -1, 64, 16]}
                                           : (tensor<1x1088xf32>) -> tensor<1x65x64xf32>
  ==>
    %v = aten.view %x {size = [1, 1, 1088]}
    %c = aten.convolution %v, %eye {stride = [16], ...}   (weight [64, 1, 64]: out j reads tap j)
    %u = aten.view (aten.permute %c {dims = [0, 2, 1]}) {size = [1, 65, 64]}

    %y = aten.generic "aten::index_put"(%zeros, %i, %frames) {args = [#aten.operand<0>,
           [none, #aten.operand<1>], #aten.operand<2>, true]}
  ==>
    %y = aten.convolution (frames as [N, 64, F]), %eye {transposed = true, stride = [16]}
         (then viewed, and padded to the output's length)

Applies to an unfold of the last dim, and to an accumulating index_put that indexes the
trailing dims (the leading ones `none`) at positions known at compile time which, flattened,
are offset + f·step + j: frame after frame (torch.istft's order) or tap after tap (F.fold's,
whose values are then [taps, frames] already). The destination is added after, unless it is
zeros. Static shapes only. Other unfolds and index_puts stay as they were (on torch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ModuleOp,
    NoneAttr,
    NoneType,
)
from xdsl.interpreter import Interpreter
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
from xnnc.dialects.types import shape_of
from xnnc.interpreter.aten import op_interpreter
from xnnc.ir.aten_builder import AtenBuilder
from xnnc.ir.constants import constant_tensor
from xnnc.ir.raising import erase_unused
from xnnc.ir.schema import from_attr
from xnnc.transforms.index_as_slices import static_value


def _static(value: SSAValue) -> tuple[int, ...] | None:
    shape = shape_of(value)
    return shape if all(isinstance(d, int) for d in shape) else None  # type: ignore[return-value]


def _identity_kernel(size: int) -> torch.Tensor:
    """[size, 1, size]: channel j reads (or, transposed, writes) tap j alone."""
    return torch.eye(size).reshape(size, 1, size)


class UnfoldAsConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.GenericOp, rewriter: PatternRewriter) -> None:
        if op.target.data != "aten::unfold" or len(op.inputs) != 1:
            return
        x = op.inputs[0]
        _, dim, size, step = (from_attr(a, list(op.inputs)) for a in op.args.data)
        shape, out = _static(x), _static(op.outputs[0])
        if shape is None or out is None or dim % len(shape) != len(shape) - 1:
            return
        b = AtenBuilder(rewriter.insert, op)
        signal = b.view(x, (math.prod(shape[:-1]), 1, shape[-1]))
        frames = b.conv1d(signal, _identity_kernel(size), f"frames{size}", step, False)
        y = b.view(b.permute(frames, (0, 2, 1)), out)
        rewriter.replace(op, [], [y])


class OverlapAddAsConv(RewritePattern):
    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.GenericOp, rewriter: PatternRewriter) -> None:
        if op.target.data != "aten::index_put" or len(op.outputs) != 1:
            return
        args = op.args.data
        if len(args) != 4 or not from_attr(args[3]):
            return  # accumulate=False overwrites: not a sum of frames
        dest, values = op.inputs[0], from_attr(args[2], list(op.inputs))
        indices = args[1].data if hasattr(args[1], "data") else ()
        if not isinstance(values, SSAValue):
            return
        shape, values_shape = _static(dest), _static(values)
        if shape is None or values_shape is None or len(indices) != len(shape):
            return
        # None for the leading dims, an index on each of the others
        lead_dims = next(
            (i for i, a in enumerate(indices) if not isinstance(a, NoneAttr | NoneType)), 0
        )
        refs = indices[lead_dims:]
        if not refs or not all(isinstance(a, aten.OperandRefAttr) for a in refs):
            return
        chain: list[Operation] = []
        index = [static_value(op.inputs[a.data], self.interpreter, chain) for a in refs]
        if any(i is None or i.dtype.is_floating_point for i in index):
            return
        positions = _positions(index, shape[lead_dims:])  # type: ignore[arg-type]
        if positions is None or values_shape != (*shape[:lead_dims], *positions.shape):
            return
        length = math.prod(shape[lead_dims:])
        found = _frames_of(positions, length)
        if found is None:
            return
        offset, count, size, step, tap_major = found
        b = AtenBuilder(rewriter.insert, op)
        lead = math.prod(shape[:lead_dims])
        if tap_major:
            frames = b.view(values, (lead, size, count))
        else:
            frames = b.permute(b.view(values, (lead, count, size)), (0, 2, 1))
        # [lead, 1, (count - 1) * step + size]
        summed = b.conv1d(frames, _identity_kernel(size), f"frames{size}", step, True)
        span = shape_of(summed)[-1]
        assert isinstance(span, int)
        y = b.view(b.pad_last(summed, offset, length - offset - span), shape)
        base = constant_tensor(dest)
        if base is None or bool(base.count_nonzero()):
            y = b.binary(aten.AddOp, dest, y)
        rewriter.replace(op, [], [y])
        erase_unused(rewriter, reversed(chain))


def _positions(index: list[torch.Tensor], sizes: tuple[int, ...]) -> torch.Tensor | None:
    """The flat positions into the indexed dims (`sizes`, row-major) that the indices
    (broadcast together, negative ones from the end) name; None when one is out of range."""
    try:
        index = list(torch.broadcast_tensors(*[i.long() for i in index]))
    except RuntimeError:
        return None
    flat = torch.zeros_like(index[0])
    for i, size in zip(index, sizes, strict=True):
        if bool(((i < -size) | (i >= size)).any()):
            return None
        flat = flat * size + i % size
    return flat


def _frames_of(positions: torch.Tensor, length: int) -> tuple[int, int, int, int, bool] | None:
    """(offset, frames, size, step, tap_major) when `positions` lists offset + f·step + j
    for each frame f and each j < size: frame after frame (torch.istft), or, tap_major, tap
    after tap (F.fold); all inside [0, length). Else None."""
    flat = positions.reshape(-1)
    total = len(flat)
    for a in range(1, total + 1):
        if total % a:
            continue
        for tap_major in (False, True):
            # grid[f, j]: frame f's tap j
            if tap_major:
                size, count = a, total // a
                grid = flat.reshape(size, count).T
            else:
                count, size = total // a, a
                grid = flat.reshape(count, size)
            offset = int(grid[0, 0])
            step = int(grid[1, 0] - grid[0, 0]) if count > 1 else 1
            if step < 1:
                continue
            want = offset + torch.arange(count)[:, None] * step + torch.arange(size)[None, :]
            if torch.equal(grid, want):
                if offset < 0 or offset + (count - 1) * step + size > length:
                    return None
                return offset, count, size, step, tap_major
    return None


@dataclass(frozen=True)
class FramesAsConvPass(ModulePass):
    """`unfold` and the accumulating `index_put` of overlap-add as identity convolutions."""

    name = "aten-frames-as-conv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        interpreter = op_interpreter(op)
        patterns = [UnfoldAsConv(), OverlapAddAsConv(interpreter)]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
