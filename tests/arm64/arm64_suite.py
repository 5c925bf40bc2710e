"""ExecuTorch's backend operator suite on arm64 (part of `make test-arm64`; docs/arm64.md
says which 8 files and why).

The suite's own harness runs on x86, through xnnc's arm64 flows (`benchmarks/peer_flow.py`:
`xnnc_arm64` and `xnnc_arm64_fp16_dotprod`, `.pte` files for stock ExecuTorch compiled for
`stock,arm64` and `stock,arm64-fp16-dotprod`): it exports, lowers, serializes, runs each
subtest on x86's stock runtime and compares with eager at its own tolerance (atol 0.1,
rtol 0.04). Each subtest's `.pte`, the harness's random inputs, its reference outputs and
the x86 run's outputs are kept; the `.pte` then runs under QEMU on the stock runtime of the
emulated root (arm64_runner.py, with the other jobs of its CPU), and the harness's own
comparison (`Tester._compare_outputs`, same tolerances) is repeated on its outputs.

Compiling on x86 is what a user does (xnnc compiles for phones on a desktop), and under
emulation each subtest's export and lowering would take minutes. xnnc's extended runtime
runs program files, not `.pte` files, so the flow's artefacts run on the stock runtime only.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from arm64_cases import ulp

# file -> its tests run here (all the file's when None), 47 of the 8 files' 74 tests (99 of
# their 168 subtests), for time: the x86 part compiles each subtest twice, ~1 s each on a
# quiet core. Kept: every test of the transposed convolutions (polyphase: dense, depthwise,
# grouped, dilated, output padding) and of permute (layout); the convolutions' padding,
# padding modes, stride, dilation, groups and depthwise (zero-pad folding, the index form of
# the other modes, the depthwise-rows form); nearest upsampling by scale factors, sizes and
# batch (the nearest x2 rewrite); bilinear by scale factors; mean over dims, kept or not
# (reductions across the NHWC layout). Left out: tests that repeat those paths at other
# sizes (basic, channels, kernel size, no bias, same size, shapes) and the dtype tests,
# which ExecuTorch 1.5.1 runs in float32 only (its `DTYPES`).
FILES: dict[str, tuple[str, ...] | None] = {
    "conv1d": ("padding", "padding_modes", "stride", "dilation", "groups", "depthwise"),
    "conv2d": ("padding", "padding_modes", "stride", "dilation", "groups", "depthwise"),
    "convtranspose1d": None,
    "convtranspose2d": None,
    "upsample_nearest2d": ("scale_factors", "sizes", "batch_sizes"),
    "upsample_bilinear2d": ("scale_factors",),
    "mean": ("dim", "keepdim"),
    "permute": None,
}
OPERATORS = "executorch.backends.test.suite.operators"
WORKERS = 2  # pytest-xdist workers for the x86 part


@dataclass
class Subtest:
    """One subtest of one flow: the harness's result on x86 and the artefacts it kept."""

    file: str  # `conv2d`
    test: str  # the test across flows, `test_conv2d_groups` (peer_suite.test_key)
    index: int
    target: str  # `arm64`, `arm64-fp16-dotprod`
    id: str  # file-safe, unique: the emulated job's id
    result: str  # the harness's result on x86: SUCCESS, OUTPUT_MISMATCH_FAIL, ...
    error: str = ""
    path: str = ""  # the `.pte`, relative to the work directory ("" when none was kept)
    inputs: str = ""  # the runner's inputs file, relative to the work directory
    reference: list[torch.Tensor] = field(default_factory=list)  # the harness's (eager)
    x86: list[torch.Tensor] = field(default_factory=list)  # the x86 run's outputs
    atol: float = 0.0
    rtol: float = 0.0


@dataclass
class SuiteRun:
    """The x86 part: per (file, test, target) pytest's outcome, the subtests, its time."""

    outcomes: dict[tuple[str, str, str], str]
    subtests: list[Subtest]
    seconds: float
    output: str  # pytest's last lines (what a failure says)


def run_on_x86(work: Path) -> SuiteRun:
    """The 8 files through both arm64 flows under the suite's harness, artefacts kept in
    `work/suite`."""
    from xnnc.benchmarks.peer_flow import ARM64_FLOWS
    from xnnc.benchmarks.peer_suite import run_suite, test_key

    results = work / "suite.jsonl"
    started = time.monotonic()
    done = run_suite(results, WORKERS, keyword=selection(),
                     modules=[f"{OPERATORS}.test_{f}" for f in FILES], flows=tuple(ARM64_FLOWS),
                     capture=True, artefacts=work / "suite")  # fmt: skip
    seconds = time.monotonic() - started
    outcomes, subtests = {}, []
    lines = results.read_text().splitlines() if results.exists() else []
    for line in lines:
        rec = json.loads(line)
        file, target = rec["file"].removeprefix("test_"), ARM64_FLOWS[rec["flow"]].split(",")[1]
        test = test_key(rec["test"])
        outcomes[(file, test, target)] = rec["outcome"]
        for sub in rec["subtests"]:
            subtests.append(_subtest(work, file, test, target, sub))
    tail = "\n".join((done.stdout.strip() or done.stderr.strip()).splitlines()[-5:])
    return SuiteRun(outcomes, subtests, seconds, tail)


def selection() -> str:
    """pytest's -k expression for `FILES` (a test's name contains its file's: a file run
    whole is its name)."""
    names = [f"test_{f}" for f, tests in FILES.items() if tests is None]
    names += [f"test_{f}_{t}" for f, tests in FILES.items() for t in tests or ()]
    return " or ".join(names)


def _subtest(work: Path, file: str, test: str, target: str, sub: dict) -> Subtest:
    kept = sub.get("artefact")
    name = f"suite.{target}.{test}.{sub['subtest']}"
    subtest = Subtest(file, test, sub["subtest"], target, name, sub["result"], sub["error"])
    if kept:
        record = torch.load(work / "suite" / f"{kept}.pt")
        subtest.path, subtest.inputs = f"suite/{kept}.pte", f"suite/{kept}.inputs.pt"
        torch.save([tuple(record["inputs"])], work / subtest.inputs)
        subtest.reference, subtest.x86 = record["reference"], record["x86"]
        subtest.atol, subtest.rtol = record["atol"], record["rtol"]
    return subtest


def jobs(suite: SuiteRun, targets: tuple[str, ...]) -> list[dict]:
    """The emulated runner's jobs for a CPU that runs `targets` (paths from its directory)."""
    return [{"id": s.id, "runtime": "stock", "path": f"../{s.path}", "inputs": f"../{s.inputs}"}
            for s in suite.subtests if s.path and s.target in targets]  # fmt: skip


def harness_check(subtest: Subtest, outputs: list[torch.Tensor]) -> str:
    """The harness's own comparison of `outputs` with its reference, at its tolerances:
    "" when it holds, else its message's first line."""
    from executorch.backends.test.harness.tester import Tester

    try:
        Tester._compare_outputs(tuple(subtest.reference), tuple(outputs), None,
                                subtest.atol, subtest.rtol)  # fmt: skip
    except AssertionError as error:
        return (str(error).strip().splitlines() or ["AssertionError"])[0]
    return ""


def metrics(subtest: Subtest, outputs: list[torch.Tensor]) -> tuple[float, float]:
    """(largest |arm64 - reference| / largest |reference|, largest |arm64 - x86| in ulps of
    the largest x86 output) over the subtest's outputs."""
    ref_err, cross = 0.0, 0.0
    for got, want, x86 in zip(outputs, subtest.reference, subtest.x86, strict=True):
        got64, want64, x86_64 = (t.double() for t in (got, want, x86))
        ref_err = max(
            ref_err, (got64 - want64).abs().max().item() / (want64.abs().max().item() or 1.0)
        )
        unit = ulp(x86_64.abs().max().item() or 1.0, x86.dtype)
        cross = max(cross, (got64 - x86_64).abs().max().item() / unit)
    return ref_err, cross
