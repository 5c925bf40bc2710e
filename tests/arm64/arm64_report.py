"""benchmarks/ARM64.md, written by `make test-arm64` (test_arm64.py: test_report): what ran
under QEMU, how far from the x86 reference and from the x86 run, and `explain()` of the
zoo on both arm64 presets."""

from __future__ import annotations

import datetime
import subprocess
from collections.abc import Callable

from arm64_suite import WORKERS

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
    if runs.suite is not None:
        lines += ["", *suite_section(runs, cpus)]
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


def suite_section(runs, cpus) -> list[str]:
    """ExecuTorch's operator suite (arm64_suite.py): per file, preset and CPU, the subtests
    that pass the harness's comparison on arm64, and how far they are from eager and x86."""
    from arm64_runs import suite_targets
    from arm64_suite import FILES, harness_check, metrics

    suite = runs.suite
    passed_x86 = sum(o == "passed" for o in suite.outcomes.values())
    lines = ["## ExecuTorch's operator suite on arm64", "",
             f"{len(suite.outcomes)} tests ({len(suite.subtests)} subtests) of 8 operator files "
             "(`tests/arm64/arm64_suite.py` says which and why), through the flows "
             "`xnnc_arm64` and `xnnc_arm64_fp16_dotprod` under the suite's own harness on x86: "
             f"{passed_x86} passed there (each `.pte` run on x86 and compared with eager, "
             f"atol 0.1, rtol 0.04), in {suite.seconds:.0f} s with {WORKERS} workers. Each "
             "`.pte` then ran on the stock runtime under QEMU; *harness*: subtests whose "
             "arm64 outputs pass the harness's own comparison; *vs eager*: the largest "
             "relative error; *vs x86 run*: the largest distance in ulps of the largest output.",
             "", "| file | target | CPU | harness | vs eager | vs x86 run | seconds |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for file in FILES:
        for cpu in cpus:
            for target in suite_targets(cpu):
                subtests = [s for s in suite.subtests if s.file == file and s.target == target]
                got = [(s, runs.emulated.get(cpu.name, {}).get(s.id)) for s in subtests]
                ran = [(s, r) for s, r in got if r is not None and r.ok]
                if not got or cpu.name not in runs.emulated:
                    continue
                ok = sum(not harness_check(s, r.outputs[0]) for s, r in ran)
                both = [metrics(s, r.outputs[0]) for s, r in ran] or [(0.0, 0.0)]
                seconds = sum(r.seconds for _, r in ran)
                lines.append(f"| {file} | {target} | {cpu.name} | {ok}/{len(got)} | "
                             f"{max(b[0] for b in both):.2e} | {max(b[1] for b in both):.3g} | "
                             f"{seconds:.1f} |")  # fmt: skip
    return lines
