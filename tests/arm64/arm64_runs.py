"""The arm64 suite's runs (conftest.py's session fixture; tests/arm64/test_arm64.py): the
QEMU CPU models, the artefacts compiled on x86, their x86 runs and their emulated ones."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import arm64_suite
import torch
from arm64_cases import TARGETS, Case, case_names, make_case
from arm64_runner import run_stock, run_xnnc
from arm64_suite import SuiteRun

REPO = Path(__file__).resolve().parents[2]
ENV_SCRIPT = REPO / ".ci" / "arm64_env.py"
MODE = os.environ.get("XNNC_ARM64", "")
SMOKE = MODE == "smoke"


@dataclass(frozen=True)
class Cpu:
    """A QEMU CPU model (`-cpu`, QEMU 7.2), the arm64 features it has (ours,
    `xnnc.target.FEATURES`), and the presets whose artefacts it runs.

    - `max,sme=off`: Armv8.x with FP16, dotprod, I8MM and BF16: XNNPACK's i8mm int8 kernels.
    - `cortex-a76`: the `arm64-fp16-dotprod` preset's CPU exactly (FP16, dotprod, no I8MM).
    - `cortex-a53`: plain NEON (Armv8.0), the `arm64` preset's.
    - `max`: all of the above and SME, on which XNNPACK takes SME kernels (`KNOWN`)."""

    name: str
    features: frozenset[str]
    targets: tuple[str, ...]


_I8MM = frozenset({"neon", "fp16", "dotprod", "i8mm", "bf16"})
CPUS = (
    Cpu("max,sme=off", _I8MM, TARGETS),
    Cpu("cortex-a76", frozenset({"neon", "fp16", "dotprod"}), ("arm64-fp16-dotprod",)),
    Cpu("cortex-a53", frozenset({"neon"}), TARGETS),
    Cpu("max", _I8MM | {"sme"}, TARGETS),
)
# Differences from x86 found and not resolved, by CPU and kind: reported with their metrics
# (benchmarks/ARM64.md), not asserted.
KNOWN = {
    ("max", "qs8"): (
        "with SME on, XNNPACK 92a7ad50 under QEMU 7.2 computes other int8 results: 83 to 193 "
        "output steps from x86 and from the PT2E model on all five qs8 models, on both "
        "runtimes; the same programs are bit-equal to x86 on `max,sme=off` (I8MM on), "
        "cortex-a76 and cortex-a53, and the difference is the same at SME vector lengths of "
        "16, 32 and 64 bytes. QEMU 7.2's SME emulation (its first releases with SME) or "
        "XNNPACK's SME kernels: undecided without SME hardware or a newer QEMU"
    ),
    ("max", "qd8"): (
        "the same with SME for dynamically quantized linears with int8 weights (PT2E "
        "dynamic, 8da8w: 1.67 relative error); int4 weights (8da4w) agree with x86 within "
        "1 ulp"
    ),
}
RUN_CPUS = CPUS[:1] if SMOKE else CPUS


@dataclass
class Artefact:
    case: Case
    target: str
    runtime: str
    id: str
    path: str = ""  # relative to the work directory; "" when it could not be built
    error: str = ""  # why not
    explain: str = ""  # the program's `explain()` (extended runtime)

    @property
    def computes_fp16(self) -> bool:
        """Whether the program computes in XNNPACK's fp16 kernels (fp16="native", or "auto"
        on a target with FP16 arithmetic)."""
        mode = self.case.options.get("fp16")
        return mode == "native" or (mode == "auto" and self.target == "arm64-fp16-dotprod")


@dataclass
class Run:
    ok: bool
    error: str = ""
    seconds: float = 0.0
    profile: list[str] = field(default_factory=list)
    outputs: list[list[torch.Tensor]] | None = None
    warnings: list[str] = field(default_factory=list)  # xnnc's, one line each


@dataclass
class Arm64Runs:
    work: Path
    cases: dict[str, Case]
    artefacts: list[Artefact]
    host: dict[str, Run]
    emulated: dict[str, dict[str, Run]]  # cpu -> artefact id -> run
    cpu_seen: dict[str, dict]  # cpu -> what the runner saw (features, f16_native)
    crashed: dict[str, str]  # cpu -> the job its process died in, and how
    suite: SuiteRun | None = None  # ExecuTorch's operator suite (not in the smoke part)

    def runs_on(self, cpu: Cpu, artefact: Artefact) -> bool:
        """Whether `cpu`'s process runs `artefact`: its CPU's preset, or an fp16 program
        on a CPU without FP16 (refused at load: the bad input)."""
        if not artefact.path or artefact.target not in cpu.targets:
            return False
        return (
            artefact.target != "arm64-fp16-dotprod"
            or cpu.name != "cortex-a53"
            or (artefact.computes_fp16)
        )


def suite_targets(cpu: Cpu) -> tuple[str, ...]:
    """The presets whose operator-suite `.pte` files (fp32) `cpu` runs: those of its
    presets that it has the features of."""
    return tuple(t for t in cpu.targets if t != "arm64-fp16-dotprod" or "fp16" in cpu.features)


def _compile(artefact: Artefact, work: Path) -> None:
    import xnnc
    from xnnc.pte import to_pte

    case = artefact.case
    ep = copy.deepcopy(case.exported)  # ExecuTorch's lowering takes the constants out
    target = f"{artefact.runtime},{artefact.target}"
    try:
        if artefact.runtime == "extended":
            program = xnnc.compile(ep, target=target, dynamic_shapes=case.dynamic_shapes,
                                   savable=True, **case.options)  # fmt: skip
            path = f"{artefact.id}.xnnc"
            program.save(str(work / path))
            artefact.explain = program.explain()
        else:
            pte = to_pte(ep, None, target=target, dynamic_shapes=case.dynamic_shapes,
                         **case.options)  # fmt: skip
            path = f"{artefact.id}.pte"
            (work / path).write_bytes(pte)
    except Exception as error:  # named in the results: a case that cannot be built here
        artefact.error = f"{type(error).__name__}: {error}".splitlines()[0]
        return
    artefact.path = path


def _host_run(artefact: Artefact, work: Path) -> Run:
    run = run_xnnc if artefact.runtime == "extended" else run_stock
    try:
        outputs, profile = run(work / artefact.path, artefact.case.inputs)
    except Exception as error:
        return Run(False, f"{type(error).__name__}: {error}".splitlines()[0])
    return Run(True, profile=profile, outputs=outputs)


def _emulate(cpu: Cpu, work: Path, jobs: list[dict], root: Path) -> tuple[dict, dict, str]:
    """Run `jobs` in one emulated process on `cpu`: (runs by id, CPU seen, crash or "")."""
    cpu_dir = work / cpu.name
    cpu_dir.mkdir()
    (cpu_dir / "jobs.json").write_text(json.dumps(jobs))
    inside = lambda p: "/" + str(p.relative_to(root))  # noqa: E731
    command = [sys.executable, str(ENV_SCRIPT), "run", "--cpu", cpu.name, "--", "python",
               inside(work / "arm64_runner.py"), inside(cpu_dir)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    crash = ""
    if done.returncode != 0:
        running = cpu_dir / "running"
        job = running.read_text() if running.exists() else "(before any job)"
        crash = f"exit {done.returncode} in {job}: {done.stderr.strip().splitlines()[-1:]}"
    runs = {}
    for record_path in (cpu_dir / "done").glob("*.json"):
        record = json.loads(record_path.read_text())
        out = cpu_dir / "out" / f"{record['id']}.pt"
        outputs = torch.load(out) if record["ok"] else None
        runs[record["id"]] = Run(record["ok"], record.get("error", ""), record["seconds"],
                                 record.get("profile", []), outputs,
                                 record.get("warnings", []))  # fmt: skip
    seen_path = cpu_dir / "cpu.json"
    seen = json.loads(seen_path.read_text()) if seen_path.exists() else {}
    return runs, seen, crash


def run_all(root: Path, work: Path) -> Arm64Runs:
    """Every case compiled into `work` (inside `root`), run on x86, then on each CPU."""
    cases = {name: make_case(name) for name in case_names(SMOKE)}
    artefacts = []
    for case in cases.values():
        torch.save(case.inputs, work / f"{case.name}.inputs.pt")
        for target in TARGETS:
            for runtime in ("extended", "stock"):
                artefact = Artefact(case, target, runtime, f"{case.name}.{target}.{runtime}")
                _compile(artefact, work)
                artefacts.append(artefact)
    host = {a.id: _host_run(a, work) for a in artefacts if a.path}
    runs = Arm64Runs(work, cases, artefacts, host, {}, {}, {})
    runs.suite = None if SMOKE else arm64_suite.run_on_x86(work)
    for cpu in RUN_CPUS:
        jobs = [{"id": a.id, "runtime": a.runtime, "path": f"../{a.path}",
                 "inputs": f"../{a.case.name}.inputs.pt"}
                for a in artefacts if runs.runs_on(cpu, a)]  # fmt: skip
        if runs.suite:
            jobs += arm64_suite.jobs(runs.suite, suite_targets(cpu))
        got, seen, crash = _emulate(cpu, work, jobs, root)
        runs.emulated[cpu.name], runs.cpu_seen[cpu.name] = got, seen
        if crash:
            runs.crashed[cpu.name] = crash
    return runs
