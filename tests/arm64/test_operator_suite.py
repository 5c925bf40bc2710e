"""ExecuTorch's backend operator suite (47 tests of 8 files) through xnnc's arm64 flows: its
harness passes on x86 and its `.pte` files compute the same on arm64 (arm64_suite.py says
which tests and how).

On arm64 each subtest must pass the harness's own comparison with eager at its own
tolerance (atol 0.1, rtol 0.04: loose, it is written for every backend), and, tighter, stay
within the x86 suite's fp32 bounds: `REFERENCE["fp32"]` (1e-4 of the largest reference
value) from eager and `SUITE_CROSS` ulps from the x86 run of the same `.pte` (these are
single ops: XNNPACK's arm64 and x86 kernels differ by their summation order only).
"""

from __future__ import annotations

import pytest
from arm64_runs import RUN_CPUS, SMOKE, Arm64Runs, Cpu, suite_targets
from arm64_suite import FILES, harness_check, metrics
from test_arm64 import REFERENCE

pytestmark = pytest.mark.skipif(SMOKE, reason="not in the CI smoke part")

# The tests and subtests of the 8 files run here, per flow (arm64_suite.FILES; ExecuTorch
# 1.5.1): a test that stops running, or stops passing, fails here.
TESTS, SUBTESTS = 47, 99
# Against the x86 run of the same .pte, in ulps of the largest output: twice the measured
# maximum (4, transposed convolutions, 2026-12-07; benchmarks/ARM64.md).
SUITE_CROSS = 8


def test_the_suite_passes_on_x86(arm64: Arm64Runs) -> None:
    """Every test of the 8 files passes under the harness through both arm64 flows (each
    subtest's .pte run on x86 and compared with eager), and each kept its artefacts."""
    suite = arm64.suite
    assert suite is not None and suite.outcomes, suite.output if suite else "no suite run"
    targets = {t for (_, _, t) in suite.outcomes}
    assert targets == {"arm64", "arm64-fp16-dotprod"}
    for target in targets:
        tests = {(f, t): o for (f, t, tg), o in suite.outcomes.items() if tg == target}
        assert {f for f, _ in tests} == set(FILES)
        failed = {k: o for k, o in tests.items() if o != "passed"}
        assert not failed, (target, failed, suite.output)
        assert len(tests) == TESTS, (target, len(tests))
        assert sum(s.target == target for s in suite.subtests) == SUBTESTS, target
    unkept = [s.id for s in suite.subtests if not s.path]
    assert not unkept, unkept
    failed = [f"{s.id}: {s.result} {s.error}" for s in suite.subtests if s.result != "SUCCESS"]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("cpu", RUN_CPUS, ids=lambda c: c.name)
def test_the_suite_runs_on_arm64(arm64: Arm64Runs, cpu: Cpu) -> None:
    """Each subtest's .pte for a preset `cpu` runs ran on it, passes the harness's own
    comparison and is within the fp32 bounds."""
    suite = arm64.suite
    assert suite is not None
    problems, ran = [], 0
    for subtest in suite.subtests:
        if not subtest.path or subtest.target not in suite_targets(cpu):
            continue
        run = arm64.emulated[cpu.name].get(subtest.id)
        if run is None or not run.ok:
            problems.append(f"{subtest.id}: {'did not run' if run is None else run.error}")
            continue
        ran += 1
        outputs = run.outputs[0]
        if message := harness_check(subtest, outputs):
            problems.append(f"{subtest.id}: the harness's comparison fails: {message}")
        ref_err, cross = metrics(subtest, outputs)
        if ref_err > REFERENCE["fp32"]:
            problems.append(f"{subtest.id}: {ref_err:.3g} from eager (bound {REFERENCE['fp32']})")
        if cross > SUITE_CROSS:
            problems.append(f"{subtest.id}: {cross:.3g} ulps from x86 (bound {SUITE_CROSS})")
    assert ran and not problems, "\n".join(problems)
