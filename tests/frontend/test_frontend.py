"""Importer + reference interpreter against torch eager, op by op and on small models.

Tolerances: the interpreter runs the same ATen kernels as eager, but the exported graph
is decomposed (e.g. rms_norm into pow/mean/rsqrt, hardswish kept, linear kept), so the
float ops can be reordered. fp32: 1e-5 (a few ulps over a handful of reordered ops);
fp16: 1e-2 relative (10-bit mantissa, ~1e-3 per rounding, a few roundings); bf16: 3e-2
(8-bit mantissa, ~4e-3 per rounding). Integer and bool results must match exactly.
"""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn as nn
from hypothesis import given, settings
from hypothesis import strategies as st
from op_cases import ELEMENTWISE, STRUCTURAL, Fn

import xnnc
from xnnc.dialects import aten
from xnnc.errors import InputError, ModelImportError

TOL = {
    torch.float32: dict(atol=1e-5, rtol=1e-5),
    torch.float16: dict(atol=1e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=3e-2, rtol=3e-2),
}


def check(model: nn.Module, *inputs: torch.Tensor) -> str:
    """Import, run the reference, compare with eager; returns the printed IR."""
    model.eval()
    with torch.no_grad():
        expected = model(*inputs)
    module = xnnc.import_model(model, inputs)
    got = xnnc.run_reference(module, inputs)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        if e.dtype.is_floating_point:
            torch.testing.assert_close(g, e, **TOL[e.dtype])
        else:
            assert torch.equal(g, e)
    return xnnc.print_module(module)


@pytest.mark.parametrize(
    "fn,inputs,op", [c[1:] for c in ELEMENTWISE + STRUCTURAL],
    ids=[c[0] for c in ELEMENTWISE + STRUCTURAL],
)  # fmt: skip
def test_op_matches_eager(fn, inputs, op):
    ir = check(fn if isinstance(fn, nn.Module) else Fn(fn), *inputs)
    assert re.search(rf"= {re.escape(op)}\b", ir), f"{op} not in:\n{ir}"
    # Only the comparison feeding `where` stays generic.
    assert "aten.generic" not in ir.replace('aten.generic "aten::gt.Scalar"', ""), ir


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_conv_net_dtypes(dtype):
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                        nn.Conv2d(8, 8, 3, stride=2, groups=4)).to(dtype)  # fmt: skip
    net[1].running_mean.uniform_(-1, 1)
    net[1].running_var.uniform_(0.5, 2)
    ir = check(net, torch.randn(1, 3, 16, 16, dtype=dtype))
    assert "aten._native_batch_norm_legit_no_training" in ir


def test_integer_and_bool_dtypes():
    def fn(x: torch.Tensor, i: torch.Tensor, j: torch.Tensor):
        mask = x > 0
        return (i * 3 + j.to(torch.int64), mask, torch.where(mask, x, 0.0), i.to(torch.int32))

    ir = check(Fn(fn), torch.randn(4, 5), torch.randint(0, 9, (4, 5)),
               torch.randint(0, 9, (4, 5), dtype=torch.int32))  # fmt: skip
    assert "tensor<4x5xi1>" in ir and "tensor<4x5xi64>" in ir and "tensor<4x5xi32>" in ir


class WithState(nn.Module):
    """Parameters, a buffer, a lifted constant and a scalar attribute."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 3)
        self.register_buffer("shift", torch.randn(3))
        self.const = torch.tensor([2.0, 3.0, 4.0])
        self.scale = 0.5

    def forward(self, x, y):
        z = self.lin(x) + self.shift
        return z * self.const * self.scale, y - z.sum()


def test_parameters_buffers_constants_and_several_io():
    ir = check(WithState(), torch.randn(2, 5), torch.randn(2, 3))
    assert '#xnnc.weight<"lin.weight">' in ir and '#xnnc.weight<"shift">' in ir
    assert "aten.linear" in ir
    assert re.search(r"func.func @forward\(%x: tensor<2x5xf32>, %y: tensor<2x3xf32>\)", ir)


def test_weights_are_shared_not_copied():
    model = nn.Linear(64, 32)
    module = xnnc.import_model(model, (torch.randn(1, 64),))
    store = xnnc.weights_of(module)
    import numpy as np

    blob = store["weight"]
    assert np.shares_memory(blob.data, model.weight.detach().numpy())


def test_generic_op_keeps_unmodelled_overloads():
    def fn(x, idx):
        return x[:, idx].cumsum(1)

    ir = check(Fn(fn), torch.randn(3, 6), torch.tensor([4, 0, 2]))
    assert 'aten.generic "aten::index.Tensor"' in ir
    assert 'aten.generic "aten::cumsum"' in ir


def test_locations_name_module_path_and_node():
    net = nn.Sequential(nn.Conv1d(2, 4, 3), nn.ELU())
    module = xnnc.import_model(net, (torch.randn(1, 2, 9),))
    conv = next(op for op in module.walk() if isinstance(op, aten.ConvolutionOp))
    assert str(conv.location) == 'loc("0"("convolution"))'
    elu = next(op for op in module.walk() if isinstance(op, aten.EluOp))
    assert str(elu.location) == 'loc("1"("elu"))'


def test_print_parse_round_trip_with_weights(tmp_path):
    model = WithState().eval()
    inputs = (torch.randn(2, 5), torch.randn(2, 3))
    module = xnnc.import_model(model, inputs)
    elided = xnnc.print_module(module)
    reparsed = xnnc.parse_module(elided, xnnc.weights_of(module))
    inline = xnnc.parse_module(xnnc.print_module(module, weights_inline=True))
    expected = model(*inputs)
    for m in (reparsed, inline):
        assert xnnc.print_module(m) == elided
        for g, e in zip(xnnc.run_reference(m, inputs), expected):
            torch.testing.assert_close(g, e, **TOL[torch.float32])


def test_elided_weight_without_data_reports_at_run():
    module = xnnc.import_model(nn.Linear(3, 2), (torch.randn(1, 3),))
    bare = xnnc.parse_module(xnnc.print_module(module))
    with pytest.raises(ValueError, match=r"weight 'weight' has no data: it was printed elided"):
        xnnc.run_reference(bare, (torch.randn(1, 3),))


def test_pt2_file_round_trip(tmp_path):
    model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.Tanh()).eval()
    x = torch.randn(1, 2, 8)
    path = tmp_path / "m.pt2"
    torch.export.save(torch.export.export(model, (x,)), path)
    got = xnnc.run_reference(xnnc.import_model(str(path)), (x,))
    torch.testing.assert_close(got[0], model(x), **TOL[torch.float32])


def test_edge_program_imports():
    from executorch.exir import to_edge

    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).eval()
    x = torch.randn(2, 4)
    edge = to_edge(torch.export.export(model, (x,))).exported_program()
    module = xnnc.import_model(edge)
    torch.testing.assert_close(xnnc.run_reference(module, (x,))[0], model(x))


# --- bad input ---------------------------------------------------------------------------


def test_not_a_pt2_file(tmp_path):
    path = tmp_path / "junk.pt2"
    path.write_text("not a zip")
    with pytest.raises(ModelImportError, match=r"junk.pt2: not a torch.export archive \("):
        xnnc.import_model(str(path))


def test_missing_file():
    with pytest.raises(ModelImportError, match=r"nope.pt2: no such file"):
        xnnc.import_model("nope.pt2")


def test_model_torch_export_rejects():
    class Bad(nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # data-dependent control flow
                return x
            return -x

    with pytest.raises(ModelImportError, match=r"model Bad: torch.export failed: .+"):
        xnnc.import_model(Bad(), (torch.randn(3),))


def test_model_without_inputs():
    with pytest.raises(ModelImportError, match="model Linear: needs example inputs"):
        xnnc.import_model(nn.Linear(2, 2))


def test_reference_checks_inputs():
    module = xnnc.import_model(nn.Linear(3, 2), (torch.randn(1, 3),))
    with pytest.raises(InputError, match=r"takes 1 inputs, got 2"):
        xnnc.run_reference(module, (torch.randn(1, 3), torch.randn(1, 3)))
    with pytest.raises(InputError, match=r"input 0: expected torch.float32 \[1, 3\], got"):
        xnnc.run_reference(module, (torch.randn(2, 3),))


# --- property tests on convolutions ---------------------------------------------------------


@st.composite
def conv_configs(draw, transposed: bool):
    dims = draw(st.sampled_from([1, 2]))
    groups = draw(st.sampled_from([1, 2]))
    cin = groups * draw(st.integers(1, 3))
    cout = groups * draw(st.integers(1, 3))
    stride = draw(st.integers(1, 4))
    kernel = draw(st.integers(1, 5))
    dilation = draw(st.integers(1, 2))
    padding = draw(st.integers(0, (dilation * (kernel - 1)) // 2))
    size = draw(st.integers(dilation * (kernel - 1) + 1, 12))
    out_pad = draw(st.integers(0, max(0, min(stride, dilation) - 1))) if transposed else 0
    return (
        dims,
        groups,
        cin,
        cout,
        stride,
        kernel,
        dilation,
        padding,
        size,
        out_pad,
        draw(st.booleans()),
    )


def _conv_module(cfg, transposed: bool) -> tuple[nn.Module, torch.Tensor]:
    dims, groups, cin, cout, stride, kernel, dilation, padding, size, out_pad, bias = cfg
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
    if transposed:
        cls = nn.ConvTranspose1d if dims == 1 else nn.ConvTranspose2d
        m = cls(cin, cout, kernel, output_padding=out_pad, **kw)
    else:
        m = (nn.Conv1d if dims == 1 else nn.Conv2d)(cin, cout, kernel, **kw)
    x = torch.randn(1, cin, *([size] * dims))
    return m, x


@settings(max_examples=25, deadline=None)
@given(conv_configs(transposed=False))
def test_convolution_configs(cfg):
    check(*_conv_module(cfg, transposed=False))


@settings(max_examples=25, deadline=None)
@given(conv_configs(transposed=True))
def test_transposed_convolution_configs(cfg):
    ir = check(*_conv_module(cfg, transposed=True))
    assert "transposed = true" in ir
