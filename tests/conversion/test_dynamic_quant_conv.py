"""Dynamically quantized 2-D convolutions (issue 14's qd8 flow, as ExecuTorch's
`xnnpack_dynamic_int8_per_channel` test flow quantizes them): XNNPACKQuantizer's dynamic
config, activations per tensor, qc8w weights, run as XNNPACK's qd8 convolution and
deconvolution.

Tolerance. XNNPACK quantizes the NHWC input per image (`num_nonbatch_dims` 3, as stock
ExecuTorch defines it): at batch 1 that is PT2E's per-tensor grid, the same scale and zero
point, so the int8 x int8 sums are the model's exactly; the f32 rescale and bias add differ
in order only: 1e-5 on outputs of order 1. At batch 2 each image gets its own, finer, grid:
within one input step of the per-tensor grid per element, |y - y'| <= s * max_o sum |w_o|,
s = (max(x, 0) - min(x, 0)) / 255.
"""

from __future__ import annotations

import functools

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.dialects import xnn
from xnnc.dialects.dynamic_quant import dynamic_quant_type
from xnnc.frontend.fx_importer import import_model
from xnnc.pipeline.stages import lower
from xnnc.pte import StockRuntime, to_pte
from xnnc.translate import xnnpack as translate_xnnpack

SAME_ORDER = dict(atol=1e-5, rtol=0)
LAYERS = {
    "conv": lambda: nn.Conv2d(3, 8, 3, 2, 1),
    "conv_transpose": lambda: nn.ConvTranspose2d(3, 8, 4, 2, 1),
    "conv_no_bias": lambda: nn.Conv2d(4, 6, (3, 5), 1, (1, 2), bias=False),
}


def _quantized(model: nn.Module, x: torch.Tensor) -> torch.export.ExportedProgram:
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)
    prepared = prepare_pt2e(torch.export.export(model, (x,)).module(), XNNPACKQuantizer()
                            .set_global(config))  # fmt: skip
    prepared(x)
    return torch.export.export(convert_pt2e(prepared), (x,))


@functools.cache
def case(name: str, batch: int = 1):
    torch.manual_seed(0)
    model = LAYERS[name]().eval()
    x = torch.randn(batch, model.in_channels, 10, 12)
    return model, x, _quantized(model, x)


def _inputs(x: torch.Tensor) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    return [x, *(torch.randn(x.shape, generator=g) * (1 + i) for i in range(2))]


@pytest.mark.parametrize("name", list(LAYERS))
@pytest.mark.parametrize("target", ["extended", "stock"])
def test_one_qd8_node_matches_the_model(name, target):
    _, x, ep = case(name)
    program = xnnc.compile(ep, (x,), target=target, tune=False)
    assert program.num_partitions == 1 and program.outside() == []
    (sub,) = [op for op in program.module.walk() if isinstance(op, xnn.SubgraphOp)]
    [conv] = [op for op in sub.walk()
              if isinstance(op, (xnn.Convolution2dOp, xnn.Deconvolution2dOp))]  # fmt: skip
    assert dynamic_quant_type(conv.input.type.element_type) is not None
    assert isinstance(conv.input.owner, xnn.ConvertOp)  # quantized in NHWC, after the transpose
    converts = [op for op in sub.walk() if isinstance(op, xnn.ConvertOp)]
    assert len(converts) == 1  # the NCHW quantize is gone
    pt2e = ep.module()
    for xi in _inputs(x):
        torch.testing.assert_close(program(xi), pt2e(xi), **SAME_ORDER)


def test_batch_two_quantizes_each_image():
    model, x, ep = case("conv", batch=2)
    program = xnnc.compile(ep, (x,), tune=False)
    assert program.outside() == []
    w = model.weight.detach().abs().sum(dim=(1, 2, 3)).max().item()
    for xi in _inputs(x):
        step = (xi.clamp(min=0).max() - xi.clamp(max=0).min()).item() / 255
        torch.testing.assert_close(program(xi), ep.module()(xi), atol=step * w, rtol=0)


def test_the_blob_quantizes_per_image():
    """The qd8 value a convolution reads has 3 non-batch dims (one scale and zero point per
    NHWC image); the weight is per output channel."""
    _, _, ep = case("conv")
    module = lower(import_model(ep), target="stock")
    (sub,) = [op for op in module.walk() if isinstance(op, xnn.SubgraphOp)]
    blob = read_blob(*translate_xnnpack.serialize_subgraph_named(sub, "stock"))
    kinds = {}
    for vid, params in blob.quant_params.items():
        kinds[type(params).__name__] = (blob.tensors[vid].datatype, params)
    dtype, dynamic = kinds["PerTokenDynamicQuantT"]
    assert dtype == fb.XNNDatatype.qdint8 and dynamic.numNonbatchDims == 3
    dtype, weight = kinds["PerChannelQuantT"]
    assert dtype == fb.XNNDatatype.qcint8 and (weight.channelDim, weight.numScales) == (0, 8)


@pytest.mark.parametrize("name", ["conv", "conv_transpose"])
def test_pte_runs_on_stock_executorch(name):
    _, x, ep = case(name)
    runtime = StockRuntime(to_pte(ep, tune=False))
    for xi in _inputs(x):
        torch.testing.assert_close(runtime(xi)[0], ep.module()(xi), **SAME_ORDER)


def test_a_grouped_one_runs_on_the_qd8_convolution():
    """Grouped (not depthwise: XNNPACKQuantizer leaves those float) convolutions too."""
    torch.manual_seed(0)
    x = torch.randn(1, 4, 6, 6)
    grouped = _quantized(nn.Conv2d(4, 8, 3, 1, 1, groups=2).eval(), x)
    program = xnnc.compile(grouped, (x,), tune=False)
    assert program.outside() == []
    [conv] = [op for op in program.module.walk() if isinstance(op, xnn.Convolution2dOp)]
    assert conv.groups.value.data == 2
    for xi in _inputs(x):
        torch.testing.assert_close(program(xi), grouped.module()(xi), **SAME_ORDER)


@pytest.mark.parametrize(
    "layer, excluded, partner",
    [("conv", "aten.quantize", "aten.convolution"), ("conv", "aten.convolution", "aten.quantize"),
     ("linear", "aten.quantize", "aten.linear"), ("linear", "aten.linear", "aten.quantize")],
)  # fmt: skip
def test_excluding_one_side_of_a_qd8_pair_keeps_both_outside(layer, excluded, partner):
    """XNNPACK passes no qd8 tensor into or out of a subgraph: excluding the dynamic quantize
    keeps its reader outside, and the other way round (both used to fail inside the
    compile: an assertion, `external input of datatype qdint8`)."""
    torch.manual_seed(0)
    model = (nn.Conv2d(3, 4, 3) if layer == "conv" else nn.Linear(8, 4)).eval()
    x = torch.randn(1, 3, 8, 8)
    ep = _quantized(model, x)
    program = xnnc.compile(ep, (x,), tune=False, exclude=excluded)
    reasons = {o.op: o.reason for o in program.outside()}
    assert reasons[excluded] == "excluded"
    assert reasons[partner] == (
        f"{excluded} is excluded, and XNNPACK passes no qd8 tensor into or out of a subgraph"
    )
    torch.testing.assert_close(program(x), ep.module()(x), rtol=0, atol=0)
