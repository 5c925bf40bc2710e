"""The cost model's forms beyond conv-as-gemm and the bf16 GEMM: nearest x2 upsample,
polyphase, fully-connected vs batch matmul, fp16 native vs fp32 (per region: the regions'
own tests are in tests/legalize/test_fp16_regions.py). Each form is
forced through the tuner (a fixed timer makes it win) and the program checked against eager;
one test per form times the real candidates on XNNPACK.

Tolerances: the upsample forms move data exactly, and the convolutions around them and the
fp32 GEMM forms differ from eager's summation order only: 1e-5 (a few ulps of <= 64-term fp32
dot products at these magnitudes); the polyphase convolution
sums the taps in another order, 1e-4 as tests/transforms/test_polyphase.py; fp16 against fp16 eager
(which rounds once, at the output) 1e-2: an fp16 layer's result rounds to fp16 (2^-11
relative) and fp16 kernels accumulate in fp16 on this CPU (AVX512-FP16)."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn as nn
from xdsl.dialects.builtin import ModuleOp

import xnnc
from xnnc.cost import rules
from xnnc.cost.decision import Decision, decisions, record, recorded
from xnnc.cost.forms import FORMS
from xnnc.dialects import xnn
from xnnc.dialects.types import int_value
from xnnc.frontend.fx_importer import import_model
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import default_passes
from xnnc.target import Target
from xnnc.tuning import db as tuning_db
from xnnc.tuning import tuner
from xnnc.tuning.tuner import SPECS, TunePass, candidate_forms, time_on_xnnpack

FP32 = dict(rtol=1e-5, atol=1e-5)
POLYPHASE = dict(rtol=1e-4, atol=1e-4)
FP16 = dict(rtol=1e-2, atol=1e-2)


class Upsample(nn.Module):
    """A nearest x2 upsample between convolutions (which keep it in NHWC)."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 6, 1), nn.Conv2d(6, 3, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(nn.functional.interpolate(self.a(x), scale_factor=2, mode="nearest"))


class Fp16Block(nn.Module):
    """A 1x1 convolution, a depthwise one and a linear layer in fp16."""

    def __init__(self) -> None:
        super().__init__()
        self.pw = nn.Conv2d(8, 32, 1)
        self.dw = nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.fc = nn.Linear(32, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.dw(self.pw(x)))
        return self.fc(y.permute(0, 2, 3, 1))


def _models() -> dict[str, tuple[nn.Module, tuple[torch.Tensor, ...], dict]]:
    torch.manual_seed(0)
    return {
        "upsample-nearest": (Upsample(), (torch.randn(1, 4, 6, 5),), FP32),
        "polyphase": (
            nn.ConvTranspose1d(16, 8, 4, stride=2, padding=1),
            (torch.randn(1, 16, 12),),
            POLYPHASE,
        ),  # fmt: skip
        "fc-or-bmm": (nn.Linear(64, 32), (torch.randn(2, 8, 64),), FP32),
        "fp16-compute": (Fp16Block().half(), (torch.randn(1, 8, 6, 6).half(),), FP16),
    }


class FixedTimer:
    def __init__(self, times: dict[str, float]):
        self.times, self.calls = times, 0

    def __call__(self, forms: dict, threads: int) -> dict[str, float]:
        self.calls += 1
        return {c: t for c, t in self.times.items() if c in forms}


def _forced(form: str, choice: str, monkeypatch, db) -> tuple[xnnc.Program, nn.Module, tuple]:
    """The model of `form` compiled with `choice` made to win every layer of the form."""
    others = {c: 1.0 for c in FORMS[form].choices}
    monkeypatch.setattr(tuner, "time_on_xnnpack", FixedTimer({**others, choice: 0.5}))
    model, inputs, tol = _models()[form]
    program = xnnc.compile(model.eval(), inputs, tuning_db=str(db), tune=True)
    with torch.no_grad():
        torch.testing.assert_close(program(*inputs), model(*inputs), **tol)
    return program, model, inputs


# (form, choice, an op kind only that choice leaves in the program)
FORCED = [
    ("upsample-nearest", "broadcast", "xnn.static_broadcast"),
    ("upsample-nearest", "depth-to-space", "xnn.depth_to_space_2d"),
    ("polyphase", "deconvolution", "xnn.deconvolution_2d"),
    ("polyphase", "polyphase", "xnn.static_slice"),
    ("polyphase", "per-phase", "xnn.concatenate"),
    ("fc-or-bmm", "fc", "xnn.fully_connected"),
    ("fc-or-bmm", "bmm", "xnn.batch_matrix_multiply"),
]


@pytest.mark.parametrize("form, choice, kind", FORCED)
def test_each_form_computes_the_model(tmp_path, monkeypatch, form, choice, kind):
    program, _, _ = _forced(form, choice, monkeypatch, tmp_path / "db.json")
    [d] = [d for d in program.decisions() if d.form == form]
    assert (d.choice, d.source) == (choice, "tuned")
    assert kind in {op.name for op in program.module.walk()}


def test_a_few_row_linear_is_not_timed_and_stays_fully_connected(tmp_path, monkeypatch):
    """A layer of fewer rows than `rules.STREAMING_ROWS` reads its weights once a call: timed
    alone they would stay in the cache, so the tuner leaves it to the rule (fc) even where
    a timer would make the batch matmul win."""
    timer = FixedTimer({"fc": 1.0, "bmm": 0.5})
    monkeypatch.setattr(tuner, "time_on_xnnpack", timer)
    model, x = nn.Linear(64, 32).eval(), torch.randn(rules.STREAMING_ROWS - 1, 64)
    program = xnnc.compile(model, (x,), tuning_db=str(tmp_path / "db.json"), tune=True)
    [d] = [d for d in program.decisions() if d.form == "fc-or-bmm"]
    assert (d.choice, d.source, timer.calls) == ("fc", "rule", 0)
    assert d.why.startswith(f"{rules.STREAMING_ROWS - 1} < {rules.STREAMING_ROWS} rows")
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **FP32)


@pytest.mark.parametrize("choice", ["native", "fp32"])
def test_fp16_layers_in_either_form_compute_the_model(tmp_path, monkeypatch, choice):
    program, _, _ = _forced("fp16-compute", choice, monkeypatch, tmp_path / "db.json")
    ds = [d for d in program.decisions() if d.form == "fp16-compute"]
    assert len(ds) == 3 and {(d.choice, d.source) for d in ds} == {(choice, "tuned")}
    layers = [op for op in program.module.walk() if isinstance(op, (xnn.Convolution2dOp,
              xnn.DepthwiseConvolution2dOp, xnn.FullyConnectedOp))]  # fmt: skip
    want = "f16" if choice == "native" else "f32"
    assert {str(op.results[0].type.element_type) for op in layers} == {want}


def _before_tuning(form: str, model: nn.Module, inputs: tuple) -> ModuleOp:
    """The model lowered by the default pipeline up to where `form` is tuned."""
    module = import_model(model.eval(), inputs)
    xnn.set_target(module, Target.host())
    for p in default_passes(CompileOptions(tune=True)):
        if isinstance(p, TunePass) and p.form == form:
            return module
        p.apply(xnnc.make_context(), module)
    raise AssertionError(f"the default pipeline does not tune {form}")


@pytest.mark.parametrize("form", list(_models()))
def test_the_tuner_times_every_form_on_xnnpack(form):
    """The candidates are the owning rewrite's forms: different programs (polyphase: three,
    the per-phase convolutions included), each run and timed on XNNPACK."""
    model, inputs, _ = _models()[form]
    module = _before_tuning(form, model, inputs)
    anchors = [op for op in module.walk() if SPECS[form].candidate(op)]
    assert anchors, f"no {form} layer"
    forms = candidate_forms(anchors[0], form, Target.host())
    kinds = {c: tuple(o.name for o in sub.walk()) for c, sub in forms.items()}
    assert set(forms) == set(FORMS[form].choices) and len(set(kinds.values())) == len(forms), kinds
    times = time_on_xnnpack(forms, 1, rounds=2, sample_ms=0.2)
    assert set(times) == set(FORMS[form].choices) and all(t > 0 for t in times.values())


def test_the_tuner_times_the_broadcast_upsample_without_its_edge_reshapes():
    """The broadcast form's reshapes sit at the layer's edges: in place inside a model,
    copies at a subgraph's input and output (one of the output's size), so the tuner times
    the broadcast alone, its input and output in the reshapes' shapes."""
    model, inputs, _ = _models()["upsample-nearest"]
    module = _before_tuning("upsample-nearest", model, inputs)
    [anchor] = [op for op in module.walk() if SPECS["upsample-nearest"].candidate(op)]
    forms = candidate_forms(anchor, "upsample-nearest", Target.host())
    kinds = {c: [o.name for o in sub.body.block.ops] for c, sub in forms.items()}
    assert kinds == {"broadcast": ["xnn.static_broadcast", "xnn.output"],
                     "depth-to-space": ["xnn.concatenate", "xnn.depth_to_space_2d",
                                        "xnn.output"]}, kinds  # fmt: skip
    [arg] = forms["broadcast"].body.block.args
    assert arg.type.get_shape() == (1, 6, 1, 5, 1, 6)  # [N, H, 1, W, 1, C]
    times = time_on_xnnpack(forms, 1, rounds=2, sample_ms=0.2)
    assert set(times) == set(forms) and all(t > 0 for t in times.values())


class _CausalUpsample(nn.Module):
    """SEANet's causal upsample: kernel 2s, the last k - s outputs trimmed, then an ELU."""

    def __init__(self, channels: int, groups: int = 1) -> None:
        super().__init__()
        self.up = nn.ConvTranspose1d(channels, channels, 8, stride=4, groups=groups)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.up(x)
        return nn.functional.elu(y[..., : y.shape[-1] - 4])


@pytest.mark.parametrize("threads", [1, 2])
def test_the_tuner_times_polyphase_forms_as_the_program_runs_them(threads):
    """A causal upsample's forms: the single convolution, the interleave's reshape at the
    output in place (as inside a model: no slice, no reshape left to time); a depthwise
    one's phases over rows where the threads outnumber the batch, as `xnn-depthwise-rows`
    builds them."""
    torch.manual_seed(0)
    target = Target.host(threads=threads)
    dense = _before_tuning("polyphase", _CausalUpsample(8).eval(), (torch.randn(1, 8, 13),))
    [anchor] = [op for op in dense.walk() if SPECS["polyphase"].candidate(op)]
    forms = candidate_forms(anchor, "polyphase", target)
    kinds = {c: [o.name for o in sub.body.block.ops if o.name != "xnn.constant"]
             for c, sub in forms.items()}  # fmt: skip
    # per-phase would be the same convolution (one window for all phases): not timed twice
    assert kinds == {"deconvolution": ["xnn.deconvolution_2d", "xnn.output"],
                     "polyphase": ["xnn.convolution_2d", "xnn.output"]}  # fmt: skip
    n, h, _, c = forms["polyphase"].body.block.last_op.operands[0].type.get_shape()
    assert (n, h, c) == (1, 1, 32)  # the phases' convolution: 4 phases x 8 channels
    times = time_on_xnnpack(forms, threads, rounds=2, sample_ms=0.2)
    assert set(times) == set(forms) and all(t > 0 for t in times.values())

    depthwise = _CausalUpsample(8, groups=8).eval()
    module = _before_tuning("polyphase", depthwise, (torch.randn(1, 8, 13),))
    [anchor] = [op for op in module.walk() if SPECS["polyphase"].candidate(op)]
    phases = [op for op in candidate_forms(anchor, "polyphase", target)["polyphase"].walk()
              if isinstance(op, xnn.DepthwiseConvolution2dOp)]  # fmt: skip
    assert len(phases) == 4
    rows = threads > 1
    assert {(int_value(op.kernel_height) > 1, int_value(op.kernel_width) > 1)
            for op in phases} == {(rows, not rows)}  # fmt: skip


def test_a_polyphase_entry_tuned_before_per_phase_is_followed(tmp_path, monkeypatch):
    """A database entry timed when polyphase had two forms (no per-phase time) still loads
    and decides: the tuner times nothing, and the program takes the single convolution."""
    model, inputs, tol = _models()["polyphase"]
    module = _before_tuning("polyphase", model, inputs)
    [layer] = [SPECS["polyphase"].layer(op) for op in module.walk()
               if SPECS["polyphase"].candidate(op)]  # fmt: skip
    path = tmp_path / "db.json"
    entry = {"choice": "polyphase", "times_ms": {"deconvolution": 2.0, "polyphase": 1.0}}
    entries = {tuning_db.key(Target.host(), layer.key()): entry}
    path.write_text(json.dumps({"format": tuning_db.FORMAT, "entries": entries}))
    timed: list[set[str]] = []  # the forms of each layer timed (other forms' layers too)
    monkeypatch.setattr(tuner, "time_on_xnnpack", lambda forms, _: timed.append(set(forms)) or {})
    program = xnnc.compile(model.eval(), inputs, tuning_db=str(path), tune=True)
    assert not [forms for forms in timed if "deconvolution" in forms]
    [d] = [d for d in program.decisions() if d.form == "polyphase"]
    assert (d.choice, d.source, d.times_ms) == ("polyphase", "tuned", entry["times_ms"])
    assert "xnn.static_slice" in {op.name for op in program.module.walk()}
    with torch.no_grad():
        torch.testing.assert_close(program(*inputs), model(*inputs), **tol)


def test_an_op_carries_one_decision_per_form():
    module = xnnc.parse_module(
        "func.func @f(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {\n"
        "  %w = xnn.constant dense<5.000000e-01> : tensor<8x8xf16>\n"
        "  %y = xnn.fully_connected %x, %w"
        " : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>\n"
        "  func.return %y : tensor<4x8xf16>\n}"
    )
    [fc] = [op for op in module.walk() if isinstance(op, xnn.FullyConnectedOp)]
    first = Decision("fp16-compute", "native", "rule", "fp16 fc", "why")
    second = Decision("fc-or-bmm", "bmm", "tuned", "linear f16 4x8->8", "", (("bmm", 1.0),))
    record(fc, first)
    assert "xnn.decision = {form" in xnnc.print_module(module)  # one: a dictionary
    record(fc, second)
    record(fc, Decision("fc-or-bmm", "bmm", "tuned", "linear f16 4x8->8", "", (("bmm", 0.5),)))
    assert recorded(fc, "fp16-compute") == first
    assert recorded(fc, "fc-or-bmm").times_ms == (("bmm", 0.5),)  # replaced, not added
    reparsed = xnnc.parse_module(xnnc.print_module(module))
    assert [d.form for _, d in decisions(reparsed)] == ["fp16-compute", "fc-or-bmm"]


def test_a_database_written_before_the_new_forms_still_loads(tmp_path):
    """Old keys keep their meaning; entries of the new forms are checked by their choices."""
    target, path = Target.host(), tmp_path / "db.json"
    old = {tuning_db.key(target, "conv f32 1x1x16x64->32 k1x3 d1x1 p0,1,0,1"):
           {"choice": "gemm", "times_ms": {"direct": 1.0, "gemm": 0.5}},
           tuning_db.key(target, "fc bf16 1x1x8->8"):
           {"choice": "native", "times_ms": {"fp32": 2.0, "native": 1.0}}}  # fmt: skip
    new = {tuning_db.key(target, "upsample2x f32 1x4x6x5"):
           {"choice": "broadcast", "times_ms": {"broadcast": 1.0, "depth-to-space": 2.0}},
           tuning_db.key(target, "linear f32 16x64->32"):
           {"choice": "depth-to-space", "times_ms": {"depth-to-space": 1.0}}}  # fmt: skip
    path.write_text(json.dumps({"format": tuning_db.FORMAT, "entries": {**old, **new}}))
    db = tuning_db.TuningDB(path)
    assert len(db) == 3  # the linear entry names another form's choice: dropped
    assert all(db.get(k) == v for k, v in old.items())


def test_times_of_a_form_built_differently_since_are_dropped(tmp_path):
    """A conv-as-gemm entry timed before its revision 2 (the one-output-channel gemm form
    changed) misses and is left out of the next save; other decisions' entries stay."""
    target, path = Target.host(), tmp_path / "db.json"
    conv = "conv f32 1x1x16x64->1 k1x3 d1x1 p0,1,0,1"
    current = tuning_db.key(target, conv)
    assert current.endswith(f"|{conv}|r{FORMS['conv-as-gemm'].revision}")
    stale = current.rsplit("|", 1)[0]  # as written before the revision
    linear = tuning_db.key(target, "linear f32 16x64->32")
    assert linear.endswith("|linear f32 16x64->32")  # revision 1: no tail
    entry = {"choice": "gemm", "times_ms": {"direct": 1.0, "gemm": 0.5}}
    kept = {"choice": "bmm", "times_ms": {"fc": 2.0, "bmm": 1.0}}
    other = f"{stale}|r9"  # a revision this xnnc never made
    entries = {stale: entry, other: entry, linear: kept, "no bar": entry}
    path.write_text(json.dumps({"format": tuning_db.FORMAT, "entries": entries}))
    db = tuning_db.TuningDB(path)
    assert (db.get(stale), db.get(other), db.get(current), db.get(linear)) == (
        None, None, None, kept)  # fmt: skip
    db.put(current, "direct", {"direct": 1.0, "gemm": 1.5})
    db.save()
    saved = json.loads(path.read_text())["entries"]
    assert set(saved) == {current, linear}
