"""The model-zoo harness (`make bench`) runs end to end and writes its tables."""

from __future__ import annotations

import pytest

from xnnc.benchmarks import zoo
from xnnc.cost import rules
from xnnc.target import Target


def test_zoo_runs_and_reports(tmp_path, capsys):
    results = tmp_path / "RESULTS.md"
    argv = ["--models", "mimi", "--small", "--runs", "2", "--threads", "1",
            "--systems", "eager,xnnc", "--max-wait", "0", "--results", str(results)]  # fmt: skip
    assert zoo.main(argv) == 0
    report = results.read_text()
    summary = next(line for line in report.splitlines() if line.startswith("| mimi (fp32) |"))
    cells = [c.strip() for c in summary.strip("|").split("|")]
    assert float(cells[1]) > 0  # GFLOP counted
    mib, read_ms = (float(v) for v in cells[3].split(", "))
    assert mib > 0 and read_ms > 0  # the weights and the time to read them once
    assert float(cells[8]) > 0  # xnnc latency measured
    assert cells[13].endswith("/ 1")  # one xnnc partition (stock not built: n/a)
    detail = next(line for line in report.splitlines() if line.startswith("| mimi | 1 | xnnc |"))
    assert float(detail.split("|")[9]) < 1e-4  # max error vs eager, fp32
    assert "Convolution" in report  # the per-node profile names XNNPACK's operators


def test_unknown_model_is_one_line_error(capsys):
    assert zoo.main(["--models", "nope"]) == 1
    assert capsys.readouterr().err == "zoo: error: unknown model or system: nope\n"


def test_results_are_added_newest_first_keeping_earlier_runs(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\nintro\n\n## Index\n\n- [Old](#old)\n\n## Old\n\nold table\n")
    zoo.add_results(str(results), "Model zoo: new", "new table")
    assert results.read_text() == (
        "# Results\n\nintro\n\n## Index\n\n- [Model zoo: new](#model-zoo-new)\n- [Old](#old)\n\n"
        "## Model zoo: new\n\n*Written by `python -m xnnc.benchmarks.zoo`.*\n\nnew table\n\n"
        "## Old\n\nold table\n"
    )
    fresh = tmp_path / "new.md"
    zoo.add_results(str(fresh), "Run", "table")
    assert fresh.read_text().startswith(
        "# Benchmark results\n\n## Index\n\n- [Run](#run)\n\n## Run"
    )


def test_policies_beside_the_default(tmp_path):
    """--policies: mimi without polyphase is another program, measured beside the default;
    policies that change nothing for it are listed as "= default", not run again."""
    results = tmp_path / "RESULTS.md"
    argv = ["--models", "mimi", "--small", "--runs", "1", "--threads", "1", "--systems",
            "xnnc", "--policies", "--max-wait", "0", "--results", str(results)]  # fmt: skip
    assert zoo.main(argv) == 0
    report = results.read_text()
    assert "\n## Model zoo: " in report and "CPU: " in report
    head = next(
        line for line in report.splitlines() if line.startswith("| model | threads | default")
    )
    row = next(line for line in report.splitlines() if line.startswith("| mimi | 1 | "))
    cells = dict(zip(head.strip("|").split("|"), row.strip("|").split("|"), strict=True))
    cells = {k.strip(): v.strip() for k, v in cells.items()}
    assert float(cells["default"]) > 0 and float(cells["no polyphase"]) > 0
    assert cells["no hoist-input-projection"] == "= default"  # mimi has no LSTM
    assert cells["bf16 GEMM in fp32"] == cells["bf16 rounded as eager"] == "-"  # an fp32 model
    ratio = cells["default / best"].split()[0]
    assert float(ratio) >= 1.0
    detail = next(line for line in report.splitlines() if "| xnnc[no polyphase] |" in line)
    assert float(detail.split("|")[9]) < 1e-4  # the policy's program matches eager too


def test_policy_targets_decide_the_bf16_gemm():
    """A bf16 policy sets the features the static bf16-GEMM rule reads, leaving the others."""
    spr = Target.preset("x86-64-avx512fp16")
    native = next(p for p in zoo.POLICIES if p.bf16_gemm).target(spr)
    fp32 = next(p for p in zoo.POLICIES if p.bf16_gemm is False).target(spr)

    def choice(target: Target, rows: int) -> str:
        return rules.bf16_gemm(target, rules.GemmLayer("fc", 1, rows, 2048, 2048)).choice

    assert choice(native, 64) == "native" and choice(fp32, 1) == "fp32"
    assert {"avx2", "avx512f"} <= native.features and {"avx2", "avx512f"} <= fp32.features
    assert zoo.POLICIES[1].target(spr) == spr


def test_xnnc_pte_system_is_to_pte(tmp_path):
    """The `xnnc-pte` system is `to_pte`'s `.pte` on the stock runtime: for EnCodec, whose
    LSTM becomes calls of one step delegate per layer, its output matches eager, and the
    `.pte` names one delegate entry per layer beside the rest."""
    results = tmp_path / "RESULTS.md"
    argv = ["--models", "encodec", "--small", "--runs", "1", "--threads", "1", "--systems",
            "xnnc-pte", "--max-wait", "0", "--results", str(results)]  # fmt: skip
    assert zoo.main(argv) == 0
    row = next(
        line for line in results.read_text().splitlines()
        if line.startswith("| encodec | 1 | xnnc-pte |")
    )  # fmt: skip
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert float(cells[3]) > 0 and float(cells[8]) < 1e-4  # p50 ms, max |error| vs eager
    assert int(cells[9]) >= 3  # delegate entries: the model's and one per LSTM layer


def test_a_row_over_three_percent_gives_its_pair_measured_again():
    """`best_policy` names the fastest policy and the default's ratio to it; the table gives a
    row over 3% the ratio of the pair measured again ("A/B"), and the others none."""
    ms = lambda *v: zoo.Cell(samples=[x / 1e3 for x in v])  # noqa: E731
    gemm, poly = "xnnc[no conv-as-gemm]", "xnnc[no polyphase]"
    slow = {"xnnc": ms(10.4, 10.5, 10.4), gemm: ms(10.0, 10.1, 10.0), poly: ms(14.0)}
    fast = {"xnnc": ms(9.0), gemm: ms(10.0)}
    assert zoo.best_policy(slow) == (gemm, pytest.approx(1.04))
    assert zoo.best_policy(fast) == (None, 1.0)
    assert zoo.best_policy({"xnnc": ms(9.0)}) == (None, 1.0)
    result = zoo.ModelResult("m", "fp32", 1.0, 1.0, {}, {1: slow, 2: fast}, [], again={1: 1.01})
    rows = zoo.policy_table([result]).splitlines()[2:]
    assert rows[0].endswith("| no conv-as-gemm | 1.04 **> 3% slower**; A/B 1.01 |")
    assert rows[1].endswith("| default | 1.00 (default best) |")


def test_policies_measure_a_row_over_three_percent_again_as_a_pair(tmp_path, monkeypatch):
    """A default over 3% slower than a policy is measured again beside that policy alone,
    with twice the rounds, and the report gives that pair's ratio."""
    calls = []

    def fake_measure(systems, threads, runs, *rest):
        names = [s.name for s in systems]
        calls.append((names, runs))
        # The first time the default is 4% slower than "no polyphase"; as a pair, 6%.
        times = {"xnnc": 10.4, "xnnc[no polyphase]": 10.0 if len(calls) == 1 else 9.8}
        return {n: zoo.Cell([times.get(n, 12.0) / 1e3], [0.0], 0.0) for n in names}

    monkeypatch.setattr(zoo, "measure", fake_measure)
    results = tmp_path / "RESULTS.md"
    argv = ["--models", "mimi", "--small", "--runs", "3", "--threads", "1", "--systems",
            "xnnc", "--policies", "--max-wait", "0", "--results", str(results)]  # fmt: skip
    assert zoo.main(argv) == 0
    assert calls[1] == (["xnnc", "xnnc[no polyphase]"], 6)
    row = next(
        line for line in results.read_text().splitlines() if line.startswith("| mimi | 1 | ")
    )
    assert row.endswith("| no polyphase | 1.04 **> 3% slower**; A/B 1.06 |")


def test_a_system_makes_its_program_once_per_thread_count(monkeypatch):
    """The A/B of a flagged row runs the programs the round ran: a second make at a thread
    count reuses the first's compile (a new compile could tune more layers)."""
    import torch

    import xnnc

    compiles = []
    real = xnnc.compile
    monkeypatch.setattr(xnnc, "compile", lambda *a, **k: compiles.append(k) or real(*a, **k))
    model, x = torch.nn.Conv1d(4, 8, 3).eval(), torch.randn(1, 4, 16)
    system = zoo._xnnc(model, (x,))
    one, two, again = system.make(1), system.make(2), system.make(2)
    assert [k.get("threads") for k in compiles] == [None, 2]
    torch.testing.assert_close(two(), again())
    assert one() is not None
