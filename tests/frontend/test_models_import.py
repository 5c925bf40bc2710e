"""Every example model imports whole and the reference interpreter reproduces eager.

Tolerances per output dtype (see test_frontend.py for the reasoning): fp32 outputs of
these deep nets pass through up to ~40 reordered ops, so 1e-4 absolute on outputs of
order 1; the fp16 body of fp16_convnet is cast back to fp32 at the end, so it keeps fp16's
1e-2; bf16 models: 3e-2.
"""

from __future__ import annotations

import pytest
import torch

import xnnc
from xnnc.examples.models import MODELS

TOL = {
    "fp16_convnet": dict(atol=1e-2, rtol=1e-2),
    "bf16_block": dict(atol=3e-2, rtol=3e-2),
    "bf16_blocks": dict(atol=3e-2, rtol=3e-2),
    "bf16_blocks_decode": dict(atol=3e-2, rtol=3e-2),
}
DEFAULT_TOL = dict(atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_import_and_reference_match_eager(zoo, name: str) -> None:
    _, inputs = zoo.example(name)
    expected = zoo.eager(name)
    module = zoo.imported(name)
    (got,) = xnnc.run_reference(module, inputs)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    torch.testing.assert_close(got, expected, **TOL.get(name, DEFAULT_TOL))


def test_mimi_imports_its_structure(zoo) -> None:
    ir = xnnc.print_module(zoo.imported("mimi"))
    assert ir.count("transposed = true") == 5  # the x2 depthwise upsample + 4 stages
    assert ir.count("= aten.elu") >= 9
    assert "aten.generic" not in ir


def test_fp16_convnet_keeps_fp32_boundaries(zoo) -> None:
    ir = xnnc.print_module(zoo.imported("fp16_convnet"))
    assert "func.func @forward(%x: tensor<1x4x32x32xf32>) -> tensor<1x3x32x32xf32>" in ir
    assert ir.count("= aten._to_copy") == 2
    assert "aten.upsample_nearest2d" in ir
