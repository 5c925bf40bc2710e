"""Per-layer speedup of `xnn-fold-pad`, `xnn-fuse-activation`, `xnn-upsample-nearest`,
`xnn-hoist-input-projection` and `xnn-conv-as-gemm`, side by side with the op sequence
each replaces.

    python -m xnnc.benchmarks.rewrites_bench [--only fold-pad,...] [--samples 11]
                                             [--threads 1] [--sweep]

Each row is one layer of an example model (`examples/models.py`) at its real size:
- xnn-fold-pad: the Mimi decoder's causal F.pad before its convs (k7 in and out, the k3 of
  each residual block, 1024 -> 32 channels over 26 -> 24960 samples), and the MI-GAN-style
  fp16 zero pad before each 4x4 depthwise blur (stride 2);
- xnn-fuse-activation: ResNet-18's conv + relu shapes (the 7x7 stem, 3x3 of each stage) and
  MobileNetV2's depthwise 3x3 + relu6 (one per resolution);
- xnn-upsample-nearest: MI-GAN's nearest x2 of its 3-channel RGB skip path, 16 -> 256 px;
- xnn-hoist-input-projection: EnCodec's SLSTM (2 layers, 512 channels, 75 frames) run as
  nn.LSTMCell steps in a loop. EnCodec's own nn.LSTM needs no row: torch.export already
  projects its whole input sequence at once, so the rewrite changes nothing there;
- xnn-conv-as-gemm: the Mimi decoder's k7 input conv, the k2 convs its polyphase
  upsamplers become and the k3 of each residual block, and HiFi-GAN's dilated k3/k7/k11
  resblock convs (channels / 2 per upsampling, 32 -> 2048 frames).

A single-layer module is compiled twice by `xnnc.compile`, with the rewrite and without it
(`disable=(rewrite,)`); both sides also disable canonicalize, which would otherwise run the
disabled rewrite's patterns (and nothing else differs). The layer takes and returns
channels-last tensors (a permute in and out, which xnn-layout cancels with conversion's
transposes), so, as inside the model, a row times the layer's own ops and no layout change.
Both run on the extended runtime (`program(*inputs)`), checked against eager first. They
alternate, sample by sample; a sample times enough calls to last ~20 ms (the calling
thread's CPU time with one thread, wall time with more) and each side reports its median
over --samples, per call (the ~0.1 ms Python call around the subgraph included) and for
XNNPACK's nodes alone (the runtime's profile of the sample's last call: wall time, so
noisier than the CPU time when other processes share the cores, but free of the call's
overhead on small layers). ratio = without / with: above 1, the rewrite is faster.
`replaces` is the op multiset the rewrite removes -> the one it adds. --sweep adds the
channel/size sweep behind `xnn-upsample-nearest`'s limits (the rewrite forced on every
shape).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from xdsl.passes import PassPipeline

import xnnc
from xnnc.frontend.fx_importer import export_program, import_model
from xnnc.pipeline.stages import with_pass_first
from xnnc.program import Program
from xnnc.transforms.upsample_nearest import UpsampleNearestPass

DTYPES = {"f32": torch.float32, "f16": torch.float16}
SAMPLE_SECONDS = 0.02


@dataclass(frozen=True)
class Layer:
    rewrite: str
    model: str
    name: str
    make: Callable[[], nn.Module]
    input: tuple[int, ...]  # PyTorch's [N, C, *spatial]
    dtype: str


class ChannelsLast(nn.Module):
    """`inner` on a channels-last tensor: [N, *spatial, C] in and out."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        r = x.dim()
        y = self.inner(x.permute(0, r - 1, *range(1, r - 1)))
        return y.permute(0, *range(2, r), 1)


class PadConv(nn.Module):
    """F.pad(x, pad) then a conv, as Mimi's _SEANetConv1d and MI-GAN's _BlurDownsample."""

    def __init__(self, pad: tuple[int, ...], conv: nn.Module):
        super().__init__()
        self.pad, self.conv = pad, conv

    def forward(self, x):
        return self.conv(F.pad(x, self.pad))


class NearestX2(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="nearest")


def _fold_pad() -> list[Layer]:
    """Mimi's causal convs (k7 in, the k3 of each residual block, k7 out) and MI-GAN's blur."""
    layers = []
    rows = [(512, 1024, 7, 26)]
    channels, frames = 1024, 26
    for r in (8, 6, 5, 4):
        channels, frames = channels // 2, frames * r
        rows.append((channels, channels // 2, 3, frames))
    rows.append((channels, 1, 7, frames))
    for ci, co, k, t in rows:
        name = f"pad({k - 1},0) conv1d {ci}->{co} k{k} L{t}"
        make = lambda ci=ci, co=co, k=k: PadConv((k - 1, 0), nn.Conv1d(ci, co, k))  # noqa: E731
        layers.append(Layer("xnn-fold-pad", "mimi", name, make, (1, ci, t), "f32"))
    for c, h in ((64, 256), (128, 128), (256, 64), (256, 32)):
        make = lambda c=c: PadConv((1, 1, 1, 1), nn.Conv2d(c, c, 4, 2, groups=c, bias=False))  # noqa: E731
        layers.append(Layer("xnn-fold-pad", "migan", f"pad1 dw{c} k4 s2 {h}x{h}", make,
                            (1, c, h, h), "f16"))  # fmt: skip
    return layers


def _fuse_activation() -> list[Layer]:
    """ResNet-18's stem and the 3x3 conv of each stage + relu; MobileNetV2's 3x3 depthwise
    convs + relu6 (one per resolution)."""
    stem = lambda: nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3), nn.ReLU())  # noqa: E731
    layers = [Layer("xnn-fuse-activation", "resnet", "conv 3->64 k7 s2 p3 224x224 + relu", stem,
                    (1, 3, 224, 224), "f32")]  # fmt: skip
    for c, h in ((64, 56), (128, 28), (256, 14), (512, 7)):
        make = lambda c=c: nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU())  # noqa: E731
        layers.append(Layer("xnn-fuse-activation", "resnet", f"conv {c}->{c} k3 p1 {h}x{h} + relu",
                            make, (1, c, h, h), "f32"))  # fmt: skip
    for c, h in ((32, 112), (144, 56), (192, 28), (384, 14), (960, 7)):
        make = lambda c=c: nn.Sequential(nn.Conv2d(c, c, 3, padding=1, groups=c), nn.ReLU6())  # noqa: E731
        layers.append(Layer("xnn-fuse-activation", "mbv2", f"dw{c} k3 p1 {h}x{h} + relu6", make,
                            (1, c, h, h), "f32"))  # fmt: skip
    return layers


class CellSLSTM(nn.Module):
    """EnCodec's SLSTM ([B, C, T], time-major LSTM, skip connection) as LSTMCell steps."""

    def __init__(self, dim: int, layers: int):
        super().__init__()
        self.cells = nn.ModuleList(nn.LSTMCell(dim, dim) for _ in range(layers))

    def forward(self, x):
        x = y = x.permute(2, 0, 1)  # [T, B, C]
        for cell in self.cells:
            h = c = torch.zeros(y.shape[1], cell.hidden_size)
            steps = []
            for t in range(y.shape[0]):
                h, c = cell(y[t], (h, c))
                steps.append(h)
            y = torch.stack(steps)
        return (y + x).permute(1, 2, 0)


def _hoist_input_projection() -> list[Layer]:
    return [Layer("xnn-hoist-input-projection", "encodec", "SLSTM 2x LSTMCell x 75 steps C512",
                  lambda: CellSLSTM(512, 2), (1, 512, 75), "f32")]  # fmt: skip


def _conv1d_as_gemm() -> list[Layer]:
    """Mimi: k7 in, the k2 polyphase convs, the residual k3s; HiFi-GAN's dilated resblocks."""
    rows = [("mimi", 512, 1024, 7, 1, 3, 26)]
    channels, frames = 1024, 26
    for r in (8, 6, 5, 4):
        rows.append(("mimi", channels, channels // 2 * r, 2, 1, 1, frames))  # polyphase
        channels, frames = channels // 2, frames * r
        rows.append(("mimi", channels, channels // 2, 3, 1, 1, frames))
    for c, t, k, d in ((256, 256, 11, 5), (128, 2048, 7, 3), (64, 4096, 3, 1)):
        rows.append(("hifigan", c, c, k, d, d * (k - 1) // 2, t))
    rows.append(("dac", 1024, 1536, 7, 1, 3, 87))
    for c, t, d in ((768, 696, 3), (384, 5568, 9), (192, 22272, 1), (96, 44544, 3)):
        rows.append(("dac", c, c, 7, d, 3 * d, t))
    return [
        Layer("xnn-conv-as-gemm", model, f"conv1d {ci}->{co} k{k} d{d} L{t}",
              lambda ci=ci, co=co, k=k, d=d, p=p: nn.Conv1d(ci, co, k, dilation=d, padding=p),
              (1, ci, t), "f32")
        for model, ci, co, k, d, p, t in rows
    ]  # fmt: skip


def _upsample(channels: tuple[int, ...], dtypes: tuple[str, ...], model: str) -> list[Layer]:
    return [
        Layer(
            "xnn-upsample-nearest", model, f"nearest x2 C{c} {h}x{h}", NearestX2, (1, c, h, h), dt
        )
        for dt in dtypes
        for c in channels
        for h in (16, 32, 64, 128)
    ]


LAYERS: list[Layer] = [
    *_fold_pad(),
    *_fuse_activation(),
    *_upsample((3,), ("f16",), "migan"),
    *_hoist_input_projection(),
    *_conv1d_as_gemm(),
]
SWEEP: list[Layer] = _upsample((1, 2, 3, 4, 8, 16, 32, 64), ("f32", "f16"), "sweep")


def _forced_upsample(model: nn.Module, inputs: tuple, threads: int) -> Program:
    """`xnn-upsample-nearest` with no size limits, for the sweep."""
    forced = UpsampleNearestPass(min_channels=1, max_input_bytes=1 << 62)
    ep = export_program(model, inputs)
    module = import_model(ep)
    PassPipeline(tuple(with_pass_first(forced))).apply(xnnc.make_context(), module)
    return Program(module, threads=threads, profile=True, exported=ep)


def _ops(program: Program) -> Counter[str]:
    skip = ("xnn.subgraph", "xnn.constant", "xnn.output")
    return Counter(
        op.name.removeprefix("xnn.")
        for op in program.module.walk()
        if op.name.startswith("xnn.") and op.name not in skip
    )


def replaced(without: Program, with_: Program) -> str:
    """The ops the rewrite removes -> the ones it adds."""
    a, b = _ops(without), _ops(with_)

    def listed(c: Counter[str]) -> str:
        return " + ".join(f"{n}x {k}" if n > 1 else k for k, n in sorted(c.items())) or "-"

    return f"{listed(a - b)} -> {listed(b - a)}"


def _per_call(program: Program, inputs: tuple, calls: int) -> tuple[float, float]:
    """Seconds per call, and the seconds XNNPACK's nodes took in the last call."""
    # With one thread XNNPACK runs on the calling thread: its CPU time is what the layer
    # costs, and unlike wall time it leaves out the time other processes hold the core.
    clock = time.thread_time if program.threads == 1 else time.perf_counter
    start = clock()
    for _ in range(calls):
        program(*inputs)
    per_call = (clock() - start) / calls
    return per_call, sum(us for _, us in program.profile()) * 1e-6


def measure(layer: Layer, samples: int, threads: int) -> tuple[list[float], str]:
    """Medians of (without, with) seconds per call and of their XNNPACK nodes' time, sampled
    alternately, and what was replaced."""
    torch.manual_seed(0)
    dtype = DTYPES[layer.dtype]
    model = ChannelsLast(layer.make()).to(dtype).eval()
    n, c, *spatial = layer.input
    inputs = (torch.randn(n, *spatial, c, dtype=dtype),)
    off = (layer.rewrite, "canonicalize")
    # conv-as-gemm applies only where its target rule says; measure it on this CPU anyway.
    target = "x86-64-avx2" if layer.rewrite == "xnn-conv-as-gemm" else "host"
    without = xnnc.compile(model, inputs, target=target, threads=threads, profile=True, disable=off)
    if layer.model == "sweep":
        with_ = _forced_upsample(model, inputs, threads)
    else:
        with_ = xnnc.compile(
            model, inputs, target=target, threads=threads, profile=True, disable=off[1:]
        )
    change = replaced(without, with_)
    if change == "- -> -":
        raise RuntimeError(f"{layer.name}: {layer.rewrite} changed nothing")
    with torch.no_grad():
        want = model(*inputs).float()
    tol = 1e-3 if dtype == torch.float32 else 5e-2
    for program in (without, with_):
        err = (program(*inputs).float() - want).abs().max().item()
        if err > tol * max(1.0, want.abs().max().item()):
            raise RuntimeError(f"{layer.name}: |error| {err:.3g} vs eager")
    once = min(_per_call(p, inputs, 1)[0] for p in (without, with_, without, with_))
    calls = max(1, int(SAMPLE_SECONDS / once))
    times: list[tuple[float, float, float, float]] = []
    for _ in range(samples):
        times.append((*_per_call(without, inputs, calls), *_per_call(with_, inputs, calls)))
    off_call, off_nodes, on_call, on_nodes = map(statistics.median, zip(*times, strict=True))
    return [off_call, on_call, off_nodes, on_nodes], change


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated rewrites (fold-pad,...)")
    parser.add_argument("--samples", type=int, default=11)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sweep", action="store_true", help="the upsample channel/size sweep")
    args = parser.parse_args(argv)
    only = {f"xnn-{name}" for name in filter(None, args.only.split(","))}
    warnings.filterwarnings("ignore")
    clock = "thread CPU time" if args.threads == 1 else "wall time"
    print(f"per-layer rewrites, {time.strftime('%Y-%m-%d')}, {args.threads} thread(s), {clock} "
          f"per call and XNNPACK's own node time (profile), median of {args.samples} "
          "alternating samples; ratio = without / with")  # fmt: skip
    print(f"{'rewrite':26} {'model':7} {'layer':36} {'dtype':5} {'call ms: w/o':>12} {'with':>7} "
          f"{'ratio':>5} {'nodes ms: w/o':>13} {'with':>7} {'ratio':>5}  replaces")  # fmt: skip
    for layer in LAYERS + (SWEEP if args.sweep else []):
        if only and layer.rewrite not in only:
            continue
        (off, on, off_nodes, on_nodes), change = measure(layer, args.samples, args.threads)
        print(f"{layer.rewrite:26} {layer.model:7} {layer.name:36} {layer.dtype:5} "
              f"{off * 1e3:12.3f} {on * 1e3:7.3f} {off / on:5.2f} {off_nodes * 1e3:13.3f} "
              f"{on_nodes * 1e3:7.3f} {off_nodes / on_nodes:5.2f}  {change}",
              flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
