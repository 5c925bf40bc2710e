"""`index-as-slices`: `aten::index.Tensor` that indexes one dim with a constant 1-D index
becomes `aten.slice`s of the index's runs of consecutive positions joined by `aten.cat`.

    %i = aten.constant dense<[0, 0, 1, 2, 3, 3]> : tensor<6xi64>
    %y = aten.generic "aten::index.Tensor"(%x, %i)
           {args = [#aten.operand<0>, [none, none, #aten.operand<1>]]}
  ==>
    %a = aten.slice %x {dim = 2, start = 0, end = 1}
    %b = aten.slice %x {dim = 2, start = 3, end = 4}
    %y = aten.cat %a, %x, %b {dim = 2}             (runs [0], [0..3], [3], x has 4 rows)

torch's decompositions of the padding modes it does not keep whole (replicate and reflect
padding of 3-D volumes, and the 1-D/2-D ones of programs decomposed without xnnc's
partitioner) index this way with an `arange` that `fold-constants` has folded; slices and a
concatenate are what XNNPACK can run of a gather with static indices. Does nothing when
another dim is indexed too, the index is not a 1-D integer tensor known at compile time, or
it has more than `MAX_RUNS` runs (each becomes a node).

The index may still be the `arange`/`clamp`/`abs`/`sub` chain that computes it from no
tensor at all (the pass reads no weights, so it can run where weights are not loaded yet,
as in the partitioner): the chain is computed here and the new ops' location fuses its ops'
locations with the index's, so that whoever maps ops back to FX nodes takes the chain along.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    NoneType,
    i64,
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

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.conversion.resample import runs
from xnnc.cost.decision import declined
from xnnc.dialects import aten
from xnnc.dialects.types import shape_of, tensor_type
from xnnc.interpreter.aten import op_interpreter
from xnnc.ir.constants import constant_tensor
from xnnc.ir.raising import erase_unused, fused_location
from xnnc.transforms.constant_fold import fold, is_deterministic

MAX_RUNS = 32


def _indexed_dim(op: aten.GenericOp) -> tuple[int, int] | None:
    """(dim, operand number) of the only indexed dim, the others all `None`."""
    if op.target.data != "aten::index.Tensor" or len(op.args.data) != 2:
        return None
    indices = op.args.data[1]
    if not isinstance(indices, ArrayAttr):
        return None
    # The importer writes None as NoneAttr; parsed text gives `none`, a NoneType.
    refs = [(d, a.data) for d, a in enumerate(indices.data) if isinstance(a, aten.OperandRefAttr)]
    if len(refs) != 1 or not all(
        isinstance(a, NoneAttr | NoneType | aten.OperandRefAttr) for a in indices.data
    ):
        return None
    return refs[0]


def static_value(
    value: SSAValue, interpreter: Interpreter, chain: list[Operation]
) -> torch.Tensor | None:
    """`value` when it is a constant with data or computed from such constants by
    deterministic ops alone (appended to `chain`); else None."""
    tensor = constant_tensor(value)
    if tensor is not None:
        return tensor
    op = value.owner
    if not isinstance(op, Operation) or len(op.results) != 1 or not is_deterministic(op):
        return None
    operands = [static_value(v, interpreter, chain) for v in op.operands]
    if any(t is None for t in operands):
        return None
    values = fold(interpreter, op, operands)
    if values is None:
        return None
    chain.append(op)
    return values[0]


class IndexAsSlices(RewritePattern):
    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aten.GenericOp, rewriter: PatternRewriter) -> None:
        found = _indexed_dim(op)
        if found is None or len(op.outputs) != 1 or len(op.inputs) != 2:
            return
        dim, operand = found
        chain: list[Operation] = []
        x, index = op.inputs[0], static_value(op.inputs[operand], self.interpreter, chain)
        if index is None or index.dim() != 1 or index.dtype.is_floating_point:
            return
        length = shape_of(x)[dim]
        if isinstance(length, DimExpr):
            declined(op, "index-as-slices", "constant positions along it cover it at no size")
            return
        positions = [int(i) % length for i in index.tolist()] if length else []
        pieces = runs(positions)
        if not pieces or len(pieces) > MAX_RUNS:
            return
        if pieces == [(0, length)]:  # the identity: every position once, in order
            rewriter.replace(op, [], [x])
            erase_unused(rewriter, reversed(chain))
            return
        elem, shape = x.type.element_type, list(shape_of(x))
        new, sliced = [], {}
        for start, size in pieces:
            if (start, size) in sliced or (start, size) == (0, length):
                continue
            shape[dim] = size
            s = aten.SliceOp.build(
                operands=[x],
                properties={name: IntegerAttr(v, i64) for name, v in
                            (("dim", dim), ("start", start), ("end", start + size))},
                result_types=[tensor_type(elem, shape)],
            )  # fmt: skip
            sliced[(start, size)] = s.result
            new.append(s)
        sliced[(0, length)] = x
        cat = aten.CatOp.build(
            operands=[[sliced[p] for p in pieces]],
            properties={"dim": IntegerAttr(dim, i64)},
            result_types=[op.outputs[0].type],
        )
        location = fused_location((op, *chain))
        for o in (*new, cat):
            o.location = location
        rewriter.replace(op, [*new, cat])
        erase_unused(rewriter, reversed(chain))


@dataclass(frozen=True)
class IndexAsSlicesPass(ModulePass):
    """`aten::index.Tensor` on one dim with a constant index as slices + cat."""

    name = "index-as-slices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        interpreter = op_interpreter(op)
        pattern = IndexAsSlices(interpreter)
        PatternRewriteWalker(GreedyRewritePatternApplier([pattern])).rewrite_module(op)
