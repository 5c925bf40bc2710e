"""Identity views: `aten.as_strided` nodes that read their input's elements in order, as the
view or slice they are.

Decompositions leave `as_strided` where a view of a view was taken (an average pool's
squeeze in a classifier head, `unflatten` after `flatten`); the `aten` dialect has no
strides, and XNNPACK no gather, so such a node would stay on torch and split the program.
On an input whose tensor is contiguous from offset 0 (the FX node's `val` says so), an
`as_strided` whose strides are the contiguous ones of its size is a `view`; one whose size
differs from the input's in one dim, with the input's strides and an offset that starts
inside it, is a `slice` of that dim; one that is both the input's size and strides is the
input. Any other stays as it is. An `as_strided` of a permuted view first gets its input in
storage order (a permute and a contiguous clone), which it reads as the model does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch.fx import Graph, Node


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return strides[::-1]


def _static(values: Sequence[object]) -> list[int] | None:
    return [int(v) for v in values] if all(isinstance(v, int) for v in values) else None


def _same_strides(size: Sequence[int], a: Sequence[int], b: Sequence[int]) -> bool:
    """Strides equal where they matter: a dim of size 1 is never stepped along."""
    return all(n == 1 or x == y for n, x, y in zip(size, a, b, strict=True))


def _slice_of(
    shape: list[int], size: list[int], stride: list[int], offset: int
) -> tuple[int, int, int] | None:
    """(dim, start, end) when `as_strided(size, stride, offset)` of a contiguous tensor of
    `shape` is one slice of it."""
    if len(size) != len(shape) or not _same_strides(size, stride, contiguous_strides(shape)):
        return None
    changed = [d for d in range(len(shape)) if size[d] != shape[d]]
    if len(changed) != 1:
        return None
    dim = changed[0]
    step = contiguous_strides(shape)[dim]
    start, rest = divmod(offset, step)
    if rest or start + size[dim] > shape[dim]:
        return None
    return dim, start, start + size[dim]


def _storage_order(graph: Graph, node: Node, x: Node, val: torch.Tensor) -> Node | None:
    """For an `as_strided` of a permuted view (`node` of `x`), x's elements in the order of
    its storage, made contiguous: `as_strided` reads storage, and a value computed in
    XNNPACK (or any op xnnc lowers) has the contiguous storage of its own shape, not the
    permuted one. None when x's strides are not a permutation of contiguous strides."""
    order = sorted(range(val.dim()), key=lambda d: -val.stride(d))
    permuted = [val.shape[d] for d in order]
    strides = [val.stride(d) for d in order]
    if val.storage_offset() != 0 or not _same_strides(
        permuted, strides, contiguous_strides(permuted)
    ):
        return None
    with graph.inserting_before(node):
        p = graph.call_function(torch.ops.aten.permute.default, (x, order))
        p.meta["val"] = val.permute(order)
        c = graph.call_function(
            torch.ops.aten.clone.default, (p,), {"memory_format": torch.contiguous_format}
        )
        c.meta["val"] = p.meta["val"].contiguous()
    node.replace_input_with(x, c)
    return c


def fold_identity_views(graph: Graph) -> int:
    """Rewrites the identity `as_strided` nodes of `graph` in place; returns how many."""
    folded = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not torch.ops.aten.as_strided.default:
            continue
        x = node.args[0]
        val = x.meta.get("val") if isinstance(x, Node) else None
        if not isinstance(val, torch.Tensor):
            continue
        if not val.is_contiguous():
            x = _storage_order(graph, node, x, val)
            if x is None:
                continue
            val = x.meta["val"]
        shape = _static(val.shape)
        size, stride = _static(node.args[1]), _static(node.args[2])
        offset = node.args[3] if len(node.args) > 3 else node.kwargs.get("storage_offset")
        offset = offset or 0
        if shape is None or size is None or stride is None or not isinstance(offset, int):
            continue
        if val.storage_offset() != 0:
            continue
        if size == shape and offset == 0 and _same_strides(size, stride, contiguous_strides(size)):
            node.replace_all_uses_with(x)
            graph.erase_node(node)
        elif (
            offset == 0
            and math.prod(size) == math.prod(shape)
            and _same_strides(size, stride, contiguous_strides(size))
        ):
            node.target, node.args, node.kwargs = torch.ops.aten.view.default, (x, size), {}
        elif (found := _slice_of(shape, size, stride, offset)) is not None:
            dim, start, end = found
            node.target, node.kwargs = torch.ops.aten.slice.Tensor, {}
            node.args = (x, dim, start, end)
        else:
            continue
        folded += 1
    return folded
