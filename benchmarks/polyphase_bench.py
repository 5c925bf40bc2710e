"""Per-layer speedup of `xnn-polyphase`, side by side with the deconvolution it replaces.

    python -m xnnc.benchmarks.polyphase_bench [--only mimi,migan] [--dtypes f32,f16]
                                              [--samples 11] [--threads 1]

Each row is one transposed convolution of an example model (`examples/models.py`) at its real
size: the Mimi decoder's depthwise x2 upsample and its ConvTranspose1d(k=2s, s) at s = 8, 6, 5,
4 (1024 -> 512 -> 256 -> 128 -> 64 channels), the EnCodec, DAC and HiFi-GAN upsamplers, and the
MI-GAN-style depthwise ConvTranspose2d(k4, s2). The `pad` rows have kernels that are not a
multiple of the stride: they set `xnn-polyphase`'s padding rule (`MAX_KERNEL_GROWTH`), and
their last column says what the default pipeline does with them.

A single-layer module is compiled twice by `xnnc.compile`: as is (polyphase), and with
`disable=("xnn-polyphase",)` (XNNPACK's deconvolution); the `pad` rows compile their polyphase
side with `xnn-polyphase{max-kernel-growth=inf}` (every kernel padded). Both run on the
extended runtime (`program(*inputs)`, one thread unless --threads), checked against eager
first. The two alternate, sample by sample; a sample times enough calls to last ~20 ms (the
calling thread's CPU time with one thread, wall time with more), and each side reports its
median over --samples. ratio = deconvolution time / polyphase time:
above 1, the rewrite is faster.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as nn
from xdsl.passes import PassPipeline

import xnnc
from xnnc.frontend.fx_importer import export_program, import_model
from xnnc.pipeline.stages import with_pass_first
from xnnc.program import Program
from xnnc.transforms.polyphase import PolyphasePass

DTYPES = {"f32": torch.float32, "f16": torch.float16}


@dataclass(frozen=True)
class Layer:
    model: str  # the example model it comes from (or "pad" for the pad-kernels rows)
    name: str
    make: Callable[[], nn.Module]
    input: tuple[int, ...]
    dtypes: tuple[str, ...] = ("f32", "f16")


def _t1d(cin: int, cout: int, k: int, s: int, p: int = 0, op: int = 0, groups: int = 1,
         bias: bool = True) -> Callable[[], nn.Module]:  # fmt: skip
    return lambda: nn.ConvTranspose1d(cin, cout, k, s, p, op, groups=groups, bias=bias)


def _t2d(cin: int, cout: int, k: int, s: int, p: int = 0, op: int = 0, groups: int = 1,
         bias: bool = True) -> Callable[[], nn.Module]:  # fmt: skip
    return lambda: nn.ConvTranspose2d(cin, cout, k, s, p, op, groups=groups, bias=bias)


def _upsamplers(
    model: str, strides: tuple[int, ...], kernels: tuple[int, ...], channels: int, frames: int
) -> list[Layer]:
    """A decoder's ConvTranspose1d chain, halving channels, the length growing by each stride;
    padding (k - s) // 2 for HiFi-GAN and DAC (whose ceil(s / 2) is the same here), none for
    SEANet (Mimi, EnCodec: it trims after the layer)."""
    layers = []
    for s, k in zip(strides, kernels, strict=True):
        p = 0 if model in ("mimi", "encodec") else (k - s) // 2
        name = f"{channels}->{channels // 2} k{k} s{s} p{p} L{frames}"
        layers.append(
            Layer(model, name, _t1d(channels, channels // 2, k, s, p), (1, channels, frames))
        )
        channels, frames = channels // 2, frames * s
    return layers


MIMI_UPSAMPLE = _t1d(512, 512, 4, 2, groups=512, bias=False)
LAYERS: list[Layer] = [
    Layer("mimi", "dw 512 k4 s2 L13 (x2 upsample)", MIMI_UPSAMPLE, (1, 512, 13)),
    *_upsamplers("mimi", (8, 6, 5, 4), (16, 12, 10, 8), 1024, 26),
    *_upsamplers("encodec", (8, 5, 4, 2), (16, 10, 8, 4), 512, 75),
    *_upsamplers("dac", (8, 8, 4, 2), (16, 16, 8, 4), 1536, 87),
    *_upsamplers("hifigan", (8, 8, 2, 2), (16, 16, 4, 4), 512, 32),
    *[
        Layer("migan", f"dw {c} k4 s2 p1 {h}x{h}", _t2d(c, c, 4, 2, 1, groups=c), (1, c, h, h))
        for c, h in ((256, 16), (256, 32), (128, 64), (64, 128))
    ],
    # Kernels that are not a multiple of the stride (image decoders, vocoders).
    Layer("pad", "2-D 64->32 k3 s2 p1 op1 64x64", _t2d(64, 32, 3, 2, 1, 1), (1, 64, 64, 64)),
    Layer("pad", "2-D 128->64 k3 s2 p1 op1 32x32", _t2d(128, 64, 3, 2, 1, 1), (1, 128, 32, 32)),
    Layer("pad", "2-D 64->64 k5 s2 p2 op1 32x32", _t2d(64, 64, 5, 2, 2, 1), (1, 64, 32, 32)),
    Layer(
        "pad", "dw 128 k3 s2 p1 op1 64x64", _t2d(128, 128, 3, 2, 1, 1, groups=128), (1, 128, 64, 64)
    ),  # fmt: skip
    Layer("pad", "1-D 256->128 k7 s4 p2 L200", _t1d(256, 128, 7, 4, 2), (1, 256, 200)),
    Layer("pad", "1-D 128->64 k3 s2 p1 op1 L1000", _t1d(128, 64, 3, 2, 1, 1), (1, 128, 1000)),
]


def _compile_padding_every_kernel(model: nn.Module, inputs: tuple, threads: int) -> Program:
    """The default pipeline with `xnn-polyphase{max-kernel-growth=inf}`."""
    ep = export_program(model, inputs)
    module = import_model(ep)
    passes = with_pass_first(PolyphasePass(max_kernel_growth=math.inf))
    PassPipeline(tuple(passes)).apply(xnnc.make_context(), module)
    return Program(module, threads=threads, exported=ep)


def _count(program: Program, op: str) -> int:
    return sum(1 for o in program.module.walk() if o.name == op)


def seconds_per_call(program: Program, inputs: tuple, calls: int) -> float:
    # One thread runs XNNPACK on the calling thread: its CPU time is what the layer costs,
    # and unlike wall time it does not count the time other processes hold the core.
    clock = time.thread_time if program.threads == 1 else time.perf_counter
    start = clock()
    for _ in range(calls):
        program(*inputs)
    return (clock() - start) / calls


def measure(
    layer: Layer, dtype: torch.dtype, samples: int, threads: int
) -> tuple[float, float, str]:
    """(deconvolution, polyphase) median seconds per call, sampled alternately, and which of
    the two the default pipeline compiles."""
    torch.manual_seed(0)
    model = layer.make().to(dtype).eval()
    inputs = (torch.randn(layer.input, dtype=dtype),)
    # fp16 rows measure XNNPACK's fp16 kernels (fp16="native"), as the table says.
    deconv = xnnc.compile(model, inputs, threads=threads, disable=("xnn-polyphase",),
                          fp16="native")  # fmt: skip
    poly = default = xnnc.compile(model, inputs, threads=threads, fp16="native")
    if layer.model == "pad":
        poly = _compile_padding_every_kernel(model, inputs, threads)
    if _count(deconv, "xnn.deconvolution_2d") != 1 or _count(poly, "xnn.deconvolution_2d"):
        raise RuntimeError(
            f"{layer.name}: the deconvolution should be left in the program compiled with "
            "disable=('xnn-polyphase',) only"
        )
    with torch.no_grad():
        want = model(*inputs).float()
    for program in (deconv, poly):
        err = (program(*inputs).float() - want).abs().max().item()
        if err > (1e-3 if dtype == torch.float32 else 5e-2) * max(1.0, want.abs().max().item()):
            raise RuntimeError(f"{layer.name}: |error| {err:.3g} vs eager")
    once = min(seconds_per_call(p, inputs, 1) for p in (deconv, poly, deconv, poly))
    calls = max(1, int(0.02 / once))
    times: dict[str, list[float]] = {"deconv": [], "poly": []}
    for _ in range(samples):
        times["deconv"].append(seconds_per_call(deconv, inputs, calls))
        times["poly"].append(seconds_per_call(poly, inputs, calls))
    chosen = "deconv" if _count(default, "xnn.deconvolution_2d") else "poly"
    return statistics.median(times["deconv"]), statistics.median(times["poly"]), chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated models (mimi,dac,pad,...)")
    parser.add_argument("--dtypes", default="f32,f16")
    parser.add_argument("--samples", type=int, default=11)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    warnings.filterwarnings("ignore")
    clock = "thread CPU time" if args.threads == 1 else "wall time"
    print(f"xnn-polyphase per layer, {time.strftime('%Y-%m-%d')}, {args.threads} thread(s), "
          f"{clock}, median of {args.samples} alternating samples; "
          "ratio = deconvolution / polyphase")  # fmt: skip
    print(f"{'model':8} {'layer':34} {'dtype':5} {'deconv ms':>10} {'poly ms':>9} {'ratio':>6} "
          "default")  # fmt: skip
    for layer in LAYERS:
        if only and layer.model not in only:
            continue
        for dtype_name in args.dtypes.split(","):
            if dtype_name not in layer.dtypes:
                continue
            deconv, poly, chosen = measure(layer, DTYPES[dtype_name], args.samples, args.threads)
            print(f"{layer.model:8} {layer.name:34} {dtype_name:5} {deconv * 1e3:10.3f} "
                  f"{poly * 1e3:9.3f} {deconv / poly:6.2f} {chosen}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
