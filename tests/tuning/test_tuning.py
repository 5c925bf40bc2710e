"""The cost model's tuned source: xnn-tune, the tuning database, the recorded decisions and
Program.explain(). Most tests time with a fixed timer (deterministic choices); one tunes for
real. Every compile here is for the host CPU on the extended runtime, where tuning applies.

Numerics: a 3-tap Conv1d over 64 channels in fp32; the GEMM form sums the taps in another
order, so outputs match eager to 1e-5 relative (a few ulps of the ~8-term fp32 dot products
at these magnitudes)."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import warnings

import pytest
import torch
import torch.nn as nn
from targets import CROSS_X86

import xnnc
from xnnc.backend_xnnpack import runtime as xnn_runtime
from xnnc.backend_xnnpack.runtime import XnnpackError
from xnnc.cost import rules
from xnnc.cost.decision import Decision
from xnnc.cost.forms import FORMS
from xnnc.cost.rules import ConvLayer
from xnnc.dialects import xnn
from xnnc.errors import OptionError, TuningDatabaseWarning
from xnnc.pipeline.options import CompileOptions
from xnnc.target import Target
from xnnc.tuning import db as tuning_db
from xnnc.tuning import tuner
from xnnc.tuning.tuner import candidate_forms, choose, time_on_xnnpack

TOL = dict(rtol=1e-5, atol=1e-5)
_LAYER = ConvLayer("f32", 1, 1, 16, 64, 32, (1, 3), (1, 1), (0, 1, 0, 1))  # _model's conv
LAYER = _LAYER.key()  # "conv f32 1x1x16x64->32 k1x3 d1x1 p0,1,0,1"
REVISION = f"|r{FORMS['conv-as-gemm'].revision}"  # the tail of a conv layer's key
# The layer's static form on this machine (AVX2: gemm; AVX-512: direct) and the other one.
STATIC = rules.conv_as_gemm(Target.host(), _LAYER).choice
OTHER = {"direct": "gemm", "gemm": "direct"}[STATIC]


def _model() -> tuple[nn.Module, tuple[torch.Tensor]]:
    torch.manual_seed(0)
    return nn.Conv1d(64, 32, 3, padding=1).eval(), (torch.randn(1, 64, 16),)


class FixedTimer:
    """Times every form from a table (ms), counting the layers it was asked about."""

    def __init__(self, **times: float):
        self.times, self.calls = times, 0

    def __call__(self, forms: dict, threads: int) -> dict[str, float]:
        self.calls += 1
        return {c: t for c, t in self.times.items() if c in forms}


@pytest.fixture
def timer(monkeypatch):
    """Install a FixedTimer as the tuner's timer; returns a setter."""

    def install(**times: float) -> FixedTimer:
        fixed = FixedTimer(**times)
        monkeypatch.setattr(tuner, "time_on_xnnpack", fixed)
        return fixed

    return install


def _compile(db, **fields):
    model, inputs = _model()
    program = xnnc.compile(model, inputs, tuning_db=str(db), **fields)
    with torch.no_grad():
        torch.testing.assert_close(program(*inputs), model(*inputs), **TOL)
    return program


def _conv_decisions(program) -> list:
    return [d for d in program.decisions() if d.form == "conv-as-gemm"]


def test_margin_keeps_the_static_choice():
    assert choose("direct", {"direct": 1.0, "gemm": 0.96}) == "direct"  # 4%: noise
    assert choose("direct", {"direct": 1.0, "gemm": 0.94}) == "gemm"
    assert choose("gemm", {"direct": 0.9}) == "direct"  # the static form did not run
    assert choose("gemm", {}) is None


def test_a_faster_form_wins_and_is_recorded(tmp_path, timer):
    fixed = timer(direct=1.0, gemm=0.8)
    program = _compile(tmp_path / "db.json")
    [d] = _conv_decisions(program)
    assert (d.layer, d.choice, d.source, d.times_ms) == (LAYER, "gemm", "tuned",
                                                         {"direct": 1.0, "gemm": 0.8})  # fmt: skip
    assert fixed.calls == 1
    ir = xnnc.print_module(program.module)
    assert "xnn.convolution_2d" not in ir and 'source = "tuned"' in ir
    table = program.explain().splitlines()
    assert table[0].split()[:5] == ["location", "layer", "form", "choice", "source"]
    assert "conv-as-gemm  gemm    tuned   direct 1.000 ms, gemm 0.800 ms" in table[1], table[1]


def test_saved_programs_keep_their_decisions(tmp_path, timer):
    timer(direct=1.0, gemm=0.8)
    program = _compile(tmp_path / "db.json", savable=True)
    program.save(str(tmp_path / "m.xnnc"))
    loaded = xnnc.load(str(tmp_path / "m.xnnc"))
    # The program file's IR carries the ops' locations too: the decisions are the same.
    assert loaded.decisions() == program.decisions()
    assert len(loaded.decisions()) == 1


def test_within_the_margin_the_static_form_stays(tmp_path, timer):
    timer(**{STATIC: 1.0, OTHER: 0.97})
    [d] = _conv_decisions(_compile(tmp_path / "db.json"))
    assert (d.choice, d.source) == (STATIC, "tuned")


def test_a_second_compile_reads_the_database(tmp_path, timer):
    db = tmp_path / "db.json"
    first = timer(direct=1.0, gemm=0.5)
    _compile(db)
    assert first.calls == 1
    entries = json.loads(db.read_text())["entries"]
    [(key, entry)] = entries.items()
    assert key.endswith(f"|threads=1|{LAYER}{REVISION}") and entry["choice"] == "gemm"
    second = timer(direct=0.1, gemm=9.0)  # would choose direct if asked
    [d] = _conv_decisions(_compile(db))
    assert second.calls == 0 and (d.choice, d.source) == ("gemm", "tuned")
    # Another thread count is another key: timed again.
    _compile(db, threads=2)
    assert second.calls == 1 and len(json.loads(db.read_text())["entries"]) == 2


def test_static_and_cached_modes_never_time(tmp_path, timer):
    fixed = timer(direct=1.0, gemm=0.5)
    [d] = _conv_decisions(_compile(tmp_path / "db.json", tune=False))
    assert (d.choice, d.source) == (STATIC, "rule")
    [d] = _conv_decisions(_compile(tmp_path / "db.json", tune="cached"))
    assert (d.choice, d.source) == (STATIC, "rule")  # nothing cached yet
    assert fixed.calls == 0
    cross = _compile(tmp_path / "db.json", target=f"extended,{CROSS_X86}")
    assert [d.source for d in _conv_decisions(cross)] == ["rule"] and fixed.calls == 0


@pytest.mark.parametrize(
    "content, problem",
    [
        ("{not json", "not JSON"),
        ('{"format": "xnnc-tuning-1", "entr', "not JSON"),  # truncated
        ('{"format": "onnxruntime-cache", "entries": {}}', "format 'onnxruntime-cache'"),
        ("[1, 2, 3]", "format None"),
        ('{"format": "xnnc-tuning-1", "entries": []}', "entries are not a mapping"),
    ],
)
def test_a_corrupt_or_foreign_database_is_ignored_and_rewritten(tmp_path, timer, content,
                                                                  problem):  # fmt: skip
    db = tmp_path / "db.json"
    db.write_text(content)
    timer(direct=1.0, gemm=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        [d] = _conv_decisions(_compile(db))
    ours = [w for w in caught if issubclass(w.category, TuningDatabaseWarning)]
    assert len(ours) == 1 and problem in str(ours[0].message), [str(w.message) for w in ours]
    assert "\n" not in str(ours[0].message) and "will be rewritten" in str(ours[0].message)
    assert d.choice == "gemm"
    assert json.loads(db.read_text())["format"] == tuning_db.FORMAT


def test_bad_entries_are_dropped_not_followed(tmp_path, timer):
    """An entry naming a form that does not exist, or without times, is never applied."""
    db = tmp_path / "db.json"
    target = Target.host()
    bad = {tuning_db.key(target, LAYER): {"choice": "winograd", "times_ms": {"winograd": 1}}}
    db.write_text(json.dumps({"format": tuning_db.FORMAT, "entries": bad}))
    fixed = timer(direct=1.0, gemm=2.0)
    [d] = _conv_decisions(_compile(db))
    assert fixed.calls == 1 and d.choice == "direct"


def test_an_unwritable_database_warns_once_and_compiles(tmp_path, timer):
    blocker = tmp_path / "file"
    blocker.write_text("")
    timer(direct=1.0, gemm=0.5)
    with pytest.warns(TuningDatabaseWarning, match="cannot write it"):
        [d] = _conv_decisions(_compile(blocker / "db.json"))
    assert d.choice == "gemm"


def _write_entries(path: str, worker: int) -> None:
    db = tuning_db.TuningDB(path)
    for i in range(20):
        key = f"cpu|xnnpack|threads=1|conv f32 {worker}x{i} k1x3{REVISION}"
        db.put(key, "direct", {"direct": 1.0})
        db.save()


def test_two_processes_writing_keep_both_entries(tmp_path):
    path = str(tmp_path / "db.json")
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_write_entries, args=(path, w)) for w in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    assert len(json.loads(open(path).read())["entries"]) == 40


def test_a_rejected_form_is_skipped(tmp_path, monkeypatch):
    """XNNPACK refusing one form: the tuner times the others."""
    real = xnn_runtime.open_runtime
    calls = []

    def refuse_second(blob, named=None, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise XnnpackError("", "xnn_create_fully_connected_nc_f32", 5)
        return real(blob, named, **kw)

    monkeypatch.setattr(xnn_runtime, "open_runtime", refuse_second)
    [d] = _conv_decisions(_compile(tmp_path / "db.json", tune=True))
    assert d.source == "tuned" and set(d.times_ms) == {"direct"} and d.choice == "direct"


def test_a_real_tuning_run(tmp_path):
    """Times both forms on XNNPACK: each form ran, and the choice is the static rule's unless
    the other form won by the margin (on an AVX2 host the rule says gemm: with the forms
    within 5% of each other the tuner keeps it, so the rule, not "direct", is the baseline)."""
    program = _compile(tmp_path / "db.json", tune=True)
    [d] = _conv_decisions(program)
    assert d.source == "tuned" and set(d.times_ms) == {"direct", "gemm"}
    assert all(t > 0 for t in d.times_ms.values())
    # The decision records each time rounded to 0.1 us: where the two forms sit at the
    # margin's edge, that rounding may flip the choice, so either is the tuner's own there.
    edge = {
        choose(STATIC, {**d.times_ms, STATIC: d.times_ms[STATIC] + shift})
        for shift in (-5e-5, 0.0, 5e-5)
    }
    assert d.choice in edge


def test_each_form_the_tuner_builds_computes_the_layer(tmp_path):
    """The candidate forms are the rewrite's own: run each on XNNPACK against eager."""
    model, (x,) = _model()
    # the convolution itself (on an AVX2 host the static rule would rewrite it)
    program = _compile(tmp_path / "db.json", tune=False, savable=True,
                       disable=("xnn-conv-as-gemm",))  # fmt: skip
    [conv] = [op for op in program.module.walk() if isinstance(op, xnn.Convolution2dOp)]
    forms = candidate_forms(conv, "conv-as-gemm", Target.host())
    ops = {c: [o.name for o in sub.body.block.ops] for c, sub in forms.items()}
    assert "xnn.convolution_2d" in ops["direct"] and "xnn.fully_connected" in ops["gemm"]
    with torch.no_grad():
        want = model(x).permute(0, 2, 1).reshape(1, 1, 16, 32)  # NHWC
    nhwc = x.permute(0, 2, 1).reshape(1, 1, 16, 64).contiguous()
    from xnnc.translate.xnnpack import serialize_subgraph_named

    for choice, sub in forms.items():
        rt = xnn_runtime.open_runtime(*serialize_subgraph_named(sub, "extended"))
        torch.testing.assert_close(rt.run(nhwc)[0], want, **TOL, msg=choice)
        rt.close()
    times = time_on_xnnpack(forms, 1, rounds=2, sample_ms=0.2)
    assert set(times) == {"direct", "gemm"}


def test_options_check_the_tuning_fields(tmp_path):
    with pytest.raises(
        OptionError, match=r"^tune: expected True, False, 'auto' or 'cached', got 'yes'$"
    ):
        CompileOptions(tune="yes")
    with pytest.raises(
        OptionError,
        match=rf"^tune=True: the target 'extended,{CROSS_X86}' is not this machine's CPU",
    ):
        CompileOptions(target=f"extended,{CROSS_X86}", tune=True)
    with pytest.raises(OptionError, match=r"is a directory, not a file$"):
        CompileOptions(tuning_db=str(tmp_path))
    assert CompileOptions(target="stock").tuning() == "static"
    assert CompileOptions(target="extended,arm64").tuning() == "static"
    assert CompileOptions().tuning() == "tuned" and CompileOptions(tune=False).tuning() == "static"
    options = CompileOptions(tune="cached", tuning_db=str(tmp_path / "t.json"))
    assert options.tuning() == "cached"
    assert CompileOptions.from_spec(options.to_spec()) == options
    assert CompileOptions.from_spec(CompileOptions(tune=False).to_spec()).tune is False


def test_decision_attribute_round_trips_and_is_checked():
    d = Decision(
        "bf16-gemm", "native", "tuned", "fc bf16 1x1x8->8", "", (("fp32", 2.0), ("native", 1.0))
    )
    assert Decision.from_attr(d.to_attr(), "here") == d
    assert d.describe() == "native (tuned 1.000 ms vs fp32 2.000 ms)"
    bad = Decision("bf16-gemm", "native", "tuned", "fc", "", (("fp32", 2.0),)).to_attr()
    with pytest.raises(Exception, match=r"^here: xnn.decision: a tuned choice needs its time"):
        Decision.from_attr(bad, "here")


def test_a_decision_renders_where_it_is_only_for_an_error():
    """`where` may be a function (rendering an op's location prints it): called on errors."""
    d = Decision("conv-as-gemm", "gemm", "rule", "conv f32 1x1x8x16->16 k1x3 d1x1 p0,0,0,0")

    def never() -> str:
        raise AssertionError("where rendered for a valid decision")

    assert Decision.from_attr(d.to_attr(), never) == d
    bad = dataclasses.replace(d, choice="tap").to_attr()
    with pytest.raises(Exception, match=r"^there: xnn.decision: unknown conv-as-gemm choice"):
        Decision.from_attr(bad, lambda: "there")


class _ThreeConvs(nn.Module):
    """Three distinct conv layers, the largest (64 -> 64) in the middle."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv1d(16, 64, 3, padding=1)
        self.b = nn.Conv1d(64, 64, 3, padding=1)
        self.c = nn.Conv1d(64, 32, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(self.b(self.a(x)))


def _lower_timed(monkeypatch, model: nn.Module, x: torch.Tensor, db, budget_ms: float,
                 sleep_s: float) -> xnnc.Program:  # fmt: skip
    """`model` lowered with a tuning budget of `budget_ms`, each layer's timing a sleep of
    `sleep_s` that finds its forms equally fast."""
    import time

    from xnnc.frontend.fx_importer import import_model
    from xnnc.pipeline.stages import lower

    def slow(forms: dict, threads: int) -> dict[str, float]:
        time.sleep(sleep_s)
        return {choice: 1.0 for choice in forms}

    monkeypatch.setattr(tuner, "time_on_xnnpack", slow)
    options = CompileOptions(tuning_db=str(db))
    return xnnc.Program(lower(import_model(model, (x,)), options, tune_budget_ms=budget_ms))


def test_the_budget_times_the_largest_layers_and_defers_the_rest(tmp_path, monkeypatch):
    """Once the budget is spent the other layers keep the static rule and stay out of the
    database: the next compile times them, largest first."""
    torch.manual_seed(0)
    model, x = _ThreeConvs().eval(), torch.randn(1, 16, 32)
    db = tmp_path / "db.json"
    sources = []
    for _ in range(3):
        program = _lower_timed(monkeypatch, model, x, db, budget_ms=10.0, sleep_s=0.02)
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), **TOL)
        sources.append(sorted(d.source for d in _conv_decisions(program)))
        layers = list(json.loads(db.read_text())["entries"])
        assert len(layers) == len(sources)  # one more layer timed per compile
        if len(sources) == 1:  # the largest layer went first
            assert layers[0].endswith(f"64->64 k1x3 d1x1 p0,1,0,1{REVISION}"), layers
    assert sources == [["rule", "rule", "tuned"], ["rule", "tuned", "tuned"], ["tuned"] * 3]


def test_a_layer_is_not_begun_when_the_budget_left_is_below_a_layers_timing(tmp_path, monkeypatch):
    """A layer's timing is begun only while the budget left covers its predicted cost: with
    100 ms a layer and 150 ms of budget, one layer is timed (before, a second was begun with
    ~40 ms left and the compile overshot by a whole layer; a loaded machine can only make
    the first layer use the whole budget); the others keep the static rule and stay out of
    the database."""
    torch.manual_seed(0)
    model, x = _ThreeConvs().eval(), torch.randn(1, 16, 32)
    db = tmp_path / "db.json"
    program = _lower_timed(monkeypatch, model, x, db, budget_ms=150.0, sleep_s=0.1)
    decisions = _conv_decisions(program)
    assert sorted(d.source for d in decisions) == ["rule", "rule", "tuned"]
    assert len(json.loads(db.read_text())["entries"]) == 1


@pytest.mark.parametrize("bf16_gemm", [False, True])
def test_bf16_gemm_is_timed_only_where_the_cpu_has_the_kernel(tmp_path, timer, monkeypatch,
                                                               bf16_gemm):  # fmt: skip
    """Without XNNPACK's bf16 GEMM kernel (AVX512-BF16), "native" runs as XNNPACK's own fp32
    fallback of the same GEMM: the tuner leaves such a CPU's bf16 GEMMs to the rule (fp32),
    whatever a timing would say; with the kernel it times them."""
    monkeypatch.setattr(Target, "bf16_gemm", property(lambda self: bf16_gemm))
    fixed = timer(fp32=1.0, native=0.5)
    torch.manual_seed(0)
    model = nn.Linear(64, 64).to(torch.bfloat16).eval()
    x = torch.randn(1, 16, 64, dtype=torch.bfloat16)
    program = xnnc.compile(model, (x,), tuning_db=str(tmp_path / "db.json"))
    [d] = [d for d in program.decisions() if d.form == "bf16-gemm"]
    if bf16_gemm:
        assert (d.choice, d.source, fixed.calls) == ("native", "tuned", 1)
    else:
        assert (d.choice, d.source, fixed.calls) == ("fp32", "rule", 0)
        assert "no bf16 GEMM kernel" in d.why


def test_schedule_ms_follows_the_timers_rounds():
    """`schedule_ms` is `time_on_xnnpack`'s schedule: two warm-up runs per form, then samples
    of whole runs of ~2 ms, 5 rounds, or 3 once 100 ms are spent."""
    assert tuner.schedule_ms([1.0, 1.0]) == 2 * 2 + 5 * 2 * 2.0  # 2 runs a sample
    assert tuner.schedule_ms([0.4]) == 0.8 + 5 * 2.0  # 5 runs a sample
    assert tuner.schedule_ms([50.0, 50.0]) == 200 + 3 * 100  # 100 ms spent in round 1


def test_timing_cost_predicts_from_the_layers_timed_before():
    """Nothing timed: nothing known (0). Then a layer's runs at the rate the timed ones ran
    (multiply-accumulates per ms of their fastest form) through the schedule, plus their
    mean build time beyond their runs; a form timed before predicts from its own rate."""
    layer = ConvLayer("f32", 1, 1, 64, 16, 16, (1, 3), (1, 1), (0, 1, 0, 1))
    twice = dataclasses.replace(layer, out_channels=32)  # twice the MACs
    cost = tuner.TimingCost()
    assert cost.predict("conv-as-gemm", layer, 2) == 0.0
    cost.add("conv-as-gemm", layer, {"direct": 1.0, "gemm": 1.5}, 40.0)
    build = 40.0 - tuner.schedule_ms([1.0, 1.5])
    expect = tuner.schedule_ms([1.0, 1.0]) + build
    assert cost.predict("conv-as-gemm", layer, 2) == pytest.approx(expect)
    assert cost.predict("conv-as-gemm", twice, 2) == pytest.approx(
        tuner.schedule_ms([2.0, 2.0]) + build
    )
    assert cost.predict("polyphase", layer, 2) == pytest.approx(expect)  # the rate of all
    # A polyphase layer of the same MACs ran 4x slower: its form predicts from its own.
    cost.add("polyphase", layer, {"one": 4.0, "phases": 5.0}, 50.0 + tuner.schedule_ms([4, 5]))
    build = (build + 50.0) / 2
    assert cost.predict("polyphase", layer, 2) == pytest.approx(
        tuner.schedule_ms([4.0, 4.0]) + build
    )
    assert cost.predict("conv-as-gemm", layer, 2) == pytest.approx(
        tuner.schedule_ms([1.0, 1.0]) + build
    )
    assert cost.predict("upsample-nearest", layer, 2) == pytest.approx(
        tuner.schedule_ms([2.5, 2.5]) + build  # all: 2 layers' MACs in 5 ms
    )


def test_a_compiles_tuning_passes_share_what_timing_cost(tmp_path, monkeypatch):
    """The second tuning pass of a compile predicts its first layer from the first pass's
    (before, a pass started knowing nothing and began its first layer whatever was left):
    with 20 ms a layer and 30 ms of budget, one layer of the two forms is timed."""
    torch.manual_seed(0)
    # A transposed conv (polyphase), a tanh and a conv (conv-as-gemm).
    model = nn.Sequential(nn.ConvTranspose1d(8, 8, 4, stride=2, padding=1), nn.Tanh(),
                          nn.Conv1d(8, 8, 3, padding=1)).eval()  # fmt: skip
    x = torch.randn(1, 8, 16)
    db = tmp_path / "db.json"
    program = _lower_timed(monkeypatch, model, x, db, budget_ms=30.0, sleep_s=0.02)
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **TOL)
    forms = {d.form: d.source for d in program.decisions()}
    assert set(forms) == {"polyphase", "conv-as-gemm"}, forms
    assert sorted(forms.values()) == ["rule", "tuned"]
    assert len(json.loads(db.read_text())["entries"]) == 1


def test_compile_takes_its_tuning_budget_from_the_options(tmp_path, timer):
    """`tune_budget_ms` replaces the import's time as a compile's budget: 0 times nothing
    (the rule decides, the database stays empty); without it the same compile times its
    layers (an instant timer: the import's time covers them all)."""
    fixed = timer(direct=1.0, gemm=0.8)
    torch.manual_seed(0)
    model, x = _ThreeConvs().eval(), torch.randn(1, 16, 32)
    db = tmp_path / "db.json"
    for budget, calls, source in ((0.0, 0, "rule"), (None, 3, "tuned")):
        program = xnnc.compile(model, (x,), tuning_db=str(db), tune_budget_ms=budget)
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), **TOL)
        assert {d.source for d in _conv_decisions(program)} == {source}
        assert fixed.calls == calls
    assert len(json.loads(db.read_text())["entries"]) == 3
