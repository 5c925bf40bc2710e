"""Per-call overhead of `XnnRuntime.run` over XNNPACK itself.

    python -m xnnc.benchmarks.runtime_overhead

Four loops on a tiny graph (a [1, 8] + [1, 8] add, so XNNPACK's own work is negligible):
`run(a, b)` (input checks, fresh output tensors, pointer patching, setup when a pointer
changed, invoke), the same on a runtime of symbolic dims ([1, N], N in 1..64, called at
N = 8: the range check and reshape skipped at a repeated size), a raw ctypes loop calling
only `xnn_invoke_runtime`, and `program(a, b)` for the same add compiled by `xnnc.compile`
(a plan of one step: the runtime called directly). Each loop keeps its last result until
the next call's is made, as a caller's loop does (so each call sets up its new output).
Target: run <= raw + 20 us. The loops alternate and each reports its fastest repeat, the
estimate least disturbed by other processes.

Then a program of several pieces (two subgraphs, a relu left to torch between them, on
[1, 8]): its call against the sum of its pieces called alone (two `run`s and the relu), run
by the plan and, side by side, by xDSL's interpreter (the path before the plan, reached here
only by giving the program a reason to take it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch

from xnnc.backend_xnnpack.blob import pack_blob
from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.runtime import XnnRuntime
from xnnc.backend_xnnpack.schema import xnnc_generated as fb

CALLS, REPEATS = 2_000, 50


def add_blob(n: int = 8) -> bytes:
    """external inputs 0, 1 and output 2, all fp32 [1, n]: y = a + b."""
    values = []
    for vid, flags in enumerate([1, 1, 2]):
        t = fb.XNNTensorValueT()
        t.datatype, t.numDims, t.dims = fb.XNNDatatype.fp32, 2, [1, n]
        t.externalId, t.flags, t.idOut = vid, flags, vid
        v = fb.XValueT()
        v.xvalueUnionType, v.xvalueUnion = fb.ValueUnion.XNNTensorValue, t
        values.append(v)
    add = fb.XNNNode2x1T()
    add.input1Id, add.input2Id, add.outputId = 0, 1, 2
    node = fb.XNodeT()
    node.xnodeUnionType, node.xnodeUnion = fb.NodeUnion.XNNAdd, add
    graph = fb.XNNGraphT()
    graph.version, graph.xvalues, graph.xnodes, graph.numExterns = "bench", values, [node], 3
    return pack_blob(graph, [])


def per_call_us(loop, calls: int = CALLS) -> float:
    start = time.perf_counter()
    loop(calls)
    return (time.perf_counter() - start) / calls * 1e6


def keeping(f: Callable[..., Any], *args: Any) -> Callable[[int], None]:
    """A loop of `calls` calls of `f(*args)`, each result kept until the next call has made
    its own, as a caller's loop keeps it (so each call's outputs are new memory)."""

    def loop(calls: int) -> None:
        last = [None]
        for _ in range(calls):
            last[0] = f(*args)

    return loop


def main() -> None:
    rt = XnnRuntime(add_blob())
    n = DimExpr.symbol("N")
    symbolic = XnnRuntime(add_blob(64), input_dims=[(1, n), (1, n)], symbols={"N": (1, 64)})
    a, b = torch.randn(1, 8), torch.randn(1, 8)

    run, run_symbolic = keeping(rt.run, a, b), keeping(symbolic.run, a, b)
    invoke, handle = rt._lib.invoke_runtime, rt._runtime

    def raw(calls: int) -> None:
        for _ in range(calls):
            invoke(handle)

    import xnnc

    class Add(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return x + y

    program = xnnc.compile(Add().eval(), (a, b))

    call = keeping(program, a, b)
    run(1000)
    run_symbolic(1000)
    call(1000)
    run_times, symbolic_times, raw_times, program_times = [], [], [], []
    for _ in range(REPEATS):
        run_times.append(per_call_us(run))
        symbolic_times.append(per_call_us(run_symbolic))
        # XNNPACK writes where the last run's outputs are: keep them alive for the raw loop.
        outputs = rt.run(a, b)
        raw_times.append(per_call_us(raw))
        assert torch.equal(outputs[0], a + b)
        program_times.append(per_call_us(call))
    run_us, raw_us = min(run_times), min(raw_times)
    print(f"XnnRuntime.run        {run_us:7.2f} us/call")
    print(f"raw xnn_invoke_runtime {raw_us:7.2f} us/call")
    print(f"overhead              {run_us - raw_us:7.2f} us/call (target <= 20)")
    print(f"XnnRuntime.run, [1, N] {min(symbolic_times):7.2f} us/call")
    print(f"xnnc Program call     {min(program_times):7.2f} us/call")
    rt.close()
    symbolic.close()
    pieces()


def pieces() -> None:
    """The multi-piece row: plan and interpreter against the pieces alone."""
    import xnnc

    class AddReluAdd(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + y) + y

    a, b = torch.randn(1, 8), torch.randn(1, 8)
    planned = xnnc.compile(AddReluAdd().eval(), (a, b), exclude="aten.relu")
    interpreted = xnnc.compile(AddReluAdd().eval(), (a, b), exclude="aten.relu")
    interpreted._plan = "benchmark: the interpreter, for the side-by-side"
    first, second = (planned.runtimes[sub] for sub in planned.subgraphs)
    assert planned.num_partitions == 2 and planned.ops_outside() == ["aten.relu"]
    assert torch.equal(planned(a, b), interpreted(a, b))
    assert torch.equal(planned(a, b), torch.relu(a + b) + b)

    def alone(calls: int) -> None:
        for _ in range(calls):
            (s,) = first(a, b)
            second(torch.relu(s), b)

    def loop(program):
        def call(calls: int) -> None:
            for _ in range(calls):
                program(a, b)

        return call

    loops = {"pieces": alone, "plan": loop(planned), "interpreter": loop(interpreted)}
    times: dict[str, list[float]] = {name: [] for name in loops}
    for f in loops.values():
        f(500)
    for _ in range(REPEATS // 2):
        for name, f in loops.items():
            times[name].append(per_call_us(f, CALLS // 2))
    best = {name: min(t) for name, t in times.items()}
    print("\ntwo subgraphs and a relu on torch between them, [1, 8]:")
    print(f"pieces alone (2 run + relu) {best['pieces']:7.2f} us/call")
    for name in ("plan", "interpreter"):
        over = best[name] - best["pieces"]
        print(f"Program call, {name:<13} {best[name]:7.2f} us/call, overhead {over:7.2f} us")
    over = {name: best[name] - best["pieces"] for name in ("plan", "interpreter")}
    print(f"overhead interpreter / plan: {over['interpreter'] / max(over['plan'], 1e-3):.1f}x")


if __name__ == "__main__":
    main()
