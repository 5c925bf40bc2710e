"""Fingerprints of the programs the zoo compiles to, to check that a change leaves them alone:

    python -m xnnc.benchmarks.zoo_programs before.json        # on the tree before the change
    python -m xnnc.benchmarks.zoo_programs after.json         # and after it
    python -m xnnc.benchmarks.zoo_programs --compare before.json after.json

For each small model of `examples/models.py` on each target of `TARGETS`: a hash of each
subgraph's blob and every decision recorded on its layers. On the host with tuning: the same
under a timer that runs nothing (a form's "time" is read off its blob's hash, so the same
forms get the same choices), with a hash of each candidate form the tuner built. And the
default pipeline's passes for a few option sets. Equal files: the same programs, the same
decisions and the same tuning, on this machine (the host target is this CPU).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

from xnnc.cost.decision import decisions
from xnnc.dialects import xnn
from xnnc.driver import loops_lstms
from xnnc.examples.models import MODELS
from xnnc.frontend.fx_importer import export_program, import_model
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import default_passes, lower
from xnnc.translate.xnnpack import serialize_subgraph, serialize_subgraph_named
from xnnc.tuning import tuner

TARGETS = (
    "extended",
    "extended,x86-64-avx2,threads=2",
    "extended,x86-64-avx512fp16",
    "extended,arm64",
    "stock,arm64-fp16-dotprod",
)
# Option sets whose default pipelines are compared (with and without tuning).
PIPELINES = ({}, {"disable": ("xnn-depthwise-rows", "xnn-polyphase")}, {"fp16": "fp32"})


def _hash(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()[:16]


def _fingerprint(module: Any, runtime: str) -> dict[str, list[str]]:
    subgraphs = [op for op in module.walk() if isinstance(op, xnn.SubgraphOp)]
    return {
        "blobs": [_hash(serialize_subgraph(sub, runtime)) for sub in subgraphs],
        "decisions": [f"{op.name} {d}" for op, d in decisions(module)],
    }


class _BlobTimer:
    """Times nothing: each form's "time" comes from its blob's hash; keeps those hashes."""

    def __init__(self) -> None:
        self.built: list[str] = []

    def __call__(self, forms: dict[str, xnn.SubgraphOp], threads: int) -> dict[str, float]:
        times = {}
        for choice, sub in sorted(forms.items()):
            digest = _hash(serialize_subgraph_named(sub, "extended")[0])
            self.built.append(f"{choice} {digest}")
            times[choice] = 1.0 + int(digest[:4], 16) % 7 / 10
        return times


def _compile(ep: Any, options: CompileOptions, budget_ms: float | None) -> Any:
    module = import_model(ep, loop_lstms=loops_lstms(options))
    return lower(module, options, tune_budget_ms=budget_ms)


def fingerprints(names: list[str]) -> dict[str, Any]:
    """The fingerprints of the models `names` (all of the zoo when empty)."""
    found: dict[str, Any] = {}
    for fields in PIPELINES:
        for tune in (True, False):
            passes = default_passes(CompileOptions(tune=tune, **fields))
            found[f"passes {fields} tune={tune}"] = [repr(p) for p in passes]
    for name in names or list(MODELS):
        model, inputs = MODELS[name](small=True)
        ep = export_program(model, inputs, None)
        for target in TARGETS:
            options = CompileOptions(target=target, tune=False)
            module = _compile(ep, options, None)
            found[f"{name} {target}"] = _fingerprint(module, options.target.runtime)
        with tempfile.TemporaryDirectory() as tmp:
            options = CompileOptions(tune=True, tuning_db=str(Path(tmp) / "tuning.json"))
            timer = _BlobTimer()
            with mock.patch.object(tuner, "time_on_xnnpack", timer):
                module = _compile(ep, options, float("inf"))
            found[f"{name} tuned"] = _fingerprint(module, "extended") | {"built": timer.built}
        print(name, file=sys.stderr, flush=True)
    return found


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The keys whose fingerprints differ, or are in one file only."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xnnc.benchmarks.zoo_programs",
        description="Fingerprints of the zoo's programs (blobs, decisions, tuning), compared",
    )
    parser.add_argument("files", nargs="+", help="OUT.json [MODEL ...], or with --compare A B")
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(Path(f).read_text()) for f in args.files)
        differ = compare(before, after)
        print("\n".join(differ) or f"the same programs ({len(before)} fingerprints)")
        return 1 if differ else 0
    out, *names = args.files
    Path(out).write_text(json.dumps(fingerprints(names), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
