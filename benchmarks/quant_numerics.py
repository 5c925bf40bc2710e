"""Static int8 numerics side by side: how far each lowering of a PT2E program is from the
PT2E model itself, and from the float model it quantizes.

    python -m xnnc.benchmarks.quant_numerics [--model resnet mobilenetv2 ...] [--inputs 6]
                                             [--samples 5]

Systems, on `examples/quantized_models.py`'s models (as `quant_bench`):
- xnnc qs8: `xnnc.compile` of the PT2E program (XNNPACK's qs8 nodes: int32 accumulation,
  the float bias rounded to int32 at scale input x filter, fp32 requantization);
- stock qs8 .pte: ExecuTorch's XnnpackPartitioner on the same program, stock ExecuTorch;
- xnnc as float: `xnnc.compile(..., disable="aten-fold-qdq")`: PT2E's own arithmetic (each
  op in fp32 between the converts of its quantize and dequantize) on XNNPACK's fp32 kernels.

For each, over --inputs random inputs (N(0, 1) scaled by 0.5, 1, 1.5, ...), in steps of the
output's quantization scale: the largest and the mean |out - PT2E| and the share of output
elements that differ from PT2E's; then the mean and largest |out - float model| (the PT2E
model's own row first: what quantization costs). `ms` is the median of --samples alternating
samples, 1 thread. Compare the error columns; times are for scale (quant_bench measures).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import torch

import xnnc
from xnnc.benchmarks.quant_bench import measure, pte_runtime
from xnnc.examples.quantized_models import MODELS, float_model, output_scale, quantize


def _inputs(shape: torch.Size, count: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(7)
    return [torch.randn(shape, generator=g) * (0.5 + i / 2) for i in range(count)]


def _mean(values: list[torch.Tensor]) -> float:
    return statistics.mean(float(v.float().mean()) for v in values)


def _max(values: list[torch.Tensor]) -> float:
    return max(float(v.max()) for v in values)


def _row(name: str, outs: list[torch.Tensor], pt2e: list, ref: list, step: float) -> str:
    """The error columns of one system, in output steps."""
    diffs = [(o - p).abs() / step for o, p in zip(outs, pt2e)]
    errs = [(o - r).abs() / step for o, r in zip(outs, ref)]
    if outs is pt2e:
        vs_pt2e = f"{'':>12} {'':>7} {'':>7}"
    else:
        differ = 100 * _mean([d > 0.5 for d in diffs])
        vs_pt2e = f"{_max(diffs):12.2f} {_mean(diffs):7.3f} {differ:6.1f}%"
    return f"{name:16} {vs_pt2e}   {_mean(errs):14.2f} {_max(errs):5.1f}"


def table(model: str, count: int, samples: int) -> None:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.extension.pybindings import portable_lib

    float_net, example = float_model(model)
    ep = quantize(float_net, example)
    portable_lib._unsafe_reset_threadpool(1)
    step = output_scale(ep)
    xs = _inputs(example[0].shape, count)
    qs8 = xnnc.compile(ep, example, threads=1)
    as_float = xnnc.compile(ep, example, threads=1, disable="aten-fold-qdq")
    runtime, stock_counts = pte_runtime(ep, XnnpackPartitioner())
    systems: dict[str, Callable] = {
        "xnnc qs8": qs8,
        "stock qs8 .pte": lambda x: runtime(x)[0],
        "xnnc as float": as_float,
    }
    with torch.no_grad():
        pt2e_module = ep.module()
        pt2e = [pt2e_module(x) for x in xs]
        ref = [float_net(x) for x in xs]
    outs = {name: [call(x) for x in xs] for name, call in systems.items()}
    times = measure({n: (lambda c=c: c(xs[0])) for n, c in systems.items()}, samples)
    shape = "x".join(map(str, example[0].shape))
    print(f"{model} {shape}, {time.strftime('%Y-%m-%d')}, {count} inputs, output step "
          f"{step:.3g}; stock: {stock_counts}")  # fmt: skip
    print(f"{'system':16} {'|- PT2E| max':>12} {'mean':>7} {'differ':>7}   "
          f"{'|- float| mean':>14} {'max':>5}  ms")  # fmt: skip
    print(_row("PT2E model", pt2e, pt2e, ref, step))
    for name in systems:
        ms = statistics.median(times[name]) * 1e3
        print(f"{_row(name, outs[name], pt2e, ref, step)}  {ms:.2f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    models = ["conv_net_224", "resnet", "mobilenetv2", "migan_256", "mimi"]
    parser.add_argument("--model", nargs="+", default=models, choices=sorted(MODELS))
    parser.add_argument("--inputs", type=int, default=6)
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    for model in args.model:
        table(model, args.inputs, args.samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
