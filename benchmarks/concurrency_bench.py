"""Throughput of one model served from N Python threads, three ways, side by side.

    python -m xnnc.benchmarks.concurrency_bench [--model resnet] [--seconds 0.4] [--rounds 5]

For N = 1, 2 on a small zoo conv model (`examples/models.py`, `small=True`):
- `own`: N threads, each calling its own 1-thread program (N copies of the packed weights);
- `N-thread`: one program compiled for N threads, called from one thread (one copy);
- `shared`: one 1-thread program shared by N threads (one copy; calls take turns on its
  runtime's lock).
At N = 1 the three are the same program called the same way: their spread is the noise.
Each round times every setup for --seconds (calls/s over all its threads, each thread
with its own input), in a rotated order, each block after waiting (up to --max-wait s) for
other processes to use fewer than --quiet cores; the table gives the median round, its
ratios to the same setup at N = 1 and to `own` at the same N, and the load other processes
put on the machine while it ran (a 2-core machine with 1 core busy elsewhere cannot show
2 threads scaling). Every thread's last output is checked bit for bit against a single call.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

import xnnc
from xnnc.benchmarks.zoo import LoadMeter, machine
from xnnc.examples.models import MODELS
from xnnc.frontend.fx_importer import export_program

SETUPS = ("own", "N-thread", "shared")
COPIES = {"own": "N", "N-thread": "1", "shared": "1"}


@dataclass
class Setup:
    name: str
    n: int
    programs: list[Callable]  # one per calling thread (the same one when shared)
    rates: list[float] = field(default_factory=list)  # calls/s per round
    loads: list[float] = field(default_factory=list)


def build(name: str, n: int, make: Callable[[int], Callable]) -> Setup:
    if name == "own":
        return Setup(name, n, [make(1) for _ in range(n)])
    if name == "N-thread":
        return Setup(name, n, [make(n)])
    shared = make(1)
    return Setup(name, n, [shared] * n)


def calls_per_second(setup: Setup, inputs: list[torch.Tensor], expected: list, seconds: float):
    """All of the setup's threads call their program until the deadline."""
    counts = [0] * len(setup.programs)
    last: list = [None] * len(setup.programs)
    start = threading.Barrier(len(setup.programs) + 1)

    def work(t: int) -> None:
        program, x = setup.programs[t], inputs[t]
        start.wait()
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            last[t] = program(x)
            counts[t] += 1

    threads = [threading.Thread(target=work, args=(t,)) for t in range(len(setup.programs))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    for t, out in enumerate(last):
        if not torch.equal(out, expected[t]):
            raise AssertionError(f"{setup.name} N={setup.n}: thread {t} got a wrong result")
    return sum(counts) / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="resnet", help="a zoo model (small variant)")
    parser.add_argument("--seconds", type=float, default=0.4, help="per setup and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--quiet",
        type=float,
        default=0.5,
        help="before each block, wait until other processes use fewer cores",
    )
    parser.add_argument("--max-wait", type=float, default=2.0, help="seconds, per block")
    args = parser.parse_args(argv)

    model, (example,) = MODELS[args.model](small=True)
    exported = export_program(model, (example,))

    def make(threads: int) -> Callable:
        return xnnc.compile(exported, threads=threads)

    generator = torch.Generator().manual_seed(0)
    inputs = [torch.randn(example.shape, generator=generator) for _ in range(2)]
    reference = make(1)
    expected = [reference(x) for x in inputs]
    setups = [build(name, n, make) for n in (1, 2) for name in SETUPS]
    meter = LoadMeter()
    for setup in setups:  # warm-up
        calls_per_second(setup, inputs, expected, 0.05)
    for r in range(args.rounds):
        for setup in setups[r % len(setups) :] + setups[: r % len(setups)]:
            meter.wait_for_quiet(args.quiet, args.max_wait)
            with meter.measure() as load:
                setup.rates.append(calls_per_second(setup, inputs, expected, args.seconds))
            setup.loads.append(load[0])

    print(f"{args.model} (small, input {list(example.shape)}), fp32, extended runtime")
    print(f"CPU: {machine()}")
    print(f"median of {args.rounds} rounds x {args.seconds} s per setup\n")
    print("| setup | N | weight copies | calls/s | vs N=1 | vs own at N | others' load (cores) |")  # noqa: E501
    print("|---|---|---|---|---|---|---|")
    median = {(s.name, s.n): statistics.median(s.rates) for s in setups}
    for s in setups:
        rate = median[(s.name, s.n)]
        print(
            f"| {s.name} | {s.n} | {COPIES[s.name].replace('N', str(s.n))} | {rate:,.0f} | "
            f"{rate / median[(s.name, 1)]:.2f}x | {rate / median[('own', s.n)]:.2f}x | "
            f"{statistics.median(s.loads):.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
