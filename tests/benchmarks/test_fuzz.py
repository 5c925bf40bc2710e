"""The xnn-opt fuzzer at a small size (`python -m xnnc.benchmarks.fuzz --cases 5000` is the
full one): mutated IR through random pipelines gives no traceback, no crash, and only
one-line errors that say where. The classifier itself is checked on known outcomes."""

from __future__ import annotations

import random

import pytest

from xnnc.benchmarks import fuzz

GOOD = """\
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
"""


def test_a_small_fuzz_run_finds_no_bug() -> None:
    report = fuzz.fuzz(cases=400, seed=12, models=True, time_limit=20)
    assert report.cases == 400
    assert report.kinds["bug"] == 0, "\n".join(report.bugs)
    # Both valid runs and errors are exercised, not only one kind.
    assert report.kinds["ok"] > 50 and report.kinds["error"] > 50, report.kinds


def test_a_crash_in_a_pass_is_a_bug(tmp_path, monkeypatch) -> None:
    from xnnc.transforms.fold_pad import FoldPadPass

    def crash(self, ctx, module) -> None:
        raise IndexError("list index out of range")

    monkeypatch.setattr(FoldPadPass, "apply", crash)
    outcome = fuzz.run_case(str(tmp_path / "case.mlir"), GOOD, ["-p", "cse,xnn-fold-pad"])
    assert outcome.kind == "bug"
    assert outcome.message == (
        "xnn-opt: internal error in pass xnn-fold-pad: IndexError: list index out of range"
    )


def test_a_hang_is_a_bug(tmp_path, monkeypatch) -> None:
    from xnnc.transforms.fold_pad import FoldPadPass

    def hang(self, ctx, module) -> None:
        while True:
            pass

    monkeypatch.setattr(FoldPadPass, "apply", hang)
    outcome = fuzz.run_case(str(tmp_path / "case.mlir"), GOOD, ["-p", "xnn-fold-pad"], 1)
    assert (outcome.kind, outcome.message) == ("bug", "timeout: no answer within 1 s")


@pytest.mark.parametrize(
    ("text", "argv", "kind", "message"),
    [
        (GOOD, ["-p", "canonicalize"], "ok", ""),
        (GOOD.replace("->", "=>", 1), [], "error", "{path}:1:35: error: "),
        (GOOD, ["-p", "xnn-polyphase{max-kernel-growth=0}"], "error",
         "xnn-opt: error: xnn-polyphase: option max-kernel-growth must be in [1, inf), got 0.0"),
    ],
)  # fmt: skip
def test_outcomes(tmp_path, text, argv, kind, message) -> None:
    path = str(tmp_path / "case.mlir")
    outcome = fuzz.run_case(path, text, argv)
    assert outcome.kind == kind
    assert outcome.message.startswith(message.format(path=path)), outcome.message


def test_mutations_change_tokens_shapes_and_pipelines() -> None:
    rng = random.Random(0)
    vocabulary = ["aten.add", "%x", "1"]
    # A list, not a set: a set's order follows the process's string hashes, and some
    # mutants (inputs cut short) have a single line.
    texts = [fuzz.mutate(rng, GOOD, vocabulary) for _ in range(50)]
    assert GOOD in texts and len(set(texts)) > 20
    lines = [t.split("\n") for t in texts]
    assert any(len(ls) > 1 and "tensor<2x3xf32>" not in ls[1] for ls in lines)
    pipelines = {fuzz.pipeline(rng) for _ in range(50)}
    assert len(pipelines) > 40 and any("{" in p for p in pipelines)
