"""benchmarks/ARM64.md, written by `make test-arm64` (test_arm64.py: test_report): what ran
under QEMU, how far from the x86 reference and from the x86 run, and `explain()` of the
zoo on both arm64 presets."""

from __future__ import annotations

import datetime
import subprocess
from collections.abc import Callable

HEADER = """# arm64 under emulation: numerics against x86

Written by `make test-arm64` (tests/arm64; docs/arm64.md says how it runs) on {date}.
Programs and `.pte` files compiled on x86 for `arm64` and `arm64-fp16-dotprod` ran in an
arm64 Debian bookworm root under {qemu} user mode, with aarch64 torch 2.13.0 and
ExecuTorch 1.5.1, on xnnc's extended runtime (`xnnc.load`) and stock ExecuTorch's
(`executorch.runtime`). CPUs, as QEMU models them: {cpus}.

Columns: *vs reference*, the largest |arm64 - reference| over outputs, relative to the
largest reference value (qs8: in output quantization steps); *vs x86 run*, the largest
|arm64 - x86| between the same program run on x86 and on arm64, in ulps of the largest
output value (qs8: steps; 0 is bit-equal). The bounds the suite asserts are in
tests/arm64/test_arm64.py with their reasons. Seconds: the emulated run, load and call
(a process's first job of a runtime also pays that runtime's first imports).
"""


def _qemu() -> str:
    done = subprocess.run(["qemu-aarch64-static", "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0] if done.returncode == 0 else "QEMU"


def report(runs, cpus, known: dict, metrics: Callable, refused: Callable) -> str:
    cpu_text = "; ".join(f"`{c.name}` ({', '.join(sorted(c.features))})" for c in cpus)
    date = datetime.date.today().isoformat()
    lines = [HEADER.format(date=date, qemu=_qemu(), cpus=cpu_text)]
    lines += ["| case | target | runtime | CPU | vs reference | vs x86 run | seconds |",
              "|---|---|---|---|---|---|---|"]  # fmt: skip
    refusals = []
    for artefact in runs.artefacts:
        for cpu in cpus:
            run = runs.emulated.get(cpu.name, {}).get(artefact.id)
            if run is None:
                continue
            where = f"| {artefact.case.name} | {artefact.target} | {artefact.runtime} | {cpu.name}"
            if refused(cpu, artefact):
                refusals.append(f"{where} | {run.error or 'ran'} |")
                continue
            host = runs.host[artefact.id]
            if not (run.ok and host.ok):
                lines.append(f"{where} | failed: {run.error or host.error} | | |")
                continue
            ref, cross = metrics(run.outputs, artefact.case.eager, host.outputs, artefact.case)
            ref_text = f"{ref:.3g} steps" if artefact.case.step else f"{ref:.2e}"
            note = " (known, below)" if (cpu.name, artefact.case.kind) in known else ""
            lines.append(f"{where} | {ref_text}{note} | {cross:.3g} | {run.seconds:.2f} |")
    if known:
        lines += ["", "## Known differences (reported, not asserted)", ""]
        lines += [f"- `{cpu}`, {kind}: {why}." for (cpu, kind), why in known.items()]
    crashed = [f"- `{cpu}`: {how}" for cpu, how in runs.crashed.items()]
    if crashed:
        lines += ["", "## Emulated processes that died", "", *crashed]
    unbuilt = [f"- {a.id}: {a.error}" for a in runs.artefacts if not a.path]
    if unbuilt:
        lines += ["", "## Not built", "", *unbuilt]
    lines += ["", "## The bad input: fp16 programs on a CPU without FP16", "",
              "| case | target | runtime | CPU | what the user sees |", "|---|---|---|---|---|",
              *refusals]  # fmt: skip
    lines += ["", "## explain() of the zoo on the arm64 presets", "",
              "Decisions marked `unmeasured` are the cost rules' guesses: measured on x86-64 "
              "only (emulation times nothing of a phone's).", ""]  # fmt: skip
    for artefact in runs.artefacts:
        zoo = artefact.case.kind in ("fp32", "fp16", "bf16")
        if zoo and artefact.explain and artefact.runtime == "extended":
            lines += [f"### {artefact.case.name}, {artefact.target}", "", "```",
                      artefact.explain.rstrip(), "```", ""]  # fmt: skip
    return "\n".join(lines) + "\n"
