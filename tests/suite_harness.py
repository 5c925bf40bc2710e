"""ExecuTorch's backend operator suite (`executorch.backends.test.suite.operators`) run by
its own harness (`runner.run_test`: export, `to_edge_transform_and_lower` with
`XnncPartitioner`, `to_executorch`, serialize, run on the ExecuTorch runtime, compare with
eager), one test function at a time, for the tests that check its subtests here."""

from __future__ import annotations

import functools
import importlib
import inspect

import torch

import xnnc


def _xnnc_flow():
    from executorch.backends.test.harness import Tester
    from executorch.backends.test.harness.stages import StageType
    from executorch.backends.test.harness.stages.to_edge_transform_and_lower import (
        ToEdgeTransformAndLower,
    )
    from executorch.backends.test.suite.flow import TestFlow

    class XnncTester(Tester):
        def __init__(self, module, example_inputs, dynamic_shapes=None, **kwargs) -> None:
            lower = functools.partial(
                ToEdgeTransformAndLower, default_partitioner_cls=xnnc.XnncPartitioner
            )
            stages = Tester.default_stage_classes() | {StageType.TO_EDGE_TRANSFORM_AND_LOWER: lower}
            super().__init__(module=module, stage_classes=stages, example_inputs=example_inputs,
                             dynamic_shapes=dynamic_shapes, **kwargs)  # fmt: skip

    return TestFlow("xnnc", backend="xnnc", tester_factory=XnncTester)


class _Runner:
    """The suite's `test_runner` fixture, recording each subtest's summary."""

    def __init__(self, flow, name: str) -> None:
        from executorch.backends.test.suite.runner import run_test

        self._flow, self.name, self.results, self._run = flow, name, [], run_test

    def lower_and_run_model(self, model, inputs, generate_random_test_inputs=True,
                            dynamic_shapes=None) -> None:  # fmt: skip
        self.results.append(self._run(
            model, inputs, self._flow, self.name, self.name, len(self.results), None,
            dynamic_shapes=dynamic_shapes, generate_random_test_inputs=generate_random_test_inputs,
        ))  # fmt: skip


def run_suite_test(module: str, test: str) -> list:
    """The subtest summaries (`TestCaseSummary`) of the suite's `module`.`test` with the
    xnnc flow, fp32 for a dtype test; at least one."""
    suite = importlib.import_module(f"executorch.backends.test.suite.operators.{module}")
    fn = getattr(suite, test)
    runner = _Runner(_xnnc_flow(), test)
    fn(runner, torch.float32) if "dtype" in inspect.signature(fn).parameters else fn(runner)
    assert runner.results, f"{module}::{test} ran no subtest"
    return runner.results


def assert_fully_delegated(module: str, test: str) -> None:
    """Every subtest of the suite's `module`.`test` passes with nothing left undelegated."""
    from executorch.backends.test.suite.reporting import TestResult

    for r in run_suite_test(module, test):
        assert r.result == TestResult.SUCCESS and not r.undelegated_op_counts, (r.result, r.error)
