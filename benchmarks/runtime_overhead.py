"""Per-call overhead of `XnnRuntime.run` over XNNPACK itself.

    python -m xnnc.benchmarks.runtime_overhead

Three loops on a tiny graph (a [1, 8] + [1, 8] add, so XNNPACK's own work is negligible):
`run(a, b)` (input checks, fresh output tensors, pointer patching, setup when a pointer
changed, invoke), a raw ctypes loop calling only `xnn_invoke_runtime`, and `program(a, b)`
for the same add compiled by `xnnc.compile` (a function that is one subgraph calls its
runtime directly, without the interpreter). Target: run <= raw + 20 us. The loops alternate
and each reports its fastest repeat, the estimate least disturbed by other processes.
"""

from __future__ import annotations

import time

import torch

from xnnc.backend_xnnpack.blob import pack_blob
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


def main() -> None:
    rt = XnnRuntime(add_blob())
    a, b = torch.randn(1, 8), torch.randn(1, 8)

    def run(calls: int) -> None:
        for _ in range(calls):
            rt.run(a, b)

    invoke, handle = rt._lib.invoke_runtime, rt._runtime

    def raw(calls: int) -> None:
        for _ in range(calls):
            invoke(handle)

    import xnnc

    class Add(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return x + y

    program = xnnc.compile(Add().eval(), (a, b))

    def call(calls: int) -> None:
        for _ in range(calls):
            program(a, b)

    run(1000)
    call(1000)
    run_times, raw_times, program_times = [], [], []
    for _ in range(REPEATS):
        run_times.append(per_call_us(run))
        # XNNPACK writes where the last run's outputs are: keep them alive for the raw loop.
        outputs = rt.run(a, b)
        raw_times.append(per_call_us(raw))
        assert torch.equal(outputs[0], a + b)
        program_times.append(per_call_us(call))
    run_us, raw_us = min(run_times), min(raw_times)
    print(f"XnnRuntime.run        {run_us:7.2f} us/call")
    print(f"raw xnn_invoke_runtime {raw_us:7.2f} us/call")
    print(f"overhead              {run_us - raw_us:7.2f} us/call (target <= 20)")
    print(f"xnnc Program call     {min(program_times):7.2f} us/call")
    rt.close()


if __name__ == "__main__":
    main()
