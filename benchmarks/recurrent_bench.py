"""EnCodec's recurrent path: what one LSTM step costs against its matrix-vector limit, and
the LSTM beside ONNX Runtime and torch eager.

    python -m xnnc.benchmarks.recurrent_bench [--threads 1,2] [--rounds 15]
                                              [--hidden 512] [--layers 2] [--frames 75]
                                              [--overhead-hidden 8,512]
                                              [--overhead-frames 1,4,13,64]

The model is EnCodec's SLSTM (`examples/models.py`: a 2-layer nn.LSTM, 512 channels, 75
frames at full size, with its skip connection), compiled twice: as xnnc does by default on
the extended runtime (kept whole, on the recurrent loop: `cost.rules.lstm_loop`) and
unrolled (`disable="lstm-loop"`), as torch.export's decomposition does it: per layer one
input projection over all frames (a [T, C] x [C, 4H] fully-connected node), then per step
one recurrent [1, H] x [H, 4H] fully-connected node (the weight is one shared constant)
and the gates' elementwise nodes.

Per thread count the systems run in rotated order, `--rounds` times each (xnnc on the loop,
xnnc unrolled, unrolled with its per-node profile on, ONNX Runtime's LSTM operator, eager).
Reported: the median and the fastest call (the machine is shared: the fastest is the least
disturbed), at 1 thread the median CPU time of the calling thread (which does all the work
there, so time other processes take from it does not count), and, from the fastest profiled
xnnc call, one step split into its recurrent fully-connected node (the matrix-vector
product) and everything else (gate slices, sigmoid/tanh, multiply/add, the per-step slice
of the projection, the runtime's dispatch between nodes). The step's limit is its bytes:
the recurrent weight (4H x H fp32) read once per step at the read bandwidth of a buffer of
that size on the same thread count (`torch.sum` over it, the fastest of many), since 2 FLOP
per weight element cannot keep any CPU's FMA units busy.

Then the recurrent loop's own cost (`LstmRunner`, the LSTM over a symbolic time axis on the
extended runtime), at 1 thread: a call of the runner against its bare XNNPACK calls (the
same projections and steps, as a list of `xnn_setup_runtime_v2` + `xnn_invoke_runtime`
ctypes calls on one prepared block), interleaved, the fastest of `--rounds` in the calling
thread's CPU time; "runner overhead per layer" is the difference per layer and direction:
what the runner adds in Python (checks, the call's block and set-up table, the results).
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
from functools import partial
from typing import Any

import numpy as np
import torch

import xnnc
from xnnc.backend_xnnpack.lstm_runner import LstmCell, LstmRunner
from xnnc.backend_xnnpack.runtime import capi
from xnnc.benchmarks.zoo import cpu_header, ort_session
from xnnc.examples.models import SLSTM
from xnnc.program import Program

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
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        proto = torch.onnx.export(model, (x,), dynamo=True).model_proto.SerializeToString()
    session = ort_session(proto, threads)
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
    model = SLSTM(args.hidden, args.layers).eval()
    x = torch.randn(1, args.hidden, args.frames)
    with torch.no_grad():
        want = model(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Unrolled (each step's nodes in the subgraph: what the per-step split reads) and
        # the default, the LSTM kept whole on the recurrent loop (`cost.rules.lstm_loop`).
        compiled = xnnc.compile(model, (x,), savable=True, disable="lstm-loop")
        looped = xnnc.compile(model, (x,), savable=True)
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
        loop_program = Program(looped.module, looped.options, threads=threads)
        calls: dict[str, Callable[[], Any]] = {
            "xnnc loop": lambda p=loop_program: p(x),
            "xnnc unrolled": lambda p=xnnc_program: p(x),
            "xnnc unrolled, profiled": lambda p=profiled: p(x),
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
                if name == "xnnc unrolled, profiled":
                    splits.append((samples[name][-1][0], profiled.profile()))
        torch.set_num_threads(1)
        limit = weight / read_bandwidth(weight, threads) * 1e6
        matvec, other = step_split(min(splits, key=lambda s: s[0])[1], args.layers, steps)
        for name, times in samples.items():
            per_step = (f"{matvec:.1f} | {other:.1f} | {limit:.1f}"
                        if name == "xnnc unrolled, profiled" else " | ")  # fmt: skip
            wall = [w for w, _ in times]
            cpu = f"{statistics.median(c for _, c in times) * 1e3:.2f}" if threads == 1 else "-"
            lines.append(
                f"| {threads} | {name} | {statistics.median(wall) * 1e3:.2f} | "
                f"{min(wall) * 1e3:.2f} | {cpu} | {errors[name]:.1e} | {per_step} |"
            )
    return lines


def _runner(hidden: int, layers: int) -> LstmRunner:
    """EnCodec's LSTM shape (input = hidden, batch 1, no state) on the recurrent loop."""
    lstm = torch.nn.LSTM(hidden, hidden, layers)
    cells = []
    for layer in range(layers):
        weight = {n: getattr(lstm, f"{n}_l{layer}").detach().numpy().copy()
                  for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}  # fmt: skip
        cells.append(LstmCell(weight["weight_ih"], weight["weight_hh"],
                              weight["bias_ih"] + weight["bias_hh"]))  # fmt: skip
    return LstmRunner(cells, layers=layers, bidirectional=False, batch_first=False, batch=1,
                      zero_state=True)  # fmt: skip


def bare_calls(runner: LstmRunner, x: torch.Tensor, h0: torch.Tensor) -> Callable[[], None]:
    """The XNNPACK calls `runner(x, h0, h0)` makes, alone: one set-up and invoke per
    projection and step on one block prepared once (the projections are shaped for `x` by
    a runner call first)."""
    runner(x, h0, h0)
    plan = runner._plan(x.shape[0])
    block, base, _ = runner._block(plan, x, h0, h0)
    calls = []
    for runs, _ in plan.layers:
        for rt, table, rows, _ in runs:
            stride = len(rt._externals) * 16  # bytes of a row of struct xnn_external_value
            calls += [(rt._runtime, len(rt._externals), base + table + k * stride)
                      for k in range(rows)]  # fmt: skip
    setup, invoke = capi.library().setup_runtime_at, capi.library().invoke_runtime

    def run() -> None:
        for rt, count, table in calls:
            setup(rt, count, table)
            invoke(rt)

    run.keep = (block, x)  # type: ignore[attr-defined]  # the memory the table points at
    return run


def overhead(args: argparse.Namespace) -> list[str]:
    """Rows of the runner's per-call cost against its bare XNNPACK calls (1 thread)."""
    torch.set_num_threads(1)
    lines = [
        f"| hidden | frames | runner us | bare XNNPACK calls us | runner overhead per layer us "
        f"({args.layers} layers) |",
        "|" + "---|" * 5,
    ]
    for hidden in args.overhead_hidden:
        torch.manual_seed(0)
        runner, h0 = _runner(hidden, args.layers), torch.zeros(args.layers, 1, hidden)
        for frames in args.overhead_frames:
            x = torch.randn(frames, 1, hidden)
            calls = {"runner": partial(runner, x, h0, h0), "bare": bare_calls(runner, x, h0)}
            # ~2 ms of calls per sample: the clocks' resolution and a call's noise average out
            n = max(1, int(2e-3 / max(_timed(calls["runner"])[1], 1e-7)))
            best = dict.fromkeys(calls, np.inf)
            for _ in range(args.rounds):
                for name, call in calls.items():
                    cpu = time.thread_time()
                    for _ in range(n):
                        call()
                    best[name] = min(best[name], (time.thread_time() - cpu) / n * 1e6)
            per_layer = (best["runner"] - best["bare"]) / args.layers
            lines.append(f"| {hidden} | {frames} | {best['runner']:.1f} | {best['bare']:.1f} | "
                         f"{per_layer:.1f} |")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--frames", type=int, default=75)
    parser.add_argument("--overhead-hidden", default="8,512")
    parser.add_argument("--overhead-frames", default="1,4,13,64")
    args = parser.parse_args(argv)
    args.threads = [int(t) for t in args.threads.split(",")]
    args.overhead_hidden = [int(h) for h in args.overhead_hidden.split(",")]
    args.overhead_frames = [int(t) for t in args.overhead_frames.split(",")]
    print(cpu_header(args.threads))
    print(f"EnCodec SLSTM: {args.layers} layers, {args.hidden} channels, {args.frames} frames\n")
    print("\n".join(run(args)))
    print(f"\nThe recurrent loop's runner: {args.layers} layers, batch 1, h0 = c0 = 0, 1 thread\n")
    print("\n".join(overhead(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
