"""`xnn-legalize-outputs`: each external output of a subgraph produced by a node of its own.

    xnn.subgraph(%x) { ^bb0(%a): xnn.output %a, %a }
        ==>  xnn.subgraph(%x) { ^bb0(%a): %c0 = xnn.copy %a ; %c1 = xnn.copy %a ;
                                          xnn.output %c0, %c1 }

XNNPACK defines an external output as a value some node writes: a subgraph output that is
one of its inputs (an identity model; a permute or squeeze that canonicalization removed as
a no-op) or that repeats another output cannot be defined. A copy node gives each its own
value. Runs last, for both runtimes (xnn.copy is a stock kind), after the rewrites that can
make an output an alias.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xnnc.dialects import xnn


@dataclass(frozen=True)
class LegalizeOutputsPass(ModulePass):
    """Copy subgraph outputs that are inputs or repeat an earlier output."""

    name = "xnn-legalize-outputs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for sub in [s for s in op.walk() if isinstance(s, xnn.SubgraphOp)]:
            block = sub.body.block
            terminator = block.last_op
            assert isinstance(terminator, xnn.OutputOp)
            seen: set = set()
            for j, out in enumerate(list(terminator.outputs)):
                if out in block.args or out in seen:
                    copy = xnn.CopyOp.make(out, result_type=out.type)
                    copy.location = terminator.location
                    block.insert_op_before(copy, terminator)
                    terminator.operands[j] = copy.results[0]
                seen.add(out)
