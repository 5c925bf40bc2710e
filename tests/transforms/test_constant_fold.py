"""fold-constants: which ops fold (op counts before and after), which are left alone (random
ops, results over max-bytes, weights without data), and numerics of folded models.

Tolerances. A folded op is computed by the same torch call the reference interpreter makes
at run time, but its result is stored contiguous: an op reading it (a linear reading a
transposed weight) may take another kernel and sum in another order, so folded and unfolded
modules agree on the reference interpreter to fp32 rounding (torch's default assert_close,
1.3e-6 relative + 1e-5 absolute), not bit for bit. Compiled programs run on the extended
runtime against eager: fp32 1e-4 absolute + relative (XNNPACK's convolutions accumulate in
another order and its sin/tanh are approximations, ~1e-6 relative on outputs of order 1).
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from xdsl.dialects.builtin import ModuleOp

import xnnc
from xnnc.transforms.constant_fold import FoldConstantsPass, is_functional_overload

EAGER_TOL = dict(atol=1e-4, rtol=1e-4)


def _fold(module, **options) -> None:
    FoldConstantsPass(**options).apply(xnnc.make_context(), module)
    module.verify()


def _ops(module) -> Counter[str]:
    """Op counts, `aten.generic` ops by their overload."""
    return Counter(op.target.data if op.name == "aten.generic" else op.name for op in module.walk())


def _folded_weights(module) -> list[str]:
    return [
        op.value.data.name
        for op in module.walk()
        if op.name == "aten.constant" and ".folded" in getattr(op.value.data, "name", "")
    ]


def _check_reference_unchanged(model, inputs, **options) -> tuple[Counter, Counter, object]:
    """(op counts before, after, the folded module); the reference outputs agree. `model`:
    anything `xnnc.import_model` takes, or an imported module."""
    module = model if isinstance(model, ModuleOp) else xnnc.import_model(model, inputs)
    before, want = _ops(module), xnnc.run_reference(module, inputs)
    _fold(module, **options)
    for got, ref in zip(xnnc.run_reference(module, inputs), want, strict=True):
        torch.testing.assert_close(got, ref)
    return before, _ops(module), module


# --- which overloads may fold ------------------------------------------------------------------


@pytest.mark.parametrize(
    "overload, foldable",
    [
        ("aten::full", True),
        ("aten::zeros", True),
        ("aten::arange.start_step", True),
        ("aten::add.Tensor", True),
        ("aten::rand", False),  # nondeterministic_seeded
        ("aten::randn", False),
        ("aten::bernoulli", False),
        ("aten::dropout", False),
        ("aten::native_dropout", False),
        ("aten::empty.memory_format", False),  # uninitialized
        ("aten::add_.Tensor", False),  # mutates
        ("aten::_assert_async", False),  # returns nothing
        ("aten::no_such_op", False),
    ],
)
def test_functional_overloads(overload: str, foldable: bool) -> None:
    assert is_functional_overload(overload) is foldable


# --- small models ------------------------------------------------------------------------------


class ConstantSubexpressions(nn.Module):
    """Weight preprocessing in forward (scale, transpose), an arange and a bias computed from
    parameters: everything but `x + pos` and the linear folds."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 8))
        self.b = nn.Parameter(torch.randn(8))
        self.register_buffer("scale", torch.rand(8) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = (self.w * self.scale.sqrt()).t()
        pos = torch.arange(4, dtype=torch.float32) / 4
        return F.linear(x + pos, w, self.b.exp() - 1)


def test_constant_subexpressions_fold() -> None:
    torch.manual_seed(0)
    model, inputs = ConstantSubexpressions().eval(), (torch.randn(2, 4),)
    before, after, module = _check_reference_unchanged(model, inputs)
    assert before["aten.sqrt"] == before["aten.exp"] == before["aten::arange.start_step"] == 1
    assert {op for op in after if op.startswith("aten")} == {"aten.constant", "aten.add",
                                                            "aten.linear"}  # fmt: skip
    assert after["aten.add"] == 1 and after["aten.constant"] == 3  # pos, w', b'
    program = xnnc.compile(model, inputs)
    assert program.num_partitions == 1 and program.ops_outside() == []
    with torch.no_grad():
        torch.testing.assert_close(program(*inputs), model(*inputs), **EAGER_TOL)


class RandomNoise(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.rand(4) * torch.ones(4)


def test_random_ops_left_alone() -> None:
    module = xnnc.import_model(RandomNoise(), (torch.randn(4),))
    _fold(module)
    ops = _ops(module)
    assert ops["aten::rand"] == 1 and ops["aten.mul"] == 1  # mul has a random operand
    assert ops["aten::ones"] == 0


class BroadcastConstant(nn.Module):
    """A [1, 1] parameter expanded to [256, 256] (256 KiB of fp32)."""

    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Parameter(torch.full((1, 1), 0.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, self.c.expand(256, 256)])


@pytest.mark.parametrize("max_bytes, folds", [(256 * 1024 - 1, False), (256 * 1024, True)])
def test_max_bytes(max_bytes: int, folds: bool) -> None:
    model, inputs = BroadcastConstant().eval(), (torch.randn(2, 256),)
    before, after, _ = _check_reference_unchanged(model, inputs, max_bytes=max_bytes)
    assert before["aten.expand"] == 1
    assert after["aten.expand"] == (0 if folds else 1)


def test_default_max_bytes_keeps_huge_broadcasts() -> None:
    """[1, 1] expanded to 4097 x 4096 fp32 (64 MiB + 64 KiB) stays an op under the default
    bound, which is checked on the result type before anything is computed."""
    from xnnc.dialects import aten
    from xnnc.transforms.constant_fold import MAX_BYTES, result_nbytes

    assert MAX_BYTES == 64 * 2**20
    module = xnnc.parse_module(
        "func.func @f() -> tensor<4097x4096xf32> {\n"
        "  %c = aten.constant dense<1.0> : tensor<1x1xf32>\n"
        "  %e = aten.expand %c {size = array<i64: 4097, 4096>}"
        " : (tensor<1x1xf32>) -> tensor<4097x4096xf32>\n"
        "  func.return %e : tensor<4097x4096xf32>\n}"
    )
    expand = next(op for op in module.walk() if isinstance(op, aten.ExpandOp))
    assert result_nbytes(expand) == 4097 * 4096 * 4 > MAX_BYTES
    _fold(module)
    assert _ops(module)["aten.expand"] == 1


def test_elided_weights_left_alone() -> None:
    """Text printed with weights elided and parsed without them: nothing folds, no error;
    parsed with the weights, the same text folds."""
    torch.manual_seed(0)
    model, inputs = ConstantSubexpressions().eval(), (torch.randn(2, 4),)
    module = xnnc.import_model(model, inputs)
    text, weights = xnnc.print_module(module), xnnc.weights_of(module)
    elided = xnnc.parse_module(text)
    before = _ops(elided)
    _fold(elided)
    after = _ops(elided)
    # Only the arange (no operands) folds; everything reading a weight stays.
    assert after["aten::arange.start_step"] == 0 and before["aten.sqrt"] == after["aten.sqrt"]
    assert after["aten.exp"] == after["aten.mul"] == after["aten.permute"] == 1
    with_data = xnnc.parse_module(text, weights)
    _fold(with_data)
    assert _ops(with_data)["aten.sqrt"] == 0


def test_fake_tensor_import_left_alone() -> None:
    """A program exported with FakeTensor weights imports weights without data."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        model = ConstantSubexpressions().eval()
        ep = torch.export.export(model, (mode.from_tensor(torch.randn(2, 4)),))
    module = xnnc.import_model(ep)
    _fold(module)
    assert _ops(module)["aten.sqrt"] == 1 and _ops(module)["aten.exp"] == 1


# --- example models ----------------------------------------------------------------------------


def test_dac_snake_reciprocal_folds(zoo) -> None:
    """Each Snake's 1 / (alpha + 1e-9) becomes one weight: no reciprocal and one add fewer
    per Snake; the DAC still compiles to one partition and matches eager."""
    _, inputs = zoo.example("dac")
    before, after, module = _check_reference_unchanged(zoo.imported("dac"), inputs)
    snakes = before["aten.reciprocal"]
    assert snakes == 29 and after["aten.reciprocal"] == 0
    assert after["aten.add"] == before["aten.add"] - snakes
    assert after["aten.constant"] == before["aten.constant"] + snakes
    assert sum(op.count(".reciprocal") for op in _folded_weights(module)) == snakes
    program = zoo.compiled("dac")
    assert program.num_partitions == 1 and program.ops_outside() == []
    torch.testing.assert_close(program(*inputs), zoo.eager("dac"), **EAGER_TOL)


def test_encodec_lstm_initial_state_folds(zoo) -> None:
    """The LSTM's zero h0/c0 (`aten::full`) fold into constants, which the LSTM (one
    `xnnc::lstm`, imported whole) reads as a zero state; nothing of them is left outside
    XNNPACK."""
    _, inputs = zoo.example("encodec")
    before, after, _ = _check_reference_unchanged(zoo.imported("encodec"), inputs)
    assert before["aten::full"] == 2 and after["aten::full"] == 0
    assert before["xnnc::lstm"] == after["xnnc::lstm"] == 1
    program = zoo.compiled("encodec")
    outside = set(program.ops_outside())
    assert not outside & {"aten.full", "aten.zeros", "aten.slice", "aten.squeeze"}, outside
    torch.testing.assert_close(program(*inputs), zoo.eager("encodec"), **EAGER_TOL)
    unfolded = zoo.compiled("encodec", disable=("fold-constants",))
    assert "aten.full" in unfolded.ops_outside()
