"""fp16 native vs fp32 decided per region (`xnn-fp16-precision{mode=auto}`, `xnn-tune{form=
fp16-compute}`): each maximal connected set of fp16 layers is timed as a whole, one decision
recorded on each of its layers, cached in the tuning database under the region's signature.
A fixed timer makes the chosen form win, so the tests do not depend on this machine's speed.

Tolerance against fp16 eager, relative to the largest output magnitude: 1e-2. fp16 has an
11-bit significand (unit roundoff u = 2^-11 ~ 4.9e-4); eager rounds every op's result to fp16,
a native region rounds at other points (XNNPACK accumulates in fp32 and fuses bias and
activation), an fp32 region only at its boundary. The model is 4 layers deep: each layer
adds up to ~1 u on top of fp16 inputs whose products sum over up to 32 terms; 1e-2 is ~20 u,
a bound with room for the ordering differences, and far below what a wrong region (a
dropped or misplaced node) gives (O(1) errors)."""

from __future__ import annotations

import json

import torch
import torch.nn as nn

import xnnc
from xnnc.cost import rules
from xnnc.cost.decision import recorded
from xnnc.dialects import xnn
from xnnc.frontend.fx_importer import import_model
from xnnc.legalize import fp16_precision
from xnnc.pipeline.stages import lower
from xnnc.target import Target
from xnnc.tuning import db as tuning_db
from xnnc.tuning import tuner

FP16_RTOL = 1e-2


class TwoRegions(nn.Module):
    """Two fp16 regions split by an fp32 tanh: a 1x1 convolution, ReLU and a depthwise
    convolution; then a 1x1 convolution and a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.pw = nn.Conv2d(8, 32, 1)
        self.dw = nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.pw2 = nn.Conv2d(32, 16, 1)
        self.fc = nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dw(torch.relu(self.pw(x)))
        y = torch.tanh(y.float()).half()
        return self.fc(self.pw2(y).permute(0, 2, 3, 1))


def _model() -> tuple[nn.Module, tuple[torch.Tensor]]:
    torch.manual_seed(0)
    return TwoRegions().half().eval(), (torch.randn(1, 8, 6, 6).half(),)


class RegionTimer:
    """Times fp16 regions only: native wins the region with the depthwise convolution, fp32
    the other. Records the node kinds of each native form it was given."""

    def __init__(self) -> None:
        self.regions: list[set[str]] = []

    def __call__(self, forms: dict, threads: int) -> dict[str, float]:
        if set(forms) != {"native", "fp32"}:
            return {}  # another form's layer: no time, its static rule
        kinds = {op.name for op in forms["native"].walk()}
        self.regions.append(kinds)
        if "xnn.depthwise_convolution_2d" in kinds:
            return {"native": 0.5, "fp32": 1.0}
        return {"native": 2.0, "fp32": 1.0}


def _compile(db, **options) -> xnnc.Program:
    model, inputs = _model()
    return xnnc.compile(model, inputs, tuning_db=str(db), **options)


def _layer_types(program: xnnc.Program) -> dict[str, str]:
    kinds = (xnn.Convolution2dOp, xnn.DepthwiseConvolution2dOp, xnn.FullyConnectedOp)
    return {
        f"{op.name}:{op.results[0].type.get_shape()[-1]}": str(op.results[0].type.element_type)
        for op in program.module.walk()
        if isinstance(op, kinds)
    }


def _fp16_decisions(program: xnnc.Program) -> list:
    return [d for d in program.decisions() if d.form == "fp16-compute"]


def test_each_region_is_timed_once_and_decided_as_a_whole(tmp_path, monkeypatch) -> None:
    timer = RegionTimer()
    monkeypatch.setattr(tuner, "time_on_xnnpack", timer)
    program = _compile(tmp_path / "db.json", tune=True)
    # One timing per region, each with all its layers and a convert at its boundary, in the
    # form the program runs (after canonicalize).
    assert len(timer.regions) == 2
    [first] = [r for r in timer.regions if "xnn.depthwise_convolution_2d" in r]
    [second] = [r for r in timer.regions if r is not first]
    assert {"xnn.convolution_2d", "xnn.depthwise_convolution_2d", "xnn.convert"} <= first
    assert {"xnn.convolution_2d", "xnn.fully_connected", "xnn.convert"} <= second
    # The first region runs in fp16 (its ReLU too: no convert between its layers), the other
    # in fp32; every layer holds its region's one decision.
    assert _layer_types(program) == {
        "xnn.convolution_2d:32": "f16",
        "xnn.depthwise_convolution_2d:32": "f16",
        "xnn.convolution_2d:16": "f32",
        "xnn.fully_connected:8": "f32",
    }
    ds = _fp16_decisions(program)
    assert len(ds) == 4 and {d.source for d in ds} == {"tuned"}
    native = [d for d in ds if d.choice == "native"]
    assert len(native) == 2 and len({(d.layer, d.why, str(d.times_ms)) for d in native}) == 1
    assert native[0].layer.startswith("fp16 region of 2 layers from convolution_2d 1x6x6x8,")
    assert native[0].why.startswith("region of 2 fp16 layers, ")
    assert native[0].times_ms == {"native": 0.5, "fp32": 1.0}
    assert "region of 2 fp16 layers" in program.explain()
    model, inputs = _model()
    with torch.no_grad():
        want = model(*inputs).float()
    got = program(*inputs).float()
    torch.testing.assert_close(got, want, rtol=0, atol=FP16_RTOL * want.abs().max().item())


def test_regions_round_trip_through_the_tuning_database(tmp_path, monkeypatch) -> None:
    """A second compile reads both regions' entries and times nothing."""
    path = tmp_path / "db.json"
    monkeypatch.setattr(tuner, "time_on_xnnpack", RegionTimer())
    first = _compile(path, tune=True)
    entries = json.loads(path.read_text())["entries"]
    regions = {k.rsplit("|", 1)[1]: v for k, v in entries.items() if "|fp16 region" in k}
    assert len(regions) == 2
    assert sorted(e["choice"] for e in regions.values()) == ["fp32", "native"]
    timer = RegionTimer()
    monkeypatch.setattr(tuner, "time_on_xnnpack", timer)
    second = _compile(path, tune=True)
    assert timer.regions == []
    assert _fp16_decisions(second) == _fp16_decisions(first)
    assert _layer_types(second) == _layer_types(first)


def test_a_per_layer_fp16_entry_still_loads(tmp_path, monkeypatch) -> None:
    """An entry written when fp16 was decided per layer loads and is kept; the regions are
    timed (it times no region) and added beside it."""
    target, path = Target.host(), tmp_path / "db.json"
    old_key = tuning_db.key(target, "fp16 convolution_2d 1x6x6x8,32x1x1x8->1x6x6x32 "
                            "group_input_channels=8 group_output_channels=32 kernel_height=1 "
                            "kernel_width=1")  # fmt: skip
    old = {"choice": "native", "times_ms": {"fp32": 1.0, "native": 0.5}}
    path.write_text(json.dumps({"format": tuning_db.FORMAT, "entries": {old_key: old}}))
    db = tuning_db.TuningDB(path)
    assert len(db) == 1 and db.get(old_key) == old
    timer = RegionTimer()
    monkeypatch.setattr(tuner, "time_on_xnnpack", timer)
    program = _compile(path, tune=True)
    assert len(timer.regions) == 2
    assert len({d.layer for d in _fp16_decisions(program)}) == 2
    entries = json.loads(path.read_text())["entries"]
    assert entries[old_key] == old and len(entries) == 3


def test_a_region_too_large_for_the_budget_keeps_the_rule(tmp_path, monkeypatch) -> None:
    """A region whose timing would outlast what is left of the budget is not timed: the
    static rule decides, and the decision says why."""
    model, inputs = _model()
    module = import_model(model, inputs)
    timer = RegionTimer()
    monkeypatch.setattr(tuner, "time_on_xnnpack", timer)
    monkeypatch.setattr(fp16_precision, "REGION_MACS_PER_MS", 1.0)  # as if the CPU were very slow
    lower(module, tune=True, tuning_db=str(tmp_path / "db.json"), tune_budget_ms=1000.0)
    decisions = [d for op in module.walk() if (d := recorded(op, "fp16-compute")) is not None]
    assert not timer.regions and len(decisions) == 4
    rule = rules.fp16_native(Target.host()).choice
    assert {(d.choice, d.source) for d in decisions} == {(rule, "rule")}
    assert all(d.why.startswith("region of ") for d in decisions)
    assert all("not timed: ~" in d.why and "ms left of the budget" in d.why for d in decisions)
