"""A fixed part of ExecuTorch's backend operator suite through the xnnc flow, under the
suite's own unmodified harness (`benchmarks/peer_flow.py`; `make peer-suite` runs all of it
beside the stock flow): each test passes (the harness compares the stock runtime's outputs
with eager at its own tolerance, atol 0.1 / rtol 0.04 on its random inputs) and each subtest
is fully delegated: one delegate, no op left outside.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xnnc.benchmarks.peer_flow import FLOW_NAME
from xnnc.benchmarks.peer_suite import fully_delegated, load, run_suite, why_not_full

OPERATORS = "executorch.backends.test.suite.operators"
# file -> its tests run here (11 subtests): ops the issue named, kept to about a minute of CPU.
SUBSET = {
    "test_conv2d": ("test_conv2d_groups", "test_conv2d_depthwise"),
    "test_convtranspose1d": ("test_convtranspose1d_output_padding", "test_convtranspose1d_groups"),
    "test_mean": ("test_mean_basic", "test_mean_scalar"),
    "test_upsample_bilinear2d": ("test_upsample_bilinear2d_batch_sizes",),
    "test_elu": ("test_elu_f32_alpha",),
}


def test_suite_subset_passes_fully_delegated(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    tests = [t for names in SUBSET.values() for t in names]
    done = run_suite(
        results,
        modules=[f"{OPERATORS}.{f}" for f in SUBSET],
        keyword=" or ".join(tests),
        flows=(FLOW_NAME,),
        capture=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    files = load(results)
    ran = {key.partition("[")[0] for f in files.values() for key in f}
    assert ran == set(tests)  # the selection ran, all of it
    for name, file_tests in files.items():
        for test in file_tests.values():
            assert test.outcome[FLOW_NAME] == "passed", (name, test.key, test.reason)
            subtests = test.subtests[FLOW_NAME]
            assert subtests, (name, test.key)
            for i, sub in enumerate(subtests):
                assert fully_delegated(sub), f"{name}::{test.key} {i}: {why_not_full(sub)}"


def test_an_arm64_flow_keeps_each_subtests_artefacts(tmp_path: Path) -> None:
    """`xnnc_arm64` compiles for `stock,arm64` under the harness, which runs the `.pte` on
    x86's stock runtime as for any flow; `--peer-artefacts` keeps the `.pte` with what the
    harness compared (its inputs, reference outputs and tolerances) and the x86 outputs,
    which the kept `.pte` gives again (tests/arm64 runs them on arm64)."""
    import torch
    from executorch.runtime import Runtime

    results, kept = tmp_path / "results.jsonl", tmp_path / "kept"
    done = run_suite(results, modules=[f"{OPERATORS}.test_convtranspose1d"],
                     keyword="test_convtranspose1d_groups", flows=("xnnc_arm64",),
                     capture=True, artefacts=kept)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    [test] = load(results)["test_convtranspose1d"].values()
    [sub] = test.subtests["xnnc_arm64"]
    assert fully_delegated(sub) and sub["artefact"], sub
    record = torch.load(kept / f"{sub['artefact']}.pt")
    assert (record["atol"], record["rtol"]) == (0.1, 0.04)
    program = Runtime.get().load_program(kept / f"{sub['artefact']}.pte")
    outputs = program.load_method("forward").execute(record["inputs"])
    torch.testing.assert_close(list(outputs), record["x86"], atol=0, rtol=0)
    torch.testing.assert_close(record["x86"], record["reference"], atol=0.1, rtol=0.04)


def test_each_quantized_xnnpack_flow_has_an_xnnc_twin() -> None:
    """The suite's quantized XNNPACK flows and their xnnc twins: the same quantize stage,
    xnnc's tester; their names parse as flows in the report."""
    from executorch.backends.test.suite.flow import all_flows

    from xnnc.benchmarks.peer_flow import XnncTester, is_flow_name
    from xnnc.benchmarks.peer_suite import QUANTIZED, test_key

    flows = all_flows()
    for name in QUANTIZED:
        stock, ours = flows[f"xnnpack_{name}"], flows[f"xnnc_{name}"]
        assert ours.quantize and ours.tester_factory is XnncTester
        assert ours.quantize_stage_factory is stock.quantize_stage_factory
        assert is_flow_name(ours.name) and is_flow_name(stock.name)
    assert test_key(f"test_add_dtype[xnnc_{QUANTIZED[0]}-float32]") == "test_add_dtype[float32]"


def _report_body(text: str) -> str:
    return text[text.index("## Targets") :]


def test_a_report_carried_renders_as_it_was_written() -> None:
    """Each committed report, read back (`carried`) and rendered with no new results, says
    what it said: targets, totals, per-file rows and the lists below them."""
    from xnnc.benchmarks import peer_suite

    benchmarks = Path(peer_suite.ROOT) / "benchmarks"
    pairs = {"PEER_SUITE.md": peer_suite.FLOWS}
    schemes = {"PEER_SUITE_QUANTIZED.md": "static_int8_per_channel",
               "PEER_SUITE_QUANTIZED_PER_TENSOR.md": "static_int8_per_tensor",
               "PEER_SUITE_QUANTIZED_DYNAMIC.md": "dynamic_int8_per_channel"}  # fmt: skip
    for name, scheme in schemes.items():
        pairs[name] = tuple(f"{flow}_{scheme}" for flow in peer_suite.FLOWS)
    for name, flows in pairs.items():
        text = (benchmarks / name).read_text()
        run, files = peer_suite.carried(text, flows)
        assert run.startswith("Run") and len(files) >= 7, name
        out = peer_suite.render({}, [], None, "", flows, (run, files))
        assert _report_body(out) == _report_body(text), name
    with pytest.raises(ValueError, match="not a report of xnnpack and xnnc"):
        peer_suite.carried((benchmarks / "PEER_SUITE_QUANTIZED.md").read_text(), peer_suite.FLOWS)


def test_a_new_run_replaces_the_files_it_ran(tmp_path: Path) -> None:
    """Results of this run take a carried file's place; the other files stay, and the totals
    add up over both."""
    from xnnc.benchmarks import peer_suite

    flows = peer_suite.FLOWS
    text = (Path(peer_suite.ROOT) / "benchmarks" / "PEER_SUITE.md").read_text()
    run, files = peer_suite.carried(text, flows)
    sub = {"result": "SUCCESS", "delegates": 1, "outside": {}, "error": "",
           "delegated_ops": 1}  # fmt: skip
    results = tmp_path / "run.jsonl"
    results.write_text("".join(
        json.dumps({"flow": f, "file": "test_abs", "test": f"test_abs_f32[{f}]",
                    "outcome": "passed", "subtests": [sub] * n}) + "\n"
        for f, n in zip(flows, (1, 2), strict=True)
    ))  # fmt: skip
    out = peer_suite.render(load(results), [], None, "", flows, (run, files))
    rows = {line.split(" | ")[0]: line for line in out.splitlines() if line.startswith("| ")}
    assert rows["| abs"] == "| abs | 1 / 0 / 0 | 1 | 1 / 0 / 0 | 2 | 2 | 2 |  |"
    assert rows["| add"] == files["test_add"].row(flows)  # carried as it was
    assert f"{len(files) - 1} files carried from an earlier report" in out
    carried_full = sum(s.full[flows[1]] for n, s in files.items() if n != "test_abs")
    total = sum(s.subtests for n, s in files.items() if n != "test_abs") + 2
    assert f"| {flows[1]} | " in out and f"| {carried_full + 2} / {total} |" in out


def test_carrying_another_flows_report_is_one_error_line(tmp_path: Path, capsys) -> None:
    from xnnc.benchmarks import peer_suite

    results = tmp_path / "run.jsonl"
    results.write_text("")
    report = Path(peer_suite.ROOT) / "benchmarks" / "PEER_SUITE_QUANTIZED.md"
    argv = ["--render-only", "--results", str(results), "--carry", str(report),
            "--out", str(tmp_path / "out.md")]  # fmt: skip
    assert peer_suite.main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"peer-suite: error: --carry {report}: not a report of xnnpack and xnnc")
    assert "\n" not in err and not (tmp_path / "out.md").exists()
