"""The machine a program runs on: an fp16 program is refused on an arm64 CPU without FP16
arithmetic, and nothing is timed under emulation (the arm64 suite, tests/arm64, runs both
for real under QEMU; here the host is made to look like one)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc import target as target_module
from xnnc.errors import CpuFeatureError, OptionError
from xnnc.pipeline.options import CompileOptions
from xnnc.target import Target


@pytest.fixture
def plain_neon(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process on an arm64 CPU with NEON only (a Cortex-A53)."""
    monkeypatch.setattr(target_module, "_host_cpu", lambda: ("arm64", frozenset({"neon"})))


def _fp16_conv() -> tuple[nn.Module, tuple[torch.Tensor]]:
    torch.manual_seed(0)
    return nn.Conv2d(4, 8, 3).half().eval(), (torch.randn(1, 4, 8, 8).half(),)


def test_an_fp16_program_is_refused_in_one_line_without_fp16(plain_neon) -> None:
    model, inputs = _fp16_conv()
    with pytest.raises(CpuFeatureError) as error:
        xnnc.compile(model, inputs, target="extended,arm64-fp16-dotprod", tune=False)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("this program computes in fp16 (xnn.convolution_2d")
    assert "compiled for 'extended,arm64-fp16-dotprod'" in message
    assert "this arm64 CPU lacks fp16" in message


def test_the_same_model_computed_in_fp32_runs_there(plain_neon) -> None:
    model, inputs = _fp16_conv()
    program = xnnc.compile(model, inputs, target="extended,arm64", tune=False)
    assert [d.choice for d in program.decisions() if d.form == "fp16-compute"] == ["fp32"]


def test_the_tuner_refuses_to_time_under_emulation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XNNC_EMULATED", "qemu-aarch64 -cpu max")
    target_module.emulation.cache_clear()
    try:
        with pytest.raises(OptionError, match=r"^tune=True: this process runs under emulation"):
            CompileOptions(tune=True)
        assert CompileOptions(tune="auto").tuning() == "static"
        monkeypatch.delenv("XNNC_EMULATED")
        target_module.emulation.cache_clear()
        assert target_module.emulation() is None  # this x86 machine, unemulated
    finally:
        target_module.emulation.cache_clear()


def test_arm64_decisions_say_they_are_unmeasured() -> None:
    from xnnc.cost import rules

    phone = Target.preset("arm64-fp16-dotprod")
    assert not rules.fp16_native(phone).measured
    assert rules.fp16_native(Target.preset("arm64")).measured  # no FP16: forced, not a guess
    assert rules.fp16_native(Target.preset("x86-64-avx2")).measured
