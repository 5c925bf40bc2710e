"""Sizes computed from a model's own constant tensors fold to integers
(`frontend/constant_items.py`).

The modules below write out the pattern of Hugging Face's `MimiConv1d` and `EncodecConv1d`
(transformers 5.x): `stride`, `kernel_size` and `padding_total` are 0-d int64 buffers, the
extra right padding is tensor arithmetic on them (`torch.ceil` of a float division), and
`F.pad` reads it through `.item()`. torch.export gives each such size an unbacked symbol
with runtime asserts; before the fold the import stopped at the first assert
("node ge_27: unsupported call to ge").

Tolerance: fp32 1e-5 (XNNPACK sums a convolution's terms in another order than torch).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import xnnc
from xnnc.errors import ModelImportError

FP32 = dict(atol=1e-5, rtol=1e-5)


class BufferedConv1d(nn.Module):
    """A causal convolution whose hyper-parameters are buffers, as in transformers' Mimi."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, kernel, stride)
        for name, value in (("stride", stride), ("kernel_size", kernel),
                            ("padding_total", kernel - stride)):  # fmt: skip
            self.register_buffer(name, torch.tensor(value, dtype=torch.int64), persistent=False)

    def extra_padding(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]
        n_frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        n_frames = torch.ceil(n_frames).to(torch.int64) - 1
        ideal_length = n_frames * self.stride + self.kernel_size - self.padding_total
        return ideal_length - length

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(F.pad(x, (self.padding_total, self.extra_padding(x))))


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = BufferedConv1d(4, 8, 7)
        self.second = BufferedConv1d(8, 8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.second(F.elu(self.first(x))))


def test_paddings_held_in_buffers_fold_to_one_subgraph() -> None:
    torch.manual_seed(0)
    model, x = Decoder().eval(), torch.randn(1, 4, 16)
    program = xnnc.compile(model, (x,))
    assert program.num_partitions == 1 and program.ops_outside() == []
    ir = xnnc.print_module(program.module)
    assert "aten.item" not in ir and "_assert_scalar" not in ir
    torch.testing.assert_close(program(x), model(x), **FP32)


def test_over_a_symbolic_time_axis_and_as_a_stream() -> None:
    """A stride-1 convolution's extra padding is 0 at every length: it folds over the
    symbol too, so the decoder compiles once for a range of lengths and streams exactly."""
    torch.manual_seed(0)
    model = Decoder().eval()
    dims = {"x": {2: torch.export.Dim("T", min=8, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, 4, 16),), dynamic_shapes=dims)
    assert program.ops_outside() == []
    for length in (8, 23, 64):
        x = torch.randn(1, 4, length)
        torch.testing.assert_close(program(x), model(x), **FP32)
    stream = xnnc.compile(model, (torch.randn(1, 4, 16),), streaming=xnnc.Streaming()).open()
    x = torch.randn(1, 4, 32)
    chunks = [stream(x[..., i : i + 1]) for i in range(32)] + [stream.flush()]
    torch.testing.assert_close(torch.cat(chunks, dim=-1), model(x), **FP32)


def test_a_strided_padding_that_depends_on_the_length_stays_symbolic() -> None:
    """A stride-2 convolution's extra padding depends on the length's parity: it cannot
    fold over a symbol, and the compile says where the size arithmetic is."""
    model = BufferedConv1d(4, 4, 4, stride=2).eval()
    dims = {"x": {2: torch.export.Dim("T", min=8, max=64)}}
    with pytest.raises(ModelImportError, match=r"^node \w+: "):
        xnnc.compile(model, (torch.randn(1, 4, 16),), dynamic_shapes=dims)
    x = torch.randn(1, 4, 15)  # static: it folds (extra padding 1 here)
    program = xnnc.compile(model, (x,))
    assert program.ops_outside() == []
    torch.testing.assert_close(program(x), model(x), **FP32)


class _Impossible(nn.Module):
    """A buffer-held size the model asserts to be positive, and which is not."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("trim", torch.tensor(-3, dtype=torch.int64), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = self.trim.item()
        torch._check(n >= 0, lambda: "trim must not be negative")
        return x[..., n:]


def test_an_assert_a_folded_size_breaks_names_its_node() -> None:
    with pytest.raises(ModelImportError, match=r"^node \w+: Runtime assertion failed"):
        xnnc.compile(_Impossible(), (torch.randn(1, 4, 16),))


class _Positions(nn.Module):
    """Rotary-style positions as int64 `torch.arange`, as transformers' Mimi makes them
    (`position_ids`): a stream counts them in an int64 state."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(x.shape[-1], device=x.device)  # int64
        angle = positions.to(torch.float32)[None, None, :] * 0.1
        return self.conv(x) * torch.cos(angle)


def test_an_int64_position_counter_stays_int64_across_calls() -> None:
    """The counter state advanced by an integer: a float step made torch's result float,
    and the second call was refused ("input 2: expected torch.int64 [1], got float32")."""
    torch.manual_seed(0)
    model = _Positions().eval()
    program = xnnc.compile(model, (torch.randn(1, 4, 8),), streaming=xnnc.Streaming())
    stream, x = program.open(), torch.randn(1, 4, 12)
    chunks = [stream(x[..., i : i + 1]) for i in range(12)] + [stream.flush()]
    torch.testing.assert_close(torch.cat(chunks, dim=-1), model(x), **FP32)


class _Branches(nn.Module):
    """A Python branch on a buffer's value, as transformers' EnCodec takes in its reflect
    pad (`if length <= max_pad`): torch.export cannot trace it."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("limit", torch.tensor(4), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] <= self.limit:
            x = F.pad(x, (0, 1))
        return x * 2


def test_a_branch_on_a_buffers_value_names_the_models_line() -> None:
    """torch.export's refusal, with the line of the model it points at."""
    with pytest.raises(ModelImportError, match=r"^model _Branches: torch\.export failed: Could "
                       r"not guard on data-dependent expression .* at .*test_constant_items\.py:"
                       r"\d+ in forward: if x\.shape\[-1\] <= self\.limit:$"):  # fmt: skip
        xnnc.compile(_Branches(), (torch.randn(1, 4, 16),))


class _ConvLstm(nn.Module):
    """transformers' EnCodec decoder in small: a buffered convolution, then an LSTM over the
    length it made (unbacked in a static export: torch's LSTM guarded on it)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = BufferedConv1d(4, 8, 3)
        self.lstm = nn.LSTM(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x).permute(2, 0, 1)
        return (self.lstm(y)[0] + y).permute(1, 2, 0)


def test_an_lstm_over_a_folded_length_compiles() -> None:
    torch.manual_seed(0)
    model, x = _ConvLstm().eval(), torch.randn(1, 4, 12)
    program = xnnc.compile(model, (x,))
    torch.testing.assert_close(program(x), model(x), **FP32)


def test_the_users_program_is_not_changed() -> None:
    ep = torch.export.export(Decoder().eval(), (torch.randn(1, 4, 16),), strict=False)
    before = str(ep.graph)
    xnnc.compile(ep)
    assert str(ep.graph) == before and "aten.item" in before
