"""Compile and run latency of the DAC decoder with and without `fold-constants`.

    python -m xnnc.benchmarks.constant_fold_bench [--size small|full] [--samples 11]
                                                  [--threads 1]

`fold-constants` turns each Snake's 1 / (alpha + 1e-9) (29 Snakes) into a weight, so the
XNNPACK subgraph loses an add, a reciprocal and a reshape on a [1, C, 1] tensor per Snake.
The model (`examples/models.py`, small or full) is compiled by `xnnc.compile` as is and
with `disable=("fold-constants",)`; both programs are checked against eager first. The two
sides alternate, sample by sample: all run samples first, then the compile samples. A
compile sample is one `xnnc.compile` call (torch.export included), wall time. A run sample
times enough calls of the program on the extended runtime to last ~20 ms (at least one; the
calling thread's CPU time with one thread, wall time with more). Each side reports its
median over --samples. ratio = without / with: above 1, folding is faster.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import torch

import xnnc
from xnnc.benchmarks.polyphase_bench import seconds_per_call
from xnnc.dialects import xnn
from xnnc.examples.models import MODELS
from xnnc.program import Program

SIDES = {"fold": (), "no fold": ("fold-constants",)}


def xnn_nodes(program: Program) -> int:
    """XNNPACK nodes in the program: the subgraphs' ops but constants and terminators."""
    return sum(
        1
        for sub in program.subgraphs
        for op in sub.body.block.ops
        if not isinstance(op, (xnn.ConstantOp, xnn.OutputOp))
    )


def measure(small: bool, samples: int, threads: int) -> dict[str, dict[str, float]]:
    """Per side: median compile seconds, median run seconds per call, XNNPACK node count."""
    model, inputs = MODELS["dac"](small=small)
    with torch.no_grad():
        want = model(*inputs)
    programs = {side: xnnc.compile(model, inputs, threads=threads, disable=off)
                for side, off in SIDES.items()}  # fmt: skip
    for side, program in programs.items():
        if program.num_partitions != 1 or program.ops_outside():
            raise RuntimeError(f"{side}: expected one partition and nothing outside")
        err = (program(*inputs) - want).abs().max().item()
        if err > 1e-3 * max(1.0, want.abs().max().item()):
            raise RuntimeError(f"{side}: |error| {err:.3g} vs eager")
    once = min(seconds_per_call(p, inputs, 1) for p in (*programs.values(), *programs.values()))
    calls = max(1, int(0.02 / once))
    compile_s: dict[str, list[float]] = {side: [] for side in SIDES}
    run_s: dict[str, list[float]] = {side: [] for side in SIDES}
    # Runs first, apart from the compiles, which would leave the runs a cold cache.
    for _ in range(samples):
        for side, program in programs.items():
            run_s[side].append(seconds_per_call(program, inputs, calls))
    for _ in range(samples):
        for side, off in SIDES.items():
            start = time.perf_counter()
            xnnc.compile(model, inputs, threads=threads, disable=off)
            compile_s[side].append(time.perf_counter() - start)
    return {
        side: {
            "compile": statistics.median(compile_s[side]),
            "run": statistics.median(run_s[side]),
            "nodes": xnn_nodes(programs[side]),
        }
        for side in SIDES
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("small", "full"), default="small")
    parser.add_argument("--samples", type=int, default=11)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    result = measure(args.size == "small", args.samples, args.threads)
    clock = "thread CPU time" if args.threads == 1 else "wall time"
    print(f"fold-constants on DAC ({args.size}), {time.strftime('%Y-%m-%d')}, "
          f"{args.threads} thread(s), run: {clock}, compile: wall time; median of "
          f"{args.samples} alternating samples; ratio = no fold / fold")  # fmt: skip
    print(f"{'':8} {'xnn nodes':>9} {'compile s':>10} {'run ms':>9}")
    for side, r in result.items():
        print(f"{side:8} {r['nodes']:9d} {r['compile']:10.3f} {r['run'] * 1e3:9.3f}")
    fold, off = result["fold"], result["no fold"]
    print(f"{'ratio':8} {'':9} {off['compile'] / fold['compile']:10.2f} "
          f"{off['run'] / fold['run']:9.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
