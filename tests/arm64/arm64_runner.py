"""Runs inside the emulated arm64 root (one process per QEMU CPU model: torch's import
alone takes ~40 s under emulation): every job of `jobs.json`, on xnnc's extended runtime
(`xnnc.load`) or stock ExecuTorch's (`executorch.runtime`), as a user on the device would.

    python arm64_runner.py WORKDIR

Each job names its artefact and inputs relative to WORKDIR; its outputs go to
`out/<id>.pt`, its record (ok, the error's one line, seconds, the profile's node names,
xnnc's warnings) to `done/<id>.json`; `running` names the job in progress, so that a crash
(an illegal instruction kills the process) is pinned on its job. `cpu.json` says what
the process saw of the CPU: xnnc's `Target.host()` and `xnn_is_f16_native_supported()`.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import torch


def _outputs(value) -> list[torch.Tensor]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def run_xnnc(path: Path, inputs: list[tuple]) -> tuple[list, list[str]]:
    import xnnc

    program = xnnc.load(str(path), profile=True)
    outputs = [_outputs(program(*x)) for x in inputs]
    return outputs, [name for name, _ in program.profile()]


def run_stock(path: Path, inputs: list[tuple]) -> tuple[list, list[str]]:
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(path)  # kept alive while its method runs
    method = program.load_method("forward")
    outputs = [_outputs(method.execute(list(x))) for x in inputs]
    return [[t.clone() for t in o] for o in outputs], []


def main(work: Path) -> None:
    from xnnc.backend_xnnpack.runtime.capi import f16_native_supported
    from xnnc.pipeline.options import CompileOptions
    from xnnc.target import Target, emulation

    host = Target.host()
    cpu = {"features": sorted(host.features), "f16_native": f16_native_supported(),
           "emulation": emulation(), "tune": ""}  # fmt: skip
    try:
        CompileOptions(tune=True)  # on this CPU: the tuner's refusal
    except Exception as error:
        cpu["tune"] = f"{type(error).__name__}: {error}"
    (work / "cpu.json").write_text(json.dumps(cpu))
    (work / "out").mkdir(exist_ok=True)
    (work / "done").mkdir(exist_ok=True)
    for job in json.loads((work / "jobs.json").read_text()):
        (work / "running").write_text(job["id"])
        inputs = torch.load(work / job["inputs"])
        started = time.monotonic()
        record: dict = {"id": job["id"]}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                run = run_xnnc if job["runtime"] == "extended" else run_stock
                outputs, profile = run(work / job["path"], inputs)
                torch.save(outputs, work / "out" / f"{job['id']}.pt")
                record.update(ok=True, profile=profile)
            except Exception as error:  # what a user sees: the error's first line
                record.update(ok=False, error=f"{type(error).__name__}: {error}".splitlines()[0])
        ours = [w for w in caught if w.category.__module__.startswith("xnnc")]
        record["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in ours})
        record["seconds"] = time.monotonic() - started
        (work / "done" / f"{job['id']}.json").write_text(json.dumps(record))
    (work / "running").unlink(missing_ok=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
