"""Streaming programs: a model compiled as a per-chunk step (`aten-stream`), and the streams
that run it, each with its own state.

    program = xnnc.compile(decoder, (latent,), streaming=xnnc.Streaming(frames_per_call=1))
    stream = program.open()              # one stream; open as many as you like
    for frame in frames:                 # each [1, C, 1]
        audio = stream(frame)            # that frame's audio
    tail = stream.flush()                # what the offline model would still produce
    stream.reset()                       # start again

The step takes `(*inputs, *states)` and returns `(*outputs, *states)` (the module's
`xnnc.stream` attribute says which are which); a stream keeps the states its last call
returned and passes them to the next, so nothing is copied between calls. Many streams share
one program, each from its own thread; one stream refuses a second thread.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from threading import Lock
from typing import Any, Protocol

import torch
from xdsl.dialects.builtin import ModuleOp

from xnnc.dialects import xnn
from xnnc.errors import InputError, OptionError, XnncError
from xnnc.program.program import Program
from xnnc.pte.runtime import LAYOUT_METHOD, StockRuntime
from xnnc.transforms.streaming import (
    STREAM_ATTR,
    StreamLayout,
    dtype_name,
    parse_lookahead,
    stream_buffer,
)


@dataclass(frozen=True)
class Streaming:
    """Compile a model as a stream (`xnnc.compile(..., streaming=Streaming(...))`).

    axis: the time axis of the streamed input (its first tensor input; negative counts from
    the end). frames_per_call: frames of that input each call takes. lookahead: "none"
    refuses a model whose output needs later input (naming its first such op); "auto"
    delays the output by the fewest input frames that make it exact (`program.lookahead`);
    an int N delays it by N input frames. max_frames_per_call: with it, each call takes
    from frames_per_call to max_frames_per_call frames (one program; a new count costs one
    XNNPACK reshape), trading latency for throughput."""

    axis: int = -1
    frames_per_call: int = 1
    max_frames_per_call: int | None = None
    lookahead: str | int = "none"

    def __post_init__(self) -> None:
        if isinstance(self.axis, bool) or not isinstance(self.axis, int):
            raise OptionError(f"Streaming: axis must be an int, got {self.axis!r}")
        frames = self.frames_per_call
        if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
            raise OptionError(f"Streaming: frames_per_call must be an int >= 1, got {frames!r}")
        most = self.max_frames_per_call
        if most is not None and (isinstance(most, bool) or not isinstance(most, int)
                                 or most < frames):  # fmt: skip
            raise OptionError(f"Streaming: max_frames_per_call must be an int >= "
                              f"frames_per_call ({frames}), got {most!r}")  # fmt: skip
        try:
            parse_lookahead(self.lookahead)
        except OptionError as e:
            raise OptionError(f"Streaming: {e}") from None

    def words(self, rank: int) -> str:
        """The compile option's spelling (`CompileOptions.streaming`), the axis made
        non-negative for an input of `rank` dims."""
        if not -rank <= self.axis < rank:
            raise OptionError(f"Streaming: axis {self.axis} is out of range for the input's "
                              f"{rank} dims")  # fmt: skip
        most = f" max_frames={self.max_frames_per_call}" if self.max_frames_per_call else ""
        return (f"axis={self.axis % rank} frames={self.frames_per_call}{most} "
                f"lookahead={self.lookahead}")  # fmt: skip


class Step(Protocol):
    """What a stream runs: a `StreamingProgram`, or a streaming `.pte` on stock ExecuTorch
    (`xnnc.pte.stream`)."""

    layout: StreamLayout

    def step(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        """One call: `(*inputs, *states)` -> `[*outputs, *states]`."""
        ...

    def direct_runtime(self) -> tuple[Any, list[int], list[int]] | None: ...


class Streams:
    """What every step offers: `open()` and the stream's figures."""

    layout: StreamLayout

    @property
    def frames_per_call(self) -> int:
        return self.layout.frames

    @property
    def lookahead(self) -> int:
        """Input frames the output waits for: each output is the offline one shifted by
        `lookahead * rate` of its own frames (`delays`)."""
        return self.layout.lookahead

    @property
    def delays(self) -> tuple[int, ...]:
        """Each output's delay in its own frames (samples, for audio)."""
        return self.layout.delays

    @property
    def inexact(self) -> tuple[str, ...]:
        """The ops that make the stream differ from the offline model over its first frames
        (a pad of the time axis with the sequence's own frames), a line each: where the op
        is and why. Empty when the stream equals the offline model from its first frame."""
        return self.layout.inexact

    def state_nbytes(self) -> int:
        """Bytes of state one stream keeps."""
        return sum(math.prod(shape) * dtype.itemsize for shape, dtype in self.layout.states)

    def open(self) -> Stream:
        """A new stream at its start, with its own state."""
        return Stream(self)  # type: ignore[arg-type]


class StreamingProgram(Streams, Program):
    """A Program whose function is a stream's step; `open()` starts a stream."""

    def __init__(self, module: ModuleOp, *args: Any, **kwargs: Any):
        super().__init__(module, *args, **kwargs)
        layout = StreamLayout.of(module)
        if layout is None:
            raise XnncError("the module is not a stream's step (no xnnc.stream attribute)")
        self.layout = layout

    def step(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        results = self(*inputs)
        return list(results) if isinstance(results, (tuple, list)) else [results]

    def save(self, path: str) -> None:
        """Our program file, or a `.pte` whose method takes `(*inputs, *states)` and returns
        `(*outputs, *states)`, the layout in its `xnnc_stream` method (`xnnc.pte.stream`)."""
        if not str(path).endswith(".pte"):
            return super().save(path)
        self._check_savable(f"Program.save({str(path)!r})")
        if self._exported is None:
            raise XnncError(f"Program.save({str(path)!r}): a .pte needs the program compiled "
                            "from a model with xnnc.compile(..., savable=True)")  # fmt: skip
        tune = "auto" if self.options.tune is True else self.options.tune
        from xnnc.pte.stream import write_stream_pte  # ExecuTorch's compiler, when asked

        write_stream_pte(path, self._exported, self.options.replace(tune=tune))

    def direct_runtime(self) -> tuple[Any, list[int], list[int]] | None:
        """When the function is one subgraph on its arguments returning its results (each
        once), that subgraph's runtime, and the positions of the function's arguments among
        its inputs and of its results among its outputs: a stream then runs it on buffers of
        its own. None otherwise, or when profiling (the Program's call records the profile)."""
        block = self._func.body.block
        ops = list(block.ops)
        if self._profiling or len(ops) != 2 or not isinstance(ops[0], xnn.SubgraphOp):
            return None
        sub, ret = ops
        args, results = list(sub.operands), list(sub.results)
        if sorted(args, key=id) != sorted(block.args, key=id) or len(set(args)) != len(args):
            return None
        if sorted(ret.operands, key=id) != sorted(results, key=id):
            return None
        runtime = self.runtimes.get(sub)
        if not hasattr(runtime, "run_at"):
            return None
        where = [args.index(a) for a in block.args]
        return runtime, where, [results.index(r) for r in ret.operands]


Program.kinds[STREAM_ATTR] = StreamingProgram  # `load` makes a saved step one


class Stream:
    """One stream of a step (a StreamingProgram or a streaming `.pte`): `stream(*inputs)`
    runs a chunk, `flush()` returns the tail, `reset()` starts again, `state()` and
    `restore(s)` save and bring back."""

    def __init__(self, program: Step):
        self.program = program
        self.layout = program.layout
        self._lock = Lock()
        # The step's subgraph run on this stream's buffers: the inputs copied into its own,
        # the states written into a second set that becomes the first at the next call.
        direct = None if self.layout.min_frames != self.layout.frames else (
            program.direct_runtime())  # fmt: skip
        self._runtime = None if direct is None else direct[0]
        if direct is not None:
            _, self._arg_at, self._result_at = direct
            self._staged = [stream_buffer(shape, dtype) for shape, dtype in self.layout.inputs]
        self.reset()

    def reset(self) -> None:
        self._states = self.layout.initial_state()
        if self._runtime is not None:
            self._spare = self.layout.initial_state()
        self._flushed = False
        self._calls = 0

    def __call__(self, *inputs: Any) -> Any:
        if self._flushed:
            raise XnncError("stream: flushed; call reset() before streaming again")
        self._check(inputs)
        outputs = self._run(inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    def _check(self, inputs: tuple) -> None:
        layout = self.layout
        if len(inputs) != len(layout.inputs):
            raise InputError(f"stream: expected {len(layout.inputs)} input(s), got {len(inputs)}")
        for i, (x, (shape, dtype)) in enumerate(zip(inputs, layout.inputs, strict=True)):
            if not isinstance(x, torch.Tensor):
                raise InputError(f"stream: input {i} must be a tensor, got {type(x).__name__}")
            fits = len(x.shape) == len(shape) and all(
                n == want or (want == -1 and layout.min_frames <= n <= layout.frames)
                for n, want in zip(x.shape, shape))  # fmt: skip
            if not fits or x.dtype != dtype:
                count = (f"{layout.frames}" if layout.min_frames == layout.frames
                         else f"{layout.min_frames} to {layout.frames}")  # fmt: skip
                per_call = (
                    f" ({count} frame(s) per call on axis {layout.axis})"
                    if i == layout.input else ""
                )  # fmt: skip
                want = ", ".join("F" if n == -1 else str(n) for n in shape)
                raise InputError(
                    f"stream: input {i} is {list(x.shape)} {dtype_name(x.dtype)}; expected "
                    f"[{want}] {dtype_name(dtype)}{per_call}"
                )

    def _run(self, inputs: tuple) -> list[torch.Tensor]:
        if not self._lock.acquire(blocking=False):
            raise XnncError(
                "stream: called from two threads at once; open one stream per thread "
                "(program.open())"
            )
        try:
            if self._runtime is not None:
                return self._run_direct(inputs)
            inputs = tuple(x.contiguous() for x in inputs)
            results = self.program.step(*inputs, *self._states)
            n = len(self.layout.outputs)
            self._states = results[n:]
            self._calls += 1
            return results[:n]
        finally:
            self._lock.release()

    def _run_direct(self, inputs: tuple) -> list[torch.Tensor]:
        for staged, x in zip(self._staged, inputs, strict=True):
            staged.copy_(x)
        outputs = [torch.empty(shape, dtype=dtype) for shape, dtype in self.layout.outputs]
        states, spare = self._states, self._spare
        addresses = [0] * (len(self._arg_at) + len(self._result_at))
        for at, t in zip(self._arg_at, (*self._staged, *states), strict=True):
            addresses[at] = t.data_ptr()
        first = len(self._arg_at)
        for at, t in zip(self._result_at, (*outputs, *spare), strict=True):
            addresses[first + at] = t.data_ptr()
        self._runtime.run_at(addresses)
        self._states, self._spare = spare, states
        self._calls += 1
        return outputs

    def flush(self) -> Any:
        """The frames of each output the offline model produces after the last chunk: its
        tail past the rate, and the frames the lookahead held back. The stream feeds zero
        chunks with its "live" states at 0, which the step reads to take each value's
        frames past its end as the offline model's padding: exact. Then the stream is done
        until `reset()`."""
        if self._flushed:
            raise XnncError("stream: flushed already; call reset() before streaming again")
        layout = self.layout
        want = [d + t for d, t in zip(layout.delays, layout.tails, strict=True)]
        per_call = [int(r * layout.frames) for r in layout.rates]
        calls = max((math.ceil(w / n) for w, n in zip(want, per_call, strict=True) if w > 0),
                    default=0)  # fmt: skip
        zeros = [torch.zeros([layout.frames if n == -1 else n for n in shape], dtype=dtype)
                 for shape, dtype in layout.inputs]  # fmt: skip
        for state, role in zip(self._states, layout.roles, strict=True):
            if role == "live":  # the step masks the frames past each value's end
                state.zero_()
        parts: list[list[torch.Tensor]] = [[] for _ in want]
        for _ in range(calls):
            for i, y in enumerate(self._run(tuple(zeros))):
                parts[i].append(y)
        self._flushed = True
        tails = []
        for i, w in enumerate(want):
            axis = layout.axes[i]
            if parts[i]:
                tails.append(torch.cat(parts[i], axis).narrow(axis, 0, w))
            else:
                shape, dtype = layout.outputs[i]
                tails.append(torch.zeros([0 if d == axis else n for d, n in enumerate(shape)],
                                         dtype=dtype))  # fmt: skip
        return tails[0] if len(tails) == 1 else tuple(tails)

    def state(self) -> dict[str, Any]:
        """A copy of the stream's state, to `restore` into this stream or another of the same
        program."""
        return {"states": [s.clone() for s in self._states], "flushed": self._flushed,
                "calls": self._calls}  # fmt: skip

    def restore(self, state: dict[str, Any]) -> None:
        specs = self.layout.states
        states = state.get("states") if isinstance(state, dict) else None
        if not isinstance(states, list) or len(states) != len(specs):
            raise InputError(f"stream.restore: expected a state of {len(specs)} tensors from "
                             "stream.state()")  # fmt: skip
        for i, (s, (shape, dtype)) in enumerate(zip(states, specs, strict=True)):
            if not isinstance(s, torch.Tensor) or tuple(s.shape) != shape or s.dtype != dtype:
                want = f"{list(shape)} {dtype_name(dtype)}"
                raise InputError(f"stream.restore: state {i} is not a {want} tensor: not this "
                                 "program's state")  # fmt: skip
        for mine, saved in zip(self._states, states, strict=True):
            mine.copy_(saved)
        self._flushed = bool(state.get("flushed", False))
        self._calls = int(state.get("calls", 0))


class StreamingPte(Streams):
    """A streaming `.pte` (`StreamingProgram.save("m.pte")`) on stock ExecuTorch: `open()`
    gives streams, as a StreamingProgram does; each call runs the `.pte`'s method on the
    chunk and the stream's states."""

    def __init__(self, pte: str | os.PathLike | bytes, threads: int | None = None):
        if isinstance(pte, (bytes, bytearray)):
            data, name = bytes(pte), ".pte buffer"
        else:
            name = os.fspath(pte)
            if not os.path.exists(name):
                raise XnncError(f"{name}: no such file")
            with open(name, "rb") as f:
                data = f.read()
        self._runtime = StockRuntime(data, threads, name)
        try:
            text = self._runtime.constant(LAYOUT_METHOD)
        except KeyError:
            raise XnncError(
                f"{name}: not a streaming .pte (it has no '{LAYOUT_METHOD}' method; save one "
                "from xnnc.compile(..., streaming=..., savable=True))"
            ) from None
        self.layout = StreamLayout.from_json(text)

    def step(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        return list(self._runtime(*inputs))

    def direct_runtime(self) -> Any:
        return None
