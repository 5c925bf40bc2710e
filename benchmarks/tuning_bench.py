"""The cost model's tuned source against its static rules, on the zoo models: compile time
and the programs' speed, side by side in one run.

    python -m xnnc.benchmarks.tuning_bench [--models mimi,dac] [--threads 1,2] [--small]
                                           [--repeat 3] [--runs 5]

Per model and thread count:
- compile time (`xnnc.compile`, model to runnable program), fastest of --repeat, interleaved
  (the order rotating each round): untuned (`tune=False`), cold (a fresh tuning database
  each time) and warm (a database filled by compiling until a compile adds nothing: each
  compile's budget tunes some layers; `fills` is how many compiles that took). Targets
  (issue 10): cold <= 2x untuned, warm <= 1.1x. The fastest, not the median: other
  processes only add time, and on a shared 2-core machine at load 7-9 the median of 3
  moved identical programs' compiles by 0.8-1.5x.
  Python's garbage is collected before each compile, untimed: a full collection of the
  process's heap (0.4-0.6 s after a HiFi-GAN compile) otherwise falls into whichever
  compile comes next, or none;
- the choices per layer kind: how many layers the static rules and the tuner put in each
  form;
- run time of the static program and the tuned one, median of --runs interleaved samples
  (each ~0.2 s of calls), and their ratio (static / tuned: above 1, tuning pays).
The CPU (model name, ISA features) heads the output. The databases live in a temporary
directory: the user's cache is not touched.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter
from typing import Any

import torch

import xnnc
from xnnc.examples.models import MODELS
from xnnc.target import Target
from xnnc.tuning.db import TuningDB, cpu_model

SAMPLE_SECONDS = 0.2


def cpu_header() -> str:
    host = Target.host()
    return f"CPU: {cpu_model()} ({host.arch}: {', '.join(sorted(host.features))}), " + (
        f"{os.cpu_count()} cores"
    )


def _compile(model: Any, inputs: tuple, threads: int, tune: bool, db: str) -> Any:
    return xnnc.compile(model, inputs, threads=threads, tune=tune, tuning_db=db)


def compile_times(model: Any, inputs: tuple, threads: int, repeat: int, tmp: str) -> dict:
    """Seconds per compile (the fastest): untuned, cold and warm database (interleaved)."""
    times: dict[str, list[float]] = {"untuned": [], "cold": [], "warm": []}
    warm_db = os.path.join(tmp, f"warm-{threads}.json")
    fills = fill_database(model, inputs, threads, warm_db)  # also the export's warm-up
    kinds = list(times)
    for i in range(repeat):
        for kind in kinds[i % 3 :] + kinds[: i % 3]:
            db = os.path.join(tmp, f"cold-{threads}-{i}.json") if kind == "cold" else warm_db
            gc.collect()
            start = time.perf_counter()
            _compile(model, inputs, threads, kind != "untuned", db)
            times[kind].append(time.perf_counter() - start)
    return {**{k: min(v) for k, v in times.items()}, "fills": fills}


def fill_database(model: Any, inputs: tuple, threads: int, db: str, limit: int = 60) -> int:
    """Compiles until one adds nothing to `db` (each compile's tuning budget covers some of
    the layers, largest first, so a large model takes several: DAC at 1 thread ~20 on a Zen
    4, one or two of its layers a compile): "warm" is a database that holds every layer.
    Returns the compiles it took."""
    for compiles in range(1, limit + 1):
        before = len(TuningDB(db))
        _compile(model, inputs, threads, True, db)
        if len(TuningDB(db)) == before:
            return compiles
    return limit


def _per_call(program: Any, inputs: tuple) -> float:
    start, calls = time.perf_counter(), 0
    while True:
        program(*inputs)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed > SAMPLE_SECONDS:
            return elapsed / calls


def run_times(programs: dict[str, Any], inputs: tuple, runs: int) -> dict[str, float]:
    for program in programs.values():
        program(*inputs)
    samples: dict[str, list[float]] = {k: [] for k in programs}
    for _ in range(runs):
        for key, program in programs.items():
            samples[key].append(_per_call(program, inputs))
    return {k: statistics.median(v) * 1e3 for k, v in samples.items()}


def choices(program: Any) -> str:
    """'form: choice xN (source)' counts over the layers."""
    counts = Counter(f"{d.form}={d.choice}/{d.source}" for d in program.decisions())
    return ", ".join(f"{k} x{n}" for k, n in sorted(counts.items())) or "no decision"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mimi,dac,hifigan,resnet,bf16_blocks")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--small", action="store_true", help="the models' small variants")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    print(cpu_header())
    print(f"{time.strftime('%Y-%m-%d')}; compile: fastest of {args.repeat}; run: median of "
          f"{args.runs} samples of {SAMPLE_SECONDS} s, interleaved")  # fmt: skip
    header = (f"{'model':12} {'thr':>3} {'untuned':>8} {'cold':>8} {'warm':>8} {'cold/u':>7} "
              f"{'warm/u':>7} {'fills':>5} {'static ms':>10} {'tuned ms':>9} "
              f"{'st/tu':>6}")  # fmt: skip
    print(header)
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            model, inputs = MODELS[name](small=args.small)
            for threads in (int(t) for t in args.threads.split(",")):
                c = compile_times(model, inputs, threads, args.repeat, tmp)
                db = os.path.join(tmp, f"warm-{threads}.json")
                programs = {
                    "static": _compile(model, inputs, threads, False, db),
                    "tuned": _compile(model, inputs, threads, True, db),
                }
                r = run_times(programs, inputs, args.runs)
                print(f"{name:12} {threads:>3} {c['untuned']:7.2f}s {c['cold']:7.2f}s "
                      f"{c['warm']:7.2f}s {c['cold'] / c['untuned']:6.2f}x "
                      f"{c['warm'] / c['untuned']:6.2f}x {c['fills']:5d} {r['static']:10.2f} "
                      f"{r['tuned']:9.2f} {r['static'] / r['tuned']:5.2f}x",
                      flush=True)  # fmt: skip
                notes.append(f"{name} t{threads}: static {choices(programs['static'])}; "
                             f"tuned {choices(programs['tuned'])}")  # fmt: skip
    print("\nchoices per layer kind (form=choice/source x layers):")
    print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
