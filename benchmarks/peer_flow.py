"""xnnc as a flow of ExecuTorch's backend test suite (`executorch/backends/test/suite`), and
the pytest plugin that runs the suite's own, unmodified harness with it:

    pytest -p xnnc.benchmarks.peer_flow --pyargs executorch.backends.test.suite.operators \\
        -m "flow_xnnpack or flow_xnnc" --peer-results results.jsonl

The flow `xnnc` is the stock `xnnpack` flow (`flows/xnnpack.py`: its Tester, edge compile
config and stages) with `XnncPartitioner(OPTIONS)` in place of `XnnpackPartitioner`, OPTIONS
being `CompileOptions(target="stock")`: the harness runs the `.pte` on stock ExecuTorch, which
lacks the node kinds of `CompileOptions()`'s default target, xnnc's extended runtime.
Each quantized XNNPACK flow of the suite (`xnnpack_static_int8_per_channel`,
`xnnpack_static_int8_per_tensor`, `xnnpack_dynamic_int8_per_channel`) gets its xnnc twin
(`xnnc_static_int8_per_channel`, ...) the same way: same quantize stage, xnnc's partitioner.
The suite builds its pytest parameters from `flow.all_flows()` when its conftest is
imported; this plugin is loaded first (`-p`) and wraps that function to add the flow, the
only way in without editing the wheel.

The plugin also records, per subtest, what the harness's own summary lacks: how many
delegates the lowered program calls (a subtest is fully delegated when it calls exactly one
and leaves no op outside). It observes `to_edge_transform_and_lower`'s result; nothing the
harness computes or checks changes. One JSON line per test goes to `--peer-results`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

import pytest
import torch
from executorch.backends.test.harness.stages import StageType
from executorch.backends.test.harness.stages import to_edge_transform_and_lower as _stage_mod
from executorch.backends.test.suite import flow as _flow_mod
from executorch.backends.test.suite import runner as _runner_mod
from executorch.backends.test.suite.flow import TestFlow
from executorch.backends.test.suite.reporting import begin_test_session, get_active_test_session
from executorch.backends.xnnpack.test.tester import Partition as XnnpackPartition
from executorch.backends.xnnpack.test.tester import Tester as XnnpackTester
from executorch.backends.xnnpack.test.tester import (
    ToEdgeTransformAndLower as XnnpackToEdgeTransformAndLower,
)

from xnnc.pipeline.options import CompileOptions
from xnnc.pte import XnncPartitioner

FLOW_NAME = "xnnc"
STOCK_FLOW_NAME = "xnnpack"
OPTIONS = CompileOptions(target="stock")


class XnncToEdgeTransformAndLower(XnnpackToEdgeTransformAndLower):
    """The XNNPACK tester's lowering stage (its edge compile config included), partitioned
    by xnnc."""

    def __init__(self, partitioners: list[Any] | None = None, edge_compile_config: Any = None):
        super().__init__(
            partitioners=partitioners or [XnncPartitioner(OPTIONS)],
            edge_compile_config=edge_compile_config,
        )


class XnncPartition(XnnpackPartition):
    def __init__(self, partitioner: Any = None):
        super().__init__(partitioner=partitioner or XnncPartitioner(OPTIONS))


class XnncTester(XnnpackTester):
    """ExecuTorch's XNNPACK Tester with xnnc's partitioner in its default stages."""

    __test__ = False

    def __init__(self, module: torch.nn.Module, example_inputs: Any, **kwargs: Any):
        super().__init__(module, example_inputs, **kwargs)
        self.stage_classes = self.stage_classes | {
            StageType.TO_EDGE_TRANSFORM_AND_LOWER: XnncToEdgeTransformAndLower,
            StageType.PARTITION: XnncPartition,
        }


XNNC_TEST_FLOW = TestFlow(FLOW_NAME, backend=FLOW_NAME, tester_factory=XnncTester)


def xnnc_flows(stock: dict[str, TestFlow]) -> dict[str, TestFlow]:
    """`xnnc`, and for each quantized XNNPACK flow of the suite (`xnnpack_static_int8_
    per_channel`, ...) its xnnc twin `xnnc_static_int8_per_channel`: the same quantize
    stage (XNNPACKQuantizer's config, PT2E), lowered by XnncTester."""
    flows = {FLOW_NAME: XNNC_TEST_FLOW}
    for name, flow in stock.items():
        if name.startswith(STOCK_FLOW_NAME + "_") and flow.quantize:
            twin = FLOW_NAME + name.removeprefix(STOCK_FLOW_NAME)
            flows[twin] = dataclasses.replace(
                flow, name=twin, backend=FLOW_NAME, tester_factory=XnncTester
            )
    return flows


def is_flow_name(name: str) -> bool:
    """A test parameter naming a flow of the pair: `xnnc`, `xnnpack` or a quantized one."""
    return any(name == f or name.startswith(f + "_") for f in (FLOW_NAME, STOCK_FLOW_NAME))


def _install() -> None:
    """Adds the xnnc flow to the suite's flows and observes each lowering (idempotent)."""
    if getattr(_flow_mod.all_flows, "_xnnc", False):
        return
    stock_all_flows = _flow_mod.all_flows

    @functools.wraps(stock_all_flows)
    def all_flows() -> dict[str, TestFlow]:
        flows = stock_all_flows()
        return flows | xnnc_flows(flows)

    all_flows._xnnc = True  # type: ignore[attr-defined]
    _flow_mod.all_flows = all_flows

    lower = _stage_mod.to_edge_transform_and_lower

    @functools.wraps(lower)
    def observed_lower(*args: Any, **kwargs: Any) -> Any:
        edge = lower(*args, **kwargs)
        _observed.append(edge)
        return edge

    _stage_mod.to_edge_transform_and_lower = observed_lower

    run_test = _runner_mod.run_test

    @functools.wraps(run_test)
    def observed_run_test(*args: Any, **kwargs: Any) -> Any:
        _observed.clear()
        summary = run_test(*args, **kwargs)
        summary.delegate_calls = _delegate_calls(_observed[-1]) if _observed else None
        return summary

    _runner_mod.run_test = observed_run_test


_observed: list[Any] = []


def _delegate_calls(edge: Any) -> int:
    return sum(
        1
        for method in edge.methods
        for node in edge.exported_program(method).graph.nodes
        if node.op == "call_function"
        and node.target is torch.ops.higher_order.executorch_call_delegate
    )


# The wrappers go in at import: `-p` imports the plugin before the suite's conftest, which
# reads `all_flows()` and `run_test` when it is imported.
_install()


def subtest_record(summary: Any) -> dict[str, Any]:
    """One subtest as the report needs it (JSON-ready)."""
    outside = {op: n for op, n in (summary.undelegated_op_counts or {}).items() if n}
    delegated = sum((summary.delegated_op_counts or {}).values())
    error = summary.error
    message = "" if error is None else f"{type(error).__name__}: {error}"
    cause = getattr(error, "__cause__", None)
    if cause is not None:
        message += f" <- {type(cause).__name__}: {cause}"
    return {
        "name": summary.name,
        "subtest": summary.subtest_index,
        "result": summary.result.name,
        "delegates": getattr(summary, "delegate_calls", None),
        "delegated_ops": delegated,
        "outside": outside,
        "error": " ".join(message.split())[:400],
    }


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--peer-results", default=None, help="JSON lines, one per test")
    parser.addoption(
        "--peer-seed", type=int, default=0,
        help="the harness's run seed (inputs derive from it and the test's name)",
    )  # fmt: skip


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" and not (report.when == "setup" and report.skipped):
        return
    runner = getattr(item, "funcargs", {}).get("test_runner")
    if runner is None:
        return
    # user_properties travel from xdist workers to the controller.
    report.user_properties.append(
        ("peer", {
            "flow": runner._flow.name,
            "file": item.path.stem,
            "test": item.name,
            "subtests": [subtest_record(s) for s in runner._results],
        })
    )  # fmt: skip


class _Writer:
    def __init__(self, path: str) -> None:
        self.path = path
        open(path, "w").close()

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown" and not report.failed:
            return
        props = dict(report.user_properties).get("peer")
        if props is None:
            if report.when == "call" or not report.passed:
                # A crash of an xdist worker, a failure outside the harness's own
                # bookkeeping or a skip marker: counted with pytest's own reason.
                props = {"test": report.nodeid.rsplit("::", 1)[-1], "file": _file(report),
                         "flow": _flow_of(report.nodeid), "subtests": []}  # fmt: skip
            else:
                return
        props = props | {"outcome": report.outcome, "when": report.when}
        if not report.passed and not props["subtests"]:
            props["longrepr"] = _reason(report)
        with open(self.path, "a") as f:
            f.write(json.dumps(props) + "\n")


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (file, line, reason)
        return str(longrepr[2])[:400]
    lines = [line for line in str(longrepr).splitlines() if line.startswith("E ")]
    return " ".join(" ".join(lines[-3:] or str(longrepr).split()[-40:]).split())[:400]


def _file(report: pytest.TestReport) -> str:
    return report.nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")


def _flow_of(nodeid: str) -> str:
    param = nodeid.rsplit("[", 1)[-1].rstrip("]")
    return next((p for p in param.split("-") if is_flow_name(p)), param)


def pytest_configure(config: pytest.Config) -> None:
    # The harness's own session, as its runner opens one: it fixes the seed, so both flows
    # (and every run) see the same inputs.
    if get_active_test_session() is None:
        begin_test_session(None, seed=config.getoption("--peer-seed"))
    path = config.getoption("--peer-results")
    # Only the process that reports (not an xdist worker) writes the file.
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Writer(path), "xnnc-peer-writer")
