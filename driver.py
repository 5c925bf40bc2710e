"""The driver: `compile` and `load`, above every stage of the compiler and the program.

    program = xnnc.compile(model, inputs, target="extended", threads=2)
    program = xnnc.load("m.xnnc")

A model goes frontend -> pipeline (conversion, transforms, legalization) -> Program once,
under one `CompileOptions` checked before any work starts; the Program (xnnc.program)
serializes its subgraphs and runs them.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch

from xnnc import heap
from xnnc.cost.rules import lstm_loop
from xnnc.errors import (
    FallbackError,
    FallbackWarning,
    ModelImportError,
    OptionError,
    StreamEdgeWarning,
    TrainingModeWarning,
)
from xnnc.pipeline.options import CompileOptions
from xnnc.program import Program
from xnnc.program.stream import Streaming, StreamingProgram
from xnnc.target import Target


def _exported_module(model: torch.nn.Module) -> bool:
    """Whether `model` is a graph module torch.export made: `ExportedProgram.module()`
    replaces its `train`/`eval` with ones that refuse (PT2E's modules keep them)."""
    return isinstance(model, torch.fx.GraphModule) and "eval" in vars(model)


def load(
    path: str, threads: int | None = None, profile: bool = False, *, savable: bool = False
) -> Program:
    """A program saved by `Program.save` (not a .pte: run those with ExecuTorch). With
    `savable`, the program keeps its blobs to save again. XnncError naming the file if it
    is missing, not a program file, damaged, or of another format version."""
    return Program.load(path, threads, profile, savable=savable)


def loops_lstms(options: CompileOptions) -> bool:
    """Whether a compile under `options` runs a static LSTM on xnnc's recurrent loop (the
    target's `lstm-loop` rule, unless disabled), rather than as one `xnn.lstm`."""
    return lstm_loop(options.target, options.disable).choice == "loop"


def compile(
    model: Any,
    example_inputs: Sequence[Any] | None = None,
    options: CompileOptions | None = None,
    *,
    target: Target | str | None = None,
    threads: int | None = None,
    profile: bool = False,
    exclude: Sequence[str] | str | None = None,
    disable: Sequence[str] | str | None = None,
    fp16: str | None = None,
    bf16: str | None = None,
    tune: bool | str | None = None,
    tuning_db: str | None = None,
    tune_budget_ms: float | None = None,
    savable: bool = False,
    dynamic_shapes: Any = None,
    strict: bool = False,
    streaming: Streaming | None = None,
) -> Program:
    """nn.Module + inputs, ExportedProgram or .pt2 (inputs may be left out: then
    `compile(ep, options)`) -> a runnable Program.

    `dynamic_shapes` is torch.export's argument (`torch.export.Dim` with min and max, e.g.
    `{"x": {2: Dim("T", min=1, max=64)}}`): the program then runs at any size in range
    (docs/dynamic-shapes.md). A program or `.pt2` with symbolic sizes carries its own.

    `options` (a CompileOptions), or its fields as keywords, which override it: target
    (a Target or a string such as "stock", "extended,x86-64-avx2,threads=2"), threads,
    exclude (aten op names kept out of XNNPACK), disable (passes or rewrite sets, e.g.
    "xnn-polyphase"), fp16 ("auto", "native" or "fp32"), bf16 ("fp32": between GEMMs in
    fp32, or "native": each result rounded as eager does), tune ("auto", True, False,
    "cached": measured layer choices on a host compile), tuning_db (the tuning database
    file) and tune_budget_ms (how long this compile may time layers: by default as long as
    its import took; `math.inf` fills the database now). Checked before any work starts.

    A module in training mode is compiled as it is (torch.export records dropout and
    batch-norm as in training), with a one-line `TrainingModeWarning` naming its class:
    call `model.eval()` first for inference. A graph module torch.export made (`ep.module()`,
    PT2E's `convert_pt2e`) has no mode to warn of: its graph recorded the one it was
    exported in, and it refuses `eval()`.

    `savable` keeps what `Program.save` and `Program.blobs` need: the ExportedProgram and
    the weights in the IR. Without it the program holds the weights only in XNNPACK's packed
    form.

    `streaming` (an `xnnc.Streaming`) compiles the model as a stream's step over the time
    axis of its first input: the result is a `StreamingProgram`, whose `open()` gives streams
    that take a chunk per call and keep their state (docs/streaming.md). The example input
    may have any length along the axis.

    Ops left to torch are named in one `FallbackWarning` line (each kind, its count and
    reason; `Program.fallback()`); with `strict`, they are a `FallbackError` instead."""
    from xnnc.frontend.fx_importer import export_program, import_model, torch_leftovers_dropped
    from xnnc.pipeline.stages import lower

    if isinstance(example_inputs, CompileOptions) and options is None:
        options, example_inputs = example_inputs, None  # compile(exported_program, options)
    if options is not None and not isinstance(options, CompileOptions):
        raise OptionError(f"options: expected a CompileOptions, got {type(options).__name__}")
    if streaming is not None and example_inputs is None:  # a program or .pt2: its examples
        model, example_inputs = _exported_with_examples(model)
    words = None if streaming is None else stream_words(streaming, example_inputs)
    options = CompileOptions.of(
        options, target=target, threads=threads, exclude=exclude, disable=disable, fp16=fp16,
        bf16=bf16, tune=tune, tuning_db=tuning_db, tune_budget_ms=tune_budget_ms,
        streaming=words,
    )  # fmt: skip
    if isinstance(model, torch.nn.Module) and model.training and not _exported_module(model):
        warnings.warn(
            f"xnnc.compile: model {type(model).__name__} is in training mode (dropout and "
            "batch norm act as in training); call model.eval() first for inference",
            TrainingModeWarning,
            stacklevel=2,
        )
    start = time.perf_counter()
    with torch_leftovers_dropped(), _streamed_import(streaming, example_inputs):
        if streaming is not None and dynamic_shapes is None:
            ep = _export_streamed(model, example_inputs, streaming)
        else:
            ep = export_program(model, example_inputs, dynamic_shapes)
        module = import_model(ep, loop_lstms=loops_lstms(options))
    # The decomposed program (graph, fake tensors) is gone: its heap goes back before
    # lowering builds on it (EnCodec's unrolled LSTM: 0.6x its weights).
    heap.trim()
    # Tuning may take as long as the import did (a cold compile stays near 2x an untuned
    # one), unless the options say how long.
    budget = options.tune_budget_ms
    if budget is None:
        budget = (time.perf_counter() - start) * 1e3
    module = lower(module, options, tune_budget_ms=budget)
    kind = StreamingProgram if options.streaming else Program
    if savable:
        program = kind(module, options, profile=profile, exported=ep)
    else:
        del ep  # its weights are the model's: no reference of ours is needed
        program = kind(module, options, profile=profile, unsavable=(
            "compiled without savable=True: the weights went to XNNPACK; "
            "compile with xnnc.compile(..., savable=True) to save"
        ))  # fmt: skip
    fallback = program.fallback()
    if fallback is not None and strict:
        raise FallbackError(f"xnnc.compile(strict=True): {fallback}")
    if fallback is not None:
        warnings.warn(f"xnnc.compile: {fallback}", FallbackWarning, stacklevel=2)
    if isinstance(program, StreamingProgram) and program.inexact:
        first, *more = program.inexact
        text = f"; and {len(more)} more op(s) alike (program.inexact)" if more else ""
        warnings.warn(f"xnnc.compile: streaming: {first}{text}", StreamEdgeWarning, stacklevel=2)
    return program


def _streamed(streaming: Streaming, example_inputs: Sequence[Any] | None) -> tuple[int, int]:
    """(index, axis) of the input a stream feeds: the first tensor."""
    if not isinstance(streaming, Streaming):
        raise OptionError(f"streaming: expected an xnnc.Streaming, got {type(streaming).__name__}")
    inputs = tuple(example_inputs or ())
    first = next((i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)), None)
    if first is None:
        raise OptionError("streaming: the example inputs have no tensor to stream")
    streaming.words(inputs[first].dim())  # checks the axis
    return first, streaming.axis % inputs[first].dim()


def _exported_with_examples(model: Any) -> tuple[Any, tuple]:
    """An ExportedProgram (or `.pt2`, loaded) and the example inputs it was exported with:
    a stream's axis is read from them."""
    from xnnc.frontend.fx_importer import export_program

    ep = export_program(model)
    examples = getattr(ep, "example_inputs", None)
    return ep, tuple(examples[0]) if examples else ()


def stream_words(streaming: Streaming, example_inputs: Sequence[Any] | None) -> str:
    """The `streaming` compile option for `streaming` over the first tensor input."""
    first, _ = _streamed(streaming, example_inputs)
    return streaming.words(tuple(example_inputs)[first].dim())


@contextmanager
def _streamed_import(streaming: Streaming | None, example_inputs: Any) -> Iterator[None]:
    """A model that does not export or import with its time axis symbolic: the error says
    which axis the stream made the symbol `T`."""
    try:
        yield
    except ModelImportError as e:
        if streaming is None:
            raise
        first, axis = _streamed(streaming, example_inputs)
        raise ModelImportError(
            f"streaming over dim {axis} of input {first} (made the symbol T): {e}"
        ) from None


def _export_streamed(model: Any, example_inputs: Sequence[Any], streaming: Streaming) -> Any:
    """The model exported with the stream's axis as the symbol `T`: from 2 frames (a size of
    1 would be specialized), else from the example's length (a model whose padding needs
    more, such as a reflect pad)."""
    from xnnc.frontend.fx_importer import export_program

    first, axis = _streamed(streaming, example_inputs)
    inputs = list(example_inputs)
    # A view's strides would tie the symbol to another tensor's size: export a copy.
    inputs[first] = inputs[first].contiguous().clone()
    if inputs[first].shape[axis] < 2:
        inputs[first] = inputs[first].repeat_interleave(2, dim=axis)
    frames = inputs[first].shape[axis]
    lows = [2] if frames == 2 else [2, frames]
    for low in lows:
        dim = torch.export.Dim("T", min=low, max=max(64, 4 * frames))
        shapes = tuple({axis: dim} if i == first else None for i in range(len(inputs)))
        try:
            return export_program(model, inputs, shapes)
        except ModelImportError:
            if low == lows[-1]:
                raise
    raise AssertionError("unreachable")
