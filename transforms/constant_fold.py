"""`fold-constants`: aten ops whose operands are all constants, computed at compile time.

    %a = aten.constant #xnnc.weight<"alpha"> : tensor<1x8x1xf32>
    %s = aten.add %a {scalar = 1.0e-09 : f64} : ...   ==>   %r = aten.constant
    %r = aten.reciprocal %s : ...                             #xnnc.weight<"m.reciprocal.folded">

Each op is computed by the reference interpreter (`interpreter/aten.py`: the op's ATen
overload on torch), so no op needs code of its own. Its results become new weights named
after the op's location (`<loc>.folded`, else its result's name), and the op, with any
constant only it used, is erased. Ops without tensor operands (`aten::full`, `aten::zeros`,
`aten::arange`, ...) fold as well, and folding repeats until nothing more folds.

Does nothing to an op when:
- an operand is not an `aten.constant` with data: a function argument, or a weight without
  bytes (a FakeTensor import, or text parsed without --weights);
- it is not known to be free of side effects and deterministic: ops other than the `Pure`
  aten ops and `aten.generic`; generic overloads that mutate, return nothing, are tagged
  `nondeterministic_seeded` (rand, randn, dropout, bernoulli, ...) or return uninitialized
  memory (`empty*`);
- a result is not a tensor of a dtype xnnc models, or its results together exceed
  `max-bytes` (64 MiB by default): a small constant broadcast or expanded to a large shape
  stays an op instead of becoming a large weight;
- the interpreter cannot compute it, or computes a tensor of another shape or dtype than
  the result type says: the op then runs, as before, where the model runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, NameLoc, TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import Pure

from xnnc.backend_xnnpack.shapes import numel
from xnnc.dialects import aten
from xnnc.dialects.types import element_nbytes
from xnnc.dialects.weights import Blob, WeightAttr
from xnnc.interpreter.aten import op_interpreter
from xnnc.ir.constants import aten_constant, constant_op, constant_tensor
from xnnc.ir.dtypes import TORCH_DTYPES, torch_dtype
from xnnc.ir.schema import torch_overload

MAX_BYTES = 64 * 2**20
_FOLDABLE = tuple(cls for cls in aten.ATEN_OPS if cls is not aten.ConstantOp)


def result_nbytes(op: Operation) -> int | None:
    """Bytes of all of `op`'s results, or None when one is not a tensor xnnc can hold."""
    total = 0
    for r in op.results:
        t = r.type
        if not isinstance(t, TensorType) or t.element_type not in TORCH_DTYPES:
            return None
        total += numel(t.get_shape()) * element_nbytes(t.element_type)
    return total


@cache
def is_functional_overload(qualified: str) -> bool:
    """Whether an ATen overload computes its results from its arguments alone."""
    try:
        overload = torch_overload(qualified)
    except (AttributeError, RuntimeError, ValueError):
        return False
    schema = overload._schema
    name = schema.name.split("::")[-1]
    return (
        not schema.is_mutable
        and bool(schema.returns)
        and torch.Tag.nondeterministic_seeded not in overload.tags
        and not name.startswith(("empty", "new_empty"))
    )


def is_deterministic(op: Operation) -> bool:
    """Whether `op` is an aten op free of side effects whose results depend on its
    operands and properties alone."""
    if isinstance(op, aten.GenericOp):
        return is_functional_overload(op.target.data)
    return isinstance(op, _FOLDABLE) and op.has_trait(Pure)


def fold(
    interpreter: Interpreter, op: Operation, operands: Sequence[torch.Tensor]
) -> tuple[torch.Tensor, ...] | None:
    """`op`'s results computed on `operands` by the reference interpreter, or None when it
    cannot compute them or they do not have the result types."""
    try:
        with torch.no_grad():
            values = tuple(interpreter.run_op(op, tuple(operands)))
    except Exception:  # whatever the failure, the op still runs where the model runs
        return None
    for value, r in zip(values, op.results, strict=True):
        t = r.type
        assert isinstance(t, TensorType)
        if (
            not isinstance(value, torch.Tensor)
            or tuple(value.shape) != tuple(t.get_shape())
            or value.dtype != TORCH_DTYPES[t.element_type]
        ):
            return None
    return values


def _has_data(value: SSAValue) -> bool:
    """Whether `value` is a constant whose bytes are known."""
    op = constant_op(value)
    if op is None:
        return False
    attr = op.properties["value"]
    return not isinstance(attr, WeightAttr) or attr.data.has_data


def _location_name(loc: Attribute) -> str | None:
    """`loc("model.1.0"("reciprocal"))` -> "model.1.0.reciprocal"."""
    parts = []
    while isinstance(loc, NameLoc):
        parts.append(loc.desc.data)
        loc = loc.location
    return ".".join(p for p in parts if p) or None


class FoldConstantOp(RewritePattern):
    """Replace an op whose operands are all constants by constants holding its results."""

    def __init__(
        self, interpreter: Interpreter, max_bytes: int, names: set[str], shapes_only: bool,
        dequantize: bool = False,
    ):  # fmt: skip
        self.interpreter = interpreter
        self.max_bytes = max_bytes
        self.names = names  # weight names in use, so new ones stay unique (`Program.save`)
        self.shapes_only = shapes_only
        self.dequantize = dequantize

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _FOLDABLE) or not op.results:
            return
        if isinstance(op, aten.DequantizeOp) and not self.dequantize:
            return
        size = result_nbytes(op)
        if size is None or size > self.max_bytes or not is_deterministic(op):
            return
        # Check every operand before reading any: reading copies a read-only weight.
        with_data = all(_has_data(v) for v in op.operands)
        if not with_data and not (self.shapes_only and all(map(constant_op, op.operands))):
            return
        if not any(r.uses for r in op.results):
            rewriter.erase(op)
            return
        operands = [constant_tensor(v) if with_data else _meta(v) for v in op.operands]
        values = fold(self.interpreter, op, operands)
        if values is None:
            return
        base = _location_name(op.location) or op.results[0].name_hint or op.name.split(".")[-1]
        new_ops: list[Operation] = []
        new_results = []
        for i, (value, r) in enumerate(zip(values, op.results)):
            if not r.uses:
                new_results.append(None)
                continue
            name = self._unique(f"{base}.folded" + (f".{i}" if len(values) > 1 else ""))
            const = aten_constant(value, name) if with_data else _shape_constant(r, name)
            const.location = op.location
            const.result.name_hint = r.name_hint
            new_ops.append(const)
            new_results.append(const.result)
        rewriter.replace(op, new_ops, new_results)

    def _unique(self, name: str) -> str:
        candidate, n = name, 1
        while candidate in self.names:
            candidate, n = f"{name}.{n}", n + 1
        self.names.add(candidate)
        return candidate


def _meta(value: SSAValue) -> torch.Tensor:
    """A tensor of `value`'s type without data (a quantized type's: of its storage type):
    torch computes result shapes on it."""
    t = value.type
    assert isinstance(t, TensorType)
    return torch.empty(t.get_shape(), dtype=torch_dtype(t.element_type), device="meta")


def _shape_constant(result: SSAValue, name: str) -> aten.ConstantOp:
    """An `aten.constant` of `result`'s type known by shape only (no bytes)."""
    return aten.ConstantOp(WeightAttr(Blob(name)), result.type)


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Compute aten ops whose operands are all constants; `max-bytes` bounds the bytes of
    one op's results. shapes-only: also fold ops on weights without data (a partitioner's
    fake-tensor program) into constants known by shape only, where the op folds on meta
    tensors: what folding will make of them once the data is there. dequantize: also fold
    a dequantized weight into a float one (by default it stays int8, by reference, its
    scheme visible to the ops and the reasons that read it)."""

    name = "fold-constants"
    option_ranges: ClassVar = {"max_bytes": (0, math.inf)}
    max_bytes: int = MAX_BYTES
    shapes_only: bool = False
    dequantize: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        interpreter = op_interpreter(op)
        names = {
            value.data.name
            for inner in op.walk()
            if isinstance(value := inner.properties.get("value"), WeightAttr)
        }
        pattern = FoldConstantOp(
            interpreter, self.max_bytes, names, self.shapes_only, self.dequantize
        )
        PatternRewriteWalker(GreedyRewritePatternApplier([pattern])).rewrite_module(op)
