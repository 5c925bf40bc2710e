"""`xnn-partition`: group the `aten` ops XNNPACK can run into `xnn.subgraph` regions.

    %a = aten.convolution %x, %w ...       %s:2 = xnn.subgraph(%x) ({
    %b = aten.elu %a               ==>        ^bb0(%in): %w = aten.constant ...
    %c = aten.cumsum %b ...                   %a = aten.convolution %in, %w ... ; %b = aten.elu %a
                                              xnn.output %b })
                                           %c = aten.generic "aten::cumsum"(%s) ...

Regions are maximal, cycle-free and deterministic: ops are visited in program order and an
op joins the regions of its supported producers (then sibling regions merge) whenever the
merge leaves no path that leaves the region and comes back. Constants used inside a region
are cloned into it (regions are isolated from above). What stays outside: ops conversion
cannot lower (generic ops, integer math, replication pads, ...) and the `exclude` list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from xnnc.conversion.dynamic_quant_to_xnn import uses_dynamic
from xnnc.conversion.lstm import excluded_steps, is_kept_lstm
from xnnc.dialects import aten, xnn
from xnnc.dialects.dynamic_quant import is_dynamic
from xnnc.dialects.locations import is_file_line_col, op_label, where
from xnnc.errors import OptionError, XnncError

Supported = Callable[[Operation], str | None]


class PartitionError(XnncError):
    """`xnn-partition{strict=true}` left ops outside."""


def _is_constant(op: Operation) -> bool:
    return isinstance(op, aten.ConstantOp)


def find_partitions(block: Block, supported: Supported) -> list[list[Operation]]:
    """Maximal cycle-free groups of supported ops, each in program order."""
    ops = [op for op in block.ops if not _is_constant(op) and op is not block.last_op]
    index = {op: i for i, op in enumerate(ops)}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(ops)))
    for op in ops:
        for operand in op.operands:
            producer = operand.owner
            if isinstance(producer, Operation) and producer in index:
                graph.add_edge(index[producer], index[op])
    ok = [supported(op) is None for op in ops]

    # Union-find over op indices; `group_of` maps a root to its members.
    parent = list(range(len(ops)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    members: dict[int, set[int]] = {i: {i} for i in range(len(ops)) if ok[i]}

    def creates_cycle(a: set[int], b: set[int]) -> bool:
        """Would merging a and b put a path a -> outside -> b (or b -> ... -> a)?"""
        for src, dst in ((a, b), (b, a)):
            limit = max(dst)
            stack = [s for n in src for s in graph.successors(n) if s not in src and s not in dst]
            seen: set[int] = set()
            while stack:
                n = stack.pop()
                if n in seen or n > limit:  # program order is topological: prune past dst
                    continue
                seen.add(n)
                for s in graph.successors(n):
                    if s in dst:
                        return True
                    if s not in src:
                        stack.append(s)
        return False

    def try_merge(i: int, j: int) -> None:
        ri, rj = root(i), root(j)
        if ri == rj or creates_cycle(members[ri], members[rj]):
            return
        keep, gone = min(ri, rj), max(ri, rj)
        parent[gone] = keep
        members[keep] |= members.pop(gone)

    for i in range(len(ops)):
        if not ok[i]:
            continue
        for p in sorted(graph.predecessors(i)):
            if ok[p]:
                try_merge(p, i)
    # Siblings (regions with no edge between them) merge too, oldest first.
    changed = True
    while changed:
        changed = False
        roots = sorted(members)
        for x, rx in enumerate(roots):
            for ry in roots[x + 1 :]:
                if rx in members and ry in members and root(rx) != root(ry):
                    before = len(members)
                    try_merge(rx, ry)
                    changed |= len(members) != before
    return [[ops[i] for i in sorted(group)] for _, group in sorted(members.items())]


def outline(block: Block, group: list[Operation]) -> xnn.SubgraphOp:
    """Move `group` into a new `xnn.subgraph` placed at its last op; returns it."""
    inside = set(group)
    inputs: list[SSAValue] = []
    constants: list[Operation] = []
    for op in group:
        for operand in op.operands:
            producer = operand.owner
            if isinstance(producer, Operation) and producer in inside:
                continue
            if isinstance(producer, Operation) and _is_constant(producer):
                if producer not in constants:
                    constants.append(producer)
            elif operand not in inputs:
                inputs.append(operand)
    outputs = [
        r for op in group for r in op.results
        if any(use.operation not in inside for use in r.uses)
    ]  # fmt: skip
    sub = xnn.SubgraphOp(inputs, [r.type for r in outputs])
    body = sub.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for arg, value in zip(body.args, inputs):
        arg.name_hint = value.name_hint
    for c in constants:
        clone = c.clone()
        body.add_op(clone)
        mapping[c.results[0]] = clone.results[0]
    block.insert_op_after(sub, group[-1])
    for op in group:
        op.detach()
        for i, operand in enumerate(op.operands):
            if operand in mapping:
                op.operands[i] = mapping[operand]
        body.add_op(op)
    body.add_op(xnn.OutputOp(*outputs))
    for new, old in zip(sub.outputs, outputs):
        new.name_hint = old.name_hint
        old.replace_uses_with_if(new, lambda use: use.operation.parent_block() is not body)
    for c in constants:
        if not c.results[0].uses:
            c.detach()
            c.erase()
            # An erased op lives on in reference cycles until the garbage collector runs,
            # and would keep its weight (a folded filter) beside conversion's copy of it.
            c.properties.clear()
    return sub


def schedule(block: Block) -> None:
    """Reorder the block topologically (stable by position) so every use follows its def."""
    ops = list(block.ops)
    terminator = ops.pop()
    index = {op: i for i, op in enumerate(ops)}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(ops)))
    for op in ops:
        for operand in op.operands:
            if isinstance(operand.owner, Operation) and operand.owner in index:
                graph.add_edge(index[operand.owner], index[op])
    order = list(nx.lexicographical_topological_sort(graph))
    for op in ops:
        op.detach()
    for i in order:
        block.insert_op_before(ops[i], terminator)


def partition_func(func: FuncOp, supported: Supported) -> list[xnn.SubgraphOp]:
    block = func.body.block
    subgraphs = [outline(block, group) for group in find_partitions(block, supported)]
    schedule(block)
    return subgraphs


def check_exclude(names: tuple[str, ...]) -> None:
    """OptionError listing the valid names unless each of `names` is an op conversion lowers
    (excluding any other op would do nothing: most likely a typo)."""
    from xnnc.conversion.aten_to_xnn import lowered_ops

    valid = {op.name for op in lowered_ops()}
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise OptionError(
            f"exclude: unknown op {', '.join(map(repr, unknown))}; valid: "
            + ", ".join(sorted(valid))
        )


@dataclass(frozen=True)
class PartitionPass(ModulePass):
    """Group the ops conversion can lower into `xnn.subgraph` regions.

    exclude: op names kept outside (`exclude="aten.elu","aten.add"`).
    strict: fail, listing the ops left outside, unless everything is delegated.
    """

    name = "xnn-partition"
    exclude: tuple[str, ...] = ()
    strict: bool = False

    def __post_init__(self) -> None:
        check_exclude(self.exclude)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xnnc.conversion.aten_to_xnn import convertible

        def supported(o: Operation) -> str | None:
            return excluded(o, self.exclude) or convertible(o)

        outside: list[str] = []
        # A declaration (no body) has nothing to partition.
        for func in [f for f in op.walk() if isinstance(f, FuncOp) and not f.is_declaration]:
            partition_func(func, supported)
            outside += [f"{_describe(o)} ({why})" for o, why in left_outside(func, self.exclude)]
        if self.strict and outside:
            raise PartitionError(
                f"{len(outside)} ops stayed outside XNNPACK: " + "; ".join(outside)
            )


def left_outside(func: FuncOp, exclude: tuple[str, ...] = ()) -> list[tuple[Operation, str]]:
    """The ops of a partitioned function left outside its subgraphs, each with the reason:
    "excluded", what conversion says it cannot lower, or "cut off" (lowerable, but its
    group was not delegated)."""
    from xnnc.conversion.aten_to_xnn import convertible

    block = func.body.block
    left = []
    for o in block.ops:
        if isinstance(o, (xnn.SubgraphOp, aten.ConstantOp)) or o is block.last_op:
            continue
        left.append((o, excluded(o, exclude) or convertible(o) or "cut off"))
    return left


def excluded(op: Operation, exclude: tuple[str, ...]) -> str | None:
    """Why `exclude` keeps `op` outside (None: it does not): its name; for an LSTM kept
    whole, an op its steps compute; for a dynamic quantize or an op reading its qd8 value,
    the other one (XNNPACK passes no qd8 tensor into or out of a subgraph)."""
    if op.name in exclude:
        return "excluded"
    if exclude and uses_dynamic(op):
        partners = [v.owner for v in op.operands if is_dynamic(v.type)]
        partners += [u.operation for r in op.results if is_dynamic(r.type) for u in r.uses]
        named = sorted({p.name for p in partners if isinstance(p, Operation)} & set(exclude))
        if named:
            return (
                f"{', '.join(named)} is excluded, and XNNPACK passes no qd8 tensor into or "
                "out of a subgraph"
            )
    return excluded_steps(exclude) if is_kept_lstm(op) else None


def _describe(op: Operation) -> str:
    """`where`, naming the op after a file:line:col too (the list holds several)."""
    at = where(op)
    return f"{at}: {op_label(op)}" if is_file_line_col(at) else at


@dataclass(frozen=True)
class OutlinePiecePass(ModulePass):
    """The whole function as one `xnn.subgraph`: in `preprocess`, a piece is one group of
    `XnncPartitioner`'s partition, so it is compiled as that group, not partitioned again
    (an op conversion cannot lower then fails in convert-aten-to-xnn, naming the op)."""

    name = "xnn-outline-piece"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            block = func.body.block
            group = [o for o in block.ops if not isinstance(o, aten.ConstantOp)][:-1]
            if group:
                outline(block, group)
                schedule(block)
