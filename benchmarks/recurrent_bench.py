"""EnCodec's recurrent path: what one LSTM step costs against its matrix-vector limit, and
the LSTM beside ONNX Runtime and torch eager.

    python -m xnnc.benchmarks.recurrent_bench [--threads 1,2] [--rounds 15]
                                              [--hidden 512] [--layers 2] [--frames 75]

The model is EnCodec's SLSTM (`examples/models.py`: a 2-layer nn.LSTM, 512 channels, 75
frames at full size, with its skip connection). torch.export unrolls it: per layer one
input projection over all frames (a [T, C] x [C, 4H] fully-connected node), then per step
one recurrent [1, H] x [H, 4H] fully-connected node (the weight is one shared constant)
and the gates' elementwise nodes.

Per thread count the systems run in rotated order, `--rounds` times each (xnnc, xnnc with
its per-node profile on, ONNX Runtime's LSTM operator, eager). Reported: the median and the
fastest call (the machine is shared: the fastest is the least disturbed), at 1 thread the
median CPU time of the calling thread (which does all the work there, so time other
processes take from it does not count), and, from the fastest profiled xnnc call, one
step split into its recurrent
fully-connected node (the matrix-vector product) and everything else (gate slices,
sigmoid/tanh, multiply/add, the per-step slice of the projection, the runtime's dispatch
between nodes). The step's limit is its bytes: the recurrent weight (4H x H fp32) read
once per step at the read bandwidth of a buffer of that size on the same thread count
(`torch.sum` over it, the fastest of many), since 2 FLOP per weight element cannot keep
any CPU's FMA units busy.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

import xnnc
from xnnc.benchmarks.zoo import cpu_header
from xnnc.driver import Program
from xnnc.examples.models import _SLSTM

FC = "Fully Connected"


def read_bandwidth(nbytes: int, threads: int, repeats: int = 200) -> float:
    """Bytes/s of `torch.sum` over an fp32 buffer of `nbytes` (fastest of `repeats`)."""
    torch.set_num_threads(threads)
    buffer = torch.randn(nbytes // 4)
    buffer.sum()
    best = min(_seconds(buffer.sum) for _ in range(repeats))
    torch.set_num_threads(1)
    return nbytes / best


def _seconds(call: Callable[[], Any]) -> float:
    return _timed(call)[0]


def _timed(call: Callable[[], Any]) -> tuple[float, float]:
    """(wall, the calling thread's CPU) seconds of one call."""
    start, cpu = time.perf_counter(), time.thread_time()
    call()
    return time.perf_counter() - start, time.thread_time() - cpu


def _ort(model: torch.nn.Module, x: torch.Tensor, threads: int) -> Callable[[], Any]:
    import onnxruntime as ort  # the `bench` extra

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        proto = torch.onnx.export(model, (x,), dynamo=True).model_proto.SerializeToString()
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    session = ort.InferenceSession(proto, options, providers=["CPUExecutionProvider"])
    feeds = {session.get_inputs()[0].name: x.numpy()}
    return lambda: session.run(None, feeds)[0]


def step_split(profile: list[tuple[str, float]], layers: int, steps: int) -> tuple[float, float]:
    """(recurrent fully-connected node, other nodes) per step in us, from one call's profile.
    The `layers` costliest fully-connected nodes are the input projections (their GEMMs
    are not part of a step); the others are the steps' matrix-vector products (a layer's
    first step has none: h0 = 0 folds it away)."""
    fcs = sorted(us for name, us in profile if FC in name)
    others = sum(us for name, us in profile if FC not in name)
    return sum(fcs[:-layers]) / len(fcs[:-layers]), others / steps


def run(args: argparse.Namespace) -> list[str]:
    torch.manual_seed(0)
    model = _SLSTM(args.hidden, args.layers).eval()
    x = torch.randn(1, args.hidden, args.frames)
    with torch.no_grad():
        want = model(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = xnnc.compile(model, (x,), savable=True)
    steps = args.layers * args.frames
    weight = 4 * args.hidden * args.hidden * 4
    lines = [
        f"| threads | system | median ms | fastest ms | median CPU ms | max err | "
        f"per step: matvec us | other nodes us | read limit us ({weight / 2**20:.0f} MiB) |",
        "|" + "---|" * 9,
    ]
    for threads in args.threads:
        xnnc_program = Program(compiled.module, compiled.options, threads=threads)
        profiled = Program(compiled.module, compiled.options, threads=threads, profile=True)
        calls: dict[str, Callable[[], Any]] = {
            "xnnc": lambda p=xnnc_program: p(x),
            "xnnc profiled": lambda p=profiled: p(x),
        }
        with contextlib.suppress(ImportError):
            calls["ort"] = _ort(model, x, threads)

        def eager() -> Any:
            with torch.no_grad():
                return model(x)

        calls["eager"] = eager
        errors = {}
        for name, call in calls.items():
            torch.set_num_threads(threads)
            errors[name] = (torch.as_tensor(call()) - want).abs().max().item()
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
        splits = []
        for r in range(args.rounds):
            names = list(calls)
            for name in names[r % len(names) :] + names[: r % len(names)]:
                torch.set_num_threads(threads)
                samples[name].append(_timed(calls[name]))
                if name == "xnnc profiled":
                    splits.append((samples[name][-1][0], profiled.profile()))
        torch.set_num_threads(1)
        limit = weight / read_bandwidth(weight, threads) * 1e6
        matvec, other = step_split(min(splits, key=lambda s: s[0])[1], args.layers, steps)
        for name, times in samples.items():
            per_step = (f"{matvec:.1f} | {other:.1f} | {limit:.1f}" if name == "xnnc profiled"
                        else " | ")  # fmt: skip
            wall = [w for w, _ in times]
            cpu = f"{statistics.median(c for _, c in times) * 1e3:.2f}" if threads == 1 else "-"
            lines.append(
                f"| {threads} | {name} | {statistics.median(wall) * 1e3:.2f} | "
                f"{min(wall) * 1e3:.2f} | {cpu} | {errors[name]:.1e} | {per_step} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--frames", type=int, default=75)
    args = parser.parse_args(argv)
    args.threads = [int(t) for t in args.threads.split(",")]
    print(cpu_header(args.threads))
    print(f"EnCodec SLSTM: {args.layers} layers, {args.hidden} channels, {args.frames} frames\n")
    print("\n".join(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
