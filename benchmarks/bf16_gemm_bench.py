"""bf16 GEMMs on XNNPACK's native bf16 kernel (`open_runtime`) or in one subgraph (fp32).

    python -m xnnc.benchmarks.bf16_gemm_bench [--models bf16_blocks,bf16_block] [--samples 9]
                                              [--threads 1,2] [--sweep]

Each model is compiled once for x86-64-avx512bf16 (every bf16 GEMM in the bf16 x bf16 ->
fp32 form, whatever the cost model (`cost.rules.bf16_gemm`) says for the host) and its blob
loaded twice: on one `XnnRuntime`, where XNNPACK's subgraph rewrites every bf16 GEMM to fp32
(what xnnc did before), and on `open_runtime`, which runs them as XNNPACK's bf16 operators
between subgraph pieces. The two alternate sample by sample (who goes first alternates too).
Per side: the whole call (median of samples; thread CPU time with one thread, wall time with
more) and the GEMM rate, 2*M*K*N summed over the GEMM operators divided by the sum of their
times in XNNPACK's profile (best sample). ratio = fp32 / native: above 1 the native kernel
is faster.

--sweep instead times one bf16 fully-connected (K = N = 2048 and 512, M rows from 1 to 256,
1 thread) both ways, the best of alternating runs of XNNPACK's profile: where the native
kernel pays (the cost model (`cost.rules.bf16_gemm`)).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import warnings

import torch

import xnnc
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.backend_xnnpack.runtime import XnnRuntime, open_runtime
from xnnc.benchmarks.zoo import machine
from xnnc.examples.models import MODELS

GEMMS = ("Fully Connected", "Batch Matrix Multiply")


def gemm_flop(blob: bytes) -> int:
    """2*M*K*N over the blob's fully-connected and batch-matmul nodes."""
    b = read_blob(blob)
    total = 0
    for kind, xnode in zip(b.node_kinds, b.graph.xnodes):
        t = xnode.xnodeUnion
        if kind == "XNNFullyConnected":
            out, x = list(b.tensors[t.outputId].dims), list(b.tensors[t.input1Id].dims)
            total += 2 * x[-1] * math.prod(out)
        elif kind == "XNNBatchMatrixMultiply":
            out, a = list(b.tensors[t.outputId].dims), list(b.tensors[t.input1Id].dims)
            total += 2 * a[-1] * math.prod(out)
    return total


def sample(rt, inputs: tuple, calls: int, threads: int) -> tuple[float, float]:
    """(seconds per call, GEMM operator seconds of the last call)."""
    clock = time.thread_time if threads == 1 else time.perf_counter
    start = clock()
    for _ in range(calls):
        rt.run(*inputs)
    per_call = (clock() - start) / calls
    gemm_us = sum(us for name, us in rt.profile() if name.startswith(GEMMS))
    return per_call, gemm_us * 1e-6


def bench(name: str, threads: int, samples: int) -> str:
    model, inputs = MODELS[name]()
    (blob,) = xnnc.compile(model, inputs, target="extended,x86-64-avx512bf16").blobs
    flop = gemm_flop(blob)
    sides = {
        "fp32": XnnRuntime(blob, threads=threads, profile=True),
        "native": open_runtime(blob, threads=threads, profile=True),
    }
    for rt in sides.values():
        rt.run(*inputs)
    calls = max(1, int(0.3 / sample(sides["fp32"], inputs, 1, threads)[0]))
    runs: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    for i in range(samples):
        for side in list(sides)[:: 1 if i % 2 == 0 else -1]:
            runs[side].append(sample(sides[side], inputs, calls, threads))
    cells = {}
    for side, values in runs.items():
        call_ms = statistics.median(v[0] for v in values) * 1e3
        gflops = flop / min(v[1] for v in values) / 1e9
        cells[side] = (call_ms, gflops)
    (f_ms, f_rate), (n_ms, n_rate) = cells["fp32"], cells["native"]
    return (f"{name:12} {threads:7d} {f_ms:9.2f} {n_ms:9.2f} {f_ms / n_ms:6.2f} "
            f"{f_rate:10.0f} {n_rate:10.0f} {n_rate / f_rate:6.2f}")  # fmt: skip


def sweep(samples: int) -> None:
    print(f"{'K=N':>5} {'M':>4} {'fp32 us':>9} {'bf16 us':>9} {'ratio':>6}")
    for width in (2048, 512):
        model = torch.nn.Linear(width, width, bias=False).to(torch.bfloat16).eval()
        for rows in (1, 2, 4, 8, 16, 32, 64, 256):
            x = torch.randn(rows, width, dtype=torch.bfloat16)
            (blob,) = xnnc.compile(model, (x,), target="extended,x86-64-avx512bf16").blobs
            sides = (XnnRuntime(blob, profile=True), open_runtime(blob, profile=True))
            best = [math.inf, math.inf]
            for i in range(samples * 5):
                for k in (0, 1) if i % 2 == 0 else (1, 0):
                    best[k] = min(best[k], sample(sides[k], (x,), 1, 1)[1] * 1e6)
            print(f"{width:5d} {rows:4d} {best[0]:9.1f} {best[1]:9.1f} {best[0] / best[1]:6.2f}",
                  flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="bf16_blocks,bf16_block")
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--sweep", action="store_true", help="one GEMM over M, K, N instead")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    if args.sweep:
        print(f"{machine()}, {time.strftime('%Y-%m-%d')}; best of alternating runs, 1 thread")
        sweep(args.samples)
        return 0
    print(f"{machine()}, {time.strftime('%Y-%m-%d')}; median of {args.samples} alternating "
          "samples; GEMM GFLOP/s from XNNPACK's profile (best sample)")  # fmt: skip
    print(f"{'model':12} {'threads':>7} {'fp32 ms':>9} {'bf16 ms':>9} {'ratio':>6} "
          f"{'fp32 GF/s':>10} {'bf16 GF/s':>10} {'ratio':>6}")  # fmt: skip
    for name in args.models.split(","):
        for threads in map(int, args.threads.split(",")):
            print(bench(name, threads, args.samples), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
