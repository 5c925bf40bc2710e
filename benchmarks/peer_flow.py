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

Two more flows compile for arm64 phones, `xnnc_arm64` and `xnnc_arm64_fp16_dotprod` (targets
`stock,arm64` and `stock,arm64-fp16-dotprod`): the harness runs their `.pte` files on x86's
stock runtime as any other; `--peer-artefacts DIR` keeps each subtest's `.pte` with its
inputs, the harness's reference outputs and tolerances and the x86 run's outputs, for a run
on arm64 (tests/arm64, under QEMU).

The plugin also records, per subtest, what the harness's own summary lacks: how many
delegates the lowered program calls (a subtest is fully delegated when it calls exactly one
and leaves no op outside). It observes `to_edge_transform_and_lower`'s result; nothing the
harness computes or checks changes. One JSON line per test goes to `--peer-results`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path
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
from executorch.backends.xnnpack.test.tester import Serialize as XnnpackSerialize
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

    def __init__(
        self,
        partitioners: list[Any] | None = None,
        edge_compile_config: Any = None,
        options: CompileOptions = OPTIONS,
    ):
        super().__init__(
            partitioners=partitioners or [XnncPartitioner(options)],
            edge_compile_config=edge_compile_config,
        )


class XnncPartition(XnnpackPartition):
    def __init__(self, partitioner: Any = None, options: CompileOptions = OPTIONS):
        super().__init__(partitioner=partitioner or XnncPartitioner(options))


class RecordingSerialize(XnnpackSerialize):
    """The harness's serialize stage; with `--peer-artefacts`, its run of the `.pte` (on
    this machine's stock runtime) is also kept, with the program and its inputs."""

    def run_artifact(self, inputs: Any) -> Any:
        outputs = super().run_artifact(inputs)
        if _artefacts is not None:
            _kept.append({"pte": self.buffer, "inputs": inputs, "x86": outputs})
        return outputs


class XnncTester(XnnpackTester):
    """ExecuTorch's XNNPACK Tester with xnnc's partitioner, compiling with `options`, in its
    default stages."""

    __test__ = False

    def __init__(
        self,
        module: torch.nn.Module,
        example_inputs: Any,
        options: CompileOptions = OPTIONS,
        **kwargs: Any,
    ):
        super().__init__(module, example_inputs, **kwargs)
        self.stage_classes = self.stage_classes | {
            StageType.TO_EDGE_TRANSFORM_AND_LOWER: functools.partial(
                XnncToEdgeTransformAndLower, options=options
            ),
            StageType.PARTITION: functools.partial(XnncPartition, options=options),
            StageType.SERIALIZE: RecordingSerialize,
        }

    def _compare_outputs(self, reference: Any, output: Any, scale: Any = None,
                         atol: float = 1e-3, rtol: float = 1e-3, qtol: int = 0,
                         statistics_callback: Any = None) -> None:  # fmt: skip
        """The harness's comparison, unchanged; what it compared is kept with the run."""
        if _artefacts is not None and _kept:
            _kept[-1].update(reference=reference, atol=atol, rtol=rtol, qtol=qtol, scale=scale)
        XnnpackTester._compare_outputs(reference, output, scale, atol, rtol, qtol,
                                       statistics_callback)  # fmt: skip


XNNC_TEST_FLOW = TestFlow(FLOW_NAME, backend=FLOW_NAME, tester_factory=XnncTester)
# flow -> target: the arm64 presets' `.pte` files, for stock ExecuTorch on arm64
ARM64_FLOWS = {f"{FLOW_NAME}_arm64": "stock,arm64",
               f"{FLOW_NAME}_arm64_fp16_dotprod": "stock,arm64-fp16-dotprod"}  # fmt: skip


def xnnc_flows(stock: dict[str, TestFlow]) -> dict[str, TestFlow]:
    """`xnnc`, the arm64 flows (`ARM64_FLOWS`), and for each quantized XNNPACK flow of the
    suite (`xnnpack_static_int8_per_channel`, ...) its xnnc twin
    `xnnc_static_int8_per_channel`: the same quantize stage (XNNPACKQuantizer's config,
    PT2E), lowered by XnncTester."""
    flows = {FLOW_NAME: XNNC_TEST_FLOW}
    for name, target in ARM64_FLOWS.items():
        factory = functools.partial(XnncTester, options=CompileOptions(target=target))
        flows[name] = TestFlow(name, backend=FLOW_NAME, tester_factory=factory)
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
        _kept.clear()
        summary = run_test(*args, **kwargs)
        summary.delegate_calls = _delegate_calls(_observed[-1]) if _observed else None
        summary.artefact = _keep(summary) if _artefacts is not None and _kept else None
        return summary

    _runner_mod.run_test = observed_run_test


_observed: list[Any] = []
_artefacts: Path | None = None  # --peer-artefacts
_kept: list[dict[str, Any]] = []  # this subtest's run of its .pte, and what it compared


def _tensors(value: Any) -> list[torch.Tensor]:
    return [t for t in torch.utils._pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


def _keep(summary: Any) -> str:
    """Writes the subtest's `.pte` and `.pt` (inputs, reference, x86 outputs, tolerances)
    under `--peer-artefacts`/flow; returns their path without suffix, relative to it."""
    kept = _kept[-1]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{summary.name}-{summary.subtest_index}")
    assert _artefacts is not None
    path = f"{summary.flow}/{name}"
    (_artefacts / summary.flow).mkdir(parents=True, exist_ok=True)
    (_artefacts / f"{path}.pte").write_bytes(kept.pop("pte"))
    record = {key: _tensors(kept.get(key)) for key in ("inputs", "reference", "x86")}
    record |= {key: kept.get(key) for key in ("atol", "rtol", "qtol", "scale")}
    torch.save(record, _artefacts / f"{path}.pt")
    return str(path)


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
        "artefact": getattr(summary, "artefact", None),
    }


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--peer-results", default=None, help="JSON lines, one per test")
    parser.addoption(
        "--peer-seed", type=int, default=0,
        help="the harness's run seed (inputs derive from it and the test's name)",
    )  # fmt: skip
    parser.addoption(
        "--peer-artefacts", default=None,
        help="a directory: each subtest's .pte, inputs, reference and x86 outputs go there",
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
    global _artefacts
    kept = config.getoption("--peer-artefacts")
    _artefacts = Path(kept).resolve() if kept else None
    path = config.getoption("--peer-results")
    # Only the process that reports (not an xdist worker) writes the file.
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Writer(path), "xnnc-peer-writer")
