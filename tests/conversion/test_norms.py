"""Layer norm, group norm, variance and the masked-softmax guard inside XNNPACK, against torch
eager, on both runtimes, and through ExecuTorch's standard flow.

Tolerances. fp32: 1e-5 absolute and relative on normalized values of order 1: the mean and
variance are sums of 16 to 512 terms taken in another order than torch's (Welford) kernels,
and XNNPACK's rsqrt is within 2 ulp; each is a few fp32 roundings. bf16 and fp16: both sides
normalize in fp32 and round the result once, so they differ by at most one rounding of the
output: 2^-8 relative for bf16 (rtol 8e-3, atol 2e-2 for values up to 4), 2^-11 for fp16.
The guard's fully masked rows must be exactly 0 (never NaN), as `_safe_softmax` defines.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.exir import to_edge_transform_and_lower

import xnnc
from xnnc.dialects import aten
from xnnc.pipeline.stages import raising_passes
from xnnc.pte import StockRuntime

TOL = {
    torch.float32: dict(atol=1e-5, rtol=1e-5),
    torch.bfloat16: dict(atol=2e-2, rtol=8e-3),
    torch.float16: dict(atol=4e-3, rtol=1e-3),
}
TARGETS = ["extended", "stock"]


def _check(model: nn.Module, inputs: tuple, target: str, dtype=torch.float32) -> xnnc.Program:
    """Compiled for `target`: one delegate, nothing outside, eager's numbers."""
    model = model.eval()
    with torch.no_grad():
        want = model(*inputs)
    program = xnnc.compile(model, inputs, target=target)
    assert program.outside() == [] and program.num_partitions == 1
    got = program(*inputs)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):  # fmt: skip
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, **TOL[dtype])
    return program


def _affine(norm: nn.Module, dtype: torch.dtype) -> nn.Module:
    torch.manual_seed(1)
    with torch.no_grad():
        if getattr(norm, "weight", None) is not None:
            norm.weight.normal_(1.0, 0.2)
            norm.bias.normal_(0.0, 0.2)
    return norm.to(dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16],
                         ids=["f32", "bf16", "f16"])  # fmt: skip
@pytest.mark.parametrize(
    "shape, normalized, affine",
    [((2, 16, 64), (64,), True), ((3, 8, 12), (8, 12), True), ((4, 32), (32,), False)],
    ids=["last-dim", "last-two-dims", "no-affine"],
)
def test_layer_norm(shape, normalized, affine, dtype, target) -> None:
    model = _affine(nn.LayerNorm(normalized, elementwise_affine=affine), dtype)
    x = (torch.randn(shape) * 3 + 1).to(dtype)
    _check(model, (x,), target, dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize(
    "shape, groups",
    [((2, 16, 40), 4), ((1, 12, 6, 5), 3), ((1, 8, 30), 1), ((1, 8, 30), 8)],
    ids=["1d", "2d", "one-group", "per-channel"],
)
def test_group_norm(shape, groups, dtype, target) -> None:
    model = _affine(nn.GroupNorm(groups, shape[1]), dtype)
    x = (torch.randn(shape) * 2 - 1).to(dtype)
    _check(model, (x,), target, dtype)


class Var(nn.Module):
    def __init__(self, dim, correction: int, keepdim: bool) -> None:
        super().__init__()
        self.dim, self.correction, self.keepdim = dim, correction, keepdim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.var(x, self.dim, correction=self.correction, keepdim=self.keepdim)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "dim, correction, keepdim", [(-1, 1, False), ((1, 2), 0, True), ((0, 1, 2), 1, True)]
)
def test_var(dim, correction, keepdim, target) -> None:
    _check(Var(dim, correction, keepdim), (torch.randn(2, 6, 10) * 2,), target)


@pytest.mark.parametrize(
    "dim, shape, reason",
    [(-1, (3, 1), "correction 1 leaves no degrees of freedom"),
     (None, (3, 4), "a 0-d result (XNNPACK gives reductions at least one dim)")],
)  # fmt: skip
def test_var_left_outside_says_why(dim, shape, reason) -> None:
    program = xnnc.compile(Var(dim, 1, False), (torch.randn(shape),))
    assert [(o.op, o.reason) for o in program.outside()] == [("aten.var", reason)]


class HandWrittenNorms(nn.Module):
    """Layer norms as users write them: with torch.var, and with the variance spelled out."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        mean = x.mean(-1, keepdim=True)
        a = (x - mean) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)
        d = x - x.mean((-2, -1), keepdim=True)
        b = d * torch.rsqrt(d.pow(2).mean((-2, -1), keepdim=True) + 1e-6)
        rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)  # RMSNorm: op by op
        return a, b, rms


def test_decomposed_layer_norm_is_raised() -> None:
    x = torch.randn(2, 8, 32) * 2 + 0.5
    module = xnnc.import_model(HandWrittenNorms(), (x,))
    for p in raising_passes():
        p.apply(xnnc.make_context(), module)
    norms = [op for op in module.walk() if isinstance(op, aten.LayerNormOp)]
    assert [list(op.normalized_shape.get_values()) for op in norms] == [[32], [8, 32]]
    assert [op.eps.value.data for op in norms] == [1e-5, 1e-6]
    assert not any(isinstance(op, (aten.VarOp, aten.SqrtOp)) for op in module.walk())


@pytest.mark.parametrize("target", TARGETS)
def test_decomposed_layer_norm(target) -> None:
    _check(HandWrittenNorms(), (torch.randn(2, 8, 32) * 2 + 0.5,), target)


class MaskedScores(nn.Module):
    """softmax over the scores + mask, where the mask hides whole rows and parts of rows."""

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten._safe_softmax(scores + mask, -1)


def _mask(rows: int, cols: int) -> torch.Tensor:
    mask = torch.zeros(rows, cols)
    mask[1] = -torch.inf  # fully masked
    mask[3, : cols - 1] = -torch.inf  # one left
    mask[4, ::2] = -torch.inf
    return mask


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_safe_softmax_fully_masked_rows(dtype, target) -> None:
    scores, mask = (torch.randn(2, 3, 6, 9) * 4).to(dtype), _mask(6, 9).to(dtype)
    program = _check(MaskedScores(), (scores, mask), target, dtype)
    got = program(scores, mask)
    assert torch.equal(got[:, :, 1], torch.zeros_like(got[:, :, 1]))
    assert torch.equal(got[:, :, 3, -1], torch.ones_like(got[:, :, 3, -1]))
    assert not got.isnan().any()


class Attention(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _attention_inputs() -> tuple[torch.Tensor, ...]:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 6, 8) for _ in range(3))
    return q, k, v, _mask(6, 6)


def _reference(q, k, v, mask) -> torch.Tensor:
    """SDPA as `_safe_softmax` defines it (eager CPU SDPA kernels may give NaN rows)."""
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5 + mask
    return torch.ops.aten._safe_softmax(scores, -1) @ v


@pytest.mark.parametrize("target", TARGETS)
def test_decomposed_guard_is_raised(target) -> None:
    """An already decomposed program holds eq/logical_not/any/full_like/where."""
    inputs = _attention_inputs()
    ep = torch.export.export(Attention(), inputs).run_decompositions()
    targets = {str(n.target) for n in ep.graph.nodes}
    assert {"aten.eq.Scalar", "aten.any.dim", "aten.full_like.default"} <= targets
    program = xnnc.compile(ep, target=target)
    assert program.outside() == [] and program.num_partitions == 1
    got = program(*inputs)
    torch.testing.assert_close(got, _reference(*inputs), **TOL[torch.float32])
    assert torch.equal(got[:, :, 1], torch.zeros_like(got[:, :, 1]))


def _delegates_only(edge) -> None:
    gm = edge.exported_program().graph_module
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert [n.target.__name__ for n in calls] == ["executorch_call_delegate", "getitem"]


def test_decomposed_guard_through_the_partitioner() -> None:
    """The fused location of the raised op tags every FX node of the guard."""
    inputs = _attention_inputs()
    ep = torch.export.export(Attention(), inputs).run_decompositions()
    edge = to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner()])
    _delegates_only(edge)
    (got,) = StockRuntime(edge.to_executorch().buffer)(*inputs)
    torch.testing.assert_close(got, _reference(*inputs), **TOL[torch.float32])


@pytest.mark.parametrize("name", ["transformer_encoder", "audio_norms"])
def test_standard_flow_one_delegate(zoo, name) -> None:
    """`to_edge_transform_and_lower(..., [XnncPartitioner()]).to_executorch()`: one delegate."""
    _, inputs = zoo.example(name)
    edge = to_edge_transform_and_lower(zoo.exported(name), partitioner=[xnnc.XnncPartitioner()])
    _delegates_only(edge)
    (got,) = StockRuntime(edge.to_executorch().buffer)(*inputs)
    torch.testing.assert_close(got, zoo.eager(name), **TOL[torch.float32])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["transformer_encoder", "audio_norms"])
def test_zoo_model_one_delegate(zoo, name, target) -> None:
    _, inputs = zoo.example(name)
    program = zoo.compiled(name, target=target)
    assert program.outside() == [] and program.num_partitions == 1
    torch.testing.assert_close(program(*inputs), zoo.eager(name), **TOL[torch.float32])
