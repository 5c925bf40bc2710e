"""`xnn-layout`: its math against torch, and end to end on the example models.

The rewrite only moves data around (transposes, reshapes, constants permuted at compile
time), so it is exact; the tolerances are the backend's, as in test_backend: fp32 1e-4
absolute + relative (XNNPACK sums convolutions in another order than torch and evaluates
exp/sin/tanh/ELU with its own approximations, ~1e-6 relative, over tens of layers), fp16 2e-2
(both sides round every result to fp16, 2^-11 relative, but at different points: torch
computes many fp16 CPU ops in fp32 internally, XNNPACK keeps fp16 intermediates).

Transposes per subgraph on the small models, the default pipeline without and with
xnn-layout (measured when this was written; the tests assert <= 2 and the drop):

    resnet 42 -> 1, mobilenetv2 104 -> 1, fp16_convnet 72 -> 2,
    mimi 30 -> 1, hifigan 156 -> 1, dac 60 -> 1, encodec (reflect pads channels-last,
    the LSTM in the same subgraph) 42 -> 1, inside the subgraph rather than at its boundary.
"""

from __future__ import annotations

import itertools
import random

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriterListener,
    PatternRewriteWalker,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern, CanonicalizePass
from xdsl.transforms.dead_code_elimination import region_dce

import xnnc
from xnnc.dialects import xnn
from xnnc.pipeline.stages import lower
from xnnc.transforms.layout import (
    LayoutPass,
    broadcast_through_reshape,
    compose,
    inverse,
    regrouped,
    reshape_blocks,
    transpose_through_reshape,
)

TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float16: dict(atol=2e-2, rtol=2e-2)}

# A disabled rewrite also stays out of canonicalize.
WITHOUT_LAYOUT = ("xnn-layout",)

CONV_NETS = ["resnet", "mobilenetv2", "fp16_convnet"]
DECODERS_1D = ["mimi", "hifigan", "dac"]


# --- the math --------------------------------------------------------------------------------


def test_compose_and_inverse() -> None:
    x = torch.randn(2, 3, 4, 5)
    for p, q in itertools.product(itertools.permutations(range(4)), repeat=2):
        assert torch.equal(x.permute(p).permute(q), x.permute(compose(p, q)))
    for p in itertools.permutations(range(4)):
        assert compose(p, inverse(p)) == (0, 1, 2, 3)


def test_reshape_blocks() -> None:
    assert reshape_blocks((2, 3, 1, 4), (6, 2, 2)) == [((0, 1), (0,)), ((3,), (1, 2))]
    assert reshape_blocks((1, 8, 4), (1, 1, 8, 4)) == [((1,), (2,)), ((2,), (3,))]
    assert reshape_blocks((2, 3), (7,)) is None
    assert regrouped((1, 1, 9, 512), (1, 72, 64)) == (1, 1, 72, 64)


def test_transpose_through_reshape_cases() -> None:
    # conv1d's input: NCL -> NLC -> [N, 1, L, C] is NCHW -> NHWC with H = 1
    assert transpose_through_reshape((1, 8, 5), (0, 2, 1), (1, 1, 5, 8)) == (
        (1, 8, 1, 5),
        (0, 2, 3, 1),
    )
    # nearest upsampling's block reshape of an NCHW view of an NHWC tensor stays NHWC
    assert transpose_through_reshape((1, 4, 4, 8), (0, 3, 1, 2), (1, 8, 4, 1, 4, 1)) == (
        (1, 4, 1, 4, 1, 8),
        (0, 5, 1, 2, 3, 4),
    )
    # flattening H and W of an NCHW view flattens them in NHWC as well
    assert transpose_through_reshape((1, 4, 4, 8), (0, 3, 1, 2), (1, 8, 16)) == (
        (1, 16, 8),
        (0, 2, 1),
    )
    # merging C and H of an NCHW view: they are not adjacent in NHWC
    assert transpose_through_reshape((1, 4, 4, 8), (0, 3, 1, 2), (1, 32, 4)) is None


def _random_reshape(shape: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """Merges neighbours, splits even dims, inserts and drops unit dims."""
    out, i = [], 0
    while i < len(shape):
        r = rng.random()
        if r < 0.2 and i + 1 < len(shape):
            out.append(shape[i] * shape[i + 1])
            i += 2
            continue
        if r < 0.4 and shape[i] % 2 == 0 and shape[i] > 2:
            out += [2, shape[i] // 2]
        elif r < 0.6 and shape[i] == 1:
            pass
        else:
            if r < 0.7:
                out.append(1)
            out.append(shape[i])
        i += 1
    return tuple(out) or (1,)


def test_transpose_through_reshape_matches_torch() -> None:
    rng = random.Random(0)
    moved = 0
    for _ in range(2000):
        x = tuple(rng.choice([1, 1, 2, 3, 4, 6]) for _ in range(rng.randint(1, 5)))
        perm = list(range(len(x)))
        rng.shuffle(perm)
        z = _random_reshape(tuple(x[p] for p in perm), rng)
        found = transpose_through_reshape(x, perm, z)
        if found is None:
            continue
        w, perm2 = found
        t = torch.arange(torch.Size(x).numel()).reshape(x)
        assert torch.equal(t.reshape(w).permute(perm2), t.permute(perm).reshape(z)), (x, perm, z)
        moved += 1
    assert moved > 1500


def test_broadcast_through_reshape_matches_torch() -> None:
    rng = random.Random(1)
    carried = 0
    for _ in range(1000):
        src = tuple(rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 4)))
        dst = _random_reshape(src, rng)
        b = tuple(d if rng.random() < 0.5 else 1 for d in dst)
        shape = broadcast_through_reshape(b, src, dst)
        if shape is None:
            continue
        x, y = torch.randn(src), torch.randn(b)
        torch.testing.assert_close((x + y.reshape(shape)).reshape(dst), x.reshape(dst) + y)
        carried += 1
    assert carried > 500


# --- end to end ------------------------------------------------------------------------------


def transposes(module: ModuleOp) -> list[int]:
    """The number of xnn.static_transpose ops in each subgraph."""
    return [
        sum(isinstance(op, xnn.StaticTransposeOp) for op in sub.body.block.ops)
        for sub in module.walk()
        if isinstance(sub, xnn.SubgraphOp)
    ]


def _through(value: SSAValue, kinds: tuple[type, ...]) -> SSAValue:
    while isinstance(value.owner, kinds):
        value = value.owner.input
    return value


def at_boundary(op: xnn.StaticTransposeOp) -> bool:
    """Reads a subgraph input (through reshapes, converts and constant pads) or, through
    reshapes and converts, only feeds the subgraph's outputs."""
    entry = (xnn.StaticReshapeOp, xnn.ConvertOp, xnn.StaticConstantPadOp)
    if isinstance(_through(op.input, entry), BlockArgument):
        return True
    users = [u.operation for u in op.output.uses]
    while users and all(isinstance(u, (xnn.StaticReshapeOp, xnn.ConvertOp)) for u in users):
        users = [u.operation for user in users for u in user.output.uses]
    return bool(users) and all(isinstance(u, xnn.OutputOp) for u in users)


def without_layout(zoo, name: str) -> ModuleOp:
    """The model through the default pipeline less xnn-layout."""
    return lower(zoo.imported(name), disable=WITHOUT_LAYOUT)


@pytest.mark.parametrize("name", CONV_NETS + DECODERS_1D + ["encodec"])
def test_model_matches_eager(zoo, name: str) -> None:
    _, inputs = zoo.example(name)
    dtype = torch.float16 if name == "fp16_convnet" else torch.float32
    torch.testing.assert_close(zoo.compiled(name)(*inputs), zoo.eager(name), **TOL[dtype])


@pytest.mark.parametrize("name", CONV_NETS + DECODERS_1D)
def test_model_keeps_transposes_at_the_boundary(zoo, name: str) -> None:
    program, before = zoo.compiled(name), transposes(without_layout(zoo, name))
    after = transposes(program.module)
    assert program.num_partitions == 1 and program.ops_outside() == []
    assert after[0] <= 2 and sum(after) < sum(before), (before, after)
    boundary = [
        at_boundary(op)
        for sub in program.subgraphs
        for op in sub.body.block.ops
        if isinstance(op, xnn.StaticTransposeOp)
    ]
    assert all(boundary), boundary


def test_no_subgraph_gains_a_transpose(zoo) -> None:
    """EnCodec's reflect pads (slices + concatenates) and LSTM (NLC time steps) sit between
    its convolutions: sinking must not give any branch a transpose of its own."""
    # Unrolled: the LSTM's steps in the subgraph (the default runs it on the recurrent loop).
    unrolled = ("lstm-loop",)
    program = zoo.compiled("encodec", disable=unrolled)
    before = transposes(lower(zoo.imported("encodec"), disable=(*WITHOUT_LAYOUT, *unrolled)))
    after = transposes(program.module)
    assert all(a <= b for a, b in zip(after, before, strict=True)), (before, after)
    assert sum(after) < sum(before)


class LayoutZoo(nn.Module):
    """NCHW ops between convolutions that xnn-layout must carry: a causal pad, a crop, a
    channel concatenate, [C, 1, 1] and [H, W] parameters, a scalar, a computed [1, C, 1]
    operand, a channel mean and a 1-D branch through reshapes."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.b = nn.Conv2d(16, 8, 3)
        self.c = nn.Conv1d(8, 4, 3, padding=1)
        self.scale = nn.Parameter(torch.rand(8, 1, 1) + 0.5)
        self.plane = nn.Parameter(torch.randn(10, 10) * 0.1)
        self.alpha = nn.Parameter(torch.rand(1, 8, 1) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.elu(self.a(x))  # [1, 8, 12, 12]
        y = torch.cat([y, torch.sigmoid(y) * self.scale], dim=1)
        y = F.pad(y, (2, 0, 1, 0))[:, :, :12, 1:13]
        y = self.b(y) + self.plane - 0.5  # [1, 8, 10, 10]
        y = y * y.mean(dim=(2, 3), keepdim=True)
        s = y.flatten(2)  # [1, 8, 100]
        s = s + (self.alpha + 1e-3).reciprocal() * torch.sin(self.alpha * s)
        return self.c(F.pad(s, (1, 0))[..., :100])


def test_layout_zoo_matches_eager() -> None:
    torch.manual_seed(0)
    model, x = LayoutZoo().eval(), torch.randn(1, 3, 12, 12)
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,))
    torch.testing.assert_close(program(x), want, **TOL[torch.float32])
    without = transposes(lower(xnnc.import_model(model, (x,)), disable=WITHOUT_LAYOUT))
    assert transposes(program.module) == [2] and without[0] > 2, without


# --- termination -----------------------------------------------------------------------------


def _bounded_canonicalize(module: ModuleOp, limit: int) -> int:
    """Canonicalize as CanonicalizePass does, failing after `limit` inserted ops instead of
    ping-ponging forever; returns the number of inserted ops."""
    inserted = 0

    def count(_op) -> None:
        nonlocal inserted
        inserted += 1
        if inserted > limit:
            raise AssertionError(f"canonicalize inserted more than {limit} ops: no fixpoint")

    listener = PatternRewriterListener(operation_insertion_handler=[count])
    pattern = GreedyRewritePatternApplier([CanonicalizationRewritePattern()], folding_enabled=True)
    PatternRewriteWalker(pattern, post_walk_func=region_dce, listener=listener).rewrite_module(
        module
    )
    return inserted


@pytest.mark.parametrize("name", ["resnet", "fp16_convnet", "mimi", "dac"])
def test_canonicalize_reaches_a_fixpoint(zoo, name: str) -> None:
    module = without_layout(zoo, name)
    ops = sum(1 for _ in module.walk())
    assert _bounded_canonicalize(module, limit=10 * ops) > 0
    text = xnnc.print_module(module)
    LayoutPass().apply(xnnc.make_context(), module)
    CanonicalizePass().apply(xnnc.make_context(), module)
    assert xnnc.print_module(module) == text
    assert max(transposes(module)) <= 2
