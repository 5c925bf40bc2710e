"""docs/op-coverage.md is what `python -m xnnc.tools.op_coverage` writes: every core ATen
overload, with what xnnc makes of it on both runtimes, compiled from the fixtures."""

from pathlib import Path

from xnnc.conversion.aten_to_xnn import lowered_ops
from xnnc.frontend.fx_importer import OPS_BY_OVERLOAD
from xnnc.tools.op_coverage import core_overloads, kept_whole, reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "op-coverage.md"


def test_docs_op_coverage_md_is_generated_from_the_code() -> None:
    assert PAGE.read_text() == reference(), (
        "docs/op-coverage.md is stale: run `python -m xnnc.tools.op_coverage > docs/op-coverage.md`"
    )


def test_every_core_overload_and_every_modelled_one_has_a_row() -> None:
    text = PAGE.read_text()
    for qualified in (*core_overloads(), *kept_whole()):
        assert f"| `{qualified}` |" in text, qualified
    # Each lowered op with an ATen overload shows up under its dialect name.
    named = {op.name for op in OPS_BY_OVERLOAD.values()}
    for op in lowered_ops():
        if op.name in named:
            assert f"| `{op.name}` |" in text, op.name
