"""A Program's plan (driver._Plan): the top-level function compiled once into steps over a
per-call list of values, run without xDSL's interpreter; the interpreter only for what the
plan cannot run (a function of several blocks, an op with regions, an op that is not aten's).

Numerics: against torch eager at fp32 with the tolerance of the models' other tests (1e-4
of the output's scale: XNNPACK's summation order and activation approximations, ~1e-6
relative, over a few layers); against the interpreter bit for bit (`torch.equal`), since the
plan calls the same runtimes and the same op implementations in the same order.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from threads import calls_that_differ
from torch.export import Dim
from xdsl.interpreter import Interpreter

import xnnc
from xnnc.dialects import aten

INTERPRETER = "the interpreter, for this test"


class ConvReluConv(nn.Module):
    """conv -> relu -> conv -> * scale buffer; `exclude="aten.relu"` leaves the relu to torch
    between two subgraphs."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(4, 8, 3, padding=1)
        self.conv2 = nn.Conv1d(8, 4, 3, padding=1)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 4).reshape(1, 4, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(torch.relu(self.conv1(x))) * self.scale


def _close(got: torch.Tensor, want: torch.Tensor) -> None:
    torch.testing.assert_close(got, want, atol=1e-4 * want.abs().max().item(), rtol=0)


def _interpreted(program: xnnc.Program, *inputs: torch.Tensor) -> torch.Tensor:
    """The same call through xDSL's interpreter (the path before the plan)."""
    plan = program._plan
    program._plan = INTERPRETER
    try:
        return program(*inputs)
    finally:
        program._plan = plan


@pytest.fixture(scope="module")
def model() -> ConvReluConv:
    torch.manual_seed(0)
    return ConvReluConv().eval()


@pytest.mark.parametrize("target", ["extended", "stock"])
@pytest.mark.parametrize("excluded", ["aten.relu", "aten.mul"])
def test_ops_outside_between_subgraphs_match_eager(model, target: str, excluded: str) -> None:
    """An op left to torch in the middle (relu) or at the end (the scale's mul), on both
    targets: a stock-target Program runs its stock blobs on the extended runtime too."""
    x = torch.randn(1, 4, 16)
    program = xnnc.compile(model, (x,), target=target, exclude=excluded, tune=False)
    assert program.ops_outside() == [excluded]
    got = program(x)
    kinds = [step[4].name for step in program._plan.steps]
    assert kinds.count("xnn.subgraph") == program.num_partitions and excluded in kinds
    with torch.no_grad():
        _close(got, model(x))
    assert torch.equal(got, _interpreted(program, x))


def test_a_multi_piece_call_does_not_enter_the_interpreter(model, monkeypatch) -> None:
    x = torch.randn(1, 4, 16)
    program = xnnc.compile(model, (x,), exclude="aten.relu", tune=False)
    want = program(x)

    def refuse(*args, **kwargs):
        raise AssertionError("the plan entered xDSL's interpreter")

    monkeypatch.setattr(Interpreter, "call_op", refuse)
    monkeypatch.setattr(Interpreter, "run_op", refuse)
    assert torch.equal(program(torch.clone(x)), want)
    program._plan = INTERPRETER  # the fallback does enter it: the patch is live
    with pytest.raises(AssertionError, match="entered xDSL's interpreter"):
        program(x)


def test_dynamic_multi_piece_calls_from_threads_are_bit_identical(model) -> None:
    """8 threads x 20 calls at mixed sizes on a dynamic program of two subgraphs and a relu
    on torch: each result equals (`torch.equal`) the single-threaded one for its input."""
    dims = {"x": {2: Dim("T", min=2, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, 4, 16),), dynamic_shapes=dims,
                           exclude="aten.relu", tune=False)  # fmt: skip
    assert program.num_partitions == 2
    generator = torch.Generator().manual_seed(1)
    inputs = [torch.randn(1, 4, 2 + (7 * i) % 63, generator=generator) for i in range(20)]
    want = [program(x) for x in inputs]
    with torch.no_grad():
        _close(want[3], model(inputs[3]))
    assert calls_that_differ(program, inputs, want, torch.equal) == []


def test_constants_are_views_of_the_ir_and_outputs_are_fresh(model) -> None:
    """The scale buffer, read by the mul left to torch, is one tensor on the IR's buffer (no
    copy of a weight); an output that is a value the plan keeps is copied out."""
    x = torch.randn(1, 4, 16)
    program = xnnc.compile(model, (x,), exclude="aten.mul", tune=False)
    program(x)
    (scale,) = program._plan.constants.values()
    (op,) = [op for op in program._func.body.block.ops if isinstance(op, aten.ConstantOp)]
    import numpy as np

    ir = np.frombuffer(op.value.data.raw(), dtype=np.uint8)
    assert scale.data_ptr() == ir.ctypes.data
    assert torch.equal(scale.flatten(), model.scale.flatten())

    class Const(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("table", torch.arange(6.0).reshape(2, 3))

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return x + 1, self.table

    program = xnnc.compile(Const().eval(), (torch.randn(2, 3),), tune=False)
    _, table = program(torch.randn(2, 3))
    table.zero_()  # the caller's to change: the next call's is untouched
    assert torch.equal(program(torch.randn(2, 3))[1], torch.arange(6.0).reshape(2, 3))


def test_an_input_that_requires_grad_gives_results_without_a_graph() -> None:
    """The plan enters no_grad only when an input requires grad (the one way its torch ops
    could record a graph): then an op on torch returns a result with no graph, as the
    interpreter's does; without, the same values."""

    class ConvAndRelu(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv1d(4, 4, 3, padding=1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.conv(x), torch.relu(x)

    torch.manual_seed(0)
    model, x = ConvAndRelu().eval(), torch.randn(1, 4, 8)
    program = xnnc.compile(model, (x,), exclude="aten.relu", tune=False)
    leaf = x.clone().requires_grad_()
    conv, relu = program(leaf)
    assert program._plan.torched and "aten.relu" in program.ops_outside()
    assert not conv.requires_grad and not relu.requires_grad and relu.grad_fn is None
    with torch.no_grad():
        want_conv, want_relu = model(x)
    _close(conv, want_conv)
    assert torch.equal(relu, want_relu)
    for got, want in zip(program(x), _interpreted(program, leaf)):
        assert torch.equal(got, want) and not want.requires_grad


def test_random_ops_draw_on_every_call() -> None:
    """An op that draws random numbers from a constant is not cached like the values of
    constants and sizes alone: each call draws its own."""

    class Noise(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("base", torch.zeros(4, 8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + torch.rand_like(self.base)

    program = xnnc.compile(Noise().eval(), (torch.zeros(4, 8),), tune=False)
    first, second = program(torch.zeros(4, 8)), program(torch.zeros(4, 8))
    assert not torch.equal(first, second)
    assert program._plan.cached_ops == []


def test_a_failing_op_outside_is_reported_as_the_interpreter_did() -> None:
    """torch's error, with the IR printed and the failing op marked (xDSL's note), on both
    paths alike."""

    class Gather(nn.Module):
        def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
            return torch.relu(x)[index] * 2

    x, index = torch.randn(5, 3), torch.tensor([0, 4])
    program = xnnc.compile(Gather().eval(), (x, index), tune=False)
    assert "aten.index.Tensor" in program.ops_outside()
    torch.testing.assert_close(program(x, index), torch.relu(x)[index] * 2)
    caught = []
    for plan in (program._plan, INTERPRETER):
        program._plan = plan
        with pytest.raises(IndexError) as e:
            program(x, torch.tensor([0, 9]))
        caught.append(e.value)
    planned, interpreted = caught
    assert str(planned) == str(interpreted) and "out of bounds" in str(planned)
    (note,) = planned.__notes__
    assert '"aten::index.Tensor"' in note and "| Error while interpreting op" in note
    assert note == interpreted.__notes__[0]


CALLING_MODULE = """
builtin.module {
  func.func @forward(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
    %r = func.call @helper(%x) : (tensor<1x8xf32>) -> tensor<1x8xf32>
    %y = xnn.subgraph(%r) : (tensor<1x8xf32>) -> tensor<1x8xf32> {
    ^bb0(%a: tensor<1x8xf32>):
      %s = xnn.binary add %a, %a : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
      xnn.output %s : tensor<1x8xf32>
    }
    func.return %y : tensor<1x8xf32>
  }
  func.func @helper(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
    %r = aten.relu %x : (tensor<1x8xf32>) -> tensor<1x8xf32>
    func.return %r : tensor<1x8xf32>
  }
}
"""


def test_a_function_the_plan_cannot_run_takes_the_interpreter() -> None:
    program = xnnc.Program(xnnc.parse_module(CALLING_MODULE))
    x = torch.randn(1, 8)
    torch.testing.assert_close(program(x), 2 * torch.relu(x), atol=0, rtol=0)
    assert program._plan == "func.call is no aten op: the interpreter runs it"
