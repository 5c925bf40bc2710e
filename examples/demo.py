"""`make demo`: compile the embedded Mimi-style decoder with xnnc and run it three ways.

    python -m xnnc.examples.demo [--model NAME] [--small] [--threads N]

1. import into `aten` and check the reference interpreter against eager;
2. compile with xnnc, run on the extended runtime and, as a `.pte`, on stock ExecuTorch;
3. lower the same model with stock ExecuTorch's own XnnpackPartitioner;
then print the error of each against eager and the latencies side by side, every system
(torch eager included) at the thread count printed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable

import torch

import xnnc
from xnnc.examples.models import MODELS
from xnnc.quiet import native_output_silenced, quiet_warnings


def op_summary(module) -> list[tuple[str, int]]:
    counts: Counter[str] = Counter()
    for op in module.walk():
        if op.name.startswith(("aten.", "xnn.")) and op.name not in ("xnn.output",):
            name = op.name
            if name == "aten.generic":
                name = f"aten.generic {op.target.data}"
            counts[name] += 1
    return counts.most_common()


def timed(fn: Callable[[], object], repeat: int = 10) -> float:
    """Median seconds of `repeat` calls after one warm-up."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def stock_executorch(model: torch.nn.Module, inputs: tuple) -> bytes:
    """Stock ExecuTorch 1.5.1's own lowering: XnnpackPartitioner."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(model, inputs, strict=False)
    edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    return edge.to_executorch().buffer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mimi", choices=sorted(MODELS))
    parser.add_argument("--small", action="store_true", help="the reduced-size variant")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)

    quiet_warnings()
    from xnnc.pte import StockRuntime

    # Every system runs at the thread count printed: torch eager too (by default it would
    # take every core, against XNNPACK's one thread).
    torch.set_num_threads(args.threads)
    model, inputs = MODELS[args.model](small=args.small)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {args.model} ({type(model).__name__}), {n_params / 1e6:.1f}M parameters, "
          f"inputs {[list(x.shape) for x in inputs]}, {args.threads} thread(s)")  # fmt: skip
    with torch.no_grad():
        expected = model(*inputs)

    def error(got: torch.Tensor) -> float:
        return (got.float() - expected.float()).abs().max().item()

    start = time.perf_counter()
    module = xnnc.import_model(model, inputs)
    print(f"\n1. imported into `aten` in {time.perf_counter() - start:.2f} s:")
    for name, count in op_summary(module):
        print(f"  {count:5d}  {name}")
    (reference,) = xnnc.run_reference(module, inputs)
    print(f"  reference interpreter vs eager: max |error| {error(reference):.3g}")

    start = time.perf_counter()
    program = xnnc.compile(model, inputs, target="stock", threads=args.threads, profile=True)
    xnnc_compile = time.perf_counter() - start
    print(f"\n2. xnnc: compiled in {xnnc_compile:.2f} s to {program.num_partitions} subgraph(s), "
          f"{len(program.ops_outside())} op(s) outside XNNPACK:")  # fmt: skip
    if (fallback := program.fallback()) is not None:
        print(f"  {fallback}")
    for name, count in op_summary(program.module):
        if name.startswith("xnn."):
            print(f"  {count:5d}  {name}")
    start = time.perf_counter()
    pte = xnnc.pte.to_pte(model, inputs, target="stock")
    print(f"  .pte for stock ExecuTorch: {len(pte) / 2**20:.1f} MiB "
          f"({time.perf_counter() - start:.2f} s)")  # fmt: skip

    start = time.perf_counter()
    with native_output_silenced():  # ExecuTorch's cpuinfo log lines
        stock_pte = stock_executorch(model, inputs)
    stock_compile = time.perf_counter() - start
    print(f"\n3. stock ExecuTorch lowering (XnnpackPartitioner): {stock_compile:.2f} s")

    with native_output_silenced():
        xnnc_stock = StockRuntime(pte, threads=args.threads)
        stock = StockRuntime(stock_pte, threads=args.threads)
    rows = [
        ("torch eager", lambda: model(*inputs)),
        ("stock ExecuTorch (its own lowering)", lambda: stock(*inputs)[0]),
        ("xnnc .pte on stock ExecuTorch", lambda: xnnc_stock(*inputs)[0]),
        ("xnnc on the extended runtime", lambda: program(*inputs)),
    ]
    print(f"\n{'system':38} {'max |error|':>12} {'latency':>11} {'vs stock':>9} {'vs eager':>9}")
    with torch.no_grad(), native_output_silenced():  # ExecuTorch logs at its first call
        results = [(name, error(fn()), timed(fn)) for name, fn in rows]
    eager, base = results[0][2], results[1][2]
    for name, err, seconds in results:
        print(f"{name:38} {err:12.3g} {seconds * 1e3:8.2f} ms {base / seconds:8.2f}x "
              f"{eager / seconds:8.2f}x")  # fmt: skip
    print(f"compile: xnnc {xnnc_compile:.2f} s, stock ExecuTorch {stock_compile:.2f} s "
          f"({stock_compile / xnnc_compile:.1f}x)")  # fmt: skip
    worst = max(err for _, err, _ in results[2:])
    scale = max(1.0, expected.float().abs().max().item())
    ok = error(reference) <= 1e-4 * scale and worst <= 1e-3 * scale
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
