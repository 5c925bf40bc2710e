"""Complex values and spectral ops (transforms/lower_complex.py, transforms/frames.py):
torch.fft's transforms, torch.stft and torch.istft and arithmetic on complex tensors run
inside XNNPACK as real GEMMs, convolutions and elementwise nodes; ops on complex values
without a real form stay on torch with their reason, and the rest of the model compiles.
Against torch eager, on the extended runtime and as a stock `.pte`.

Tolerances, fp32: each output within 1e-5 of its largest magnitude (`_close`). A transform
of length n is a GEMM over n terms of fp32 products (XNNPACK's and torch's pocketfft round
in different orders: ~sqrt(n) ulps of the largest term apart, 2e-6 of it for n = 512), and
the bases are rounded to fp32 once (1 ulp each); 1e-5 is ~80 ulps, room for the chains
of two or three transforms these models have.
"""

import warnings

import pytest
import torch
from torch import nn

import xnnc
from xnnc.conversion.aten_to_xnn import COMPLEX_REASON
from xnnc.errors import FallbackWarning
from xnnc.pte import StockRuntime, to_pte


def _close(got: torch.Tensor, want: torch.Tensor) -> None:
    scale = want.abs().max().item()
    torch.testing.assert_close(got, want, rtol=0, atol=1e-5 * max(scale, 1.0))


class Spectrogram(nn.Module):
    """A magnitude spectrogram encoder's front: stft, |z|, log, a conv over the bins."""

    def __init__(self, n_fft: int = 128, hop: int = 32, center: bool = True):
        super().__init__()
        self.n_fft, self.hop, self.center = n_fft, hop, center
        self.register_buffer("window", torch.hann_window(n_fft))
        self.conv = nn.Conv1d(n_fft // 2 + 1, 16, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(x, self.n_fft, self.hop, window=self.window, center=self.center,
                          return_complex=True)  # fmt: skip
        return self.conv(torch.log(spec.abs() + 1e-3))


class IstftHead(nn.Module):
    """A Vocos-style head: a conv to magnitude and phase, exp, then istft."""

    def __init__(self, channels: int = 32, n_fft: int = 64, hop: int = 16):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.conv = nn.Conv1d(channels, n_fft + 2, 3, padding=1)
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        magnitude, phase = self.conv(x).chunk(2, dim=1)
        spec = torch.exp(magnitude).clamp(max=1e2) * (torch.cos(phase) + 1j * torch.sin(phase))
        return torch.istft(spec, self.n_fft, self.hop, self.n_fft, self.window, center=True)


class ComplexArithmetic(nn.Module):
    """Each op with a rule: complex, polar, conj, view_as_real/complex, .real/.imag, mul,
    div, exp, abs, angle (atan2 on torch), by complex scalars, fft/ifft/rfft/irfft, the
    n-dim ones, each normalization."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        c = torch.complex(x, y)
        d = torch.polar(x.abs() + 0.5, y)
        e = torch.fft.rfft(x, dim=1)
        g = torch.view_as_complex(torch.stack([x, y], -1))
        return (
            torch.view_as_real(c * d.conj()),
            e.real + e.imag,
            g.angle(),
            torch.fft.irfft(e, n=8, dim=1, norm="ortho"),
            torch.view_as_real(torch.fft.fft(c).exp()),
            (c / d).abs(),
            torch.fft.irfft2(torch.fft.rfft2(x)),
            torch.view_as_real(torch.fft.ifft(c, norm="forward") * (2 - 3j) + 1j),
            torch.fft.fftn(c, dim=(0, 1)).abs(),
        )


def _inputs(*shape: int) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randn(*shape)


@pytest.mark.parametrize(
    "model, inputs",
    [
        (Spectrogram(), (_inputs(2, 2048),)),
        (Spectrogram(n_fft=100, hop=25, center=False), (_inputs(1, 1000),)),  # odd bins
        (IstftHead(), (_inputs(1, 32, 50),)),
    ],
    ids=["stft", "stft_uncentered", "istft"],
)
def test_spectral_model_is_one_subgraph_on_both_targets(model: nn.Module, inputs: tuple) -> None:
    torch.manual_seed(0)
    model = model.eval()
    want = model(*inputs)
    program = xnnc.compile(model, inputs, strict=True)  # nothing on torch
    assert program.num_partitions == 1
    _close(program(*inputs), want)
    (got,) = StockRuntime(to_pte(model, inputs))(*inputs)
    _close(got, want)


def test_complex_arithmetic_matches_eager() -> None:
    model, x, y = ComplexArithmetic(), _inputs(3, 8), _inputs(3, 8) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program = xnnc.compile(model, (x, y))
    # angle is atan2 of the parts, which XNNPACK lacks: the one op left to torch
    assert [(o.op, o.reason) for o in program.outside()] == [("aten.atan2", "no xnn lowering")]
    assert [str(w.message) for w in caught if w.category is FallbackWarning] == [
        "xnnc.compile: 1 op runs on torch, outside XNNPACK: aten.atan2 x1 (no xnn lowering)"
    ]
    for got, want in zip(program(x, y), model(x, y), strict=True):
        _close(got, want)


def test_a_complex_op_without_a_real_form_stays_on_torch_with_its_reason() -> None:
    class Sqrt(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.sqrt(torch.fft.rfft(x)).abs() * 2

    model, x = Sqrt(), _inputs(4, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        program = xnnc.compile(model, (x,))
    reasons = {o.op: o.reason for o in program.outside()}
    assert reasons["aten.sqrt"] == COMPLEX_REASON
    assert reasons["aten._fft_r2c"] == COMPLEX_REASON  # kept whole for sqrt, which reads it
    assert program.num_partitions == 1  # |.| * 2 on the parts
    _close(program(x), model(x))


def test_a_real_operand_broadcasts_both_parts() -> None:
    """`z + r` with a wider real r: the imaginary part is z's alone, broadcast to r's rows."""

    class Broadcast(nn.Module):
        def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, ...]:
            z = torch.fft.rfft(x)  # [1, 9]
            return tuple(torch.view_as_real(w) for w in (z + r, r - z, z * r, z / r))

    model, x, r = Broadcast(), _inputs(1, 16), _inputs(5, 9) + 3
    program = xnnc.compile(model, (x, r), strict=True)
    for got, want in zip(program(x, r), model(x, r), strict=True):
        assert got.shape == want.shape
        _close(got, want)


def test_irfft_to_a_longer_or_shorter_signal() -> None:
    """irfft's n past the spectrum zero-pads it (a complex pad); short of it, drops bins."""

    class Lengths(nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
            z = torch.fft.rfft(x)  # 9 bins of 16 samples
            return tuple(torch.fft.irfft(z, n=n) for n in (40, 10, 17))

    model, x = Lengths(), _inputs(3, 16)
    program = xnnc.compile(model, (x,), strict=True)
    for got, want in zip(program(x), model(x), strict=True):
        _close(got, want)
