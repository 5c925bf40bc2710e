"""The machine a compilation is for: the runtime flavour, the CPU features XNNPACK's kernel
choice depends on, and the thread count. Passes read it from the module's `#xnn.target`
attribute, never from the process, so `xnn-opt` reproduces `xnnc.compile`'s decisions.

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

import dataclasses
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

    def replace(self, **changes: object) -> Target:
        return dataclasses.replace(self, **changes)

    @property
    def fp16_arithmetic(self) -> bool:
        """fp16 computes faster in XNNPACK's fp16 kernels than in fp32. At XNNPACK 92a7ad50
        that is arm64 with FP16 arithmetic. Not x86, even with AVX512-FP16: on a Xeon with
        avx512fp16, `xnn_is_f16_native_supported()` is false and the MI-GAN-like model runs
        1.27-1.32x faster computed in fp32 (`fp16_precision_bench`, 1 and 2 threads),
        although XNNPACK's fp16 GEMM alone peaks 1.8x above its fp32 one there."""
        return self.arch == "arm64" and self.has("fp16")

    @property
    def bf16_gemm(self) -> bool:
        """XNNPACK has a native bf16 x bf16 -> fp32 GEMM for this CPU. At XNNPACK 92a7ad50
        `init_bf16_f32_gemm_config` (src/configs/gemm-config.c) has one, x86-64 AVX512-BF16
        (`vdpbf16ps`, 1x32c2 and 11x32c2 tiles): no AMX kernel, none on arm64."""
        return self.arch == "x86_64" and self.has("avx512bf16")

    def bf16_gemm_pays(self, rows: int) -> bool:
        """XNNPACK's bf16 GEMM beats its fp32 GEMM on a bf16 GEMM of `rows` rows (M), so
        xnn-legalize-casts keeps its operands bf16 (the extended runtime then runs it on
        XNNPACK's operator API) instead of computing it in fp32 between converts.
        On Zen 4 it is 1.9x at M = 64 (notes/bf16-gemm.md). On Intel cores since Sapphire
        Rapids (AMX, AVX512-FP16), whose two 512-bit FMA ports keep up with `vdpbf16ps`,
        only the memory-bound single row wins (`bf16_gemm_bench --sweep` on a 2-core
        Sapphire Rapids Xeon, 1 thread, K = N = 2048: 1.91x at M = 1, 0.69-1.24x at M =
        2-32, 0.97x at 64, 0.84x at 256; K = N = 512: 1.19x at M = 1, 0.42-0.74x above)."""
        if not self.bf16_gemm:
            return False
        return rows == 1 or not (self.has("amx") or self.has("avx512fp16"))

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
    """(arch, features) of this machine; no feature when /proc/cpuinfo is missing."""
    machine = platform.machine()
    arch = _MACHINES.get(machine.lower())
    if arch is None:
        raise OptionError(f"host CPU {machine!r} is not one of {', '.join(ARCHES)}")
    try:
        with open("/proc/cpuinfo") as f:
            cpuinfo = f.read()
    except OSError:
        return arch, frozenset()
    key = "flags" if arch == "x86_64" else "Features"
    names = next(
        (line.partition(":")[2].split() for line in cpuinfo.splitlines()
         if line.split(":")[0].strip() == key),
        [],
    )  # fmt: skip
    table = _CPUINFO_FEATURES[arch]
    return arch, frozenset(table[name] for name in names if name in table)
