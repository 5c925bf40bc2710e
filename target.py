"""The machine a compilation is for: the runtime flavour, the CPU features XNNPACK's kernel
choice depends on, and the thread count. Passes read it from the module's `#xnn.target`
attribute, never from the process, so `xnn-opt` reproduces `xnnc.compile`'s decisions. The
speed decisions themselves are the cost model's (`xnnc.cost`): static rules of the target
and the layer, or times measured on the host (`xnnc.tuning`), recorded in the IR.

This module imports nothing from xDSL or the dialects: the runtime may use it.

A target spec (`xnnc.compile(target=...)`, `--target`, pass options) is comma-separated
words, each kind at most once, in any order:

    runtime:  stock | extended                      (default: extended)
    CPU:      host | a PRESETS name | ARCH+FEATURE+...  (default: host)
    threads:  threads=N                             (default: 1)

    "stock"  "x86-64-avx2"  "stock,x86-64-avx2"  "extended,host,threads=2"  "x86_64+avx2+fma3"

A bare `arm64` is the preset (NEON, which every AArch64 CPU has); `arm64+` is arm64 with no
feature assumed. `str(target)` is a spec that parses back to the same Target.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import platform
from dataclasses import dataclass
from functools import cache
from typing import Any

from xnnc.errors import OptionError

RUNTIMES = ("stock", "extended")
ARCHES = ("x86_64", "arm64")
FEATURES: dict[str, tuple[str, ...]] = {
    "x86_64": (
        "avx2", "fma3", "f16c", "avx512f", "avx512vnni", "avx512bf16", "avx512fp16", "amx",
    ),
    "arm64": ("neon", "fp16", "dotprod", "i8mm", "bf16", "sme"),
}  # fmt: skip

_AVX2 = frozenset({"avx2", "fma3", "f16c"})
_AVX512 = _AVX2 | {"avx512f", "avx512vnni"}
PRESETS: dict[str, tuple[str, frozenset[str]]] = {
    "x86-64-avx2": ("x86_64", _AVX2),
    "x86-64-avx512": ("x86_64", _AVX512),
    "x86-64-avx512bf16": ("x86_64", _AVX512 | {"avx512bf16"}),
    "x86-64-avx512fp16": ("x86_64", _AVX512 | {"avx512bf16", "avx512fp16"}),  # Sapphire Rapids
    "arm64": ("arm64", frozenset({"neon"})),
    "arm64-fp16-dotprod": ("arm64", frozenset({"neon", "fp16", "dotprod"})),
}

# /proc/cpuinfo's names (x86 `flags`, arm64 `Features`) -> ours.
_CPUINFO_FEATURES = {
    "x86_64": {
        "avx2": "avx2", "fma": "fma3", "f16c": "f16c", "avx512f": "avx512f",
        "avx512_vnni": "avx512vnni", "avx512_bf16": "avx512bf16",
        "avx512_fp16": "avx512fp16", "amx_tile": "amx", "amx_bf16": "amx",
    },
    "arm64": {
        "asimd": "neon", "fphp": "fp16", "asimdhp": "fp16", "asimddp": "dotprod",
        "i8mm": "i8mm", "bf16": "bf16", "sme": "sme",
    },
}  # fmt: skip
# arm64 Linux's hardware capabilities (asm/hwcap.h), what XNNPACK's cpuinfo reads too:
# feature -> (getauxval type, bit). AT_HWCAP = 16, AT_HWCAP2 = 26. fp16 is ASIMDHP, the
# vector half-precision arithmetic XNNPACK's fp16 kernels use.
_HWCAPS = {
    "neon": (16, 1 << 1), "fp16": (16, 1 << 10), "dotprod": (16, 1 << 20),
    "i8mm": (26, 1 << 13), "bf16": (26, 1 << 14), "sme": (26, 1 << 23),
}  # fmt: skip
_ALL_FEATURES = tuple(f for arch in ARCHES for f in FEATURES[arch])
_MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}


@dataclass(frozen=True)
class Target:
    """What XNNPACK will run on. The default assumes no CPU feature: a rewrite whose
    profitability needs one does nothing."""

    runtime: str = "extended"
    arch: str = "x86_64"
    features: frozenset[str] = frozenset()
    threads: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", frozenset(self.features))
        _check("runtime", self.runtime, RUNTIMES)
        _check("arch", self.arch, ARCHES)
        for feature in sorted(self.features):
            _check(f"{self.arch} feature", feature, FEATURES[self.arch])
        if type(self.threads) is not int or self.threads < 1:
            raise OptionError(f"target threads must be an integer >= 1, got {self.threads!r}")

    @classmethod
    def host(cls, runtime: str = "extended", threads: int = 1) -> Target:
        """This machine's CPU, from platform.machine() and /proc/cpuinfo."""
        arch, features = _host_cpu()
        return cls(runtime, arch, features, threads)

    @classmethod
    def preset(cls, name: str, runtime: str = "extended", threads: int = 1) -> Target:
        _check("target preset", name, tuple(PRESETS))
        arch, features = PRESETS[name]
        return cls(runtime, arch, features, threads)

    @classmethod
    def parse(cls, text: str) -> Target:
        """A Target from a spec string (the module docstring's grammar)."""
        fields: dict[str, Any] = {}
        for word in (w.strip() for w in text.split(",")):
            kind, value = _parse_word(word, text)
            if kind in fields:
                raise OptionError(f"target {text!r} gives the {kind} twice")
            fields[kind] = value
        arch, features = fields.get("cpu") or _host_cpu()
        return cls(fields.get("runtime", "extended"), arch, features, fields.get("threads", 1))

    def has(self, feature: str) -> bool:
        """Whether the CPU has `feature`; a name no arch knows is an error, not False."""
        _check("feature", feature, _ALL_FEATURES)
        return feature in self.features

    def is_host(self) -> bool:
        """Whether this is the machine's own CPU on the extended runtime: what the tuner
        measures here is then what the program will run."""
        return self.runtime == "extended" and (self.arch, self.features) == _host_cpu()

    def replace(self, **changes: object) -> Target:
        return dataclasses.replace(self, **changes)

    @property
    def bf16_gemm(self) -> bool:
        """XNNPACK has a native bf16 x bf16 -> fp32 GEMM for this CPU. At XNNPACK 92a7ad50
        `init_bf16_f32_gemm_config` (src/configs/gemm-config.c) has one, x86-64 AVX512-BF16
        (`vdpbf16ps`, 1x32c2 and 11x32c2 tiles): no AMX kernel, none on arm64. Whether it
        pays is the cost model's choice (`xnnc.cost.rules.bf16_gemm`)."""
        return self.arch == "x86_64" and self.has("avx512bf16")

    def __str__(self) -> str:
        words = [self.runtime, self._cpu_spec()]
        if self.threads != 1:
            words.append(f"threads={self.threads}")
        return ",".join(words)

    def _cpu_spec(self) -> str:
        """The preset name if one matches, else ARCH+FEATURE+... in FEATURES order."""
        for name, cpu in PRESETS.items():
            if cpu == (self.arch, self.features):
                return name
        ordered = [f for f in FEATURES[self.arch] if f in self.features]
        if not ordered and self.arch in PRESETS:
            return f"{self.arch}+"  # the bare name is the preset
        return "+".join([self.arch, *ordered])


def _check(what: str, value: str, valid: tuple[str, ...]) -> None:
    if value not in valid:
        raise OptionError(f"unknown {what} {value!r}; valid: {', '.join(valid)}")


def _parse_word(word: str, text: str) -> tuple[str, object]:
    """One word of a spec -> (runtime | cpu | threads, its value)."""
    if word in RUNTIMES:
        return "runtime", word
    if word == "host":
        return "cpu", _host_cpu()
    if word in PRESETS:
        return "cpu", PRESETS[word]
    if word.startswith("threads="):
        count = word.removeprefix("threads=")
        if not count.isdigit():
            raise OptionError(f"target threads must be an integer >= 1, got {count!r}")
        return "threads", int(count)
    arch, plus, features = word.partition("+")
    if arch in ARCHES and (plus or arch not in PRESETS):
        return "cpu", (arch, frozenset(f for f in features.split("+") if f))
    valid = [*RUNTIMES, "host", *PRESETS, "threads=N", *(f"{a}+FEATURE+..." for a in ARCHES)]
    raise OptionError(f"unknown word {word!r} in target {text!r}; valid: {', '.join(valid)}")


@cache
def _host_cpu() -> tuple[str, frozenset[str]]:
    """(arch, features) of this machine: on arm64 Linux the kernel's hardware capabilities
    (under QEMU's user mode, the emulated CPU's: /proc/cpuinfo is then the host's), else
    /proc/cpuinfo; no feature when neither can be read."""
    machine = platform.machine()
    arch = _MACHINES.get(machine.lower())
    if arch is None:
        raise OptionError(f"host CPU {machine!r} is not one of {', '.join(ARCHES)}")
    if arch == "arm64" and (hwcaps := _arm64_hwcaps()) is not None:
        return arch, hwcaps
    cpuinfo = _cpuinfo()
    key = "flags" if arch == "x86_64" else "Features"
    names = next(
        (line.partition(":")[2].split() for line in cpuinfo.splitlines()
         if line.split(":")[0].strip() == key),
        [],
    )  # fmt: skip
    table = _CPUINFO_FEATURES[arch]
    return arch, frozenset(table[name] for name in names if name in table)


def _cpuinfo() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return f.read()
    except OSError:
        return ""


def _arm64_hwcaps() -> frozenset[str] | None:
    """The features getauxval(AT_HWCAP, AT_HWCAP2) names, or None off Linux's C library."""
    try:
        getauxval = ctypes.CDLL(None).getauxval
    except (OSError, AttributeError):
        return None
    getauxval.restype, getauxval.argtypes = ctypes.c_ulong, [ctypes.c_ulong]
    words = {kind: getauxval(kind) for kind in (16, 26)}
    return frozenset(f for f, (kind, bit) in _HWCAPS.items() if words[kind] & bit)


@cache
def emulation() -> str | None:
    """Why this process runs under emulation, or None: QEMU's user mode, told by
    $XNNC_EMULATED (the arm64 suite's runner sets it) or by an arm64 process whose
    /proc/cpuinfo describes an x86 CPU (QEMU 7.2 shows the host's). Timing means nothing
    there: the tuner refuses to time."""
    if told := os.environ.get("XNNC_EMULATED"):
        return told
    if _MACHINES.get(platform.machine().lower()) == "arm64":
        if any(line.startswith(("vendor_id", "flags")) for line in _cpuinfo().splitlines()):
            return "an arm64 process on an x86 CPU (QEMU user mode)"
    return None
