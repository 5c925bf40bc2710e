"""The arm64 environment: an emulated arm64 Debian root where what xnnc compiles for phones
runs (docs/arm64.md). Everything comes from the package registries, with no manual step:

    build   Debian's qemu-user-static, debootstrap and the aarch64 cross compiler; the
            binfmt_misc registration of QEMU; an arm64 bookworm root (minbase, Python 3.11);
            a fake /sys CPU tree; the pinned aarch64 wheels, installed by the host's pip
            (no emulated install); xnnc itself as a wheel built from this checkout, its C
            loop cross-compiled for aarch64.
    run     a command inside the root under QEMU, with the CPU model given (`--cpu max`).
    root    prints the root's path.

Each step of `build` leaves a stamp and is skipped when it is there; the xnnc step's stamp
is the hash of the checkout's files, so a changed tree is installed again. The cache lives
outside the checkout: $XNNC_ARM64_CACHE, else ~/.cache/xnnc/arm64. A step that cannot reach
a registry fails within its time-out, with one line that says which.

Needs root (apt-get, mount, chroot) and Python 3.11 with pip (the project's venv).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.parse
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XNNC_ARM64_CACHE", Path.home() / ".cache/xnnc/arm64"))
ROOT = CACHE / "root"
STAMPS = CACHE / "stamps"
VENV = "/opt/venv"  # inside the root
SITE = f"{VENV}/lib/python3.11/site-packages"
SUITE = "bookworm"
HOST_PACKAGES = ("qemu-user-static", "debootstrap", "gcc-aarch64-linux-gnu")
ROOT_PACKAGES = ("python3", "python3-venv", "libpython3.11")
# torch's aarch64 wheel is the registry's CUDA build (+cu130, with its nvidia libraries:
# ~4.8 GB). It runs on the CPU.
# The root's glibc is 2.36: every manylinux tag up to it (pip does not expand one given tag
# to the older ones; torch's nvidia-cudnn wheel is manylinux_2_27 only).
PLATFORMS = (
    *(f"manylinux_2_{minor}_aarch64" for minor in range(36, 16, -1)),
    "manylinux2014_aarch64",
    "linux_aarch64",
)
# Dependencies the registry has as source only (`--platform` takes wheels only): pure
# Python, so built into wheels on the host (hydra-core's parser runtime).
SOURCE_ONLY = ("antlr4-python3-runtime==4.9.3",)
PINNED = ("torch", "executorch")  # installed without their dependencies, then those
CPUS = 2  # the fake /sys CPU tree; XNNPACK's cpuinfo needs one, the host's crashes torch
MIDR = "0x00000000410fd0c1"  # Arm Neoverse N1 r4p1
BINFMT = Path("/proc/sys/fs/binfmt_misc")
QEMU_BINFMT = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")
CROSS = "aarch64-linux-gnu-gcc"
# Not part of a source tree a user builds from (as tests/test_wheel.py's copy).
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", "*.so", "Output", ".hypothesis",
    ".pytest_cache", ".ruff_cache", "*.pte", "*.xnn",
)  # fmt: skip


class EnvError(Exception):
    """A step failed; its message is the one line printed."""


def say(text: str) -> None:
    print(f"arm64-env: {text}", flush=True)


def run(args: list[str], what: str, timeout: float, source: str = "", **kwargs) -> None:
    """Run a step's command with its output shown; a failure or time-out is one EnvError,
    which names `source` (a registry's URL) when it cannot be reached."""
    started = time.monotonic()
    try:
        done = subprocess.run(args, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        raise EnvError(
            _unreachable(source) or f"{what}: no answer within {timeout:.0f} s"
        ) from None
    if done.returncode != 0:
        why = _unreachable(source) or "its output is above"
        raise EnvError(f"{what} failed (exit {done.returncode}): {why}")
    say(f"{what}: {time.monotonic() - started:.0f} s")


def _unreachable(url: str) -> str:
    """Why `url`'s host cannot be reached (a 10 s connect), or "" when it can."""
    if not url:
        return ""
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=10).close()
    except OSError as error:
        return f"cannot reach {parts.scheme}://{parts.hostname} ({error})"
    return ""


def _pip_index() -> str:
    """The index pip downloads from: $PIP_INDEX_URL, its configuration, or its default."""
    from pip._internal.models.index import PyPI

    configured = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.index-url"],
        capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return os.environ.get("PIP_INDEX_URL") or configured or PyPI.simple_url


def step(name: str, key: str = "") -> Callable[[Callable[[], None]], Callable[[], None]]:
    """A build step that runs once: skipped while its stamp holds `key`."""

    def wrap(body: Callable[[], None]) -> Callable[[], None]:
        def once() -> None:
            stamp = STAMPS / name
            if stamp.exists() and stamp.read_text() == key:
                return
            say(f"step {name}")
            body()
            STAMPS.mkdir(parents=True, exist_ok=True)
            stamp.write_text(key)

        once.__name__ = name
        return once

    return wrap


# --- the host ---------------------------------------------------------------------------


def host_packages() -> None:
    """Debian's packages on the host (apt-get skips what is installed)."""
    missing = [p for p in HOST_PACKAGES if not _installed(p)]
    if not missing:
        return
    say(f"installing {' '.join(missing)} from Debian")
    apt = ["apt-get", "-o", "Acquire::http::Timeout=30", "-o", "Acquire::Retries=1"]
    mirror = _debian_mirror()
    run([*apt, "update", "-q"], "apt-get update", 300, source=mirror)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run([*apt, "install", "-y", "-q", *missing], "apt-get install", 600, source=mirror, env=env)


def _installed(package: str) -> bool:
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
    )
    return done.stdout.endswith("installed")


def binfmt() -> None:
    """QEMU as the kernel's interpreter of aarch64 binaries. Its `F` flag opens QEMU at
    registration, so it also runs inside the chroot. Kernel state: checked every time."""
    if not (BINFMT / "register").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], "mount binfmt_misc", 30)
    if (BINFMT / "qemu-aarch64").exists():
        return
    lines = [line for line in QEMU_BINFMT.read_text().splitlines() if line.startswith(":")]
    (BINFMT / "register").write_text(lines[0])
    say("registered QEMU for aarch64 binaries")


def _debian_mirror() -> str:
    """The host's own Debian mirror (its apt sources), so the root comes from where apt does."""
    sources = [Path("/etc/apt/sources.list"), *Path("/etc/apt/sources.list.d").glob("*")]
    for path in sources:
        if not path.is_file() or path.suffix not in (".list", ".sources"):
            continue
        for line in path.read_text().splitlines():
            words = line.split()
            if path.suffix == ".sources" and words[:1] == ["URIs:"]:
                uri = words[1]
            elif path.suffix == ".list" and words[:1] == ["deb"]:
                uri = next(w for w in words[1:] if not w.startswith("["))
            else:
                continue
            if uri.rstrip("/").endswith("/debian"):
                return uri
    raise EnvError("no Debian mirror in /etc/apt/sources.list{,.d}: cannot make the root")


# --- the root ---------------------------------------------------------------------------


@step("root")
def root() -> None:
    """debootstrap's first stage on the host (downloads), the second under emulation (~5 min:
    the packages' scripts run as aarch64 code)."""
    if ROOT.exists():
        _unmount()
        shutil.rmtree(ROOT)
    ROOT.mkdir(parents=True)
    mirror = _debian_mirror()
    say(f"downloading an arm64 Debian {SUITE} root from {mirror}")
    first = ["debootstrap", "--arch=arm64", "--foreign", "--variant=minbase"]
    first += [f"--include={','.join(ROOT_PACKAGES)}", SUITE, str(ROOT), mirror]
    run(first, "debootstrap (download)", 600, source=mirror)
    say("debootstrap's second stage, emulated (about 5 minutes)")
    second = ["chroot", str(ROOT), "/debootstrap/debootstrap", "--second-stage"]
    run(second, "debootstrap (second stage)", 1800)


@step("sys")
def fake_sys() -> None:
    """The CPU lists and MIDR registers XNNPACK's cpuinfo reads. The host's /sys would
    crash torch's import (oneDNN reads MIDR_EL1 there), none at all fails delegate init."""
    cpu = ROOT / "sys/devices/system/cpu"
    cpu.mkdir(parents=True, exist_ok=True)
    for name in ("possible", "present", "online"):
        (cpu / name).write_text(f"0-{CPUS - 1}\n")
    for i in range(CPUS):
        regs = cpu / f"cpu{i}/regs/identification"
        regs.mkdir(parents=True, exist_ok=True)
        (regs / "midr_el1").write_text(f"{MIDR}\n")


@step("venv")
def venv() -> None:
    """An empty venv in the root; the host's pip fills it."""
    mount()
    run(["chroot", str(ROOT), "python3", "-m", "venv", "--without-pip", VENV], "venv", 300)


def _pip(command: str, args: list[str], what: str, timeout: float) -> None:
    """The host's pip, for aarch64 CPython 3.11 wheels: native speed, no emulation."""
    pip = [sys.executable, "-m", "pip", command, "--only-binary=:all:"]
    pip += [f"--platform={p}" for p in PLATFORMS]
    pip += ["--python-version=3.11", "--implementation=cp", "--abi=cp311", "--timeout=30"]
    run([*pip, "--retries=2", "--progress-bar=on", *args], what, timeout, source=_pip_index())


def _install(args: list[str], what: str, timeout: float) -> None:
    """pip install into the root's venv."""
    target = ["--target", str(ROOT / SITE.lstrip("/")), "--upgrade", "--no-warn-script-location"]
    _pip("install", [*target, *args], what, timeout)


def _aarch64_requirements(wheel: Path) -> list[str]:
    """A wheel's dependencies whose environment markers hold on aarch64 Linux. The host's
    pip evaluates markers on the host: executorch's would pull in coremltools, which has
    no aarch64 wheel (`platform_machine == "x86_64"`)."""
    from packaging.requirements import Requirement

    env = {"platform_machine": "aarch64", "platform_system": "Linux", "sys_platform": "linux",
           "python_version": "3.11", "python_full_version": "3.11.2", "extra": ""}  # fmt: skip
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = z.read(name).decode()
    found = []
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist:"):
            req = Requirement(line.removeprefix("Requires-Dist:").strip())
            if req.marker is None or req.marker.evaluate(env):
                req.marker = None
                found.append(str(req))
    return found


def _requirements() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return project["dependencies"]


@step("wheels", key=" ".join(_requirements()))
def wheels() -> None:
    """torch, executorch and xnnc's other dependencies, pinned as pyproject.toml pins them:
    the pinned wheels first (no dependencies), then their dependencies as they stand on
    aarch64 with xnnc's, then the pinned wheels again over anything the resolver brought."""
    pinned = [r for r in _requirements() if "==" in r and r.split("==")[0] in PINNED]
    others = [r for r in _requirements() if r not in pinned]
    downloads = CACHE / "wheels"
    say(f"downloading the aarch64 wheels: {' '.join(pinned)} (torch: ~4.8 GB with CUDA)")
    _pip("download", ["--no-deps", "-d", str(downloads), *pinned], "pip download", 1800)
    files = [next(downloads.glob(f"{r.split('==')[0]}-{r.split('==')[1]}*.whl")) for r in pinned]
    needed = sorted({d for f in files for d in _aarch64_requirements(f)} | set(others))
    built = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(downloads)]
    run([*built, *SOURCE_ONLY], "pip wheel (pure-Python sources)", 600, source=_pip_index())
    constraints = CACHE / "constraints.txt"  # a dependency that asks for torch gets this one
    constraints.write_text("\n".join(pinned) + "\n")
    say(f"installing their dependencies: {' '.join(needed)}")
    found = [f"--find-links={downloads}", f"--constraint={constraints}"]
    _install([*found, *needed], "pip install (dependencies)", 1800)
    _install(["--no-deps", *map(str, files)], "pip install (torch, executorch)", 900)


def _source_hash() -> str:
    """The checkout's files as a wheel is built from them."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO, capture_output=True, check=True,
    )  # fmt: skip
    digest = hashlib.sha256()
    for name in sorted(listed.stdout.decode().split("\0")):
        path = REPO / name
        if name and path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def xnnc() -> None:
    step("xnnc", key=_source_hash())(_xnnc)()


def _xnnc() -> None:
    """`pip wheel` of a copy of the checkout, as a user builds it, with rows.c compiled by
    Debian's cross compiler: the wheel is tagged linux_aarch64 and holds an aarch64 loop."""
    cross = {
        "CC": CROSS,
        "LDSHARED": f"{CROSS} -shared",
        "_PYTHON_HOST_PLATFORM": "linux-aarch64",
        "SETUPTOOLS_EXT_SUFFIX": ".cpython-311-aarch64-linux-gnu.so",
    }
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "source"
        shutil.copytree(REPO, source, ignore=NOT_SOURCE)
        pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", work, "."]
        run(pip, "xnnc wheel (cross-compiled)", 600, cwd=source, env={**os.environ, **cross})
        (wheel,) = Path(work).glob("xnnc-*-linux_aarch64.whl")
        _install(["--no-deps", str(wheel)], f"install {wheel.name}", 300)


@step("check")
def check() -> None:
    """torch, ExecuTorch's runtime and xnnc import under emulation (~1 min)."""
    code = "import torch, xnnc; from executorch.runtime import Runtime; print(torch.__version__)"
    done = run_in_root(["python", "-c", code], cpu="max", timeout=600)
    if done.returncode != 0:
        raise EnvError("the root's Python cannot import torch, executorch and xnnc")


# --- running inside -----------------------------------------------------------------------


def mount() -> None:
    """QEMU registered and the host's /proc bound into the root (left mounted: other
    commands may be running there; `_unmount` takes it away before the root is rebuilt)."""
    binfmt()
    proc = ROOT / "proc"
    if not os.path.ismount(proc):
        proc.mkdir(exist_ok=True)
        subprocess.run(["mount", "--bind", "/proc", str(proc)], check=True)


def _unmount() -> None:
    if os.path.ismount(ROOT / "proc"):
        subprocess.run(["umount", "-l", str(ROOT / "proc")], check=True)


def run_in_root(
    command: list[str], cpu: str, timeout: float | None = None, **kwargs
) -> subprocess.CompletedProcess:
    """`command` in the root's venv, with QEMU emulating `cpu` (a QEMU -cpu name)."""
    env = {
        "PATH": f"{VENV}/bin:/usr/bin:/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "QEMU_CPU": cpu,
        "XNNC_EMULATED": f"qemu-aarch64 -cpu {cpu}",
    }
    mount()
    assignments = [f"{k}={v}" for k, v in env.items()]
    chroot = ["chroot", str(ROOT), "env", "-i", *assignments, *command]
    return subprocess.run(chroot, timeout=timeout, **kwargs)


def build() -> None:
    started = time.monotonic()
    host_packages()
    binfmt()
    for body in (root, fake_sys, venv, wheels, xnnc, check):
        body()
    say(f"ready in {time.monotonic() - started:.0f} s: {ROOT}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="build what is missing (idempotent)")
    sub.add_parser("root", help="print the root's path")
    inside = sub.add_parser("run", help="run a command in the root under QEMU")
    inside.add_argument("--cpu", default="max", help="QEMU's CPU model (default: max)")
    inside.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    try:
        if args.command == "build":
            build()
        elif args.command == "root":
            print(ROOT)
        else:
            if not (STAMPS / "check").exists():
                raise EnvError(f"no arm64 environment in {CACHE}: run `make arm64-env`")
            argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
            return run_in_root(argv, args.cpu).returncode
    except EnvError as error:
        say(f"error: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
