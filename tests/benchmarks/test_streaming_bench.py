"""The streaming benchmark's receptive window, and one row of it end to end."""

from __future__ import annotations

from xnnc.benchmarks import streaming_bench
from xnnc.examples.models import make_hifigan, make_mimi_decoder


def test_receptive_window_of_a_causal_and_a_same_padded_decoder() -> None:
    """The causal Mimi-style decoder reads no later frame; HiFi-GAN reads as many later
    frames as its lookahead (13 mel frames: its "same" convolutions, by the analysis)."""
    model, _ = make_mimi_decoder(small=True)
    back, ahead = streaming_bench.receptive(model, 64, 1920)
    assert ahead == 0 and back > 0
    model, _ = make_hifigan(small=True)
    back, ahead = streaming_bench.receptive(model, 80, 256)
    assert back == ahead == 13


def test_a_row_of_the_benchmark() -> None:
    row = streaming_bench.bench("mimi_decoder", small=True, threads=1)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "mimi_decoder" and cells[1] == "1"
    assert all(float(c) > 0 for c in (cells[2], cells[3], cells[5]))
    assert cells[8] == "0"  # a causal decoder: no lookahead


def test_a_quantized_row() -> None:
    """`--quantize`: the model as PT2E quantizes it (over a symbolic time axis) streams; its
    int8 histories make the state smaller than the float row's."""
    floats = streaming_bench.bench("mimi_decoder", small=True, threads=1)
    row = streaming_bench.bench("mimi_decoder", small=True, threads=1, quantize="static")
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "mimi_decoder (static int8)" and cells[8] == "0"
    state = float(cells[9].removesuffix(" KiB"))
    assert 0 < state < float(floats.strip("|").split("|")[9].strip().removesuffix(" KiB"))
