"""Streaming the zoo's audio decoders (issue 45), side by side in one run.

    python -m xnnc.benchmarks.streaming_bench [--models mimi_decoder,hifigan] [--small]
        [--quantize static|dynamic]

For each decoder the zoo can stream, at 1 and 2 threads:
- offline: the decoder compiled for 64 frames, its time divided by 64;
- stream: `xnnc.compile(..., streaming=Streaming(frames_per_call=1))` fed 64 frames one
  call each, per frame (the issue's target: <= 1.2x offline);
- window: what a streaming server does without the compiler: the decoder compiled for its
  receptive window (the input frames one output frame depends on, measured by perturbing
  one input frame in eager), run once per new frame (the target: stream >= 10x faster);
- the receptive window (frames back + 1 + ahead; ">=" where it reaches past half the 64
  frames, as a transformer's does, and the window loop recomputes only that much), the
  lookahead, the stream's state and the activations of one window of the offline decoder
  (the state must be at most those).
Each time is the fastest of REPEATS runs, the loops alternating, the estimate least
disturbed by other processes. `--quantize` streams each model as PT2E quantizes it
(XNNPACKQuantizer per channel; "dynamic": its dynamic int8 config) against its float
rows in the same run: int8 weights are a quarter of the bytes a call at 1 frame reads.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import torch

import xnnc
from xnnc.dialects.types import tensor_nbytes
from xnnc.examples import models, quantized_models
from xnnc.frontend.fx_importer import export_program, import_model
from xnnc.target import Target

MODELS = {"mimi_decoder": "none", "mimi_transformer_decoder": "none", "hifigan": "auto",
          "dac_decoder": "auto", "encodec_decoder": "auto"}  # fmt: skip
FRAMES, REPEATS = 64, 5


def receptive(model: torch.nn.Module, channels: int, rate: int) -> tuple[int, int]:
    """(frames back, frames ahead) one output frame depends on: the output frames that
    change when one input frame in the middle of 64 does."""
    torch.manual_seed(0)
    x = torch.randn(1, channels, FRAMES)
    y = model(x)
    x2 = x.clone()
    x2[..., FRAMES // 2] += 1.0
    changed = ((model(x2) - y).abs()[0].amax(0) > 0).nonzero().flatten()
    first, last = changed[0].item() // rate, changed[-1].item() // rate
    return last - FRAMES // 2, FRAMES // 2 - first


def activations(model: torch.nn.Module, x: torch.Tensor) -> int:
    """Bytes of every value the offline decoder computes for input `x` (not its weights)."""
    with torch.no_grad():
        module = import_model(export_program(model, (x,)))
    total = 0
    for op in module.walk():
        if op.name in ("aten.constant", "func.func", "builtin.module", "func.return"):
            continue
        for r in op.results:
            shape = r.type.get_shape()
            total += tensor_nbytes(shape, r.type.element_type)
    return total


def fastest(loops: dict[str, Callable[[], None]]) -> dict[str, float]:
    best = dict.fromkeys(loops, float("inf"))
    for loop in loops.values():
        loop()  # warm up
    for _ in range(REPEATS):
        for name, loop in loops.items():
            start = time.perf_counter()
            loop()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def bench(name: str, small: bool, threads: int, quantize: str = "") -> str:
    model, (example,) = getattr(models, f"make_{name}")(small=small)
    channels = example.shape[1]
    torch.manual_seed(1)
    latent = torch.randn(1, channels, FRAMES)
    rate = model(latent[..., :1].repeat(1, 1, 4)).shape[-1] // 4
    back, ahead = receptive(model, channels, rate)
    float_model = model
    if quantize:
        time = {2: torch.export.Dim("T", min=1, max=1024)}
        model = quantized_models.quantize(model, (latent,), 4, dynamic=quantize == "dynamic",
                                          dynamic_shapes=(time,)).module()  # fmt: skip
    window = back + 1 + ahead
    # A window longer than half the 64 frames (a transformer's) is cut there: the window
    # loop then recomputes fewer frames than it would need, in its favour.
    reach = f"{'>=' if back >= FRAMES // 2 - 1 else ''}{back}+1+{ahead}"
    lookahead = MODELS[name]
    stream_program = xnnc.compile(model, (example,), threads=threads, streaming=xnnc.Streaming(
        frames_per_call=1, lookahead=lookahead))  # fmt: skip
    offline = xnnc.compile(model, (latent,), threads=threads)
    windowed = xnnc.compile(model, (latent[..., :window],), threads=threads)
    chunks = [latent[..., i : i + 1] for i in range(FRAMES)]
    last = latent[..., :window]

    def stream() -> None:
        s = stream_program.open()
        for c in chunks:
            s(c)

    def recompute() -> None:
        for _ in range(FRAMES):
            windowed(last)

    t = fastest({"offline": lambda: offline(latent), "stream": stream, "window": recompute})
    per = {k: v / FRAMES * 1e3 for k, v in t.items()}  # ms per frame
    state = stream_program.state_nbytes()
    acts = activations(float_model, latent[..., :window])
    label = f"{name} ({quantize} int8)" if quantize else name
    return (
        f"| {label} | {threads} | {per['offline']:.3f} | {per['stream']:.3f} | "
        f"{per['stream'] / per['offline']:.2f}x | {per['window']:.3f} | "
        f"{per['window'] / per['stream']:.1f}x | {reach} | "
        f"{stream_program.lookahead} | {state / 1024:.0f} KiB | {acts / 1024:.0f} KiB |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--small", action="store_true", help="the zoo's small configurations")
    parser.add_argument("--quantize", choices=("static", "dynamic"),
                        help="also each model quantized by PT2E, in the same run")  # fmt: skip
    args = parser.parse_args()
    cpu = Target.host()
    print(f"CPU: {platform.processor() or platform.machine()}, target {cpu}; "
          f"{'small' if args.small else 'full-size'} models; ms per frame, fastest of "
          f"{REPEATS}")  # fmt: skip
    print(
        "| model | threads | offline | stream | stream/offline | window | window/stream "
        "| receptive (back+1+ahead) | lookahead | state | window activations |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for threads in (1, 2):
            for quantize in ("", *([args.quantize] if args.quantize else [])):
                print(bench(name, args.small, threads, quantize), flush=True)


if __name__ == "__main__":
    main()
