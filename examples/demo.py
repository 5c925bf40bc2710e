"""`make demo`: import the embedded Mimi-style decoder and check the reference against eager.

python -m xnnc.examples.demo [--model NAME] [--small]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

import torch

import xnnc
from xnnc.examples.models import MODELS


def op_summary(module) -> list[tuple[str, int]]:
    counts: Counter[str] = Counter()
    for op in module.walk():
        if op.name.startswith("aten."):
            name = op.name
            if name == "aten.generic":
                name = f"aten.generic {op.target.data}"
            counts[name] += 1
    return counts.most_common()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mimi", choices=sorted(MODELS))
    parser.add_argument("--small", action="store_true", help="the reduced-size variant")
    args = parser.parse_args(argv)

    model, inputs = MODELS[args.model](small=args.small)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {args.model} ({type(model).__name__}), {n_params / 1e6:.1f}M parameters, "
          f"inputs {[list(x.shape) for x in inputs]}")  # fmt: skip

    start = time.perf_counter()
    module = xnnc.import_model(model, inputs)
    print(f"imported into `aten` in {time.perf_counter() - start:.2f} s")
    print("op summary:")
    for name, count in op_summary(module):
        print(f"  {count:5d}  {name}")

    with torch.no_grad():
        start = time.perf_counter()
        expected = model(*inputs)
        eager_s = time.perf_counter() - start
        start = time.perf_counter()
        (got,) = xnnc.run_reference(module, inputs)
        ref_s = time.perf_counter() - start
    err = (got.float() - expected.float()).abs().max().item()
    scale = expected.float().abs().max().item()
    print(f"output {list(got.shape)} {got.dtype}")
    print(f"reference interpreter vs torch eager: max |error| = {err:.3g} "
          f"(output max |value| {scale:.3g})")  # fmt: skip
    print(f"eager {eager_s * 1e3:.1f} ms, reference interpreter {ref_s * 1e3:.1f} ms")
    ok = err <= 1e-4 * max(1.0, scale)
    print("OK: the reference reproduces eager" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
