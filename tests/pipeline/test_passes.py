"""The pass registry (`xnnc.pipeline.registry`) and its lit tests: one file per pass."""

import re
from pathlib import Path

from xnnc.pipeline.registry import NAMES, get_all_passes, load_pass, pass_classes

LIT = Path(__file__).resolve().parents[2] / "lit_tests"
FROM_XDSL = {"cse", "dce"}  # xDSL's passes, tested there


def _lit_dir(name: str) -> Path:
    """lit_tests/<package>/ of the package that defines pass `name` (its module's)."""
    return LIT / load_pass(name).__module__.split(".")[1]


def test_the_names_are_the_classes_own() -> None:
    """The registry lists names without importing the passes: each is its class's `name`."""
    assert tuple(pass_classes()) == NAMES
    for name in NAMES:
        assert load_pass(name).name == name
        assert get_all_passes()[name]() is load_pass(name)


def test_every_pass_has_a_lit_file_named_after_it_in_its_package() -> None:
    names = set(get_all_passes()) - FROM_XDSL
    missing = sorted(
        f"lit_tests/{_lit_dir(n).name}/{n}.mlir"
        for n in names
        if not (_lit_dir(n) / f"{n}.mlir").exists()
    )
    assert not missing, f"no lit file named after its pass: {missing}"


def test_a_lit_file_named_after_a_pass_sits_in_its_package() -> None:
    names = set(get_all_passes()) - FROM_XDSL
    misplaced = sorted(
        f"{p.parent.name}/{p.name}"
        for p in LIT.glob("*/*.mlir")
        if p.stem.removesuffix("-symbolic") in names
        and p.parent != _lit_dir(p.stem.removesuffix("-symbolic"))
    )
    assert not misplaced, f"lit files away from their pass's package: {misplaced}"


def test_every_transforms_lit_file_names_a_pass() -> None:
    """The rewrites' files are each a pass's (canonicalize's pattern checks beside them)."""
    names = set(get_all_passes())
    stray = sorted(
        p.name
        for p in (LIT / "transforms").glob("*.mlir")
        if p.stem.removesuffix("-symbolic") not in names and not p.stem.startswith("canonicalize-")
    )
    assert not stray, f"lit files not named after a pass: {stray}"


# Not rewrites: a pipeline of the others and the target attribute's writer.
NOT_REWRITES = {"xnnc-pipeline", "xnn-set-target"}
# Matches static shapes only, by construction: it runs a decomposed pad's gather chain on
# element numbers, which needs every size (its docstring); on a symbolic size the chain is
# left as it is, as any unmatched IR.
STATIC_ONLY = {"aten-recognize-circular-pad"}


def test_every_rewrite_has_a_lit_case_on_symbolic_sizes() -> None:
    """Issue 13: each rewrite is run by a lit file (its RUN lines name it) on IR with a
    symbolic size (a `#xnnc.dims` encoding)."""
    names = set(get_all_passes()) - FROM_XDSL - NOT_REWRITES - STATIC_ONLY
    covered = set()
    for f in LIT.glob("*/*.mlir"):
        text = f.read_text()
        if "#xnnc.dims<" in text:
            runs = " ".join(line for line in text.splitlines() if line.startswith("// RUN:"))
            words = set(re.split(r"[\s,'{]+", runs))  # -p 'a{opt=1},b' names a and b
            covered |= names & words
    missing = sorted(names - covered)
    assert not missing, f"no lit case on symbolic sizes for {missing}"
