"""Identity views (frontend/views.py): an `as_strided` that is a view, a slice or the input
itself is imported as that op and runs inside XNNPACK; any other stays an `as_strided` on
torch. One of a permuted value reads it in storage order, as eager does. Exact against
eager (the ops move elements only)."""

import warnings

import pytest
import torch
from torch import nn

import xnnc
from xnnc.errors import FallbackWarning


class AsStrided(nn.Module):
    def __init__(self, size: tuple, stride: tuple, offset: int = 0, permuted: bool = False):
        super().__init__()
        self.size, self.stride, self.offset, self.permuted = size, stride, offset, permuted

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2  # a contiguous value, not the input itself
        if self.permuted:
            x = x.permute(1, 0)
        return x.as_strided(self.size, self.stride, self.offset) + 1


CASES = {
    "view": (AsStrided((4, 2, 4), (8, 4, 1)), True),
    "identity": (AsStrided((4, 8), (8, 1)), True),
    "slice_rows": (AsStrided((2, 8), (8, 1), 16), True),
    "slice_columns": (AsStrided((4, 3), (8, 1), 2), True),
    "size_one_dim_any_stride": (AsStrided((4, 1, 8), (8, 99, 1)), True),
    "overlapping_windows": (AsStrided((7, 4), (4, 1)), False),  # a gather: stays
    # as_strided reads storage: a permuted value's is its unpermuted order
    "of_a_permuted_value": (AsStrided((8, 4), (4, 1), permuted=True), True),
    "windows_of_a_permuted_value": (AsStrided((7, 8), (4, 1), permuted=True), False),
}


@pytest.mark.parametrize("name", CASES)
def test_as_strided(name: str) -> None:
    model, inside = CASES[name]
    x = torch.randn(4, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program = xnnc.compile(model, (x,))
    outside = [o.op for o in program.outside()]
    assert outside == ([] if inside else ["aten.as_strided"])
    assert any(w.category is FallbackWarning for w in caught) is not inside
    torch.testing.assert_close(program(x), model(x), rtol=0, atol=0)


def test_alias_and_expand_to_the_same_size_run_inside_xnnpack_on_both_targets() -> None:
    class Identities(nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return (
                x.expand(1, 4, 8) * 2,
                torch.ops.aten.alias(x) + 1,
                x.unsqueeze(0).expand(1, 1, 4, 8) - 1,
            )

    model, x = Identities(), torch.randn(1, 4, 8)
    for target in ("extended", "stock"):
        program = xnnc.compile(model, (x,), strict=True, target=target)
        assert program.num_partitions == 1
        for got, want in zip(program(x), model(x), strict=True):
            torch.testing.assert_close(got, want, rtol=0, atol=0)
