"""Dynamically quantized linears: xnnc vs stock ExecuTorch's lowering of the same quantized
program vs xnnc's fp32 compile of the float model, side by side.

    python -m xnnc.benchmarks.dynamic_quant_bench [--models mlp,block]
        [--flows pt2e,8da8w,8da4w] [--samples 7] [--threads 1] [--small]

The models and flows are `xnnc.examples.dynamic_quant_models`'s (large sizes unless --small):
an MLP (1024 -> 4096 -> 4096 -> 1024, 8 rows) and a transformer block (d 512, 8 heads,
ff 2048, 64 tokens), quantized by PT2E's dynamic XNNPACKQuantizer config (qc8w), torchao
8da8w (qc8w) and 8da4w (qb4w, groups of 32). Sides:
- xnnc: `xnnc.compile(quantized program, target="extended")` on xnnc's runtime;
- stock: `to_edge_transform_and_lower(.., XnnpackPartitioner())` -> `.pte` on stock
  ExecuTorch 1.5.1's runtime;
- fp32: `xnnc.compile(float model)`.
They alternate sample by sample (the order rotates); each sample times enough calls for
~0.2 s, and a row reports the median per call with its ratios (above 1: xnnc is faster),
and each side's delegates / ops outside.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

import xnnc
from xnnc.benchmarks.zoo import machine
from xnnc.examples.dynamic_quant_models import FLOWS, MODELS, quantize


def _stock(quantized: torch.nn.Module, x: torch.Tensor) -> tuple[Callable[[], Any], str]:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.devtools.backend_debug import get_delegation_info
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    edge = to_edge_transform_and_lower(
        torch.export.export(quantized, (x,)), partitioner=[XnnpackPartitioner()]
    )
    info = get_delegation_info(edge.exported_program().graph_module)
    runtime = StockRuntime(edge.to_executorch().buffer)
    counts = f"{info.num_delegated_subgraphs}/{info.num_non_delegated_nodes}"
    return lambda: runtime(x), counts


def _xnnc(model: Any, x: torch.Tensor, threads: int) -> tuple[Callable[[], Any], str]:
    program = xnnc.compile(model, (x,), target="extended", threads=threads)
    return lambda: program(x), f"{program.num_partitions}/{len(program.ops_outside())}"


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def bench(name: str, flow: str, small: bool, samples: int, threads: int) -> str:
    model, x = MODELS[name](small=small)
    quantized = quantize(model, flow, x)
    sides = {
        "xnnc": _xnnc(torch.export.export(quantized, (x,)), x, threads),
        "stock": _stock(quantized, x),
        "fp32": _xnnc(model, x, threads),
    }
    for fn, _ in sides.values():
        fn()
    calls = max(1, int(0.2 / _per_call(sides["xnnc"][0], 3)))
    times: dict[str, list[float]] = {side: [] for side in sides}
    order = list(sides)
    for i in range(samples):
        for side in order[i % 3 :] + order[: i % 3]:
            times[side].append(_per_call(sides[side][0], calls))
    ms = {side: statistics.median(t) * 1e3 for side, t in times.items()}
    counts = " ".join(f"{sides[s][1]:>6}" for s in sides)
    x_ms, s_ms, f_ms = ms["xnnc"], ms["stock"], ms["fp32"]
    return (f"{name:6} {flow:6} {x_ms:9.3f} {s_ms:9.3f} {f_ms:9.3f} {s_ms / x_ms:8.2f} "
            f"{f_ms / x_ms:8.2f}  {counts}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--flows", default=",".join(FLOWS))
    parser.add_argument("--samples", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--small", action="store_true", help="the small test sizes")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(args.threads)
    from executorch.extension.pybindings import portable_lib

    portable_lib._unsafe_reset_threadpool(args.threads)
    print(f"{machine()}, {time.strftime('%Y-%m-%d')}; {args.threads} thread(s); median of "
          f"{args.samples} alternating samples, ms per call; ratios > 1: xnnc faster")  # fmt: skip
    print(f"{'model':6} {'flow':6} {'xnnc':>9} {'stock':>9} {'fp32':>9} {'stock/x':>8} "
          f"{'fp32/x':>8}  delegates/outside: xnnc stock fp32")  # fmt: skip
    for name in args.models.split(","):
        for flow in args.flows.split(","):
            print(bench(name, flow, args.small, args.samples, args.threads), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
