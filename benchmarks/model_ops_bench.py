"""The model ops lowered as compositions (log_softmax, tanh GELU's stock form, GLU) against
eager and stock ExecuTorch, side by side in one process.

    python -m xnnc.benchmarks.model_ops_bench [--ops log_softmax,gelu_tanh] [--runs 7]

Each op alone at a size real models use (a 32000-word vocabulary, a BERT-base MLP
activation). Systems as in the zoo benchmark: eager, stock ExecuTorch's XnnpackPartitioner
(`stock`), xnnc's .pte on stock ExecuTorch (`xnnc-pte`: the stock forms), xnnc on its
extended runtime (`xnnc`). Median per call at 1 thread, alternating systems round by
round; ratio = eager / system: above 1 the system is faster. `outside` counts the ops left
to ExecuTorch's portable kernels (stock leaves log_softmax there).
"""

from __future__ import annotations

import argparse
import statistics

import torch
import torch.nn.functional as F

from xnnc.benchmarks.zoo import LoadMeter, build, machine, measure


class Fn(torch.nn.Module):
    """A function as a module, for torch.export."""

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)


OPS = {
    "log_softmax": (lambda x: F.log_softmax(x, -1), (8, 32000)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), (128, 3072)),
    "gelu": (F.gelu, (128, 3072)),
    "silu": (F.silu, (128, 3072)),
    "glu": (lambda x: F.glu(x, -1), (128, 6144)),
}
SYSTEMS = ("eager", "stock", "xnnc-pte", "xnnc")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    meter = LoadMeter()
    print(f"model ops, {machine()}; 1 thread, {args.runs} rounds")
    print(f"{'op':<12} {'shape':<12} " + " ".join(f"{s:>18}" for s in SYSTEMS))
    for name in args.ops.split(","):
        fn, shape = OPS[name]
        model, x = Fn(fn).eval(), torch.randn(shape) * 4
        systems = [build(s, model, (x,)) for s in SYSTEMS]
        cells = measure(systems, 1, args.runs, model(x), meter, quiet=0.5, max_wait=5.0)
        base = statistics.median(cells["eager"].samples) if "eager" in cells else None
        row = []
        for s in systems:
            if s.name not in cells:
                row.append(f"{'error':>18}")
                continue
            ms = statistics.median(cells[s.name].samples) * 1e3
            ratio = f"x{base * 1e3 / ms:.2f}" if base else ""
            row.append(f"{ms:8.3f}ms {ratio:>5} o{s.outside or 0}")
        print(f"{name:<12} {'x'.join(map(str, shape)):<12} " + " ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
