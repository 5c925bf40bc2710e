"""Static int8 (PT2E, XNNPACKQuantizer per-channel) side by side: xnnc's qs8 lowering vs
stock ExecuTorch's quantized lowering of the same program vs xnnc's fp32 compile of the
float model.

    python -m xnnc.benchmarks.quant_bench [--model conv_net_224 migan_256 mimi] [--samples 11]
                                          [--threads 1]

The models are `examples/quantized_models.py`'s: issue 14's conv net (conv 3->32, strided conv
32->64, depthwise, 1x1, mean, linear) at 224x224 (the default), `resnet` (ResNet-18) and
`mobilenetv2` at 224x224 (`_small` forms at 64x64), the MI-GAN-style net in fp32
at 256x256 (`migan_256`) and the Mimi-style decoder, [1, 512, 13] -> [1, 1, 24960] (`mimi`),
whose transposed convs run as qs8 polyphase convolutions. Each model is one table. Systems:

- xnnc qs8: `xnnc.compile` of the PT2E program, extended runtime;
- xnnc qs8 .pte: `to_pte` of the same program (XnncPartitioner), stock ExecuTorch 1.5.1;
- stock qs8 .pte: ExecuTorch's XnnpackPartitioner on the same program, stock ExecuTorch;
- xnnc fp32: `xnnc.compile` of the float model, extended runtime.

The systems alternate sample by sample (the order rotates); a sample times enough calls to
last ~0.2 s of wall time. Each reports the median [p25, p75] ms over --samples and its
ratio to xnnc qs8 (above 1: xnnc qs8 is faster). Errors are max |out - PT2E| in steps of
the output's quantization scale (fp32: against the float model, in the same steps).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import xnnc
from xnnc.examples.quantized_models import MODELS, float_model, output_scale, quantize


def _stock_counts(edge: Any) -> tuple[int, int]:
    """(delegates, ops outside) of an edge program."""
    delegates = outside = 0
    for node in edge.exported_program().graph.nodes:
        if node.op != "call_function":
            continue
        if "executorch_call_delegate" in str(node.target):
            delegates += 1
        elif "getitem" not in str(node.target):
            outside += 1
    return delegates, outside


def pte_runtime(ep: Any, partitioner: Any) -> tuple[Any, str]:
    """(stock ExecuTorch running `ep` lowered through `partitioner`, what was delegated)."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    delegates, outside = _stock_counts(edge)  # before to_executorch adds its own nodes
    runtime = StockRuntime(edge.to_executorch().buffer)
    return runtime, f"{delegates} delegates, {outside} ops outside"


def _pte_system(ep: Any, partitioner: Any, inputs: tuple) -> tuple[Callable, str]:
    runtime, counts = pte_runtime(ep, partitioner)
    return (lambda: runtime(*inputs)[0]), counts


def systems(name: str, threads: int) -> tuple[dict[str, tuple[Callable, str]], Any, float]:
    """name -> (a call on the example input, what was delegated); the PT2E model's output
    and its output scale."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.extension.pybindings import portable_lib

    model, inputs = float_model(name)
    ep = quantize(model, inputs)
    portable_lib._unsafe_reset_threadpool(threads)
    qs8 = xnnc.compile(ep, inputs, threads=threads)
    fp32 = xnnc.compile(model, inputs, threads=threads)
    made = {
        "xnnc qs8": (lambda: qs8(*inputs), _xnnc_counts(qs8)),
        "xnnc qs8 .pte": _pte_system(ep, xnnc.XnncPartitioner(target="stock"), inputs),
        "stock qs8 .pte": _pte_system(ep, XnnpackPartitioner(), inputs),
        "xnnc fp32": (lambda: fp32(*inputs), _xnnc_counts(fp32)),
    }
    return made, (ep.module()(*inputs), model(*inputs)), output_scale(ep)


def _xnnc_counts(program: Any) -> str:
    return f"{program.num_partitions} subgraphs, {len(program.ops_outside())} ops outside"


def _seconds(call: Callable, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def measure(calls: dict[str, Callable], samples: int) -> dict[str, list[float]]:
    """Seconds per call of each system, sampled alternately (rotating order)."""
    names = list(calls)
    for name in names:
        calls[name]()  # warm up
    per_sample = {n: max(1, int(0.2 / _seconds(calls[n], 3))) for n in names}
    times: dict[str, list[float]] = {n: [] for n in names}
    for i in range(samples):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            times[name].append(_seconds(calls[name], per_sample[name]))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", nargs="+", default=["conv_net_224"], choices=sorted(MODELS))
    parser.add_argument("--samples", type=int, default=11)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    for model in args.model:
        table(model, args.samples, args.threads)
    return 0


def table(model: str, samples: int, threads: int) -> None:
    """One model's systems measured side by side, as a table."""
    made, (pt2e_out, float_out), scale = systems(model, threads)
    times = measure({k: v[0] for k, v in made.items()}, samples)
    base = statistics.median(times["xnnc qs8"])
    fastest = min(times["xnnc qs8"])
    shape = "x".join(map(str, float_model(model)[1][0].shape))
    print(f"{model} {shape}, {time.strftime('%Y-%m-%d')}, {threads} thread(s), "
          f"median [p25, p75] and fastest of {samples} alternating samples; ratio = system / "
          f"xnnc qs8 (of the medians; of the fastest, the least disturbed on a shared "
          f"machine); error in output steps ({scale:.3g})")  # fmt: skip
    print(f"{'system':16} {'ms':>26} {'ratio':>6} {'fastest':>8} {'ratio':>6} {'error':>6}  "
          f"delegated")  # fmt: skip
    for name, (call, counts) in made.items():
        p25, median, p75 = statistics.quantiles(times[name], n=4, method="inclusive")
        low = min(times[name])
        ref = float_out if name == "xnnc fp32" else pt2e_out
        error = (call() - ref).abs().max().item() / scale
        cell = f"{median * 1e3:8.3f} [{p25 * 1e3:7.3f}, {p75 * 1e3:7.3f}]"
        print(f"{name:16} {cell:>26} {median / base:6.2f} {low * 1e3:8.3f} {low / fastest:6.2f} "
              f"{error:6.2f}  {counts}", flush=True)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
