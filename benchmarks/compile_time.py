"""Compile time, model to runnable program: xnnc vs stock ExecuTorch, side by side.

    python -m xnnc.benchmarks.compile_time [--models mimi,resnet] [--repeat 3]

xnnc: `xnnc.compile` (export, import, partition, convert, serialize, load into XNNPACK).
stock: `torch.export` + `to_edge_transform_and_lower(XnnpackPartitioner)` + `to_executorch`
+ loading the `.pte`. Both warm (one untimed run first, so torch.export's one-time setup is
paid by neither); the median of `--repeat` runs each, interleaved. Target: xnnc >= 5x faster.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

import xnnc
from xnnc.examples.models import MODELS


def _xnnc(model: torch.nn.Module, inputs: tuple) -> None:
    xnnc.compile(model, inputs, target="stock")


def _stock(model: torch.nn.Module, inputs: tuple) -> None:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    ep = torch.export.export(model, inputs, strict=False)
    pte = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    StockRuntime(pte.buffer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mimi")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"compile time, {time.strftime('%Y-%m-%d')}, median of {args.repeat}")
    print(f"{'model':14} {'xnnc':>9} {'stock ET':>9} {'speedup':>8}")
    for name in args.models.split(","):
        model, inputs = MODELS[name]()
        _xnnc(model, inputs)
        _stock(model, inputs)
        times: dict[str, list[float]] = {"xnnc": [], "stock": []}
        for _ in range(args.repeat):
            for key, fn in (("xnnc", _xnnc), ("stock", _stock)):
                start = time.perf_counter()
                fn(model, inputs)
                times[key].append(time.perf_counter() - start)
        ours, theirs = statistics.median(times["xnnc"]), statistics.median(times["stock"])
        print(f"{name:14} {ours:8.2f}s {theirs:8.2f}s {theirs / ours:7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
