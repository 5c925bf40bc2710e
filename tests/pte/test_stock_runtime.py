"""The run side of `xnnc.pte` stands without ExecuTorch's compiler: compiling for xnnc's own
runtime, and running there, never imports `executorch.exir` (it costs 5-7 s of startup in
every `xnn-run` and every fresh process that compiles), and `StockRuntime`'s input check reads
ExecuTorch's scalar types from its own table, which must agree with ExecuTorch's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import xnnc
from xnnc.pte.runtime import DTYPES

ROOT = Path(xnnc.__file__).resolve().parent.parent

COMPILE_AND_RUN = """
import sys, torch, xnnc
from xnnc.pte.runtime import StockRuntime  # the run side, imported without a .pte to run

model = torch.nn.Sequential(torch.nn.Conv1d(2, 4, 3), torch.nn.ELU())
x = torch.randn(1, 2, 16)
program = xnnc.compile(model, (x,))
torch.testing.assert_close(program(x), model(x), atol=1e-5, rtol=1e-5)
loaded = [m for m in sys.modules if m.startswith("executorch.exir")]
print(len(loaded), loaded[:3])
"""


def test_compiling_and_running_on_xnncs_runtime_never_loads_executorchs_compiler() -> None:
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_AND_RUN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0 []", done.stdout


def test_scalar_types_agree_with_executorchs_table() -> None:
    from executorch.exir.tensor import scalar_type_table

    assert DTYPES == {int(enum): dtype for dtype, enum in scalar_type_table.items()}
