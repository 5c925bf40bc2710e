"""`make peer-suite`: ExecuTorch's backend test suite with the xnnc flow and the stock XNNPACK
flow side by side, in one run of the suite's own pytest harness (`benchmarks/peer_flow.py`).

    python -m xnnc.benchmarks.peer_suite [--out benchmarks/PEER_SUITE.md] [--workers 2]
                                         [-k EXPR] [--results run.jsonl] [--render-only]
                                         [--flow xnnc|xnnpack] [--carry REPORT.md]

`--flow` runs one flow only and writes no table; `--render-only` with `--results` given once
per file renders the table of runs made that way. `--carry REPORT.md` keeps the files of an
earlier report of the same flows that this run has no results for (the suite takes hours at
one worker here, so a report grows over several runs, and a run's raw results may be gone).

Runs all operator files (`executorch.backends.test.suite.operators`, 80 in ExecuTorch
1.5.1) and the model files whose packages are installed (torchvision, torchaudio), then
writes a per-file table: per flow, tests passed / failed / skipped, and subtests fully
delegated. The issue's targets are checked and stated, with each miss named.

Counting. A test is one test function for one flow (the suite's pytest item); it fails when
one of its subtests (a `_test_op` call) fails as a backend failure, and the harness stops it
at that subtest. A subtest is fully delegated when it passed, its lowered program calls one
delegate and no op is left outside (the harness's undelegated op count is empty). Subtests
per test are those the flow that got further ran (the maximum of the two).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xnnc
from xnnc.benchmarks.peer_flow import FLOW_NAME, STOCK_FLOW_NAME, is_flow_name

ROOT = Path(xnnc.__file__).resolve().parent
OPERATORS = "executorch.backends.test.suite.operators"
MODELS = {  # model file -> the package it needs
    "executorch.backends.test.suite.models.test_torchvision": "torchvision",
    "executorch.backends.test.suite.models.test_torchaudio": "torchaudio",
}
FLOWS = (STOCK_FLOW_NAME, FLOW_NAME)
# the suite's quantized XNNPACK flows, `xnnpack_<name>` (peer_flow adds `xnnc_<name>`)
QUANTIZED = ("static_int8_per_channel", "static_int8_per_tensor", "dynamic_int8_per_channel")
TARGET_SHARE = 0.95
# Subtests no flow can fully delegate, and why (the table counts them, outside "with op").
NOTES = (
    "mean: `test_mean_output_dtype`'s 3 subtests are `mean.dim` with `dtype=`, the one op of "
    "their program, and stay outside on both flows. Subtest 0 averages an int64 tensor as "
    "float32, subtests 1 and 2 a float32 tensor as float64. A delegate's inputs and outputs "
    "are XNNPACK values, and XNNPACK has neither int64 nor float64 (`XNNDatatype` in "
    "ExecuTorch's `schema.fbs`: fp32, fp16, bf16, int32 and quantized types): the delegate can "
    "neither read the first one's input nor write the others' result. Splitting off the "
    "conversion (`_to_copy` outside, the mean in fp32 inside) leaves an op outside all the "
    "same, and for float64 would also average in fp32 what torch averages in float64. So the "
    "issue's 8 files are at 157/160 fully delegated: every subtest but these 3 (157/157 "
    "where XNNPACK has the op's dtypes).",
)


def suites() -> tuple[list[str], list[str]]:
    """(modules to run, model files left out with the package they lack)."""
    run, missing = [OPERATORS], []
    for module, package in MODELS.items():
        if importlib.util.find_spec(package) is None:
            missing.append(f"{module.rsplit('.', 1)[-1]} ({package} not installed)")
        else:
            run.append(module)
    return run, missing


def operator_files() -> list[str]:
    """The suite's operator files (`test_abs`, ...), from the installed package."""
    spec = importlib.util.find_spec(OPERATORS)
    assert spec is not None and spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations)))
    return sorted(p.stem for p in folder.glob("test_*.py"))


def run_suite(
    results: Path,
    workers: int = 1,
    keyword: str | None = None,
    modules: list[str] | None = None,
    flows: tuple[str, ...] = FLOWS,
    capture: bool = False,
    artefacts: Path | None = None,
) -> subprocess.CompletedProcess:
    """The suite's `modules` (default: all, `suites()`) under pytest for `flows`, in a
    subprocess run from an empty directory so that no project's pytest configuration
    applies; one JSON line per test goes to `results`. `capture` keeps pytest's output (in
    the result) instead of showing its progress; `artefacts` keeps each subtest's `.pte`,
    inputs and outputs there (`peer_flow`'s `--peer-artefacts`)."""
    modules = modules or suites()[0]
    argv = [sys.executable, "-m", "pytest", "-p", "xnnc.benchmarks.peer_flow",
            "-p", "no:cacheprovider", "--pyargs", *modules,
            "-m", " or ".join(f"flow_{f}" for f in flows), "-q", "-W", "ignore",
            "--peer-results", str(results.resolve())]  # fmt: skip
    if workers > 1:
        argv += ["-n", str(workers)]
    if keyword:
        argv += ["-k", keyword]
    if artefacts is not None:
        argv += ["--peer-artefacts", str(artefacts.resolve())]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT.parent), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=capture, text=True)


def test_key(test: str) -> str:
    """`test_elu_dtype[xnnc-float32]` -> `test_elu_dtype[float32]`: a test across flows."""
    name, _, params = test.partition("[")
    rest = [p for p in params.rstrip("]").split("-") if p and not is_flow_name(p)]
    return f"{name}[{'-'.join(rest)}]" if rest else name


def fully_delegated(sub: dict[str, Any]) -> bool:
    return sub["result"] == "SUCCESS" and sub["delegates"] == 1 and not sub["outside"]


@dataclass
class Test:
    """One test (across both flows): its outcome and subtests per flow."""

    file: str
    key: str
    outcome: dict[str, str] = field(default_factory=dict)
    subtests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    reason: dict[str, str] = field(default_factory=dict)

    @property
    def num_subtests(self) -> int:
        return max((len(s) for s in self.subtests.values()), default=0)

    def full(self, flow: str) -> int:
        return sum(fully_delegated(s) for s in self.subtests.get(flow, []))

    def has_xnnpack_op(self, index: int) -> bool:
        """Either flow delegates some op of subtest `index` (XNNPACK has a node for it)."""
        return any(
            index < len(subs) and subs[index]["delegated_ops"] > 0
            for subs in self.subtests.values()
        )


def load(*results: Path) -> dict[str, dict[str, Test]]:
    """file -> test key -> Test, from the plugin's JSON lines (of one run or several)."""
    files: dict[str, dict[str, Test]] = defaultdict(dict)
    lines = [line for path in results for line in path.read_text().splitlines()]
    for line in lines:
        rec = json.loads(line)
        key = test_key(rec["test"])
        test = files[rec["file"]].setdefault(key, Test(rec["file"], key))
        flow = rec["flow"]
        test.outcome[flow] = rec["outcome"]
        test.subtests[flow] = rec["subtests"]
        if rec["outcome"] != "passed":
            failed = [s for s in rec["subtests"] if s["error"]]
            test.reason[flow] = failed[-1]["error"] if failed else rec.get("longrepr", "")
    return files


def why_not_full(sub: dict[str, Any] | None) -> str:
    """Why a subtest is not fully delegated: its result and error, the ops left outside."""
    if sub is None:
        return "not run (an earlier subtest of the test failed)"
    parts = [] if sub["result"] == "SUCCESS" else [sub["result"]]
    if sub["outside"]:
        ops = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in sorted(sub["outside"].items()))
        parts.append(f"left outside: {ops}")
    elif sub["result"] == "SUCCESS":
        parts.append(f"{sub['delegates']} delegates")
    if sub["error"]:
        parts.append(sub["error"])
    return "; ".join(parts)


Cell = tuple[int, int, int]  # tests passed, failed, skipped


def _count(tests: list[Test], flow: str) -> Cell:
    passed = sum(t.outcome.get(flow) == "passed" for t in tests)
    failed = sum(t.outcome.get(flow) == "failed" for t in tests)
    return passed, failed, len(tests) - passed - failed


def _cell(cell: Cell) -> str:
    return " / ".join(map(str, cell))


@dataclass
class FileSummary:
    """One file's line of the report and its entries in the lists below it: from this run's
    results (`summarize`) or carried from an earlier report of the same flows (`carried`)."""

    name: str
    tests: dict[str, Cell]  # flow -> tests passed / failed / skipped
    full: dict[str, int]  # flow -> subtests fully delegated
    subtests: int
    with_op: int
    full_with_op: dict[str, int]
    regressions: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    gaps: Counter[str] = field(default_factory=Counter)  # reason -> subtests

    def row(self, flows: tuple[str, str]) -> str:
        stock, ours = flows
        fewer = "" if self.full[ours] >= self.full[stock] else "fewer than stock"
        return (
            f"| {self.name.removeprefix('test_')} | {_cell(self.tests[stock])} | "
            f"{self.full[stock]} | {_cell(self.tests[ours])} | {self.full[ours]} | "
            f"{self.subtests} | {self.with_op} | {fewer} |"
        )


def summarize(name: str, tests: list[Test], flows: tuple[str, str]) -> FileSummary:
    """A file's summary from the tests both flows ran."""
    stock_flow, xnnc_flow = flows
    full = {f: sum(t.full(f) for t in tests) for f in flows}
    counts = {f: _count(tests, f) for f in flows}
    subtests = sum(t.num_subtests for t in tests)
    summary = FileSummary(name, counts, full, subtests, 0, dict.fromkeys(flows, 0))
    for t in tests:
        for i in range(t.num_subtests):
            if not t.has_xnnpack_op(i):
                continue
            summary.with_op += 1
            for f in flows:
                subs = t.subtests.get(f, [])
                summary.full_with_op[f] += i < len(subs) and fully_delegated(subs[i])
            ours = t.subtests.get(xnnc_flow, [])
            if not (i < len(ours) and fully_delegated(ours[i])):
                summary.gaps[why_not_full(ours[i] if i < len(ours) else None)[:200]] += 1
        if t.outcome.get(stock_flow) == "passed" and t.outcome.get(xnnc_flow) != "passed":
            summary.regressions.append(f"`{name}::{t.key}`: {t.reason.get(xnnc_flow, '?')}")
        stock = t.subtests.get(stock_flow, [])
        ours = t.subtests.get(xnnc_flow, [])
        for i, sub in enumerate(stock):
            if fully_delegated(sub) and not (i < len(ours) and fully_delegated(ours[i])):
                summary.misses.append(
                    f"`{name}::{t.key}` subtest {i}: "
                    f"{why_not_full(ours[i] if i < len(ours) else None)}"
                )
    return summary


REGRESSIONS = "## Tests that pass on stock and fail on xnnc"
MISSES = "## Subtests fully delegated on stock, not on xnnc"
GAPS = "## Subtests where XNNPACK has the op that xnnc does not fully delegate, by reason"


def title(flows: tuple[str, str]) -> str:
    stock_flow, xnnc_flow = flows
    return f"# ExecuTorch's backend operator suite: {xnnc_flow} flow vs stock {stock_flow} flow"


def carried(text: str, flows: tuple[str, str]) -> tuple[str, dict[str, FileSummary]]:
    """(its "Run" line, file -> summary) of an earlier report of `flows`: what a run whose
    raw results are gone still says. A report keeps no per-subtest data: a file's subtests
    fully delegated count as subtests with the op (a fully delegated subtest delegates one)."""
    lines = text.splitlines()
    if not lines or lines[0] != title(flows):
        raise ValueError(f"not a report of {' and '.join(flows)}: {lines[0] if lines else ''!r}")
    run = next((line for line in lines if line.startswith(("Run ", "Runs "))), "")
    files: dict[str, FileSummary] = {}
    section = ""
    for line in lines:
        if line.startswith("## "):
            section = line
        elif (
            section == "## Per file"
            and line.startswith("| ")
            and not line.startswith(("| file ", "|---"))
        ):
            name, stock_tests, stock_full, tests, full, subtests, with_op = (
                c.strip() for c in line.strip("|").split("|")[:7]
            )
            cells = [tuple(int(n) for n in c.split(" / ")) for c in (stock_tests, tests)]
            counts = {flows[0]: int(stock_full), flows[1]: int(full)}
            files[f"test_{name}"] = FileSummary(
                f"test_{name}", dict(zip(flows, cells, strict=True)), counts, int(subtests),
                int(with_op), dict(counts),
            )  # fmt: skip
        elif section in (REGRESSIONS, MISSES) and line.startswith("- `"):
            summary = files[line[3:].split("::", 1)[0]]
            (summary.regressions if section == REGRESSIONS else summary.misses).append(line[2:])
        elif section == GAPS and line.startswith("- "):
            name, _, rest = line[2:].partition(": ")
            count, _, reason = rest.partition(" x ")
            files[f"test_{name}"].gaps[reason] += int(count)
    return run, files


def _share(share: float) -> str:
    """A percentage to one decimal, or two where one would round across the target (94.96%
    printed as 95.0% beside "does not hold")."""
    if (share >= TARGET_SHARE) != (round(share, 3) >= TARGET_SHARE):
        return f"{share:.2%}"
    return f"{share:.1%}"


def render(
    files: dict[str, dict[str, Test]],
    left_out: list[str],
    seconds: float | None,
    note: str = "",
    flows: tuple[str, str] = FLOWS,
    carry: tuple[str, dict[str, FileSummary]] | None = None,
) -> str:
    """The report of a run of the pair `flows` (stock, xnnc); `carry`: an earlier report's
    (run line, files) (`carried`), whose files this run has no results for are kept."""
    from xnnc.benchmarks.zoo import machine

    stock_flow, xnnc_flow = flows
    summaries: dict[str, FileSummary] = {}
    unpaired = 0
    for name in sorted(files):
        # A test compares only where both flows ran it (a run stopped early leaves halves).
        tests = sorted((t for t in files[name].values() if set(flows) <= set(t.outcome)),
                       key=lambda t: t.key)  # fmt: skip
        unpaired += len(files[name]) - len(tests)
        if tests:
            summaries[name] = summarize(name, tests, flows)
    carry_run, carry_files = carry or ("", {})
    kept = sorted(set(carry_files) - set(summaries))
    summaries.update((name, carry_files[name]) for name in kept)
    ordered = [summaries[name] for name in sorted(summaries)]
    totals = {f: tuple(sum(s.tests[f][i] for s in ordered) for i in range(3)) for f in flows}
    full = {f: sum(s.full[f] for s in ordered) for f in flows}
    full_with_op = {f: sum(s.full_with_op[f] for s in ordered) for f in flows}
    total_subtests = sum(s.subtests for s in ordered)
    total_with_op = sum(s.with_op for s in ordered)
    regressions = [r for s in ordered for r in s.regressions]
    misses = [m for s in ordered for m in s.misses]
    fewer_files = [s.name for s in ordered if s.full[xnnc_flow] < s.full[stock_flow]]
    not_run = [f for f in operator_files() if f not in summaries]
    share = full_with_op[xnnc_flow] / total_with_op if total_with_op else 0.0

    def holds(ok: bool) -> str:
        return "**holds**" if ok else "**does not hold**"

    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    took = f", {seconds / 60:.0f} min" if seconds else ""
    out = [
        title(flows),
        "",
        "Written by `make peer-suite` (`python -m xnnc.benchmarks.peer_suite`): ExecuTorch "
        "1.5.1's own suite (`executorch/backends/test/suite`) under its own pytest harness, "
        f"the stock `{stock_flow}` flow and the `{xnnc_flow}` flow (the same flow with "
        '`XnncPartitioner(CompileOptions(target="stock"))` in place of `XnnpackPartitioner`, '
        "`benchmarks/peer_flow.py`) in one run, seed 0.",
        "",
        f"Run {date}{took}, on {machine()}.{' ' + note if note else ''}",
        *(
            [
                f"{len(kept)} files carried from an earlier report of these flows, whose raw "
                f"results were not kept ({', '.join(k.removeprefix('test_') for k in kept)}); it "
                f'said: "{carry_run}"'
            ]
            if kept
            else []
        ),  # fmt: skip
        f"Files run: {len(summaries)} of the suite's {len(operator_files())} operator files"
        + (f"; operator files not run: {', '.join(not_run)}" if not_run else "")
        + (f"; model files not run: {', '.join(left_out)}" if left_out else "")
        + (f"; {unpaired} tests run by one flow only, left out." if unpaired else "."),
        "",
        "Tests: passed / failed / skipped (a test is one test function; the harness stops it "
        "at its first failing subtest). Full: subtests that passed with one delegate and no "
        "op left outside. Subtests: per test, those the flow that got further ran. With op: "
        "subtests where either flow delegates some op (XNNPACK has a node for it).",
        "",
        "## Targets",
        "",
        f"- Every test that passes on stock passes on xnnc: {holds(not regressions)}"
        + (f" ({len(regressions)} do not, below)." if regressions else "."),
        f"- Fully delegated >= stock on every file: {holds(not fewer_files)}"
        + (f" (not on {', '.join(fewer_files)})." if fewer_files else "."),
        f"- Fully delegated >= {TARGET_SHARE:.0%} of the subtests where XNNPACK has the op: "
        f"{holds(share >= TARGET_SHARE)} ({full_with_op[xnnc_flow]}/{total_with_op}, "
        f"{_share(share)}; stock {full_with_op[stock_flow]}/{total_with_op}).",
        "",
        "## Totals",
        "",
        "| flow | tests passed / failed / skipped | subtests fully delegated |",
        "|---|---|---|",
        *(f"| {f} | {_cell(totals[f])} | {full[f]} / {total_subtests} |" for f in flows),
        "",
        "## Per file",
        "",
        "| file | stock: tests | stock: full | xnnc: tests | xnnc: full | subtests | with op | |",
        "|---|---|---|---|---|---|---|---|",
        *(s.row(flows) for s in ordered),
        "",
        REGRESSIONS,
        "",
        *([f"- {r}" for r in regressions] or ["None."]),
        "",
        MISSES,
        "",
        *([f"- {m}" for m in misses] or ["None."]),
        "",
        GAPS,
        "",
        *(
            [
                f"- {s.name.removeprefix('test_')}: {n} x {reason}"
                for s in ordered
                for reason, n in s.gaps.most_common()
            ]
            or ["None."]
        ),  # fmt: skip
        "",
        # the notes are about the fp32 pair's subtests
        *(["## Notes", "", *(f"- {note}" for note in NOTES), ""] if flows == FLOWS else []),
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "PEER_SUITE.md"))
    parser.add_argument(
        "--results",
        action="append",
        help="the run's JSON lines (kept; default: a temp file); with --render-only, repeat "
        "it to render several runs together",
    )
    parser.add_argument("--flow", choices=FLOWS, help="run this flow only, without a table")
    parser.add_argument(
        "--render-only", action="store_true", help="the table from --results, without a run"
    )
    parser.add_argument("--note", default="", help="a sentence to add after the run's line")
    parser.add_argument(
        "--carry", metavar="REPORT.md",
        help="an earlier report of the same flows: its files this run has no results for "
        "are kept in the new one (for runs whose raw results are gone)",
    )  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers")
    parser.add_argument("-k", dest="keyword", help="pytest -k: a part of the suite")
    parser.add_argument(
        "--quantized", choices=QUANTIZED,
        help="the suite's quantized XNNPACK flow of that name and its xnnc twin, instead of "
        "the fp32 pair (default --out: benchmarks/PEER_SUITE_QUANTIZED.md)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.results or []]
    if len(paths) > 1 and not args.render_only:
        parser.error("--results names one file for a run")
    if args.flow and args.render_only:
        parser.error("--flow runs a flow; --render-only runs nothing")
    flows = FLOWS
    if args.quantized:
        flows = (f"{STOCK_FLOW_NAME}_{args.quantized}", f"{FLOW_NAME}_{args.quantized}")
        if args.out == parser.get_default("out"):
            args.out = str(ROOT / "benchmarks" / "PEER_SUITE_QUANTIZED.md")
    with tempfile.TemporaryDirectory() as tmp:
        results = paths[0] if paths else Path(tmp) / "results.jsonl"
        seconds = None
        if not args.render_only:
            start = datetime.datetime.now()
            flows = (args.flow,) if args.flow else flows
            run_suite(results, args.workers, args.keyword, flows=flows)  # failures are data
            seconds = (datetime.datetime.now() - start).total_seconds()
            if args.flow:
                print(f"ran flow {args.flow} in {seconds / 60:.0f} min: {results}")
                return 0
        files = load(*(paths if args.render_only else [results]))
        carry = None
        if args.carry:
            try:
                carry = carried(Path(args.carry).read_text(), flows)
            except (OSError, ValueError) as e:
                print(f"peer-suite: error: --carry {args.carry}: {e}", file=sys.stderr)
                return 1
        if not files and not carry:
            print("peer-suite: error: no results", file=sys.stderr)
            return 1
        report = render(files, suites()[1], seconds, args.note, flows, carry)
        Path(args.out).write_text(report)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
