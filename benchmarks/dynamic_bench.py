"""A program compiled once with a dynamic size against a static compile at each size.

    python -m xnnc.benchmarks.dynamic_bench [--quick] [--decoders-only] [--small]
                                            [--decoders mimi,encodec] [--repeats N]
                                            [--llama | --convnet | --encodec]

Two models with a dynamic time axis (1..64): a conv1d audio stack (3 convs, 64 channels,
kernel 7, a skip and a concatenate) and a 2-layer MLP over a sequence (256 -> 1024 -> 256).
For each size, the dynamic program (compiled once, at 13 frames) and a static compile at
that size alternate calls, and each reports its fastest repeat (the estimate least
disturbed by other processes). `ratio` is dynamic / static: the issue's target is <= 1.05.
`reshape` is what a call that changes the size costs on top of one that does not: the
dynamic program alternates between the size and 1 frame (each call reshapes XNNPACK once),
less the two sizes' fixed-size times, per call.

Then the zoo's audio decoders (examples/models.py: Mimi, DAC, HiFi-GAN, EnCodec; `--small`
for their small variants), compiled once for 1..64 frames (EnCodec: 4..64, its reflect
padding needs 4) and statically at each size, both with the
static rules (`tune=False`: the tuner times forms at one size, so the dynamic compile skips
it). The header lists what the dynamic compile declined (`xnn.declined`) and its polyphase
choices: where those differ from the static compile's ("per-phase" on a symbolic size where
the static compile crops one convolution), it runs a different form.

Then the LLaMA-style bf16 block (dim 512, 8 heads, SwiGLU 1536, a 1024-row causal mask, its
context; S in 1..512) compiled once against static compiles at S = 1 (decode, the issue's target:
<= 1.05) and S = 64 (prefill): bf16 in and out, 1 thread. And ResNet-18 (small) compiled
once for H = 32*h, W = 32*w against static compiles at three image sizes (`--convnet`).

`--encodec [--small]` splits EnCodec's dynamic/static gap: its dynamic compile runs the
LSTM on xnnc's recurrent loop over XNNPACK (a symbolic time axis cannot be unrolled) between
two XNNPACK pieces; its reflect pads run in XNNPACK (slices counted from the end: the extended
runtime's XNNStaticSliceV3).
Per size, interleaved: the static compile, the static compile with the reflect pads kept out
of XNNPACK (`exclude`), the dynamic compile, the dynamic compile with its LSTM on torch (as
before the loop); and the SLSTM alone (the LSTM with its permutes and skip) as torch eager
runs it, on the loop (compiled once for 4..64) and statically compiled (unrolled in XNNPACK,
the input projection hoisted), with the loop's and the unrolled compile's time per layer
and frame; and the op alone, without xnnc's pieces around it: torch's `aten.lstm.input`
against the loop's runner on the same tensors. torch runs on 1 thread, like XNNPACK.
"""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Callable
from functools import partial

import torch
from torch.export import Dim

import xnnc
from xnnc.benchmarks.zoo import machine
from xnnc.cost.decision import DECLINED_ATTR
from xnnc.examples.models import MODELS

SIZES = (1, 7, 13, 40, 64)


class AudioStack(torch.nn.Module):
    def __init__(self, channels: int = 64) -> None:
        super().__init__()
        self.inp = torch.nn.Conv1d(8, channels, 7, padding=3)
        self.mid = torch.nn.Conv1d(channels, channels, 7, padding=3)
        self.out = torch.nn.Conv1d(channels, channels, 7, padding=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.nn.functional.elu(self.inp(x))
        h = torch.nn.functional.elu(self.mid(h)) + h
        return torch.cat([torch.tanh(self.out(h)), x], dim=1)


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up, self.down = torch.nn.Linear(256, 1024), torch.nn.Linear(1024, 256)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.nn.functional.gelu(self.up(x))) + x


def _input(name: str, size: int) -> torch.Tensor:
    return torch.randn(1, 8, size) if name == "audio" else torch.randn(1, size, 256)


def _best_us(calls: list[Callable[[], object]], repeats: int, n: int) -> list[float]:
    """Per-call microseconds of each callable: interleaved repeats, fastest of each."""
    best = [float("inf")] * len(calls)
    for _ in range(repeats):
        for i, call in enumerate(calls):
            start = time.perf_counter()
            for _ in range(n):
                call()
            best[i] = min(best[i], (time.perf_counter() - start) / n * 1e6)
    return best


def _times(static, dynamic, x, one, repeats: int, n: int) -> list[float]:
    """static(x), dynamic(x), dynamic(one) and dynamic(x) + dynamic(one) (two reshapes)."""

    def changing() -> None:
        dynamic(x)
        dynamic(one)

    calls = [lambda: static(x), lambda: dynamic(x), lambda: dynamic(one), changing]
    return _best_us(calls, repeats, n)


def bench(name: str, model: torch.nn.Module, axis: int, repeats: int, n: int) -> None:
    dims = {"x": {axis: Dim("T", min=1, max=64)}}
    dynamic = xnnc.compile(model, (_input(name, 13),), dynamic_shapes=dims)
    print(f"\n{name}: dynamic compile (1..64) vs static compile at each size, fp32, 1 thread")
    print(f"{'size':>5} {'static us':>10} {'dynamic us':>11} {'ratio':>6} {'reshape us':>10}")
    for size in SIZES:
        x, one = _input(name, size), _input(name, 1)
        static = xnnc.compile(model, (x,))
        with torch.no_grad():
            err = (dynamic(x) - model(x)).abs().max().item()
        assert err < 1e-4, f"{name} at {size}: max error {err}"

        s, d, d1, c = _times(static, dynamic, x, one, repeats, n)
        print(f"{size:>5} {s:>10.1f} {d:>11.1f} {d / s:>6.3f} {(c - d - d1) / 2:>10.1f}")


DECODERS = ("mimi", "dac", "hifigan", "encodec")
# EnCodec's reflect padding (3 each side) needs 4 frames; the others take 1.
MIN_FRAMES = {"encodec": 4}


def _sizes(name: str) -> tuple[int, ...]:
    low = MIN_FRAMES.get(name, 1)
    return tuple(sorted({max(s, low) for s in SIZES}))


def _declined(program: xnnc.Program) -> str:
    """`rewrite: count` of the rewrites the dynamic compile declined."""
    counts: dict[str, int] = {}
    for op in program.module.walk():
        if DECLINED_ATTR in op.attributes:
            for name in op.attributes[DECLINED_ATTR].data:
                counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items())) or "none"


def _polyphase_forms(program: xnnc.Program) -> str:
    """`choice xcount` of the program's polyphase decisions."""
    counts: dict[str, int] = {}
    for d in program.decisions():
        if d.form == "polyphase":
            counts[d.choice] = counts.get(d.choice, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items())) or "none"


def bench_decoder(name: str, small: bool, repeats: int, n: int) -> None:
    model, (example,) = MODELS[name](small=small)
    channels = example.shape[1]
    arg = next(iter(inspect.signature(model.forward).parameters))
    low = MIN_FRAMES.get(name, 1)
    dims = {arg: {2: Dim("T", min=low, max=64)}}
    dynamic = xnnc.compile(model, (example[..., :64],), dynamic_shapes=dims, tune=False)
    size_note = "small" if small else "full"
    outside = ", ".join(sorted(set(dynamic.ops_outside()))) or "none"
    print(f"\n{name} ({size_note}): dynamic compile ({low}..64 frames) vs static compile at "
          f"each size, fp32, 1 thread, static rules; declined: {_declined(dynamic)}; "
          f"polyphase: {_polyphase_forms(dynamic)}; outside: {outside}")  # fmt: skip
    print(f"{'frames':>6} {'static ms':>10} {'dynamic ms':>11} {'ratio':>6}")
    ratios = []
    for size in _sizes(name):
        x = torch.randn(1, channels, size)
        static = xnnc.compile(model, (x,), tune=False)
        with torch.no_grad():
            ref = model(x)
        err = (dynamic(x) - ref).abs().max().item()
        assert err < 1e-4, f"{name} at {size}: max error {err}"
        s, d = _best_us([partial(static, x), partial(dynamic, x)], repeats, n)
        ratios.append(d / s)
        print(f"{size:>6} {s / 1e3:>10.2f} {d / 1e3:>11.2f} {d / s:>6.3f}")
    print(f"{'':>6} {'':>10} {'worst':>11} {max(ratios):>6.3f}")


def bench_encodec(small: bool, repeats: int, n: int) -> None:
    from xnnc.examples.models import SLSTM

    model, (example,) = MODELS["encodec"](small=small)
    channels = example.shape[1]
    pads = ("aten.reflection_pad1d",)
    dims = {"x": {2: Dim("T", min=4, max=64)}}
    dynamic = xnnc.compile(model, (example[..., :64],), dynamic_shapes=dims, tune=False)
    # The same program with its LSTM on torch, as before xnnc's loop (savable: the IR keeps
    # the LSTM's weights, which torch reads); a benchmark's switch, not an option.
    on_torch = xnnc.compile(model, (example[..., :64],), dynamic_shapes=dims, tune=False,
                            savable=True)  # fmt: skip
    on_torch._recurrent.runners.clear()
    slstm = model.model[1]
    assert isinstance(slstm, SLSTM)
    width, layers = slstm.lstm.hidden_size, slstm.lstm.num_layers
    lstm_loop = xnnc.compile(slstm, (torch.randn(1, width, 64),), dynamic_shapes=dims,
                             tune=False)  # fmt: skip
    # The op alone: torch's aten.lstm.input (oneDNN) against the loop's runner, same inputs.
    ((runner, _),) = lstm_loop._recurrent.runners.values()
    params = list(slstm.lstm._flat_weights)
    state = torch.zeros(layers, 1, width)
    print(f"\nencodec ({'small' if small else 'full'}): where the dynamic compile's time goes "
          f"(ms, fastest of {repeats}), fp32, 1 thread (torch too); LSTM: the SLSTM alone on "
          "torch, on xnnc's loop (dynamic compile) and unrolled (static compile); us/step: "
          "the loop's and the unrolled compile's time per layer and frame")  # fmt: skip
    print(f"{'frames':>6} {'static':>8} {'pads out':>9} {'dynamic':>8} {'dyn torch':>10} "
          f"{'dyn/st':>7} {'LSTM torch':>11} {'loop':>7} {'unrolled':>9} "
          f"{'us/step':>13} {'op torch':>9} {'op loop':>8}")  # fmt: skip
    for size in _sizes("encodec"):
        x = torch.randn(1, channels, size)
        static = xnnc.compile(model, (x,), tune=False)
        pads_out = xnnc.compile(model, (x,), tune=False, exclude=pads)
        h = torch.randn(1, width, size)
        lstm_xnnc = xnnc.compile(slstm, (h,), tune=False)
        with torch.no_grad():
            for program in (dynamic, on_torch):
                err = (program(x) - model(x)).abs().max().item()
                assert err < 1e-4, f"encodec at {size}: max error {err}"
            err = (lstm_loop(h) - slstm(h)).abs().max().item()
            assert err < 1e-4, f"encodec's LSTM at {size}: max error {err}"

            def lstm_torch() -> object:
                return slstm(h)  # noqa: B023

            frames = h.permute(2, 0, 1).contiguous()
            op_torch = partial(torch.ops.aten.lstm.input, frames, (state, state), params, True,
                               layers, 0.0, False, False, False)  # fmt: skip
            want, got = op_torch(), runner(frames, state, state)
            for g, w in zip(got, want):
                assert (g - w).abs().max().item() < 1e-4, f"encodec's LSTM op at {size}"
            s, p, d, dt, lt, ll, lx, ot, ol = _best_us(
                [partial(static, x), partial(pads_out, x), partial(dynamic, x),
                 partial(on_torch, x), lstm_torch, partial(lstm_loop, h), partial(lstm_xnnc, h),
                 op_torch, partial(runner, frames, state, state)],
                repeats, n,
            )  # fmt: skip
        steps = layers * size
        print(f"{size:>6} {s / 1e3:>8.2f} {p / 1e3:>9.2f} {d / 1e3:>8.2f} {dt / 1e3:>10.2f} "
              f"{d / s:>7.3f} {lt / 1e3:>11.3f} {ll / 1e3:>7.3f} {lx / 1e3:>9.3f} "
              f"{ll / steps:>6.1f} {lx / steps:>6.1f} {ot / 1e3:>9.3f} "
              f"{ol / 1e3:>8.3f}")  # fmt: skip


def bench_llama(repeats: int, n: int) -> None:
    from xnnc.examples.models import TransformerBlockBF16, randomize_norms

    torch.manual_seed(0)
    model = TransformerBlockBF16(512, 8, 1536, seq_len=1024)
    randomize_norms(model)
    model.eval()
    x7 = torch.randn(1, 7, 512, dtype=torch.bfloat16)
    dims = {"x": {1: Dim("S", min=1, max=512)}}
    dynamic = xnnc.compile(model, (x7,), dynamic_shapes=dims)
    print("\nllama bf16 block: dynamic compile (S in 1..512) vs static compile at S, 1 thread")
    print(f"{'S':>5} {'static us':>10} {'dynamic us':>11} {'ratio':>6}")
    for size in (1, 64):
        x = torch.randn(1, size, 512, dtype=torch.bfloat16)
        static = xnnc.compile(model, (x,))
        with torch.no_grad():
            err = (dynamic(x).float() - model(x).float()).abs().max().item()
        assert err < 3e-2 * 8, f"llama at {size}: max error {err}"
        s, d = _best_us([lambda: static(x), lambda: dynamic(x)], repeats, n)  # noqa: B023
        print(f"{size:>5} {s:>10.1f} {d:>11.1f} {d / s:>6.3f}")


def bench_convnet(repeats: int, n: int) -> None:
    from xnnc.examples.models import make_resnet

    model, (x64,) = make_resnet(small=True)
    h, w = Dim("h", min=1, max=8), Dim("w", min=1, max=8)
    dynamic = xnnc.compile(model, (x64,), dynamic_shapes={"x": {2: 32 * h, 3: 32 * w}})
    print("\nresnet (small): dynamic compile (H = 32*h, W = 32*w) vs static compile, fp32")
    print(f"{'HxW':>8} {'static us':>10} {'dynamic us':>11} {'ratio':>6}")
    for height, width in ((64, 64), (128, 96), (256, 256)):
        x = torch.randn(1, 3, height, width)
        static = xnnc.compile(model, (x,))
        with torch.no_grad():
            err = (dynamic(x) - model(x)).abs().max().item()
        assert err < 1e-3, f"resnet at {height}x{width}: max error {err}"
        s, d = _best_us([lambda: static(x), lambda: dynamic(x)], repeats, n)  # noqa: B023
        print(f"{f'{height}x{width}':>8} {s:>10.1f} {d:>11.1f} {d / s:>6.3f}")


def _flag(name: str, default: str) -> str:
    """The value after `name` on the command line, or `default`."""
    args = sys.argv[1:]
    return args[args.index(name) + 1] if name in args[:-1] else default


def main() -> None:
    quick = "--quick" in sys.argv
    if "--llama" in sys.argv:
        bench_llama(*((3, 10) if quick else (9, 40)))
        return
    if "--convnet" in sys.argv:
        bench_convnet(*((3, 10) if quick else (9, 40)))
        return
    repeats, n = (3, 20) if quick else (7, 100)
    repeats = int(_flag("--repeats", str(repeats)))  # more on a noisy machine
    decoders = _flag("--decoders", ",".join(DECODERS)).split(",")
    if unknown := sorted(set(decoders) - set(DECODERS)):
        sys.exit(f"dynamic_bench: error: unknown decoder {', '.join(unknown)}; valid: "
                 f"{', '.join(DECODERS)}")  # fmt: skip
    torch.manual_seed(0)
    torch.set_num_threads(1)  # ops outside XNNPACK run on torch: the same single thread
    if "--encodec" in sys.argv:
        print(f"CPU: {machine()}")
        bench_encodec("--small" in sys.argv, repeats, max(n // 20, 2))
        return
    print(f"CPU: {machine()}")
    if "--decoders-only" not in sys.argv:
        bench("audio", AudioStack().eval(), 2, repeats, n)
        bench("mlp", Mlp().eval(), 1, repeats, n)
    for name in decoders:
        bench_decoder(name, "--small" in sys.argv, repeats, max(n // 20, 2))
    if "--decoders-only" not in sys.argv:
        bench_llama(repeats, max(n // 4, 5))
        bench_convnet(repeats, max(n // 4, 5))


if __name__ == "__main__":
    main()
