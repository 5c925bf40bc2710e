"""xnnc/target.py: presets, spec strings and their round trip, validation, the host CPU; and
the `#xnn.target` module attribute that carries a Target in the IR."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import VerifyException

import xnnc
from xnnc.dialects.xnn import DEFAULT_TARGET, TargetAttr, set_target, target_of
from xnnc.errors import OptionError
from xnnc.target import ARCHES, FEATURES, PRESETS, RUNTIMES, Target


def test_presets():
    avx2 = Target.preset("x86-64-avx2")
    assert (avx2.arch, avx2.features) == ("x86_64", {"avx2", "fma3", "f16c"})
    assert Target.preset("x86-64-avx512").has("avx512vnni")
    sapphire = Target.preset("x86-64-avx512fp16", runtime="stock", threads=4)
    assert sapphire.bf16_gemm
    assert (sapphire.runtime, sapphire.threads) == ("stock", 4)
    assert Target.preset("arm64").features == {"neon"}
    phone = Target.preset("arm64-fp16-dotprod")
    assert not phone.bf16_gemm and not avx2.bf16_gemm
    # XNNPACK 92a7ad50's bf16 GEMM is AVX512-BF16 only: no AMX kernel, none on arm64.
    assert not Target.preset("x86-64-avx512").replace(features={"amx"}).bf16_gemm
    assert not Target("extended", "arm64", frozenset({"neon", "bf16"})).bf16_gemm
    assert Target.preset("x86-64-avx512bf16").bf16_gemm
    for arch, features in PRESETS.values():
        assert arch in ARCHES and features <= set(FEATURES[arch])


def test_default_assumes_no_feature():
    assert DEFAULT_TARGET == Target() == Target("extended", "x86_64", frozenset(), 1)
    assert not DEFAULT_TARGET.features


@pytest.mark.parametrize(
    "spec, want",
    [
        ("x86-64-avx2", Target.preset("x86-64-avx2")),
        ("stock,x86-64-avx2", Target.preset("x86-64-avx2", runtime="stock")),
        ("threads=3 , arm64", Target.preset("arm64", threads=3)),
        ("x86_64+avx2+fma3", Target(features=frozenset({"avx2", "fma3"}))),
        ("x86_64", Target()),
        ("arm64+", Target(arch="arm64")),
        ("stock", Target.host(runtime="stock")),
        ("extended,host,threads=2", Target.host(threads=2)),
    ],
)
def test_parse(spec: str, want: Target):
    assert Target.parse(spec) == want


def test_str_names_the_preset():
    assert str(Target.preset("x86-64-avx2", runtime="stock", threads=2)) == (
        "stock,x86-64-avx2,threads=2"
    )
    assert str(Target(features=frozenset({"fma3", "avx2"}))) == "extended,x86_64+avx2+fma3"
    assert str(Target(arch="arm64")) == "extended,arm64+"


@given(
    runtime=st.sampled_from(RUNTIMES),
    cpu=st.sampled_from(ARCHES).flatmap(
        lambda arch: st.tuples(st.just(arch), st.frozensets(st.sampled_from(FEATURES[arch])))
    ),
    threads=st.integers(1, 256),
)
def test_str_parses_back(runtime: str, cpu: tuple[str, frozenset[str]], threads: int):
    target = Target(runtime, *cpu, threads)
    assert Target.parse(str(target)) == target
    assert TargetAttr.from_target(target).target == target


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Target(runtime="eager"), "unknown runtime 'eager'; valid: stock, extended"),
        (lambda: Target(arch="riscv64"), "unknown arch 'riscv64'; valid: x86_64, arm64"),
        (lambda: Target(features=frozenset({"neon"})), "unknown x86_64 feature 'neon'; valid: "),
        (lambda: Target(threads=0), "threads must be an integer >= 1, got 0"),
        (lambda: Target(threads=True), "threads must be an integer >= 1, got True"),
        (lambda: Target.preset("skylake"), "unknown target preset 'skylake'; valid: x86-64-avx2"),
        (lambda: Target.parse("stock,avx2"), "unknown word 'avx2' in target 'stock,avx2'; valid:"),
        (lambda: Target.parse("arm64+avx2"), "unknown arm64 feature 'avx2'; valid: neon, fp16"),
        (lambda: Target.parse("stock,extended"), "target 'stock,extended' gives the runtime twice"),
        (lambda: Target.parse("threads=two"), "threads must be an integer >= 1, got 'two'"),
    ],
)
def test_errors_are_one_line_option_errors(make, message: str):
    with pytest.raises(OptionError, match="^[^\n]*$") as error:
        make()
    assert message in str(error.value)


def test_unknown_word_lists_the_valid_ones():
    with pytest.raises(OptionError) as error:
        Target.parse("fast")
    for word in (*RUNTIMES, "host", *PRESETS, "threads=N", "x86_64+FEATURE+..."):
        assert word in str(error.value)


def test_host():
    """Only what every x86-64 machine these tests run on has (this one also has AVX-512)."""
    host = Target.host(threads=2)
    assert host.arch == "x86_64" and {"avx2", "fma3"} <= host.features
    assert (host.runtime, host.threads) == ("extended", 2)


def test_attribute_prints_sorted_and_parses_back():
    module = ModuleOp([])
    set_target(module, Target.parse("stock,x86_64+fma3+avx2+f16c,threads=2"))
    text = xnnc.print_module(module)
    assert (
        '#xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"], '
        "threads = 2>" in text
    )
    assert target_of(xnnc.parse_module(text)) == Target.parse("stock,x86-64-avx2,threads=2")


def test_attribute_verifies():
    with pytest.raises(VerifyException, match="#xnn.target: unknown runtime 'x'"):
        TargetAttr(StringAttr("x"), StringAttr("x86_64"), ArrayAttr([]), IntAttr(1))


def test_target_of_the_nearest_module():
    func = FuncOp("f", ((), ()))
    inner = ModuleOp([func])
    outer = ModuleOp([inner])
    assert target_of(func) == DEFAULT_TARGET
    set_target(outer, Target.preset("x86-64-avx512"))
    assert target_of(func) == target_of(inner) == Target.preset("x86-64-avx512")
    set_target(inner, Target.preset("arm64"))
    assert target_of(func) == Target.preset("arm64")
    assert target_of(outer) == Target.preset("x86-64-avx512")


def test_target_of_rejects_another_attribute():
    module = ModuleOp([])
    module.attributes["xnn.target"] = StringAttr("avx2")
    with pytest.raises(VerifyException, match="xnn.target must be a #xnn.target"):
        target_of(module)


def test_has_rejects_a_misspelled_feature():
    assert Target.preset("arm64").has("avx2") is False
    with pytest.raises(OptionError, match="unknown feature 'avx512'"):
        Target.preset("x86-64-avx512").has("avx512")
