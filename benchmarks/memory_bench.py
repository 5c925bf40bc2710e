"""Memory of compile, load and to_pte against the size of the weights.

    python -m xnnc.benchmarks.memory_bench [--models linear7,resnet]
                                           [--what compile,load,load_run,to_pte,write_pte,
                                                   pte_run,stock_pte_run]
                                           [--disable lstm-loop] [--target stock]

Targets (issue 12): compile peak <= 1.3x the weights and <= 1.1x after it returns, load
<= 1.1x, to_pte <= 1.3x.

Each measurement runs in a fresh subprocess: it builds the model (the zoo's, or 7 x
nn.Linear(2048, 2048), 112 MiB of fp32 weights), warms torch and xnnc on a tiny model of
the same kind (imports, torch.export, XNNPACK's library), then takes the baseline: RSS with
the high-water mark reset (`/proc/self/clear_refs`) after returning freed heap
(`malloc_trim`, as "after" does). Extra memory is VmHWM (peak) and VmRSS
(after the call returns, result still alive, garbage collected and `malloc_trim`med)
minus that baseline, printed as MiB and as a
ratio to the model's weight bytes. `load` reads a program file saved beforehand by another
subprocess (with XNNPACK's packed weights in it); its baseline has no model in it.
`load_run` is `load` and the first call: the packed weights are mapped from the file, so
their pages come in when XNNPACK first reads them, not at `load`. `to_pte` returns the
`.pte` bytes (alive in "after"); `write_pte` streams the same `.pte` to a file, as
`Program.save("m.pte")` does. `pte_run` loads that `.pte` (written beforehand by another
subprocess) on stock ExecuTorch's runtime (`xnnc.pte.StockRuntime`: the pybindings'
buffer loader, so the file's bytes are in memory) and makes the first call, where
ExecuTorch's XNNPACK delegate creates its runtimes and packs the weights; `stock_pte_run`
does the same with stock ExecuTorch's own lowering of the model (`XnnpackPartitioner`).
ExecuTorch 1.5.1's pip wheel gives XNNPACK no weights cache (its `weight_cache_enabled`
backend option is off and the pybindings cannot set it), so every node packs its own copy
of its filter, even where several nodes read one constant.

"The weights" are the model's parameters and buffers as the user holds them (for a
weight-normed layer: g and v, not the folded filter xnnc computes, which counts as extra).
The extra memory that is not a copy of the weights is measured on its own in the same run:
- `workspace`: XNNPACK's activation memory, the pages `xnn_reshape_runtime` takes (its
  memory planner sizes it from the activations, not the weights); a runtime is reshaped
  at its first run, so only `load_run` takes it;
- `to_edge`: the peak of ExecuTorch's `to_edge` (its decomposed graphs, before xnnc's
  partitioner first runs; it includes `XnncPartitioner.transform_for_pre_decomposition`,
  which imports the program with its LSTMs whole to see whether xnnc takes them), for
  to_pte/write_pte;
- `pools`: free pymalloc pools CPython keeps at the end (arenas pinned by a few live small
  objects among a freed graph's), part of "after".
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

MIB = 2**20
WHATS = ("compile", "load", "load_run", "to_pte", "write_pte", "pte_run", "stock_pte_run")
PTES = {"pte_run": ".pte", "stock_pte_run": ".stock.pte"}  # what -> the file's suffix


def linear7(small: bool = False) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """7 x nn.Linear(2048, 2048): 112 MiB of fp32 weights (small: 7 x 64)."""
    torch.manual_seed(0)
    width = 64 if small else 2048
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(7)]).eval()
    return model, (torch.randn(1, width),)


def _factory(name: str) -> Callable[..., Any]:
    from xnnc.examples.models import MODELS

    return linear7 if name == "linear7" else MODELS[name]


def _memory() -> dict[str, float]:
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) * 1024 / MIB
    return fields


def _reset_peak() -> dict[str, float]:
    gc.collect()
    # Freed heap of the warm-up (the model's eager run) would otherwise be reused by the
    # call unseen, hiding as much of its memory.
    _trim()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    return _memory()


def _trim() -> None:
    """Return freed heap memory to the system, so that "after" counts live memory, not
    glibc's free lists (freed arrays below its mmap threshold stay in the heap)."""
    ctypes.CDLL("libc.so.6").malloc_trim(0)


def weight_bytes(model: nn.Module) -> int:
    """The model's parameters and buffers, bytes, each tensor once."""
    tensors = {t.data_ptr(): t for t in [*model.parameters(), *model.buffers()]}
    return sum(t.numel() * t.element_size() for t in tensors.values())


def child(name: str, what: str, path: str, options: str = "{}") -> dict[str, float]:
    """One measurement in this (fresh) process; `options`: the compile options' keywords
    (`disable`, `target`) as JSON."""
    kwargs = json.loads(options)
    import xnnc
    from xnnc.pte import to_pte, write_pte

    make = _factory(name)
    tiny_model, tiny_inputs = make(small=True)
    with torch.no_grad():
        tiny_model(*tiny_inputs)
    loads = what in ("load", "load_run", *PTES)
    model, inputs = (None, make()[1]) if loads else make()
    weights = weight_bytes(make(small=False)[0]) if loads else weight_bytes(model)
    if what == "compile":
        xnnc.compile(tiny_model, tiny_inputs)(*tiny_inputs)
        with torch.no_grad():
            model(*inputs)
        call = lambda: xnnc.compile(model, inputs, **kwargs)  # noqa: E731
    elif what in PTES:
        tiny = os.path.join(os.path.dirname(path), "tiny.pte")
        write_pte(tiny, tiny_model, tiny_inputs)
        _pte_loaded_and_run(tiny, tiny_inputs)
        call = lambda: _pte_loaded_and_run(path + PTES[what], inputs)  # noqa: E731
    elif loads:
        tiny = os.path.join(os.path.dirname(path), "tiny.xnnc")
        xnnc.compile(tiny_model, tiny_inputs, savable=True).save(tiny)
        xnnc.load(tiny)(*tiny_inputs)
        if what == "load":
            call = lambda: xnnc.load(path)  # noqa: E731
        else:
            call = lambda: _loaded_and_run(path, inputs)  # noqa: E731
    else:
        to_pte(tiny_model, tiny_inputs)
        with torch.no_grad():
            model(*inputs)
        if what == "to_pte":
            call = lambda: to_pte(model, inputs, **kwargs)  # noqa: E731
        else:
            call = lambda: write_pte(path + ".pte", model, inputs, **kwargs)  # noqa: E731
    workspace = _count_workspace()
    to_edge = _peak_before_partitioning()
    pools = _free_pools()
    base = _reset_peak()
    result = call()
    gc.collect()
    _trim()
    end = _memory()
    del result
    return {
        "weights": weights / MIB,
        "peak": end["VmHWM"] - base["VmRSS"],
        "after": end["VmRSS"] - base["VmRSS"],
        "workspace": sum(workspace),
        "to_edge": max(to_edge, default=base["VmRSS"]) - base["VmRSS"],
        "pools": max(_free_pools() - pools, 0.0),
    }


def _count_workspace() -> list[float]:
    """MiB that each `xnn_reshape_runtime` adds to RSS (XNNPACK allocates and zeroes the
    workspace there), appended to the returned list."""
    from xnnc.backend_xnnpack.runtime import capi

    grown: list[float] = []
    lib = capi.library()
    reshape = lib.reshape_runtime

    def counted(runtime):
        before = _memory()["VmRSS"]
        status = reshape(runtime)
        grown.append(_memory()["VmRSS"] - before)
        return status

    lib.reshape_runtime = counted
    return grown


def _peak_before_partitioning() -> list[float]:
    """VmHWM (MiB) when `XnncPartitioner.partition` first runs: ExecuTorch's `to_edge`
    peak (its decompositions run before; `ops_to_not_decompose`, between them, only reads)."""
    from xnnc.pte.partitioner import XnncPartitioner

    seen: list[float] = []
    partition = XnncPartitioner.partition

    def first(self, ep):
        if not seen:
            seen.append(_memory()["VmHWM"])
        return partition(self, ep)

    XnncPartitioner.partition = first
    return seen


def _free_pools() -> float:
    """MiB of free pymalloc pools in allocated arenas (`sys._debugmallocstats`, which
    writes to the C stderr)."""
    import re

    with tempfile.TemporaryFile(mode="w+") as f:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        found = re.search(r"(\d+) unused pools \* (\d+) bytes", f.read())
    return int(found[1]) * int(found[2]) / MIB if found else 0.0


def _loaded_and_run(path: str, inputs: tuple[torch.Tensor, ...]) -> Any:
    import xnnc

    program = xnnc.load(path)
    return program, program(*inputs)


def _pte_loaded_and_run(file: str, inputs: tuple[torch.Tensor, ...]) -> Any:
    from xnnc.pte import StockRuntime

    with open(file, "rb") as f:
        runtime = StockRuntime(f.read(), name=file)
    return runtime, runtime(*inputs)


def _save_ptes(name: str, path: str, options: str = "{}") -> None:
    """xnnc's `.pte` of the model and stock ExecuTorch's, for `pte_run` and `stock_pte_run`."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import write_pte

    model, inputs = _factory(name)()
    write_pte(path + PTES["pte_run"], model, inputs, **json.loads(options))
    program = torch.export.export(model, inputs, strict=False)
    lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    with open(path + PTES["stock_pte_run"], "wb") as f:
        f.write(lowered.to_executorch().buffer)


def _run_child(name: str, what: str, path: str, options: str) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", name, what, path, options]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"memory_bench: {name} {what} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _save(name: str, path: str, options: str = "{}") -> None:
    import xnnc

    model, inputs = _factory(name)()
    xnnc.compile(model, inputs, savable=True, **json.loads(options)).save(path)


def table(models: list[str], whats: list[str], disable: str = "", target: str = "") -> str:
    """The measurements' table; `disable` and `target` as `xnnc.compile` takes them."""
    options = json.dumps({"disable": disable, **({"target": target} if target else {})})
    rows = [
        "| model | weights (MiB) | call | peak (MiB) | peak / weights | after (MiB) "
        "| after / weights | workspace | to_edge | pools |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name in models:
            path = os.path.join(tmp, f"{name}.xnnc")
            if "load" in whats or "load_run" in whats:
                command = [sys.executable, __file__, "--save", name, path, options]
                subprocess.run(command, check=True, capture_output=True)
            if set(PTES) & set(whats):
                command = [sys.executable, __file__, "--save-ptes", name, path, options]
                subprocess.run(command, check=True, capture_output=True)
            for what in whats:
                m = _run_child(name, what, path, options)
                w = m["weights"]
                rows.append(
                    f"| {name} | {w:.1f} | {what} | {m['peak']:.1f} | {m['peak'] / w:.2f}x "
                    f"| {m['after']:.1f} | {m['after'] / w:.2f}x | {_part(m, 'workspace')} "
                    f"| {_part(m, 'to_edge')} | {_part(m, 'pools')} |"
                )
    rows.append(
        "\nworkspace, to_edge, pools: MiB (ratio to the weights) of the extra memory that is "
        "not a copy of the weights (see the module's docstring); '-' where none."
    )
    return "\n".join(rows)


def _part(m: dict[str, float], key: str) -> str:
    return f"{m[key]:.1f} ({m[key] / m['weights']:.2f}x)" if m[key] >= 0.05 else "-"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="linear7,resnet")
    parser.add_argument("--what", default=",".join(WHATS))
    parser.add_argument("--disable", default="", help="compile options' disable (e.g. lstm-loop)")
    parser.add_argument(
        "--target",
        default="",
        help="compile's target (e.g. stock); to_pte's is the stock runtime's",
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--save", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--save-ptes", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    if args.save:
        _save(*args.save)
        return
    if args.save_ptes:
        _save_ptes(*args.save_ptes)
        return
    from xnnc.examples.models import MODELS

    for name in args.models.split(","):
        if name != "linear7" and name not in MODELS:
            parser.error(f"--models: unknown model '{name}' (linear7 or {', '.join(MODELS)})")
    whats = args.what.split(",")
    for what in whats:
        if what not in WHATS:
            parser.error(f"--what: unknown measurement '{what}' (expected {', '.join(WHATS)})")
    print(table(args.models.split(","), whats, args.disable, args.target))


if __name__ == "__main__":
    main()
