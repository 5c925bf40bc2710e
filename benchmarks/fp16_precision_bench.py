"""fp16 computed by XNNPACK's fp16 kernels or in fp32 (`xnnc.compile(..., fp16=...)`), whole model.

    python -m xnnc.benchmarks.fp16_precision_bench [--samples 11] [--threads 1,2] [--small]

The MI-GAN-style fp16 inpainting net (`examples/models.py` `fp16_convnet`: [1, 4, 256, 256] ->
[1, 3, 256, 256], fp32 input and output, fp16 body) is compiled twice by `xnnc.compile`, with
fp16="native" (XNNPACK's fp16 kernels) and fp16="fp32" (xnn-fp16-precision: the subgraph
computes in fp32), and run on the extended runtime. On a CPU without fp16 arithmetic
(`xnn_is_f16_native_supported()` false, e.g. AVX2 + F16C) the fp16 kernels convert to fp32
and back internally, which the fp32 program does not do.

For each thread count the two alternate sample by sample (which one goes first alternates
too); a sample times enough calls to last ~0.2 s (the calling thread's CPU time with one
thread, wall time with more). Each side reports the median, p25 and p75 over --samples;
ratio = native median / fp32 median: above 1, computing in fp32 is faster. Errors are
max |out - ref| / max |ref| against torch eager of the fp16 model and of its fp32 twin (the
same weights in fp32, the model's `.half()` casts made no-ops).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
import warnings

import torch
from torch.overrides import TorchFunctionMode

import xnnc
from xnnc.backend_xnnpack.runtime.capi import f16_native_supported
from xnnc.benchmarks.polyphase_bench import seconds_per_call
from xnnc.examples.models import MODELS
from xnnc.program import Program

MODES = ("native", "fp32")


class _Fp32Casts(TorchFunctionMode):
    """Runs a model's `.half()` casts as `.float()`: its fp32 twin's forward."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.half:
            return args[0].float()
        return func(*args, **(kwargs or {}))


def _references(model: torch.nn.Module, inputs: tuple) -> dict[str, torch.Tensor]:
    with torch.no_grad():
        fp16 = model(*inputs).float()
        with _Fp32Casts():
            fp32 = copy.deepcopy(model).float()(*inputs).float()
    return {"fp16 eager": fp16, "fp32 model": fp32}


def _rel_err(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got.float() - want).abs().max() / want.abs().max()).item()


def _quartiles(times: list[float]) -> tuple[float, float, float]:
    p25, median, p75 = statistics.quantiles(times, n=4, method="inclusive")
    return median, p25, p75


def measure(programs: dict[str, Program], inputs: tuple, samples: int) -> dict[str, list[float]]:
    """Seconds per call of each program, `samples` alternating samples each."""
    once = min(seconds_per_call(p, inputs, 1) for p in [*programs.values()] * 2)
    calls = max(1, int(0.2 / once))
    times: dict[str, list[float]] = {mode: [] for mode in programs}
    for i in range(samples):
        order = MODES if i % 2 == 0 else MODES[::-1]
        for mode in order:
            times[mode].append(seconds_per_call(programs[mode], inputs, calls))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=11)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--small", action="store_true", help="the 32x32 test-size model")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    model, inputs = MODELS["fp16_convnet"](small=args.small)
    refs = _references(model, inputs)
    compiled = {}
    for mode in MODES:
        compiled[mode] = xnnc.compile(model, inputs, fp16=mode, savable=True)
        out = compiled[mode](*inputs)
        errors = ", ".join(f"vs {name} {_rel_err(out, ref):.2e}" for name, ref in refs.items())
        size = sum(len(b) for b in compiled[mode].blobs) / 2**20
        print(f"fp16={mode:6} blob {size:5.2f} MiB, max rel error {errors}")
    size = "x".join(map(str, inputs[0].shape))
    print(f"fp16_convnet {size}, {time.strftime('%Y-%m-%d')}, xnn_is_f16_native_supported = "
          f"{f16_native_supported()}, median [p25, p75] of {args.samples} alternating samples "
          "(1 thread: thread CPU time, more: wall time); ratio = native / fp32")  # fmt: skip
    print(f"{'threads':>7} {'native ms':>26} {'fp32 ms':>26} {'ratio':>6}")
    for threads in map(int, args.threads.split(",")):
        programs = {
            mode: Program(p.module, p.options, threads=threads) for mode, p in compiled.items()
        }
        times = measure(programs, inputs, args.samples)
        cells = []
        for mode in MODES:
            median, p25, p75 = (t * 1e3 for t in _quartiles(times[mode]))
            cells.append(f"{median:8.2f} [{p25:7.2f}, {p75:7.2f}]")
        ratio = statistics.median(times["native"]) / statistics.median(times["fp32"])
        print(f"{threads:7d} {cells[0]:>26} {cells[1]:>26} {ratio:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
