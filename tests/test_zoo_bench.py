"""The model-zoo harness (`make bench`) runs end to end and writes its tables."""

from __future__ import annotations

import pytest

from xnnc.benchmarks import zoo


def test_zoo_runs_and_reports(tmp_path, capsys):
    results = tmp_path / "RESULTS.md"
    argv = ["--models", "mimi", "--small", "--runs", "2", "--threads", "1",
            "--systems", "eager,xnnc", "--max-wait", "0", "--results", str(results)]  # fmt: skip
    assert zoo.main(argv) == 0
    report = results.read_text()
    summary = next(line for line in report.splitlines() if line.startswith("| mimi (fp32) |"))
    cells = [c.strip() for c in summary.strip("|").split("|")]
    assert float(cells[1]) > 0  # GFLOP counted
    assert float(cells[7]) > 0  # xnnc latency measured
    assert cells[12].endswith("/ 1")  # one xnnc partition (stock not built: n/a)
    detail = next(line for line in report.splitlines() if line.startswith("| mimi | 1 | xnnc |"))
    assert float(detail.split("|")[9]) < 1e-4  # max error vs eager, fp32
    assert "Convolution" in report  # the per-node profile names XNNPACK's operators


def test_unknown_model_is_one_line_error(capsys):
    assert zoo.main(["--models", "nope"]) == 1
    assert capsys.readouterr().err == "zoo: error: unknown model or system: nope\n"


def test_readme_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"a\n{zoo.README_BEGIN}\nold\n{zoo.README_END}\nb\n")
    zoo.write_readme(str(readme), "new table")
    assert readme.read_text() == f"a\n{zoo.README_BEGIN}\nnew table\n{zoo.README_END}\nb\n"
    readme.write_text("no markers")
    with pytest.raises(SystemExit, match="no '<!-- zoo-bench:begin -->'"):
        zoo.write_readme(str(readme), "x")
