"""xnn.space_to_depth_2d, the node kind added through the node table (docs/adding-an-op.md):
aten.pixel_unshuffle against torch eager on the extended runtime, and its stock form."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import xnnc
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.dialects import xnn

# fp32/fp16/bf16 data movement is exact: space-to-depth, transposes and reshapes only.
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


class Unshuffle(nn.Module):
    def __init__(self, factor: int) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pixel_unshuffle(x, self.factor)


class ConvAfterUnshuffle(nn.Module):
    """The usual use: a space-to-depth stem in front of a convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(12, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(F.pixel_unshuffle(x, 2)).relu()


def _node_kinds(program: xnnc.program.Program) -> list[str]:
    return [kind for blob in program.blobs for kind in read_blob(blob).node_kinds]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("factor, shape", [(2, (1, 3, 8, 6)), (3, (2, 2, 9, 12))])
def test_pixel_unshuffle_matches_eager(factor, shape, dtype):
    x = torch.randn(shape).to(dtype)
    program = xnnc.compile(Unshuffle(factor), (x,), fp16="native", savable=True)
    assert program.num_partitions == 1 and program.ops_outside() == []
    assert "XNNSpaceToDepth2d" in _node_kinds(program)
    assert torch.equal(program(x), F.pixel_unshuffle(x, factor))


def test_space_to_depth_stem_matches_eager():
    model, x = ConvAfterUnshuffle().eval(), torch.randn(1, 3, 16, 16)
    program = xnnc.compile(model, (x,))
    assert program.num_partitions == 1 and program.ops_outside() == []
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), atol=1e-4, rtol=1e-4)


def test_stock_target_legalizes_space_to_depth():
    x = torch.randn(1, 3, 8, 6)
    program = xnnc.compile(Unshuffle(2), (x,), target="stock", savable=True)
    kinds = _node_kinds(program)
    assert "XNNSpaceToDepth2d" not in kinds and kinds
    assert not [op for sub in program.subgraphs for op in sub.walk()
                if isinstance(op, xnn.SpaceToDepth2dOp)]  # fmt: skip
    assert torch.equal(program(x), F.pixel_unshuffle(x, 2))
