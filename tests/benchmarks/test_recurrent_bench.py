"""The recurrent benchmark's step split, and the benchmark end to end on a tiny LSTM."""

from __future__ import annotations

from xnnc.benchmarks import recurrent_bench

FC = "subgraph 0: Fully Connected (NC, F32) GEMM"


def test_step_split_leaves_the_projections_out() -> None:
    # 2 layers x 3 steps: 2 projections (the costliest), 4 matrix-vector products.
    profile = [(FC, 500.0), (FC, 10.0), ("subgraph 0: Add (ND)", 1.0), (FC, 12.0),
               (FC, 400.0), (FC, 11.0), (FC, 13.0), ("subgraph 0: Sigmoid (NC)", 2.0)]  # fmt: skip
    matvec, other = recurrent_bench.step_split(profile, layers=2, steps=6)
    assert matvec == (10 + 12 + 11 + 13) / 4
    assert other == 3.0 / 6


def test_recurrent_bench_runs(capsys) -> None:
    argv = ["--threads", "1", "--rounds", "1", "--hidden", "128", "--frames", "3"]
    assert recurrent_bench.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("CPU: ")
    rows = {
        line.split("|")[2].strip(): line for line in out.splitlines() if line.startswith("| 1 |")
    }
    assert {"xnnc loop", "xnnc unrolled", "xnnc unrolled, profiled", "eager"} <= set(rows)
    for name in ("xnnc loop", "xnnc unrolled"):
        assert float(rows[name].split("|")[6]) < 1e-4  # max error against eager, fp32
    matvec, _, limit = (float(c) for c in rows["xnnc unrolled, profiled"].split("|")[7:10])
    assert matvec > 0 and limit > 0  # 256 KiB of recurrent weight: microseconds a step
