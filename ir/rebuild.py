"""`rebuilt`: an op of the same class with some of its parts changed, the idiom of rewrites
that retype an op (fp16 computed in fp32, a quantized result) or move it (a broadcast sunk
below it, a clone in a block of its own)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.ir import Attribute, Operation, SSAValue


def rebuilt(
    op: Operation,
    *,
    operands: Sequence[SSAValue] | None = None,
    result_types: Sequence[Attribute] | None = None,
    properties: Mapping[str, Attribute] | None = None,
    attributes: Mapping[str, Attribute] | None = None,
) -> Operation:
    """A new, unattached op of `op`'s class at `op`'s location; each part not given is a
    copy of `op`'s (a given `properties` or `attributes` replaces the whole dictionary).
    Ops with regions or successors are not rebuilt this way."""
    assert not op.regions and not op.successors, f"{op.name} has regions or successors"
    new = type(op).create(
        operands=list(op.operands if operands is None else operands),
        result_types=[r.type for r in op.results] if result_types is None else list(result_types),
        properties=dict(op.properties if properties is None else properties),
        attributes=dict(op.attributes if attributes is None else attributes),
    )
    new.location = op.location
    return new
