"""Frontend costs: import time and memory of a 30M-parameter model, IR scaling to 10k ops.

    python -m xnnc.benchmarks.frontend_bench

Targets (issue 2): import of a 30M-parameter model <= 2 s; peak extra memory <= 1.2x the
weights (weights are referenced, not copied); print/parse/canonicalize/cse linear in the
op count. Each measurement runs in a fresh process so peak RSS is the import's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

MEASURE_IMPORT = r"""
import json, resource, sys, time
import torch, torch.nn as nn
import xnnc
from xnnc.frontend.fx_importer import decompose, export_program, FxImporter

torch.manual_seed(0)
# 7 x (2048 x 2048 + 2048) ~= 29.4M parameters, with convs so the graph is not trivial.
layers = []
for _ in range(7):
    layers += [nn.Linear(2048, 2048), nn.GELU()]
model = nn.Sequential(*layers).eval()
x = torch.randn(4, 2048)
weights = sum(p.numel() * p.element_size() for p in model.parameters())
# Warm torch.export's one-time setup on a tiny model, so we time the import itself.
xnnc.import_model(nn.Linear(2, 2), (torch.randn(1, 2),))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.perf_counter()
ep = export_program(model, (x,))
t1 = time.perf_counter()
ep = decompose(ep)
t2 = time.perf_counter()
module = FxImporter(ep, "forward").run()
module.verify()
t3 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t4 = time.perf_counter(); text = str(module); t5 = time.perf_counter()
print(json.dumps(dict(params=sum(p.numel() for p in model.parameters()), weights=weights,
    export=t1 - t0, decompose=t2 - t1, build=t3 - t2, total=t3 - t0,
    extra_peak=peak - base, print_s=t5 - t4, text_bytes=len(text))))
"""

MEASURE_SCALING = r"""
import json, sys, time
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
import xnnc
from xnnc.dialects import aten

n = int(sys.argv[1])
t = TensorType(f32, [1, 64])
block = Block(arg_types=[t])
v = block.args[0]
for i in range(n):
    op = [aten.ReluOp, aten.TanhOp, aten.SigmoidOp][i % 3].build(operands=[v], result_types=[t])
    block.add_op(op)
    v = op.results[0]
block.add_op(ReturnOp(v))
module = ModuleOp([FuncOp("forward", ([t], [t]), Region(block))])
ctx = xnnc.make_context()
out = {}
def timed(key, fn):
    s = time.perf_counter(); result = fn(); out[key] = time.perf_counter() - s
    return result
text = timed("print", lambda: xnnc.print_module(module))
parsed = timed("parse", lambda: xnnc.parse_module(text))
timed("canonicalize", lambda: CanonicalizePass().apply(ctx, parsed))
timed("cse", lambda: CommonSubexpressionElimination().apply(ctx, parsed))
print(json.dumps(out))
"""


def _run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    print(f"frontend benchmark, {time.strftime('%Y-%m-%d')}")
    r = _run(MEASURE_IMPORT)
    print(f"import of a {r['params'] / 1e6:.1f}M-parameter model ({r['weights'] / 2**20:.0f} MiB "
          f"of weights): {r['total']:.2f} s = torch.export {r['export']:.2f} + decompose "
          f"{r['decompose']:.2f} + xnnc IR build {r['build']:.3f}  [target <= 2 s]")  # fmt: skip
    ratio = r["extra_peak"] / r["weights"]
    print(f"peak extra memory: {r['extra_peak'] / 2**20:.0f} MiB = {ratio:.2f}x the weights  "
          f"[target <= 1.2x]; printing it: {r['print_s'] * 1e3:.1f} ms, "
          f"{r['text_bytes'] / 1024:.1f} KiB")  # fmt: skip
    print("IR scaling (seconds; per-op microseconds in parentheses):")
    print(f"  {'ops':>6} " + " ".join(f"{k:>22}" for k in ("print", "parse", "canonicalize",
                                                           "cse")))  # fmt: skip
    rows = {}
    for n in (2500, 5000, 10000):
        rows[n] = _run(MEASURE_SCALING, str(n))
        cells = " ".join(f"{v:9.3f} ({v / n * 1e6:7.1f} us)" for v in rows[n].values())
        print(f"  {n:>6} {cells}")
    growth = {k: rows[10000][k] / rows[2500][k] for k in rows[10000]}
    print("  10k/2.5k time ratio (4.0 = linear): "
          + ", ".join(f"{k} {v:.1f}" for k, v in growth.items()))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
