"""What xnnc compiles on x86 for arm64 runs on arm64 (QEMU user mode; conftest.py), on xnnc's
extended runtime and on stock ExecuTorch's, and computes what x86 computes.

Two comparisons per output (`_metrics`):
- against the reference computed on x86 (eager, the quantized model), with the tolerance of
  the dtype's path that the x86 suite states (`REFERENCE`);
- against the x86 run of the very same program or `.pte` (cross-target equivalence), in
  units of the output's precision: ulps of the largest output value for float outputs,
  quantization steps for int8 ones (`CROSS`).

Why the cross-target bounds are what they are. XNNPACK's arm64 and x86-64 kernels compute
the same operations in different orders (tile sizes, FMA, vector widths; NEON's `fmla` is
fused as x86's `vfmadd` is), so fp32 results differ by rounding only: each GEMM of K terms
can differ by about sqrt(K) ulps of its accumulator, and layers add up. The bounds are the
measured maxima on these models (benchmarks/ARM64.md) rounded up to a power of two. The
int8 (qs8) path accumulates in int32 exactly and requantizes in fp32 with round-to-nearest
on both ISAs (XNNPACK's `fp32` requantization, `vcvtnq_s32_f32` / `cvtps2dq`): the integers
must be equal. The dynamically quantized (qd8) path quantizes activations at run time and
dequantizes in fp32: its int32 sums are exact, the fp32 scaling is rounding-order only.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from arm64_cases import Case, case_names, ulp
from arm64_runs import CPUS, KNOWN, RUN_CPUS, SMOKE, Arm64Runs, Artefact, Cpu, Run

# Against the x86 reference, max |got - ref| / max |ref| per kind: the x86 suite's own
# tolerances for these paths (tests/legalize/test_fp16_precision.py FP32_RTOL, FP16_RTOL;
# tests/backend_xnnpack/test_bf16_gemm.py MODEL_TOL; tests/conversion/test_dynamic_quant.py
# for qd8, whose 4-bit weights with bf16 block scales reach ~1e-2 of the output's range).
REFERENCE = {"fp32": 1e-4, "dynamic": 1e-4, "fp16": 1e-2, "bf16": 3e-2, "qd8": 2e-2}
# qs8 against the PT2E model, in output steps: tests/conversion/test_quantized_models.py's
# bounds for resnet_small and mobilenetv2_small (XNNPACK's integer arithmetic, not xnnc's),
# the others the x86 run's distance plus one step (arm64 computes the same integers).
QS8_STEPS = {"conv_net": 1, "conv1d_residual": 2, "resnet_small": 4, "mobilenetv2_small": 46,
             "mimi_small": 7}  # fmt: skip
# Against the x86 run of the same artefact: ulps of the largest output value in the compute
# dtype (qs8: steps). Measured maxima (benchmarks/ARM64.md, 2026-12-07): fp32 81.5 on
# MobileNetV3-Large (hardswish after hardswish: a rounding difference near a kink moves
# the next layer), at most 12.5 on the other ten; fp16 2, bf16 0.0005, qd8 1.5, dynamic 2.
CROSS = {"fp32": 128, "dynamic": 8, "bf16": 1, "fp16": 4, "qd8": 4, "qs8": 0}


def _metrics(got: list, want: list, x86: list | None, case: Case) -> tuple[float, float]:
    """(vs reference: relative error or, for qs8, output steps; vs x86 run: ulps of the
    compute dtype or steps), the largest over outputs and input sets."""
    step = case.step
    ref_err, cross = 0.0, 0.0
    for g_set, w_set, x_set in zip(got, want, x86 or got, strict=True):
        for g, w, x in zip(g_set, w_set, x_set, strict=True):
            g64, w64, x64 = (t.double() for t in (g, w, x))
            diff = (g64 - w64).abs().max().item()
            ref_err = max(ref_err, diff / step if step else diff / w64.abs().max().item())
            apart = (g64 - x64).abs().max().item()
            unit = step or ulp(x64.abs().max().item(), case.precision or x.dtype)
            cross = max(cross, apart / unit)
    return ref_err, cross


def _artefacts(arm64: Arm64Runs, cpu: Cpu, case: str) -> list[Artefact]:
    return [a for a in arm64.artefacts if a.case.name == case and arm64.runs_on(cpu, a)]


def _refused(cpu: Cpu, artefact: Artefact) -> bool:
    """The bad input: an fp16 program on a CPU without FP16 arithmetic, which xnnc's runtime
    refuses. Stock ExecuTorch runs it: XNNPACK computes its fp16 nodes in fp32 there, as on
    x86, and it is checked as any other run."""
    return (
        artefact.computes_fp16 and "fp16" not in cpu.features and (artefact.runtime == "extended")
    )


@pytest.mark.parametrize("cpu", RUN_CPUS, ids=lambda c: c.name)
def test_the_emulated_process_ran_to_the_end(arm64: Arm64Runs, cpu: Cpu) -> None:
    """No job killed its process: an illegal instruction would (SIGILL)."""
    assert cpu.name not in arm64.crashed, arm64.crashed[cpu.name]


@pytest.mark.parametrize("cpu", RUN_CPUS, ids=lambda c: c.name)
def test_the_cpu_has_the_features_named(arm64: Arm64Runs, cpu: Cpu) -> None:
    """QEMU's CPU model is what xnnc (`Target.host()`, from the HWCAPs) and XNNPACK
    (`xnn_is_f16_native_supported`) see; the process knows it is emulated."""
    seen = arm64.cpu_seen[cpu.name]
    assert set(seen["features"]) == cpu.features
    assert seen["f16_native"] == ("fp16" in cpu.features)
    assert seen["emulation"]
    assert seen["tune"].startswith("OptionError: tune=True: this process runs under emulation")


@pytest.mark.parametrize("cpu", RUN_CPUS, ids=lambda c: c.name)
def test_programs_load_without_warnings(arm64: Arm64Runs, cpu: Cpu) -> None:
    """No xnnc warning on arm64: a program file compiled on x86 holds no packed weights
    (they would be x86's: `PackedWeightsWarning`, packing again), its CPU packs them."""
    warned = {i: r.warnings for i, r in arm64.emulated[cpu.name].items() if r.warnings}
    assert not warned, warned


def test_every_artefact_was_built(arm64: Arm64Runs) -> None:
    failed = [f"{a.id}: {a.error}" for a in arm64.artefacts if not a.path]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("case", case_names(SMOKE))
@pytest.mark.parametrize("cpu", RUN_CPUS, ids=lambda c: c.name)
def test_runs_as_on_x86(arm64: Arm64Runs, cpu: Cpu, case: str) -> None:
    """Each artefact of `case` that `cpu` takes runs and matches the reference and the x86
    run; an fp16 program on a CPU without FP16 is refused in one line by xnnc's runtime."""
    problems = []
    for artefact in _artefacts(arm64, cpu, case):
        run = arm64.emulated[cpu.name].get(artefact.id)
        if run is None:
            problems.append(f"{artefact.id}: did not run")
        elif _refused(cpu, artefact):
            problems += _check_refused(artefact, run)
        else:
            problems += _check_run(arm64, artefact, run, (cpu.name, artefact.case.kind))
    assert not problems, "\n".join(problems)


def _check_refused(artefact: Artefact, run: Run) -> list[str]:
    if run.ok:
        return [f"{artefact.id}: ran on a CPU without FP16"]
    if not (
        run.error.startswith("CpuFeatureError: this program computes in fp16")
        and "lacks fp16" in run.error
    ):
        return [f"{artefact.id}: refused with {run.error!r}, not the one line naming fp16"]
    return []


def _check_run(arm64: Arm64Runs, artefact: Artefact, run: Run, where: tuple) -> list[str]:
    case = artefact.case
    if not run.ok:
        return [f"{artefact.id}: {run.error}"]
    host = arm64.host[artefact.id]
    if not host.ok:
        return [f"{artefact.id}: the x86 run failed: {host.error}"]
    if where in KNOWN:  # reported, not asserted
        return []
    ref_err, cross = _metrics(run.outputs, case.eager, host.outputs, case)
    bound = (
        QS8_STEPS[case.name.removeprefix("qs8-")] if case.kind == "qs8" else REFERENCE[case.kind]
    )
    problems = []
    if ref_err > bound:
        problems.append(f"{artefact.id}: {ref_err:.3g} from the reference (bound {bound})")
    if cross > CROSS[case.kind]:
        problems.append(f"{artefact.id}: {cross:.3g} apart from x86 (bound {CROSS[case.kind]})")
    return problems


@pytest.mark.parametrize("cpu", [c for c in RUN_CPUS if "fp16" in c.features], ids=lambda c: c.name)
def test_xnnpack_ran_its_fp16_kernels(arm64: Arm64Runs, cpu: Cpu) -> None:
    """The fp16 net compiled natively runs XNNPACK's fp16 operators: its profile names them
    (`Convolution (NHWC, F16)`, ...), and XNNPACK says fp16 arithmetic is native here."""
    assert arm64.cpu_seen[cpu.name]["f16_native"]
    natives = [a for a in arm64.artefacts if a.computes_fp16 and a.runtime == "extended"]
    natives = [a for a in natives if arm64.runs_on(cpu, a)]
    assert natives
    for artefact in natives:
        profile = arm64.emulated[cpu.name][artefact.id].profile
        f16 = [name for name in profile if "F16" in name]
        assert f16 and not any("F32" in name for name in profile if "onvolution" in name), profile


def test_report(arm64: Arm64Runs) -> None:
    """benchmarks/ARM64.md (`XNNC_ARM64_REPORT`): the numerics table and explain()."""
    path = os.environ.get("XNNC_ARM64_REPORT")
    if not path:
        pytest.skip("XNNC_ARM64_REPORT names no file")
    from arm64_report import report

    Path(path).write_text(report(arm64, CPUS, KNOWN, _metrics, _refused))
    assert Path(path).stat().st_size > 0
