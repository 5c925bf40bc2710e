"""The wheel a user installs works outside the checkout.

The wheel is built from a copy of this tree (`pip wheel`, as a user or a release would) and
installed with its dependencies into a fresh venv (torch from the wheel on this machine's
disk, the rest from the registry or pip's cache). Then, from a directory with no checkout in
sight and no PYTHONPATH, it compiles and runs the demo's model, saves a `.pte` that stock
ExecuTorch's own runtime loads and runs, and starts both tools. Everything else in the suite
runs on the editable install, where a package missing from the wheel goes unnoticed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import xnnc

REPO = Path(__file__).resolve().parents[1]
# Not part of a source tree a user builds from: environments, caches, build products.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", "*.so", "Output", ".hypothesis",
    ".pytest_cache", ".ruff_cache", "*.pte", "*.xnn",
)  # fmt: skip

pytestmark = pytest.mark.xdist_group("wheel")


def _run(args: list, cwd: Path, env: dict | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


# Session-scoped: under xdist, tests of other modules run between this module's on its
# worker, and a module-scoped venv was built again for each test (70 s each).
@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work), "."], source)
    (found,) = work.glob("xnnc-*.whl")
    return found


@pytest.fixture(scope="session")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """(the fresh venv's bin directory, an environment with it first on PATH)."""
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", str(venv)], venv)
    bin_dir = venv / "bin"
    _run([str(bin_dir / "pip"), "install", "-q", "torch==2.13.0", str(wheel)], venv)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return bin_dir, env


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working directory away from the checkout."""
    assert REPO not in tmp_path.parents
    return tmp_path


def test_wheel_ships_every_package_and_no_build_hook(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {p.parent for p in REPO.rglob("__init__.py") if ".venv" not in p.parts}
    for init in packages:
        shipped = "xnnc/" + str((init / "__init__.py").relative_to(REPO))
        assert shipped.replace("/./", "/") in names, f"{shipped} is not in the wheel"
    assert "xnnc/setup.py" not in names
    assert not any(n.startswith("xnnc/tests/") for n in names)
    assert "xnnc/backend_xnnpack/schema/xnnc.fbs" in names


DEMO = """
import warnings
warnings.simplefilter("ignore")
import torch, xnnc
from xnnc.examples.models import make_mimi_decoder

assert "site-packages" in xnnc.__file__, xnnc.__file__
model, inputs = make_mimi_decoder(small=True)
program = xnnc.compile(model, inputs, savable=True)
with torch.no_grad():
    expected = model(*inputs)
# fp32 throughout: XNNPACK's kernels sum in another order than torch's (1e-4 absolute on
# outputs of order 1, as the suite's fp32 checks).
torch.testing.assert_close(program(*inputs), expected, rtol=1e-4, atol=1e-4)
program.save("mimi.pte")
program.save("mimi.xnnc")
again = xnnc.load("mimi.xnnc")
torch.testing.assert_close(again(*inputs), expected, rtol=1e-4, atol=1e-4)

from executorch.runtime import Runtime
method = Runtime.get().load_program("mimi.pte").load_method("forward")
(got,) = method.execute(list(inputs))
torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4)
print("version", xnnc.__version__, "subgraphs", program.num_partitions)
"""


def test_compile_run_save_and_load_outside_the_checkout(installed, outside: Path) -> None:
    bin_dir, env = installed
    out = _run([str(bin_dir / "python"), "-c", DEMO], outside, env)
    assert f"version {xnnc.__version__} subgraphs 1" in out


def test_tools_start_from_the_wheel(installed, outside: Path) -> None:
    bin_dir, env = installed
    for tool in ("xnn-opt", "xnn-run"):
        assert "usage:" in _run([str(bin_dir / tool), "--help"], outside, env)
    module = (
        "func.func @f(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {\n"
        '  %y = "aten.relu"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>\n'
        "  func.return %y : tensor<1x4xf32>\n}\n"
    )
    (outside / "relu.mlir").write_text(module)
    out = _run([str(bin_dir / "xnn-opt"), "relu.mlir", "-p", "xnnc-pipeline"], outside, env)
    assert "xnn.subgraph" in out and "xnn.clamp" in out
    flags = ["-p", "xnnc-pipeline", "-t", "xnnpack", "-o", "relu.xnn"]
    _run([str(bin_dir / "xnn-opt"), "relu.mlir", *flags], outside, env)
    assert (outside / "relu.xnn").read_bytes()[4:8] == b"XH00"  # the delegate blob's header
