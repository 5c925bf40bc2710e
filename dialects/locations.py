"""How every user-facing message names an op: `op_label` (what it is) and `where` (where it
is). One rendering for the verifier, the partitioner, the cost decisions and the tools."""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc, UnknownLoc
from xdsl.ir import Operation

from xnnc.dialects import aten


def op_label(op: Operation) -> str:
    """The dialect's name (`aten.linear`), and for an op the dialect does not model its ATen
    target in the same dotted form (`aten::index.Tensor` -> `aten.index.Tensor`)."""
    if isinstance(op, aten.GenericOp):
        return op.target.data.replace("::", ".")
    return op.name


def where(op: Operation) -> str:
    """`file:line:col` for an op read from a file; else its label and its location when it
    has one (`aten.linear at loc("decoder.fc")`, from the FX node), else its label."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, UnknownLoc):
        return op_label(op)
    return f"{op_label(op)} at {loc}"


def is_file_line_col(text: str) -> bool:
    """Whether `where` gave `file:line:col` (then a tool prints `text: error: ...`)."""
    head, _, col = text.rpartition(":")
    return col.isdigit() and head.rpartition(":")[2].isdigit()
