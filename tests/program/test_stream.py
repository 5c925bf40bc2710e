"""Streaming programs (issue 45): `xnnc.compile(..., streaming=xnnc.Streaming(...))` and the
streams it opens, against the offline model in eager.

Tolerance: a stream computes each frame from the same weights and the same frames as the
offline model, but in other blocks (a chunk's GEMMs are smaller, a transposed
convolution's overlap is added across calls), so fp32 sums differ in their last bits only:
1e-5 of the output's largest magnitude, the issue's bound (the measured errors are ~1e-6).
"""

from __future__ import annotations

import math
import threading

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import xnnc
from xnnc.errors import InputError, LocatedError, OptionError, XnncError
from xnnc.examples.models import (
    SEANetDecoder,
    _init_conv_weights,
    _MimiTransformerLayer,
    _RotaryAttention,
    make_hifigan,
    make_mimi_decoder,
    make_mimi_transformer_decoder,
)

RTOL = 1e-5


def _relative(y: torch.Tensor, ref: torch.Tensor) -> float:
    return ((y - ref).abs().max() / ref.abs().max()).item()


def _stream(program: xnnc.StreamingProgram, x: torch.Tensor, frames: int) -> torch.Tensor:
    """x fed `frames` at a time along its last axis, then the flush, joined."""
    stream = program.open()
    chunks = [stream(x[..., i : i + frames]) for i in range(0, x.shape[-1], frames)]
    return torch.cat([*chunks, stream.flush()], -1)


@pytest.fixture(scope="module")
def mimi() -> tuple[nn.Module, torch.Tensor]:
    model, _ = make_mimi_decoder(small=True)
    torch.manual_seed(1)
    return model, torch.randn(1, 64, 64)


@pytest.mark.parametrize("frames", [1, 3, 7])
def test_mimi_streamed_equals_offline(mimi, frames: int) -> None:
    """The causal Mimi-style decoder, 64 frames (63 for 3 and 7) a chunk at a time, then the
    flush (empty: a causal decoder has no tail), equals the offline decoder: one subgraph,
    no lookahead, state in XNNPACK."""
    model, latent = mimi
    latent = latent[..., : latent.shape[-1] // frames * frames]
    program = xnnc.compile(model, (latent[..., :4],),
                           streaming=xnnc.Streaming(frames_per_call=frames))  # fmt: skip
    assert isinstance(program, xnnc.StreamingProgram)
    assert program.num_partitions == 1 and program.outside() == []
    assert program.lookahead == 0 and program.delays == (0,)
    assert program.inexact == ()  # its pads are zeros: exact from the first frame
    y = _stream(program, latent, frames)
    ref = model(latent)
    assert y.shape == ref.shape
    assert _relative(y, ref) <= RTOL


def test_state_saved_and_restored(mimi) -> None:
    """A stream's state, saved mid-way and restored into another stream (after that one ran
    on other frames), goes on as the first would have."""
    model, latent = mimi
    program = xnnc.compile(model, (latent[..., :4],), streaming=xnnc.Streaming())
    first = program.open()
    head = [first(latent[..., i : i + 1]) for i in range(20)]
    saved = first.state()
    other = program.open()
    for _ in range(5):
        other(torch.randn(1, 64, 1))
    other.restore(saved)
    rest = [other(latent[..., i : i + 1]) for i in range(20, 64)]
    assert _relative(torch.cat(head + rest, -1), model(latent)) <= RTOL
    with pytest.raises(InputError, match=r"stream.restore: expected a state of \d+ tensors"):
        other.restore({"states": []})


@pytest.mark.parametrize("sizes", [(1,), (3,), (1, 4, 2, 3)], ids=["1", "3", "1-4"])
def test_lookahead_auto_shifts_the_output(sizes: tuple[int, ...]) -> None:
    """HiFi-GAN ("same"-padded, non-causal) with lookahead="auto": the output is the
    offline output delayed by `delays[0]` samples (`lookahead` mel frames of 256), exact
    from its first sample: the frames a layer holds before its frame 0 (computed by the
    layers before it from the stream's start) are replaced by the zeros the offline model
    pads with before a convolution reads them. Chunks of 1 and 3 frames, and of 1 to 4
    frames changing from call to call (`max_frames_per_call`). The last frames (within the
    receptive field of the end) come from `flush()` and are checked away from the end."""
    model, _ = make_hifigan(small=True)
    streaming = xnnc.Streaming(frames_per_call=min(sizes), max_frames_per_call=max(sizes),
                               lookahead="auto")  # fmt: skip
    program = xnnc.compile(model, (torch.randn(1, 80, 8),), streaming=streaming)
    assert program.num_partitions == 1
    assert program.lookahead > 0 and program.delays == (256 * program.lookahead,)
    torch.manual_seed(2)
    mel = torch.randn(1, 80, 96 // sum(sizes) * sum(sizes))
    stream, chunks, at = program.open(), [], 0
    while at < mel.shape[-1]:
        n = sizes[len(chunks) % len(sizes)]
        chunks.append(stream(mel[..., at : at + n]))
        at += n
    y = torch.cat([*chunks, stream.flush()], -1)[..., program.delays[0] :]
    ref = model(mel)
    assert y.shape == ref.shape
    start = slice(0, ref.shape[-1] - 2 * program.delays[0])
    assert _relative(y[..., start], ref[..., start]) <= RTOL


class _Edges(nn.Module):
    """A "same" convolution, a transposed one whose output runs 2 frames past twice its
    input's (no trim), a pad of 0.5 on both sides of the time axis and a convolution over
    it: values whose ends are past their rate's (`2T + 2`), and a pad that is not zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.same = nn.Conv1d(3, 4, 3, padding=1)
        self.up = nn.ConvTranspose1d(4, 4, 4, stride=2)
        self.conv = nn.Conv1d(4, 2, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.up(torch.tanh(self.same(x)))
        return self.conv(F.pad(torch.tanh(y), (2, 2), value=0.5))


@pytest.mark.parametrize("frames", [1, 2])
def test_both_edges_equal_the_offline_model(frames: int, tmp_path) -> None:
    """A stream that looks ahead equals the offline model over every sample: its values'
    frames before frame 0 and past their ends (`2T + 2` frames after the transposed
    convolution) are what the offline model pads with (0.5 at the pad), not what the layers
    before computed from the stream's start and from `flush()`'s zeros. Its `.pte` on stock
    ExecuTorch too (`flush()` sets the step's "live" state there as well)."""
    torch.manual_seed(0)
    model = _Edges().eval()
    streaming = xnnc.Streaming(frames_per_call=frames, lookahead="auto")
    program = xnnc.compile(model, (torch.randn(1, 3, 4),), savable=frames == 1,
                           streaming=streaming)  # fmt: skip
    assert program.lookahead > 0 and program.inexact == ()
    x = torch.randn(1, 3, 24)
    y = _stream(program, x, frames)[..., program.delays[0] :]
    ref = model(x)
    assert y.shape == ref.shape
    assert _relative(y, ref) <= RTOL
    if frames == 1:
        program.save(str(tmp_path / "step.pte"))
        steps = xnnc.StreamingPte(str(tmp_path / "step.pte"))
        assert _relative(_stream(steps, x, 1)[..., program.delays[0] :], ref) <= RTOL


def test_lookahead_none_names_the_first_op_that_looks_ahead() -> None:
    model, _ = make_hifigan(small=True)
    with pytest.raises(LocatedError, match=r"conv_pre.*streaming: aten.convolution looks \d+ "
                       r"input frame\(s\) ahead \(lookahead='none'\)"):  # fmt: skip
        xnnc.compile(model, (torch.randn(1, 80, 8),), streaming=xnnc.Streaming())


@pytest.mark.parametrize("causal", [True, False])
def test_lstm_carries_its_state(causal: bool, tmp_path) -> None:
    """A SEANet decoder with a 2-layer LSTM (EnCodec's shape, constant padding): the LSTM
    carries h and c from call to call, unrolled over the call's frames inside the step's
    one subgraph; non-causal, it waits for its first real frame behind the lookahead.
    Exact, away from the edges where it looks ahead; the causal step's `.pte` streams on
    stock ExecuTorch as on the extended runtime."""
    torch.manual_seed(0)
    model = SEANetDecoder(16, 4, (8, 5, 4, 2), causal=causal, pad_mode="constant",
                          lstm_layers=2)  # fmt: skip
    _init_conv_weights(model)
    model.eval()
    lookahead = "none" if causal else "auto"
    program = xnnc.compile(
        model,
        (torch.randn(1, 16, 10),),
        streaming=xnnc.Streaming(frames_per_call=3, lookahead=lookahead),
    )
    assert program.num_partitions == 1 and program.outside() == []
    x = torch.randn(1, 16, 30)
    d = program.delays[0]
    y, ref = _stream(program, x, 3)[..., d:], model(x)
    assert y.shape == ref.shape
    interior = slice(2 * d, ref.shape[-1] - 2 * d)
    assert _relative(y[..., interior], ref[..., interior]) <= RTOL
    if causal:
        saved = xnnc.compile(model, (torch.randn(1, 16, 10),), savable=True,
                             streaming=xnnc.Streaming(frames_per_call=3))  # fmt: skip
        saved.save(str(tmp_path / "step.pte"))
        on_pte = _stream(xnnc.StreamingPte(str(tmp_path / "step.pte")), x, 3)
        assert _relative(on_pte, ref) <= RTOL


class _GlobalMean(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.mean(dim=-1, keepdim=True)


def test_an_op_over_the_whole_sequence_is_refused() -> None:
    with pytest.raises(LocatedError, match=r"streaming: aten.mean works along the time axis: "
                       r"it needs the whole sequence"):  # fmt: skip
        xnnc.compile(_GlobalMean().eval(), (torch.randn(1, 4, 8),), streaming=xnnc.Streaming())


class _Causal(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.conv(F.pad(x, (2, 0))))


@pytest.fixture(scope="module")
def small() -> xnnc.StreamingProgram:
    torch.manual_seed(0)
    return xnnc.compile(_Causal().eval(), (torch.randn(1, 4, 8),),
                        streaming=xnnc.Streaming(frames_per_call=2))  # fmt: skip


def test_bad_chunks_and_misuse(small) -> None:
    stream = small.open()
    with pytest.raises(InputError, match=r"stream: input 0 is \[1, 4, 3\] float32; expected "
                       r"\[1, 4, 2\] float32 \(2 frame\(s\) per call on axis 2\)"):  # fmt: skip
        stream(torch.randn(1, 4, 3))
    with pytest.raises(InputError, match=r"input 0 is \[1, 4, 2\] float64; expected"):
        stream(torch.randn(1, 4, 2, dtype=torch.float64))
    with pytest.raises(InputError, match=r"stream: expected 1 input\(s\), got 2"):
        stream(torch.randn(1, 4, 2), torch.randn(1, 4, 2))
    stream(torch.randn(1, 4, 2))
    assert stream.flush().shape == (1, 4, 0)
    with pytest.raises(XnncError, match=r"stream: flushed already; call reset\(\)"):
        stream.flush()
    with pytest.raises(XnncError, match=r"stream: flushed; call reset\(\) before streaming"):
        stream(torch.randn(1, 4, 2))
    stream.reset()
    stream(torch.randn(1, 4, 2))


def test_one_stream_refuses_a_second_thread(small) -> None:
    stream = small.open()
    stream._lock.acquire()  # another thread is inside a call
    try:
        with pytest.raises(XnncError, match=r"called from two threads at once; open one "
                           r"stream per thread"):  # fmt: skip
            stream(torch.randn(1, 4, 2))
    finally:
        stream._lock.release()


def test_streams_from_threads_share_the_program(small) -> None:
    """Four streams, each in its own thread on its own signal, equal the same streams run
    one after the other: they share the weights and nothing else."""
    torch.manual_seed(3)
    signals = [torch.randn(1, 4, 40) for _ in range(4)]
    expected = [_stream(small, x, 2) for x in signals]
    got: list[torch.Tensor | None] = [None] * 4

    def run(i: int) -> None:
        got[i] = _stream(small, signals[i], 2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, e in zip(got, expected, strict=True):
        assert torch.equal(g, e)


def test_saved_and_loaded(tmp_path) -> None:
    torch.manual_seed(0)
    model = _Causal().eval()
    program = xnnc.compile(model, (torch.randn(1, 4, 8),), savable=True,
                           streaming=xnnc.Streaming(frames_per_call=2))  # fmt: skip
    program.save(str(tmp_path / "s.xnnc"))
    loaded = xnnc.load(str(tmp_path / "s.xnnc"))
    assert isinstance(loaded, xnnc.StreamingProgram) and loaded.frames_per_call == 2
    x = torch.randn(1, 4, 20)
    assert _relative(_stream(loaded, x, 2), model(x)) <= RTOL


@pytest.mark.parametrize(
    ("streaming", "message"),
    [
        (dict(frames_per_call=0), "frames_per_call must be an int >= 1, got 0"),
        (dict(lookahead="soon"), "lookahead: expected 'none', 'auto' or frames >= 0"),
        (dict(axis=5), "axis 5 is out of range for the input's 3 dims"),
    ],
)
def test_bad_options(streaming: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        xnnc.compile(
            _Causal().eval(), (torch.randn(1, 4, 8),), streaming=xnnc.Streaming(**streaming)
        )


def test_streaming_pte_on_stock_executorch(mimi, tmp_path) -> None:
    """The step saved as a `.pte`: one delegate (nothing left to ExecuTorch's portable ops),
    the states explicit inputs and outputs, the layout in its `xnnc_stream` method; streamed
    on stock ExecuTorch 1.5.1 it equals the extended runtime's stream."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte.stream import step_program

    model, latent = mimi
    program = xnnc.compile(model, (latent[..., :4],), streaming=xnnc.Streaming(), savable=True)
    step, layout = step_program(program._exported, program.options)
    edge = to_edge_transform_and_lower(
        step, partitioner=[xnnc.XnncPartitioner(program.options.replace(
            target="stock", streaming=""))])  # fmt: skip
    outside = [n.target.__name__ for n in edge.exported_program().graph.nodes
               if n.op == "call_function" and "executorch_call_delegate" not in str(n.target)
               and n.target.__name__ != "getitem"]  # fmt: skip
    assert outside == []
    program.save(str(tmp_path / "step.pte"))
    steps = xnnc.StreamingPte(str(tmp_path / "step.pte"))
    assert steps.layout == program.layout and steps.state_nbytes() == program.state_nbytes()
    frames = latent[..., :16]
    on_pte, on_xnnc = _stream(steps, frames, 1), _stream(program, frames, 1)
    assert _relative(on_pte, on_xnnc) <= RTOL
    assert _relative(on_pte, model(frames)) <= RTOL


def test_a_pte_that_is_not_a_stream(tmp_path) -> None:
    from xnnc.pte import to_pte

    (tmp_path / "m.pte").write_bytes(to_pte(_Causal().eval(), (torch.randn(1, 4, 8),)))
    with pytest.raises(XnncError, match=r"m.pte: not a streaming .pte \(it has no "
                       r"'xnnc_stream' method"):  # fmt: skip
        xnnc.StreamingPte(str(tmp_path / "m.pte"))


def test_frames_per_call_that_change(mimi, tmp_path) -> None:
    """One program takes 1 to 8 frames a call (the symbol F; XNNPACK reshapes per new
    count): chunks of changing sizes equal the offline decoder, on the extended runtime
    and from its `.pte` (the step exported with a Dim on the chunk) on stock ExecuTorch."""
    model, latent = mimi
    program = xnnc.compile(model, (latent[..., :4],), savable=True, streaming=xnnc.Streaming(
        frames_per_call=1, max_frames_per_call=8))  # fmt: skip
    assert program.num_partitions == 1 and program.outside() == []
    stream = program.open()
    sizes, start, chunks = [1, 3, 8, 2, 7, 5, 1, 4, 6, 3], 0, []
    for n in sizes:
        chunks.append(stream(latent[..., start : start + n]))
        start += n
    y = torch.cat([*chunks, stream.flush()], -1)
    assert _relative(y, model(latent[..., :start])) <= RTOL
    program.save(str(tmp_path / "step.pte"))
    on_pte = xnnc.StreamingPte(str(tmp_path / "step.pte")).open()
    start, chunks = 0, []
    for n in sizes:
        chunks.append(on_pte(latent[..., start : start + n]))
        start += n
    assert _relative(torch.cat([*chunks, on_pte.flush()], -1), y) <= RTOL
    stream.reset()
    with pytest.raises(
        InputError,
        match=r"stream: input 0 is \[1, 64, 9\] float32; expected "
        r"\[1, 64, F\] float32 \(1 to 8 frame\(s\) per call on axis 2\)",
    ):
        stream(torch.randn(1, 64, 9))
    on_pte.reset()
    with pytest.raises(InputError, match=r"\(1 to 8 frame\(s\) per call on axis 2\)"):
        on_pte(torch.randn(1, 64, 9))


def test_a_model_that_does_not_export_with_a_symbolic_time_axis() -> None:
    """A strided image model streamed over its width: the error says which dim the stream
    made symbolic, and why it does not import so."""
    from xnnc.errors import ModelImportError
    from xnnc.examples.models import make_resnet

    model, (x,) = make_resnet(small=True)
    with pytest.raises(ModelImportError, match=r"^streaming over dim 3 of input 0 \(made the "
                       r"symbol T\): node convolution: size .* is not affine"):  # fmt: skip
        xnnc.compile(model, (x,), streaming=xnnc.Streaming())


class _LengthInFloats(nn.Module):
    """EnCodec's `SConv1d` (the `encodec` package) pads by a length computed in floats:
    `math.ceil` of a division, which makes torch.export fix the time axis."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        frames = (x.shape[-1] - 3 + 2) / 1 + 1
        extra = (math.ceil(frames) - 1) + 3 - 2 - x.shape[-1]
        return self.conv(F.pad(x, (2, extra), mode="reflect"))


def test_a_length_computed_in_floats_names_the_guard_it_sets() -> None:
    """The error carries torch.export's first guard: the size arithmetic that fixed T."""
    from xnnc.errors import ModelImportError

    with pytest.raises(ModelImportError, match=r"^streaming over dim 2 of input 0 \(made the "
                       r"symbol T\): model _LengthInFloats: torch.export failed: Constraints "
                       r"violated \(T\): Not all values of T .* satisfy the generated guard "
                       r".*math\.ceil"):  # fmt: skip
        xnnc.compile(_LengthInFloats(), (torch.randn(1, 4, 8),), streaming=xnnc.Streaming())


class _Reflected(nn.Module):
    """EnCodec's causal convolutions: each left pad reflects its input's first frames."""

    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(4, 4, 3), nn.Conv1d(4, 4, 3)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = torch.tanh(conv(F.pad(x, (2, 0), mode="reflect")))
        return x


def test_a_pad_of_the_sequences_own_frames_is_named() -> None:
    """A reflect pad on the left reads frames a stream has not seen at its start: the
    compile warns once, naming the first such op and counting the others; the program lists
    each (`inexact`); the stream equals the offline model from the two pads' widths on and
    not before."""
    from xnnc.errors import StreamEdgeWarning

    torch.manual_seed(0)
    model = _Reflected().eval()
    x = torch.randn(1, 4, 16)
    with pytest.warns(StreamEdgeWarning, match=r"^xnnc\.compile: streaming: "
                      r"aten\.reflection_pad1d at .*: aten\.reflection_pad1d pads the time "
                      r"axis with the sequence's own frames, which a stream has not seen at "
                      r"its start: zeros stand for them.*; and 1 more op\(s\) alike "
                      r"\(program\.inexact\)$") as caught:  # fmt: skip
        program = xnnc.compile(model, (x[..., :8],), streaming=xnnc.Streaming())
    assert [w.category for w in caught].count(StreamEdgeWarning) == 1
    assert len(program.inexact) == 2
    y, ref = _stream(program, x, 1), model(x)
    assert _relative(y[..., 4:], ref[..., 4:]) <= RTOL
    assert _relative(y[..., :2], ref[..., :2]) > 1e-2


class _GatedLayer(nn.Module):
    """A WaveNet layer: a causal dilated convolution split in two along channels (tanh and
    sigmoid gates), residual and skip 1x1 convolutions."""

    def __init__(self, channels: int, dilation: int) -> None:
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(channels, 2 * channels, 2, dilation=dilation)
        self.res, self.skip = nn.Conv1d(channels, channels, 1), nn.Conv1d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a, b = self.conv(F.pad(x, (self.dilation, 0))).chunk(2, dim=1)
        z = torch.tanh(a) * torch.sigmoid(b)
        return x + self.res(z), self.skip(z)


class _WaveNet(nn.Module):
    def __init__(self, channels: int = 16, layers: int = 6) -> None:
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.layers = nn.ModuleList(_GatedLayer(channels, 2**i) for i in range(layers))
        self.out = nn.Conv1d(channels, 32, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x, total = self.inp(x), 0
        for layer in self.layers:
            x, skip = layer(x)
            total = total + skip
        return self.out(F.relu(total))


def test_a_gated_wavenet_stack_streams_exactly() -> None:
    """Splits along channels are frame-local (one op, two results on the time axis); the
    skip sum joins every layer: 16 samples a call equal the offline stack."""
    torch.manual_seed(0)
    model = _WaveNet().eval()
    program = xnnc.compile(model, (torch.randn(1, 1, 64),),
                           streaming=xnnc.Streaming(frames_per_call=16))  # fmt: skip
    assert program.num_partitions == 1 and program.outside() == []
    x = torch.randn(1, 1, 256)
    assert _relative(_stream(program, x, 16), model(x)) <= RTOL


def test_the_partitioner_refuses_streaming_options() -> None:
    from xnnc.pipeline.options import CompileOptions

    with pytest.raises(OptionError, match=r"XnncPartitioner: streaming compiles the whole "
                       r"model into a step; use xnnc.compile"):  # fmt: skip
        xnnc.XnncPartitioner(CompileOptions(streaming="frames=1"))


def test_a_program_with_its_time_axis_symbolic_streams(mimi, tmp_path) -> None:
    """An ExportedProgram (or its .pt2) exported with a Dim on the time axis streams as it
    is, its example inputs giving the axis; one exported with a fixed length is refused."""
    from torch.export import Dim

    model, latent = mimi
    example = (latent[..., :4].contiguous(),)
    ep = torch.export.export(model, example, dynamic_shapes={"latent": {2: Dim("T", min=2,
                             max=64)}})  # fmt: skip
    torch.export.save(ep, str(tmp_path / "m.pt2"))
    for exported in (ep, str(tmp_path / "m.pt2")):
        program = xnnc.compile(exported, streaming=xnnc.Streaming(frames_per_call=2))
        x = latent[..., :8]
        assert _relative(_stream(program, x, 2), model(x)) <= RTOL
    with pytest.raises(OptionError, match=r"aten-stream: no input has a symbolic time axis"):
        xnnc.compile(torch.export.export(model, example), streaming=xnnc.Streaming())


@pytest.mark.parametrize("frames", [1, 3])
def test_windowed_attention_streams_with_a_kv_cache(frames: int, tmp_path) -> None:
    """Mimi's decoder with its transformer (rotary positions, a 5-frame window at 25 Hz,
    layer scales of 1): 12 latent frames (24 at the transformer, past its window, so keys
    leave the cache) equal the offline decoder; each product of queries and keys keeps 4
    key frames, the rotary positions come from a counter. One subgraph. At 1 frame a call
    its `.pte` streams on stock ExecuTorch as the extended runtime does."""
    model, (latent,) = make_mimi_transformer_decoder(small=True)
    torch.manual_seed(1)
    latent = torch.randn(1, 64, 12)
    program = xnnc.compile(model, (latent[..., :4],), savable=frames == 1,
                           streaming=xnnc.Streaming(frames_per_call=frames))  # fmt: skip
    assert program.num_partitions == 1 and program.outside() == []
    roles = program.layout.roles
    assert roles.count("position") == 2  # one counter per layer's positions
    y = _stream(program, latent, frames)
    assert _relative(y, model(latent)) <= RTOL
    if frames == 1:
        program.save(str(tmp_path / "step.pte"))
        on_pte = _stream(xnnc.StreamingPte(str(tmp_path / "step.pte")), latent, 1)
        assert _relative(on_pte, y) <= RTOL


class _Attention(nn.Module):
    """One rotary attention layer over [B, C, T] whose mask is given as a function of the
    query and key positions (None: no mask)."""

    def __init__(self, mask) -> None:
        super().__init__()
        self.attention = _RotaryAttention(8, 2, context=3)
        self.mask = mask

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.transpose(1, 2)
        b, t, c = x.shape
        q, k, v = self.attention.in_proj(x).view(b, t, 3, 2, 4).permute(2, 0, 3, 1, 4)
        pos = torch.arange(t)
        mask = None if self.mask is None else self.mask(pos[:, None], pos[None, :])
        y = F.scaled_dot_product_attention(q, k, v, mask)
        return y.transpose(1, 2).reshape(b, t, c).transpose(1, 2)


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        (None, r"attends over the whole sequence \(no mask of frame positions bounds "
               r"how far back it looks\)"),
        (lambda q, k: q >= k, r"lets attention see every earlier frame \(a causal mask "
                              r"with no window\): its keys would grow without bound"),
        (lambda q, k: (q - k).abs() < 3, r"lets attention see later frames \(a non-causal mask\)"),
        (lambda q, k: (q >= k) & (k < 4), r"masks attention by more than the distance between "
                                          r"frames"),
    ],
)  # fmt: skip
def test_attention_the_stream_cannot_bound_is_refused(mask, message: str) -> None:
    """Attention that needs the whole sequence, or keys without bound, is refused with one
    line naming the op and its place in the model."""
    with pytest.raises(
        LocatedError, match=r"^aten\.\w+ at loc\(.*\): streaming: aten\.\w+ " + message
    ):
        xnnc.compile(_Attention(mask).eval(), (torch.randn(1, 8, 6),),
                     streaming=xnnc.Streaming())  # fmt: skip


class _SameConvsAroundAttention(nn.Module):
    """A "same"-padded convolution (2 frames of lookahead), a Mimi transformer layer, and
    another "same" convolution: the attention's keys arrive late."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(16, 16, 5, padding=2)
        self.layer = _MimiTransformerLayer(16, 2, 4, 32, 1.0)
        self.out = nn.Conv1d(16, 16, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.layer(self.conv(x).transpose(1, 2)).transpose(1, 2))


def test_attention_behind_a_lookahead() -> None:
    """Attention whose keys are 2 frames late: the program looks 3 frames ahead and its
    output, shifted by them, equals the offline output away from the edges (the first
    frame reads the second convolution's zero padding, which the stream computes; the last
    is the flush's zeros, as for any lookahead model)."""
    torch.manual_seed(0)
    model, x = _SameConvsAroundAttention().eval(), torch.randn(1, 16, 20)
    program = xnnc.compile(model, (x[..., :6],), streaming=xnnc.Streaming(lookahead="auto"))
    assert program.lookahead == 3
    y = _stream(program, x, 1)[..., 3:23]
    ref = model(x)
    assert _relative(y[..., 1:-1], ref[..., 1:-1]) <= RTOL
