"""Targets the tests compile for, chosen so that a test means the same on every machine
this project runs on (AVX2-only, AVX-512 with avx512_bf16, AMX)."""

from __future__ import annotations

from xnnc.target import Target


def _cross_x86() -> str:
    for name in ("x86-64-avx2", "x86-64-avx512"):
        if not Target.preset(name).is_host():
            return name
    raise AssertionError("unreachable: the host matches at most one preset")


# An x86-64 preset that is not this machine's CPU: a cross-compile on any host (the loop,
# the tuner and other host-only paths stay off).
CROSS_X86 = _cross_x86()
