"""Quantized decoders streamed (issue 45): PT2E's static int8 (XNNPACKQuantizer per
channel) and dynamic int8 programs, exported with a symbolic time axis before
`prepare_pt2e` as a user who streams must, through `xnnc.compile(..., streaming=...)` and
the streaming `.pte` on stock ExecuTorch.

Reference and tolerance. The reference of a quantized stream is xnnc's offline program of
the same quantized model, not the PT2E model in eager: XNNPACK's integer kernels round
where PT2E's float emulation does not (stock ExecuTorch's lowering of the same model
equals xnnc's offline program and sits as far from eager). A stream computes each frame
from the same integers: its states hold the quantized values themselves (int8, a pad's
zero as the zero point), the integer sums are exact in any blocking, and XNNPACK's dynamic
quantization is per row (frame), so it sees the same frames in a chunk as in the whole
sequence. What remains is fp32 arithmetic (a float layer, the fp32 rescale of a dynamic
GEMM) summed in other blocks: the float streams' 1e-5 of the output's peak. One output
step of int8 rounding the other way would be ~1/255 of the range, so the bound also
asserts the integers are the same (measured: 0 for static, 6e-7 for dynamic).
"""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import ExportedProgram

import xnnc
from xnnc.examples.models import make_mimi_decoder, make_mimi_transformer_decoder
from xnnc.examples.quantized_models import quantize

RTOL = 1e-5
FRAMES = 16


def _relative(y: torch.Tensor, ref: torch.Tensor) -> float:
    return ((y - ref).abs().max() / ref.abs().max()).item()


def _stream(program, x: torch.Tensor, frames: int) -> torch.Tensor:
    stream = program.open()
    chunks = [stream(x[..., i : i + frames]) for i in range(0, x.shape[-1], frames)]
    return torch.cat([*chunks, stream.flush()], -1)


@functools.cache
def _quantized(name: str, dynamic: bool) -> tuple[ExportedProgram, torch.Tensor]:
    """The zoo decoder `name` (small) quantized by PT2E over a symbolic time axis, and a
    latent of FRAMES frames."""
    make = {"mimi": make_mimi_decoder, "mimi_transformer": make_mimi_transformer_decoder}[name]
    model, (example,) = make(small=True)
    torch.manual_seed(1)
    latent = torch.randn(1, example.shape[1], FRAMES)
    time = {2: torch.export.Dim("T", min=1, max=1024)}
    return quantize(model, (latent,), 4, dynamic=dynamic, dynamic_shapes=(time,)), latent


def _outside(program: xnnc.StreamingProgram) -> list[str]:
    """The step's ops stock ExecuTorch's lowering leaves outside the delegate."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte.stream import step_program

    step, _ = step_program(program._exported, program.options)
    options = program.options.replace(target="stock", streaming="")
    edge = to_edge_transform_and_lower(step, partitioner=[xnnc.XnncPartitioner(options)])
    return [n.target.__name__ for n in edge.exported_program().graph.nodes
            if n.op == "call_function" and "executorch_call_delegate" not in str(n.target)
            and n.target.__name__ != "getitem"]  # fmt: skip


@pytest.mark.parametrize("frames", [1, 3])
def test_static_int8_decoder_streams_as_its_offline_program(frames: int) -> None:
    """The Mimi-style decoder with int8 convolutions: one subgraph, its histories kept as
    int8 (a quarter of the float state), equal to the offline program from its first
    sample."""
    model, latent = _quantized("mimi", dynamic=False)
    latent = latent[..., : FRAMES // frames * frames]
    program = xnnc.compile(model, (latent[..., :4],),
                           streaming=xnnc.Streaming(frames_per_call=frames))  # fmt: skip
    assert program.num_partitions == 1 and program.outside() == []
    assert program.inexact == ()
    dtypes = [dtype for _, dtype in program.layout.states]
    assert dtypes.count(torch.int8) >= 4, dtypes  # the int8 convolutions' histories
    offline = xnnc.compile(model, (latent,))
    reference = offline(latent)
    y = _stream(program, latent, frames)
    assert y.shape == reference.shape
    assert _relative(y, reference) <= RTOL


def test_static_int8_stream_pte_on_stock_executorch(tmp_path) -> None:
    """Its streaming `.pte`: the step's quantize/dequantize pairs reach ExecuTorch as PT2E's
    ops and its int8 states as quantized inputs, so stock ExecuTorch runs it in one
    delegate, equal to xnnc's stream."""
    model, latent = _quantized("mimi", dynamic=False)
    program = xnnc.compile(model, (latent[..., :4],), streaming=xnnc.Streaming(), savable=True)
    assert _outside(program) == []
    program.save(str(tmp_path / "step.pte"))
    steps = xnnc.StreamingPte(str(tmp_path / "step.pte"))
    assert _relative(_stream(steps, latent, 1), _stream(program, latent, 1)) <= RTOL


def test_dynamic_int8_transformer_streams(tmp_path) -> None:
    """The Mimi-style decoder with its transformer, its linears dynamically quantized
    (qd8): the stream (KV cache and all) equals the offline program, and its `.pte` on
    stock ExecuTorch, in one delegate, equals the stream."""
    model, latent = _quantized("mimi_transformer", dynamic=True)
    program = xnnc.compile(model, (latent[..., :4],), streaming=xnnc.Streaming(), savable=True)
    assert program.num_partitions == 1 and program.outside() == []
    y = _stream(program, latent, 1)
    assert _relative(y, xnnc.compile(model, (latent,))(latent)) <= RTOL
    assert _outside(program) == []
    program.save(str(tmp_path / "step.pte"))
    assert _relative(_stream(xnnc.StreamingPte(str(tmp_path / "step.pte")), latent, 1), y) <= RTOL
