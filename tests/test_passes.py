"""The pass registry (`xnnc.passes`) and its lit tests: one file per pass, named after it."""

from pathlib import Path

from xnnc.passes import get_all_passes

TRANSFORMS = Path(__file__).resolve().parent.parent / "lit_tests" / "transforms"
FROM_XDSL = {"cse", "dce"}  # xDSL's passes, tested there


def test_every_pass_has_a_lit_file_named_after_it() -> None:
    names = set(get_all_passes()) - FROM_XDSL
    missing = sorted(n for n in names if not (TRANSFORMS / f"{n}.mlir").exists())
    assert not missing, f"no lit_tests/transforms/<pass>.mlir for {missing}"


def test_every_lit_file_names_a_pass() -> None:
    names = set(get_all_passes())
    stray = sorted(
        p.name
        for p in TRANSFORMS.glob("*.mlir")
        if p.stem not in names and not p.stem.startswith("canonicalize-")
    )
    assert not stray, f"lit files not named after a pass: {stray}"
