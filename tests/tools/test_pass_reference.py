"""docs/passes.md is the pass registry's reference as `python -m xnnc.tools.pass_reference`
writes it: every pass, with its options, documented."""

from pathlib import Path

from xnnc.pipeline.registry import NAMES
from xnnc.tools.pass_reference import reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "passes.md"


def test_docs_passes_md_is_generated_from_the_registry() -> None:
    assert PAGE.read_text() == reference(), (
        "docs/passes.md is stale: run `python -m xnnc.tools.pass_reference > docs/passes.md`"
    )


def test_every_pass_is_documented_with_its_options() -> None:
    text = reference()
    for name in NAMES:
        assert f"## `{name}`\n" in text
    sections = text.split("\n## ")[1:]
    assert len(sections) == len(NAMES)
    for section in sections:
        body = section.split("\n", 3)[3]  # past the heading and the "defined in" line
        assert body.strip().split("\n")[0], f"no description: {section.splitlines()[0]}"
    assert "| `exclude` | list of str |" in text  # xnn-partition's option, as an example
