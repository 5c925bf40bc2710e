"""The arm64 suite's setup (`make test-arm64`; docs/arm64.md): compile on x86, run under QEMU.

Off unless XNNC_ARM64 is set: "1" runs every case, "smoke" the CI's part
(`arm64_cases.SMOKE`, on `max,sme=off` only). The emulated environment is
`.ci/arm64_env.py`'s (`make arm64-env`); asked for without it, the suite fails in one line.

Once per session: every case is exported on x86, compiled for each arm64 preset into a
program file (extended runtime) and a `.pte` (stock runtime), in a directory inside the
root; each artefact runs on x86 (the cross-target reference); then one emulated process per
QEMU CPU model runs the artefacts that CPU takes (`CPUS`) with `arm64_runner.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from arm64_runs import ENV_SCRIPT, MODE, Arm64Runs, run_all


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    if MODE:
        return
    skip = pytest.mark.skip(reason="arm64 under QEMU: set XNNC_ARM64=1 (`make test-arm64`)")
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(skip)


def _root() -> Path:
    done = subprocess.run([sys.executable, str(ENV_SCRIPT), "root"], capture_output=True,
                          text=True, check=True)  # fmt: skip
    root = Path(done.stdout.strip())
    if not (root.parent / "stamps" / "check").exists():
        pytest.fail(f"XNNC_ARM64 is set but there is no arm64 environment in {root.parent}: "
                    "run `make arm64-env`", pytrace=False)  # fmt: skip
    return root


@pytest.fixture(scope="session")
def arm64() -> Iterator[Arm64Runs]:
    root = _root()
    work = Path(tempfile.mkdtemp(prefix="xnnc-arm64-", dir=root / "tmp"))
    shutil.copy(Path(__file__).parent / "arm64_runner.py", work)
    yield run_all(root, work)
    if not os.environ.get("XNNC_ARM64_KEEP"):
        shutil.rmtree(work, ignore_errors=True)
