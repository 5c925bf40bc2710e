"""`xnn-space-to-depth`: a strided int8 convolution over few input channels as a stride-1
convolution over the blocks of its padded input. The int32 sums are the direct form's terms
and zeros, so the tolerance against the direct form is 0 (bit for bit); against the PT2E
model each form is within one output step (XNNPACK rounds its int32 result once, PT2E its
fp32 one)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc.cost import rules
from xnnc.dialects import xnn
from xnnc.examples.quantized_models import output_scale, quantize
from xnnc.frontend.fx_importer import import_model
from xnnc.legalize.broadcasts import LegalizeBroadcastsPass
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import default_passes
from xnnc.target import Target
from xnnc.transforms.space_to_depth import SpaceToDepthPass, blocked_filter, stem_layer
from xnnc.tuning import tuner
from xnnc.tuning.tuner import SPECS, candidate_forms, time_on_xnnpack

AVX2 = "extended,x86-64-avx2"
OFF = ("xnn-space-to-depth",)


class Stem(nn.Module):
    def __init__(self, cin: int, kernel: int, stride: int, padding: int, cout: int = 8) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride, padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def _program(cin, kernel, stride, padding, size):
    torch.manual_seed(0)
    x = torch.randn(1, cin, *size)
    return quantize(Stem(cin, kernel, stride, padding).eval(), (x,)), x


def _forced(ep, x, target: str = AVX2) -> xnnc.Program:
    """`ep` compiled with every candidate layer over blocks (`ignore-target=true`)."""
    options = CompileOptions(target=target, tune=False, disable=OFF)
    passes = default_passes(options)
    at = next(i for i, p in enumerate(passes) if isinstance(p, LegalizeBroadcastsPass))
    passes.insert(at, SpaceToDepthPass(ignore_target=True))
    module = import_model(ep)
    xnn.set_target(module, options.target)
    for p in passes:
        p.apply(xnnc.make_context(), module)
    return xnnc.Program(module, options)


def _blocked_convs(program: xnnc.Program) -> list[xnn.Convolution2dOp]:
    return [op for op in program.module.walk() if isinstance(op, xnn.Convolution2dOp)
            and op.subsampling_height.value.data == 1]  # fmt: skip


# (input channels, kernel, stride, padding, input H x W): ResNet's and MobileNetV2's stems,
# odd sizes (a pad past the input), rows no window reads (sliced off), a kernel the size of
# the stride (1x1 over blocks), stride 3, one and four channels.
CASES = [
    (3, 7, 2, 3, (20, 23)),
    (3, 3, 2, 1, (17, 16)),
    (3, 4, 2, 0, (17, 19)),
    (4, 2, 2, 0, (10, 12)),
    (1, 5, 3, 2, (16, 17)),
    (4, 7, 2, 1, (15, 15)),
]


@pytest.mark.parametrize("cin, kernel, stride, padding, size", CASES)
def test_the_blocks_compute_the_direct_forms_integers(cin, kernel, stride, padding, size):
    ep, x = _program(cin, kernel, stride, padding, size)
    direct = xnnc.compile(ep, (x,), target=AVX2, tune=False, disable=OFF)
    blocked = _forced(ep, x)
    [conv] = _blocked_convs(blocked)
    bk = -(-kernel // stride)
    assert conv.kernel_height.value.data == bk and conv.kernel_width.value.data == bk
    assert conv.group_input_channels.value.data == stride * stride * cin
    assert not _blocked_convs(direct)
    scale = output_scale(ep)
    for i in range(3):
        xi = torch.randn(x.shape, generator=torch.Generator().manual_seed(i)) * (1 + i)
        torch.testing.assert_close(blocked(xi), direct(xi), rtol=0, atol=0)
        torch.testing.assert_close(blocked(xi), ep.module()(xi), rtol=0, atol=scale * 1.01)


def test_the_rule_takes_resnets_stem_and_leaves_mobilenets():
    """x86 (int8 taps in groups of 8): 7x7/2 over 3 channels 392 -> 256 packed MACs (1.53x);
    3x3/2 72 -> 64 (1.13x, under 1.25). arm64 (groups of 4): 196 -> 192."""
    x86, arm = Target.parse("extended,x86-64-avx2"), Target.parse("stock,arm64")
    resnet = rules.StemLayer("qs8", (1, 224, 224, 3), 64, (7, 7), 2, (3, 3, 3, 3))
    mobilenet = rules.StemLayer("qs8", (1, 224, 224, 3), 32, (3, 3), 2, (1, 1, 1, 1))
    assert resnet.packed_macs_per_output(8) == (392, 256)
    assert rules.space_to_depth(x86, resnet).choice == "space-to-depth"
    assert rules.space_to_depth(x86, mobilenet).choice == "direct"
    assert rules.space_to_depth(arm, resnet).choice == "direct"
    assert "392 -> 256 MACs per output (1.53x) >= 1.25" in rules.space_to_depth(x86, resnet).why


def test_the_default_compile_follows_the_rule():
    ep, x = _program(3, 7, 2, 3, (20, 20))
    program = xnnc.compile(ep, (x,), target=AVX2, tune=False)
    [d] = [d for d in program.decisions() if d.form == "space-to-depth"]
    assert (d.choice, d.source, d.layer) == (
        "space-to-depth", "rule", "stem qs8 1x20x20x3->8 k7x7 s2 p3,3,3,3")  # fmt: skip
    assert len(_blocked_convs(program)) == 1
    ep, x = _program(3, 3, 2, 1, (20, 20))
    program = xnnc.compile(ep, (x,), target=AVX2, tune=False)
    [d] = [d for d in program.decisions() if d.form == "space-to-depth"]
    assert d.choice == "direct" and not _blocked_convs(program)


def test_layers_it_leaves_alone():
    """fp32 (no channel padding in XNNPACK's fp32 IGEMM), more than 4 input channels, stride
    1: no decision recorded."""
    torch.manual_seed(0)
    fp32 = xnnc.compile(Stem(3, 7, 2, 3).eval(), (torch.randn(1, 3, 20, 20),), target=AVX2,
                        tune=False)  # fmt: skip
    ep8, x8 = _program(8, 7, 2, 3, (20, 20))
    ep1, x1 = _program(3, 3, 1, 1, (20, 20))
    for program in (fp32, xnnc.compile(ep8, (x8,), target=AVX2, tune=False),
                    xnnc.compile(ep1, (x1,), target=AVX2, tune=False)):  # fmt: skip
        assert not [d for d in program.decisions() if d.form == "space-to-depth"]


def test_blocked_filter_places_each_tap():
    """w'[o, i, j, (a * s + b) * C + c] = w[o, s * i + a, s * j + b, c], zero past the kernel."""
    w = torch.arange(2 * 3 * 3 * 2).reshape(2, 3, 3, 2)
    b = blocked_filter(w, 2)
    assert b.shape == (2, 2, 2, 8)
    for o in range(2):
        for i in range(2):
            for j in range(2):
                for a in range(2):
                    for bb in range(2):
                        for c in range(2):
                            r, q = 2 * i + a, 2 * j + bb
                            want = w[o, r, q, c] if r < 3 and q < 3 else 0
                            assert b[o, i, j, (a * 2 + bb) * 2 + c] == want


def test_the_stock_runtime_runs_the_blocks():
    """The `.pte` of the stock target (space-to-depth as reshape, transpose, reshape) on stock
    ExecuTorch computes the extended runtime's direct integers."""
    from xnnc.pte import StockRuntime, to_pte

    ep, x = _program(3, 7, 2, 3, (20, 22))
    direct = xnnc.compile(ep, (x,), target=AVX2, tune=False, disable=OFF)
    stock = xnnc.compile(ep, (x,), target="stock,x86-64-avx2", tune=False)
    assert len(_blocked_convs(stock)) == 1
    runtime = StockRuntime(to_pte(ep, target="stock,x86-64-avx2", tune=False))
    for i in range(2):
        xi = torch.randn(x.shape, generator=torch.Generator().manual_seed(i))
        torch.testing.assert_close(runtime(xi)[0], direct(xi), rtol=0, atol=0)


def test_the_tuner_times_both_forms_and_follows_the_faster(tmp_path, monkeypatch):
    ep, x = _program(3, 7, 2, 3, (20, 20))
    module = import_model(ep)
    xnn.set_target(module, Target.host())
    options = CompileOptions(tune=True)
    for p in default_passes(options):
        if isinstance(p, tuner.TunePass) and p.form == "space-to-depth":
            break
        p.apply(xnnc.make_context(), module)
    [anchor] = [op for op in module.walk() if SPECS["space-to-depth"].candidate(op)]
    assert stem_layer(anchor).key() == "stem qs8 1x20x20x3->8 k7x7 s2 p3,3,3,3"
    forms = candidate_forms(anchor, "space-to-depth", Target.host())
    assert set(forms) == {"direct", "space-to-depth"}
    times = time_on_xnnpack(forms, 1, rounds=2, sample_ms=0.2)
    assert set(times) == set(forms) and all(t > 0 for t in times.values())
    direct = xnnc.compile(ep, (x,), tune=False, disable=OFF)
    for winner in ("direct", "space-to-depth"):
        fixed = {"direct": 1.0, "space-to-depth": 1.0, winner: 0.5}
        monkeypatch.setattr(tuner, "time_on_xnnpack", lambda f, _t, fixed=fixed: fixed)
        program = xnnc.compile(ep, (x,), tune=True, tuning_db=str(tmp_path / f"{winner}.json"))
        [d] = [d for d in program.decisions() if d.form == "space-to-depth"]
        assert (d.choice, d.source) == (winner, "tuned")
        assert len(_blocked_convs(program)) == (winner == "space-to-depth")
        torch.testing.assert_close(program(x), direct(x), rtol=0, atol=0)
