"""One compiled program called from many Python threads at once.

Each path a call can take is hammered by 8 threads x 100 calls on different inputs, and
every result must be bit-identical (`torch.equal`) to the single-threaded result for the same
input: the extended runtime at threads=1 and threads=2 (whole-subgraph calls), a program
compiled for the stock target (its stock blob on the same runtime: `Program` never uses
ExecuTorch's), a program with an op left to torch (a plan of three steps: two subgraphs and
the relu on torch), and a `.pte` on stock ExecuTorch (`StockRuntime`). Bit-identical is
the right bar: XNNPACK picks its kernels and its work split at runtime creation, so the
same runtime on the same input computes the same sums in the same order, whichever thread
asks.
"""

from __future__ import annotations

import copy
import os
import select
import signal
import threading
import time
from collections.abc import Callable

import pytest
import torch
import torch.nn as nn
from threads import run_threads
from torch.export import ExportedProgram

import xnnc
from xnnc.frontend.fx_importer import export_program
from xnnc.pte import StockRuntime, to_pte

THREADS, CALLS = 8, 100
SHAPE = (1, 3, 16, 16)


class SmallConvNet(nn.Module):
    """conv 3x3 -> relu -> conv 3x3 -> scale: a few microseconds of XNNPACK per call, so
    800 calls leave most of the time to the threads' contention."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(torch.relu(self.conv1(x))) * 0.5


@pytest.fixture(scope="module")
def model() -> SmallConvNet:
    torch.manual_seed(0)
    return SmallConvNet().eval()


@pytest.fixture(scope="module")
def exported(model: SmallConvNet) -> ExportedProgram:
    return export_program(model, (torch.randn(SHAPE),))


@pytest.fixture(scope="module")
def inputs() -> list[torch.Tensor]:
    """One input per call of the stress run."""
    generator = torch.Generator().manual_seed(1)
    return [torch.randn(SHAPE, generator=generator) for _ in range(THREADS * CALLS)]


def _program(exported: ExportedProgram, **options) -> xnnc.Program:
    return xnnc.compile(copy.deepcopy(exported), **options)


@pytest.fixture(scope="module")
def runner(exported: ExportedProgram) -> Callable[[str], Callable]:
    """`runner(kind)`: the module's one shared callable for a path (compiled once)."""
    made: dict[str, Callable] = {}

    def get(kind: str) -> Callable:
        if kind not in made:
            made[kind] = _runner(kind, exported)
        return made[kind]

    return get


def _runner(kind: str, exported: ExportedProgram) -> Callable[[torch.Tensor], torch.Tensor]:
    """A callable for one path a call can take; the checks pin the path."""
    if kind == "stock-pte":
        runtime = StockRuntime(to_pte(copy.deepcopy(exported), target="stock"))
        return lambda x: runtime(x)[0]
    if kind == "stock-target":  # a Program for the stock target runs on XnnRuntime too
        program = _program(exported, target="stock")
        assert program.target.runtime == "stock" and program.num_partitions == 1
        return program
    if kind == "pieces":
        program = _program(exported, exclude="aten.relu")
        assert program.ops_outside() == ["aten.relu"] and program.num_partitions == 2
        program(torch.randn(SHAPE))
        assert [step[4].name for step in program._plan.steps] == [
            "xnn.subgraph", "aten.relu", "xnn.subgraph"
        ]  # fmt: skip
        return program
    program = _program(exported, threads=int(kind.removeprefix("extended-threads=")))
    assert program.ops_outside() == [] and program.num_partitions == 1
    return program


def _hammer(run: Callable[[torch.Tensor], torch.Tensor], inputs: list[torch.Tensor]) -> list:
    """Results of `run` on every input, THREADS threads each making CALLS calls at once."""
    results: list = [None] * len(inputs)
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(t: int) -> None:
        start.wait()
        try:
            for i in range(t, len(inputs), THREADS):  # neighbours run neighbouring inputs
                results[i] = run(inputs[i])
        except BaseException as e:  # re-raised in the test's thread
            errors.append(e)

    run_threads(work, THREADS)
    if errors:
        raise errors[0]
    return results


PATHS = ["extended-threads=1", "extended-threads=2", "stock-target", "pieces", "stock-pte"]


@pytest.mark.parametrize("kind", PATHS)
def test_threads_get_the_single_threaded_results(kind, runner, model, inputs):
    run = runner(kind)
    expected = [run(x) for x in inputs]
    with torch.no_grad():
        # fp32 sums of 27 and 144 terms in another order than torch's: a few ulp of the
        # outputs (|y| ~ 1), far below the 1e-4 that a wrong weight or pixel would exceed.
        torch.testing.assert_close(expected[0], model(inputs[0]), atol=1e-4, rtol=1e-4)
    got = _hammer(run, inputs)
    wrong = [i for i, (a, b) in enumerate(zip(got, expected)) if not torch.equal(a, b)]
    assert not wrong, (
        f"{len(wrong)} of {len(inputs)} concurrent results differ, e.g. call {wrong[0]}"
    )


@pytest.mark.parametrize("kind", PATHS)
def test_a_later_call_leaves_earlier_outputs_alone(kind, runner, inputs):
    run = runner(kind)
    first = run(inputs[0])
    kept = first.clone()
    second = run(inputs[1])
    assert first.data_ptr() != second.data_ptr()
    assert torch.equal(first, kept)
    assert not torch.equal(first, second)


def test_profile_is_one_whole_call_while_other_threads_run(exported, inputs):
    """Each thread's profile() names every operator of both subgraphs once: the rows of one
    call, read while the other threads' calls overwrite XNNPACK's timings."""
    program = xnnc.compile(copy.deepcopy(exported), exclude="aten.relu", profile=True)
    with pytest.raises(RuntimeError, match="call run"):
        program.profile()
    program(inputs[0])
    names = [name for name, _ in program.profile()]
    assert {name.split(":")[0] for name in names} == {"subgraph 0", "subgraph 1"}

    def run_and_profile(x: torch.Tensor) -> list[str]:
        program(x)
        return [name for name, _ in program.profile()]

    assert all(got == names for got in _hammer(run_and_profile, inputs[:200]))
    seen: list = []  # a thread that made no call sees the last call of any thread
    reader = threading.Thread(target=lambda: seen.extend(n for n, _ in program.profile()))
    reader.start()
    reader.join()
    assert seen == names


def test_close_waits_for_the_runs_in_flight(exported, inputs):
    """Closing a runtime other threads are running frees XNNPACK's runtime between two runs:
    the runs after it fail with a clear error, none reads freed memory."""
    program = _program(exported)  # its own: this test closes it
    runtime = program.runtimes[program.subgraphs[0]]
    (expected,) = runtime.run(inputs[0])
    outcomes: list[str] = []
    started = threading.Barrier(THREADS + 1)

    def work() -> None:
        started.wait()
        try:
            while True:
                (y,) = runtime.run(inputs[0])
                assert torch.equal(y, expected)
        except RuntimeError as e:
            outcomes.append(str(e))

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    started.wait()
    time.sleep(0.05)
    runtime.close()
    for thread in threads:
        thread.join()
    assert outcomes == ["the runtime is closed"] * THREADS


def test_programs_at_one_thread_count_share_the_process_pool(exported, inputs):
    """Every runtime at 2 threads runs on the process's one pthreadpool of 2
    (`capi.shared_pool`; a pool per runtime gave EnCodec 20 worker threads on 2 cores): two
    programs of three runtimes between them, called from 8 threads at once, take turns on it
    per parallel operation and still compute the single-threaded results."""
    from xnnc.backend_xnnpack.runtime import capi

    whole = _program(exported, threads=2)
    pieces = _program(exported, threads=2, exclude="aten.relu")
    runtimes = [*whole.runtimes.values(), *pieces.runtimes.values()]
    assert len(runtimes) == 3
    assert {r._pool for r in runtimes} == {capi.shared_pool(2)}
    expected = [whole(x) for x in inputs]

    def both(x: torch.Tensor) -> torch.Tensor:
        y = whole(x)
        assert torch.equal(pieces(x), y)
        return y

    got = _hammer(both, inputs)
    assert all(torch.equal(g, e) for g, e in zip(got, expected))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_runs_on_a_pool_of_its_own(exported, inputs):
    """The parent's pool workers do not exist in a forked child: a runtime made there runs
    on a new pool (on the parent's it would wait forever for them). The child only loads a
    blob and runs it (no torch.export after fork, whose OpenMP pool is not fork-safe)."""
    from xnnc.backend_xnnpack.runtime import XnnRuntime, capi

    (blob,) = _program(exported, threads=2, savable=True).blobs
    (expected,) = XnnRuntime(blob, threads=2).run(inputs[0])
    parent_pool = capi.shared_pool(2)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        ok = False
        try:
            runtime = XnnRuntime(blob, threads=2)
            ok = runtime._pool != parent_pool and torch.equal(runtime.run(inputs[0])[0], expected)
        finally:
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 120)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert ready, "the forked child's runtime did not finish within 120 s"
    assert os.read(read, 1) == b"1"
