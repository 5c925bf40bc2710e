"""`xnn-depthwise-rows`: a depthwise convolution over a 1-D signal as one over rows of one
pixel, so that XNNPACK's threads share it. Both forms run XNNPACK's depthwise kernels on the
same taps in the same order per output, so the forms agree bit for bit in fp32 and fp16
(tolerance 0); against eager, fp32 sums the same products in another order (1e-5 on outputs
of order 1) and fp16 rounds the sum of k taps once more than eager's fp32 accumulation does
(1e-2 on outputs of order 1, a few fp16 ulps)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import xnnc
from xnnc.cost import rules
from xnnc.dialects import xnn
from xnnc.frontend.fx_importer import export_program, import_model
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import default_passes
from xnnc.target import Target
from xnnc.transforms.depthwise_rows import row_layer
from xnnc.tuning import tuner
from xnnc.tuning.tuner import SPECS, candidate_forms, time_on_xnnpack

TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float16: dict(atol=1e-2, rtol=1e-2)}
OFF = ("xnn-depthwise-rows",)


class Depthwise1d(nn.Module):
    def __init__(self, channels, kernel, stride, dilation, padding, multiplier) -> None:
        super().__init__()
        self.conv = nn.Conv1d(channels, channels * multiplier, kernel, stride, padding,
                              dilation, groups=channels)  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.elu(self.conv(x))


def _forms(program) -> list[str]:
    return [d.choice for d in program.decisions() if d.form == "depthwise-rows"]


def _anchor(ep, target: Target):
    """The program's one depthwise-rows layer, lowered by the default pipeline for `target`
    up to where the form is tuned."""
    module = import_model(ep)
    xnn.set_target(module, target)
    for p in default_passes(CompileOptions(tune=True)):
        if isinstance(p, tuner.TunePass) and p.form == "depthwise-rows":
            break
        p.apply(xnnc.make_context(), module)
    [anchor] = [op for op in module.walk() if SPECS["depthwise-rows"].candidate(op)]
    return anchor


@settings(max_examples=12, deadline=None)
@given(
    channels=st.integers(2, 6), kernel=st.integers(2, 7), stride=st.integers(1, 3),
    dilation=st.integers(1, 3), multiplier=st.integers(1, 2), batch=st.integers(1, 2),
    length=st.integers(20, 40), dtype=st.sampled_from([torch.float32, torch.float16]),
    data=st.data(),
)  # fmt: skip
def test_rows_compute_the_width_form(
    channels, kernel, stride, dilation, multiplier, batch, length, dtype, data
) -> None:
    """At two threads a batch of one takes the rows (the rule); both forms against eager
    and against each other."""
    padding = data.draw(st.integers(0, dilation * (kernel - 1)))
    model = Depthwise1d(channels, kernel, stride, dilation, padding, multiplier).to(dtype).eval()
    x = torch.randn(batch, channels, length, dtype=dtype)
    with torch.no_grad():
        want = model(x)
    ep = export_program(model, (x,))
    rows = xnnc.compile(ep, threads=2, tune=False, fp16="native")
    width = xnnc.compile(ep, threads=2, tune=False, fp16="native", disable=OFF)
    assert _forms(rows) == ["rows" if batch < 2 else "width"]
    assert not _forms(width)
    got = rows(x)
    torch.testing.assert_close(got, want, **TOL[dtype])
    torch.testing.assert_close(got, width(x), rtol=0, atol=0)


def test_the_rule_reads_threads_and_batch() -> None:
    layer = rules.RowLayer("f32", 1, 24960, 24960, 64, 7, 1, 1, (6, 0))
    assert layer.key() == "dwconv1d f32 1x24960x64 k7 s1 d1 p6,0"
    assert rules.depthwise_rows(Target.host(threads=2), layer).choice == "rows"
    assert rules.depthwise_rows(Target.host(threads=1), layer).choice == "width"
    batch = rules.RowLayer("f32", 4, 100, 100, 8, 3, 1, 1, (1, 1))
    assert rules.depthwise_rows(Target.host(threads=2), batch).choice == "width"


def test_one_thread_keeps_the_width() -> None:
    model = Depthwise1d(4, 5, 1, 1, 2, 1).eval()
    program = xnnc.compile(model, (torch.randn(1, 4, 32),), threads=1, tune=False)
    assert _forms(program) == ["width"]
    assert not any(isinstance(op, xnn.StaticReshapeOp) and "rows" in str(op)
                   for op in program.module.walk())  # fmt: skip


def test_mimis_last_layer_over_rows_at_two_threads() -> None:
    """A one-output-channel convolution's GEMM form is a depthwise convolution and a channel
    sum (`xnn-conv-as-gemm`); at two threads the depthwise one runs over rows."""
    torch.manual_seed(0)
    model = nn.Conv1d(16, 1, 7, padding=3).eval()
    x = torch.randn(1, 16, 200)
    program = xnnc.compile(model, (x,), threads=2, tune=False,
                           target="extended,x86-64-avx512,threads=2")  # fmt: skip
    convs = {d.form: d.choice for d in program.decisions()}
    if convs.get("conv-as-gemm") == "gemm":
        assert convs["depthwise-rows"] == "rows"
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **TOL[torch.float32])


@pytest.mark.parametrize("threads", [1, 2])
def test_the_tuner_times_both_forms_without_their_edge_reshapes(threads, tmp_path, monkeypatch):
    """The rows form is timed as it runs inside a model: its reshapes at the layer's edges
    dropped (XNNPACK copies a reshape only at a subgraph's input or output), the input and
    output given in the rows' shapes; the compile follows the faster form."""
    model = Depthwise1d(8, 7, 1, 1, 6, 1).eval()
    x = torch.randn(1, 8, 64)
    ep = export_program(model, (x,))
    target = Target.host(threads=threads)
    anchor = _anchor(ep, target)
    assert row_layer(anchor).key() == "dwconv1d f32 1x64x8 k7 s1 d1 p6,6"
    forms = candidate_forms(anchor, "depthwise-rows", target)
    rows = forms["rows"].body.block
    assert not any(isinstance(op, xnn.StaticReshapeOp) for op in rows.ops)
    assert [a.type.get_shape() for a in rows.args] == [(1, 64, 1, 8)]
    times = time_on_xnnpack(forms, threads, rounds=2, sample_ms=0.2)
    assert set(times) == {"width", "rows"} and all(t > 0 for t in times.values())
    width = xnnc.compile(ep, threads=threads, tune=False, disable=OFF)
    for winner in ("width", "rows"):
        fixed = {"width": 1.0, "rows": 1.0, winner: 0.5}
        monkeypatch.setattr(tuner, "time_on_xnnpack", lambda f, _t, fixed=fixed: fixed)
        program = xnnc.compile(ep, threads=threads, tune=True,
                               tuning_db=str(tmp_path / f"{winner}.json"))  # fmt: skip
        [d] = [d for d in program.decisions() if d.form == "depthwise-rows"]
        assert (d.choice, d.source) == (winner, "tuned")
        torch.testing.assert_close(program(x), width(x), rtol=0, atol=0)


def test_a_symbolic_width_runs_over_rows_at_every_size() -> None:
    """The reshapes infer the symbolic width; the rule decides (threads and batch)."""
    torch.manual_seed(0)
    model = Depthwise1d(8, 7, 1, 2, 6, 1).eval()  # stride 1: affine sizes (dynamic shapes)
    frames = torch.export.Dim("frames", min=8, max=400)
    program = xnnc.compile(model, (torch.randn(1, 8, 40),), dynamic_shapes={"x": {2: frames}},
                           threads=2, tune=False)  # fmt: skip
    assert _forms(program) == ["rows"]
    for length in (8, 41, 400):
        x = torch.randn(1, 8, length)
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), **TOL[torch.float32])


class Pool1d(nn.Module):
    """A 1x1 convolution (so that the pooling's input is NHWC) and a 1-D pooling."""

    def __init__(self, pool: nn.Module) -> None:
        super().__init__()
        self.conv, self.pool = nn.Conv1d(6, 6, 1), pool

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(self.conv(x))


POOLS = {
    "max": lambda: nn.MaxPool1d(4, stride=2, padding=1),
    "max dilated": lambda: nn.MaxPool1d(3, stride=1, padding=1, dilation=2),
    "average": lambda: nn.AvgPool1d(3, stride=2),
}


@pytest.mark.parametrize("name", list(POOLS))
@pytest.mark.parametrize("threads", [1, 2])
def test_a_1d_pooling_runs_over_rows_where_the_threads_outnumber_the_batch(name, threads):
    """Max and average pooling over a 1-D signal take the rows at two threads (XNNPACK
    splits them by output rows too), the width at one; max is exact in either form, the
    average sums the same window in the same order (tolerance: fp32 eager's 1e-5)."""
    torch.manual_seed(0)
    model = Pool1d(POOLS[name]()).eval()
    x = torch.randn(1, 6, 50)
    program = xnnc.compile(model, (x,), threads=threads, tune=False)
    assert _forms(program) == ["rows" if threads > 1 else "width"]
    [layer] = [d.layer for d in program.decisions() if d.form == "depthwise-rows"]
    assert layer.startswith("maxpool1d" if name.startswith("max") else "avgpool1d")
    width = xnnc.compile(model, (x,), threads=threads, tune=False, disable=OFF)
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **TOL[torch.float32])
    torch.testing.assert_close(program(x), width(x), rtol=0, atol=0)


def test_the_tuner_times_a_pooling_over_rows():
    """A pooling's two forms, timed without their edge reshapes."""
    model = Pool1d(nn.MaxPool1d(4, stride=2, padding=1)).eval()
    target = Target.host(threads=2)
    anchor = _anchor(export_program(model, (torch.randn(1, 6, 64),)), target)
    assert row_layer(anchor).key() == "maxpool1d f32 1x64x6 k4 s2 d1 p1,1"
    forms = candidate_forms(anchor, "depthwise-rows", target)
    kinds = {c: [o.name for o in sub.body.block.ops] for c, sub in forms.items()}
    assert kinds == {c: ["xnn.max_pooling_2d", "xnn.output"] for c in ("width", "rows")}
    times = time_on_xnnpack(forms, 2, rounds=2, sample_ms=0.2)
    assert set(times) == {"width", "rows"} and all(t > 0 for t in times.values())
