"""The zoo's program fingerprints: a model's are the same twice, and a change shows."""

from __future__ import annotations

import json

from xnnc.benchmarks import zoo_programs


def test_a_model_fingerprints_the_same_twice_and_a_change_shows(tmp_path, capsys) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert zoo_programs.main([str(a), "audio_norms"]) == 0
    assert zoo_programs.main([str(b), "audio_norms"]) == 0
    found = json.loads(a.read_text())
    assert {f"audio_norms {t}" for t in (*zoo_programs.TARGETS, "tuned")} <= set(found)
    assert all(found[f"audio_norms {t}"]["blobs"] for t in zoo_programs.TARGETS)
    assert zoo_programs.main(["--compare", str(a), str(b)]) == 0
    assert capsys.readouterr().out.startswith("the same programs")
    found["audio_norms extended"]["blobs"][0] = "0" * 16
    b.write_text(json.dumps(found))
    assert zoo_programs.main(["--compare", str(a), str(b)]) == 1
    assert capsys.readouterr().out.strip() == "audio_norms extended"
