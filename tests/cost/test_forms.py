"""The table of forms (`cost.forms`) against what it describes: the rules and their layers,
the tuning database's keys and revisions, the rewrites' `form_layers` and the tuner's specs
derived from them, the pass registry, the option checks and the default pipeline's tuning
passes. Each form is one entry; these checks catch
an entry that disagrees with the code, or code that names a form the table lacks."""

from __future__ import annotations

import dataclasses
import json
from typing import get_args

import pytest

from xnnc.cost import forms, rules
from xnnc.cost.forms import FORMS, KEY_FORMS, LAYER_FORMS, STAGES, FormLayers
from xnnc.pipeline.options import IMPORT_CHOICES, OPTIONAL_PASSES, CompileOptions
from xnnc.pipeline.registry import load_pass
from xnnc.pipeline.stages import default_passes, stage_passes
from xnnc.target import PRESETS, Target
from xnnc.transforms.canonicalization import pattern_names
from xnnc.tuning import db as tuning_db
from xnnc.tuning.tuner import SPECS, TunePass

# One layer of each kind a form's rule decides (every first word of its keys).
LAYERS: dict[str, list[rules.Layer]] = {
    "conv-as-gemm": [rules.ConvLayer("f32", 1, 1, 26, 512, 256, (1, 7), (1, 1), (0, 0, 0, 6))],
    "bf16-gemm": [rules.GemmLayer("fc", 1, 8, 64, 32), rules.GemmLayer("bmm", 2, 8, 64, 32)],
    "upsample-nearest": [rules.UpsampleLayer("f32", (1, 8, 8, 16), 4)],
    "polyphase": [rules.DeconvLayer("f32", (1, 1, 16, 32), 32, 1, (1, 4), (1, 2), (0, 1, 0, 1))],
    "fc-or-bmm": [rules.LinearLayer("f32", 16, 64, 32)],
    "fp16-compute": [
        rules.Fp16Layer("convolution_2d 1x8x8x16,32x1x1x16->1x8x8x32", 32768),
        rules.Fp16Region(1, 1, "convolution_2d 1x8x8x16,32x1x1x16->1x8x8x32", "0123abcd", 32768),
    ],
    "space-to-depth": [rules.StemLayer("qs8", (1, 224, 224, 3), 64, (7, 7), 2, (3, 3, 3, 3))],
    "depthwise-rows": [
        rules.RowLayer("f32", 1, 100, 100, 8, 3, 1, 1, (1, 1), kind)
        for kind in ("dwconv", "maxpool", "avgpool")
    ],
}
# The revisions the tuning databases written so far carry (a form not named: 1). A bump is
# deliberate: it makes every database entry of the form miss.
REVISIONS = {"conv-as-gemm": 3, "polyphase": 2, "upsample-nearest": 2}
TARGETS = [Target.parse(f"extended,{p},threads={n}") for p in PRESETS for n in (1, 2)]


def test_every_layer_form_has_an_example_layer_here() -> None:
    assert set(LAYERS) == set(LAYER_FORMS)


@pytest.mark.parametrize("name", list(FORMS))
def test_an_entry_is_complete(name: str) -> None:
    form = FORMS[name]
    assert form.stage in STAGES and len(set(form.choices)) == len(form.choices) >= 2
    if form.stage == "import":
        assert not (form.layers or form.keys or form.rewrite or form.symbolic or form.fixed_size)
        return
    assert form.layers and form.keys and form.rewrite and form.revision >= 1
    assert all(layer.form == name for layer in form.layers)
    # Exactly one way to decide a symbolic size.
    assert bool(form.symbolic) != bool(form.fixed_size)
    assert form.symbolic in ("", forms.BY_RULE, forms.OVER_RANGE, forms.AT_SMALLEST)


def test_the_layer_union_is_the_table_s_layers() -> None:
    assert set(get_args(rules.Layer)) == {c for f in LAYER_FORMS.values() for c in f.layers}


@pytest.mark.parametrize("name", list(LAYER_FORMS))
def test_the_rule_answers_a_choice_of_the_form(name: str) -> None:
    form = FORMS[name]
    for layer in LAYERS[name]:
        assert type(layer) in form.layers
        for target in TARGETS:
            assert forms.decide(target, layer).choice in form.choices


def test_the_import_choice_s_rule_answers_its_choices() -> None:
    form = FORMS["lstm-loop"]
    for target in (Target.parse("extended"), Target.parse("stock")):
        for disable in ((), (form.disable,), ("lstm-step-calls",)):
            assert form.rule(target, disable).choice in form.choices


@pytest.mark.parametrize("name", list(LAYER_FORMS))
def test_the_database_files_the_form_s_layers_under_its_keys_and_revision(
    name: str, tmp_path
) -> None:
    form, target = FORMS[name], Target.host()
    assert form.revision == REVISIONS.get(name, 1)
    for layer in LAYERS[name]:
        word = layer.key().split(" ", 1)[0]
        assert word in form.keys and KEY_FORMS[word] == name
        key = tuning_db.key(target, layer.key())
        tail = f"|{layer.key()}" + (f"|r{form.revision}" if form.revision > 1 else "")
        assert key.endswith(tail)
        entry = {"choice": form.choices[-1], "times_ms": dict.fromkeys(form.choices, 1.0)}
        path = tmp_path / f"{word}.json"
        path.write_text(json.dumps({"format": tuning_db.FORMAT, "entries": {key: entry}}))
        assert tuning_db.TuningDB(path).get(key) == entry
    covered = {layer.key().split(" ", 1)[0] for layer in LAYERS[name]}
    assert covered == set(form.keys)


def test_the_tuner_has_a_spec_for_each_layer_form() -> None:
    assert set(SPECS) == set(LAYER_FORMS)


@pytest.mark.parametrize("name", list(LAYER_FORMS))
def test_the_rewrite_declares_the_layers_and_its_passes_are_registered(name: str) -> None:
    """The tuner finds the rewrite, and the passes a form is timed with, by name as the pass
    registry does; the rewrite says how to find and read the form's layers."""
    form = FORMS[name]
    assert isinstance(load_pass(form.rewrite).form_layers, FormLayers)
    assert SPECS[name].passes == tuple(map(load_pass, (form.rewrite, *form.timed_with)))


@pytest.mark.parametrize("name", list(LAYER_FORMS))
def test_the_rewrite_is_a_registered_pass(name: str) -> None:
    form = FORMS[name]
    assert load_pass(form.rewrite).name == form.rewrite
    if form.stage == "canonicalize":  # a seed rewrite: a canonicalization set
        assert pattern_names()[form.rewrite] == form.rewrite


def _tuned(passes: list) -> list[str]:
    return [p.form for p in passes if isinstance(p, TunePass)]


def test_the_default_pipeline_tunes_each_form_in_its_stage_before_its_rewrite() -> None:
    stages = stage_passes(CompileOptions(tune=True))
    tuned = _tuned(default_passes(CompileOptions(tune=True)))
    assert sorted(tuned) == sorted(LAYER_FORMS)  # each once
    for stage, passes in stages.items():
        for i, p in enumerate(passes):
            if isinstance(p, TunePass):
                form = FORMS[p.form]
                after = next(q for q in passes[i:] if not isinstance(q, TunePass))
                assert (stage, after.name) == (form.stage, form.tuned_before)
    assert not _tuned(default_passes(CompileOptions(tune=False)))


@pytest.mark.parametrize("name", [n for n, f in LAYER_FORMS.items() if f.disable])
def test_disabling_a_form_s_rewrite_drops_its_tuning(name: str) -> None:
    form = FORMS[name]
    options = CompileOptions(tune=True, disable=(form.disable,))
    passes = default_passes(options)
    assert name not in _tuned(passes) and form.rewrite not in {p.name for p in passes}
    assert _tuned(passes) == [n for n in _tuned(default_passes(tune=True)) if n != name]


@pytest.mark.parametrize("name", [n for n, f in LAYER_FORMS.items() if f.option])
def test_an_option_that_fixes_the_choice_drops_its_tuning(name: str) -> None:
    form = FORMS[name]
    assert getattr(CompileOptions(), form.option) == "auto"
    for value in ("native", "fp32"):
        options = dataclasses.replace(CompileOptions(tune=True), **{form.option: value})
        assert name not in _tuned(default_passes(options))


def test_the_disable_names_are_the_option_checks() -> None:
    """A form's `disable` name is accepted: a pass, a canonicalization set, or an import
    choice (`CompileOptions` checks `disable=`)."""
    sets = set(pattern_names())
    for form in FORMS.values():
        if not form.disable:
            continue
        CompileOptions(disable=(form.disable,))
        where = {form.disable} & (set(OPTIONAL_PASSES) | sets | set(IMPORT_CHOICES))
        assert where == {form.disable}
        assert (form.disable in IMPORT_CHOICES) == (form.stage == "import")
        assert (form.disable in sets) == (form.stage == "canonicalize")
