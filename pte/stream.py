"""Streaming `.pte` files: a stream's step for stock ExecuTorch, its state carried as
explicit inputs and outputs, and the runner that drives it frame by frame.

    program = xnnc.compile(decoder, (latent,), streaming=xnnc.Streaming(), savable=True)
    program.save("step.pte")          # forward(*inputs, *states) -> (*outputs, *states)
    steps = xnnc.StreamingPte("step.pte")   # on stock ExecuTorch (xnnc.program.stream)
    stream = steps.open()             # the same Stream as a StreamingProgram's
    audio = stream(frame)

The step is the model's `aten-stream` form (the aten stage up to and including
`aten-stream`, as `xnnc.compile` runs it), exported again from xnnc's reference
interpreter with torch.export, so ExecuTorch sees the step's own torch ops and
`XnncPartitioner` delegates them as for any model. The stream's layout (`StreamLayout`)
goes in the `.pte` as the value of its `xnnc_stream` method. ExecuTorch 1.5.1's XNNPACK
delegate has no mutable buffers of its own, so the states are the method's inputs and
outputs; the runner passes each call's output states to the next call.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import PassPipeline

import xnnc
from xnnc.dialects import aten
from xnnc.errors import XnncError
from xnnc.frontend.fx_importer import import_model
from xnnc.interpreter.aten import run_reference
from xnnc.ir.constants import tensor_of
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import stage_passes
from xnnc.pte.export import write_pte
from xnnc.pte.runtime import LAYOUT_METHOD
from xnnc.transforms.streaming import StreamLayout, StreamPass


def step_module(exported: ExportedProgram, options: CompileOptions) -> ModuleOp:
    """The aten module of the step: `exported` (with its symbolic time axis) through the
    aten stage's passes up to and including `aten-stream`."""
    module = import_model(exported)
    aten = stage_passes(options)["aten"]
    last = next(i for i, p in enumerate(aten) if isinstance(p, StreamPass))
    PassPipeline(tuple(aten[: last + 1])).apply(xnnc.make_context(), module)
    return module


class _Step(torch.nn.Module):
    """The step's aten module run by the reference interpreter: torch.export records the
    torch ops it calls. Its constants are the module's buffers, so the program holds them
    as they are: a quantized weight reaches PT2E's dequantize as a constant, which
    ExecuTorch's partitioners need to take the op as quantized."""

    def __init__(self, module: ModuleOp):
        super().__init__()
        self.module = module
        self.constants: dict[Operation, torch.Tensor] = {}
        for op in module.walk():
            if isinstance(op, aten.ConstantOp):
                self.constants[op] = tensor_of(op.value, op.result.type)
                self.register_buffer(f"c{len(self.constants)}", self.constants[op])

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return run_reference(self.module, inputs, traced=True, constants=self.constants)


def step_program(
    exported: ExportedProgram, options: CompileOptions
) -> tuple[ExportedProgram, StreamLayout]:
    """The step as an ExportedProgram, and its layout. A frame count that changes from call
    to call (`min_frames` to `frames`) is the streamed input's Dim `F`; the rest is static."""
    module = step_module(exported, options)
    layout = StreamLayout.of(module)
    assert layout is not None, "aten-stream records the stream"
    example = [torch.zeros([layout.frames if n == -1 else n for n in shape], dtype=dtype)
               for shape, dtype in layout.inputs]  # fmt: skip
    example += layout.initial_state()
    shapes = None
    if layout.min_frames != layout.frames:
        frames = torch.export.Dim("F", min=layout.min_frames, max=layout.frames)
        shapes = (tuple({layout.axis: frames} if i == layout.input else None
                        for i in range(len(example))),)  # forward(*inputs)  # fmt: skip
    with torch.no_grad():
        step = torch.export.export(
            _Step(module), tuple(example), dynamic_shapes=shapes, strict=False
        )
    return step, layout


def write_stream_pte(path: str, exported: ExportedProgram, options: CompileOptions) -> None:
    """The step of `exported` streamed under `options` (`options.streaming`) as a `.pte`
    for stock ExecuTorch at `path`, its layout in the `xnnc_stream` method."""
    if not options.streaming:
        raise XnncError(f"{path}: not a streaming compile (no streaming options)")
    step, layout = step_program(exported, options)
    write_pte(path, step, options=options.replace(streaming=""),
              constant_methods={LAYOUT_METHOD: layout.to_json()})  # fmt: skip
