"""`aten-stream`: an offline model over a time axis becomes a step that takes one chunk of
frames per call and carries its state from call to call, in the IR.

The model is imported with its time axis symbolic (`T`), so each value's length along it is
affine in `T`: `a*T + b`. `a` is the value's rate (frames per input frame). The pass walks
the function once, in order, and gives each value on the time axis a chunk of `a*F` frames
(F frames per call) holding its frames `[n*a*F - D, (n+1)*a*F - D)` at call n: D is the
value's delay, in its own frames. Each op's rule builds its chunk from its operands' chunks
and, where it reads frames of earlier calls, from a state:

- `constant_pad_nd` on the time axis moves the frames (D - left); what it pads with fills
  the history of the convolution that reads it (causal padding);
- a convolution keeps `h = D_out*s + p - D_in` frames of its input's history (causal:
  `(k - 1) * dilation`), reads history and chunk without padding on the time axis, and its
  output is D_out = ceil((D_in + K - s - p) / s) frames late: a non-causal ("same") one
  looks ahead; a strided one keeps its phase in h;
- a transposed convolution carries its overlap to the next call, in one of two forms
  (`transposed=`): "history" (the default) keeps the ceil((K - s) / s) input frames whose
  outputs overlap this call's and crops the output to the call's frames, which
  `xnn-polyphase` turns into a stride-1 convolution over exactly those frames (nothing
  computed twice, no tail to add); "carry" runs on the chunk alone and carries the tail of
  its output (K - s frames, before the bias), added to the next call's first frames. Its
  padding and a slice of the time axis that starts at `st` move the frames (D + p, D + st);
  where a slice ends is the offline tail;
- frame-local ops (elementwise, activations, casts, linear and norms over other dims,
  permutes and views that keep the axis) run on the chunks, with no state: operands of
  unequal delay are aligned first, the earlier one through a delay line of the difference;
- attention (the time axis on two dims, queries by keys) over a window: the product of
  queries and keys keeps the keys of the window's earlier frames (a KV cache), and the
  product with the values the same values. The window is read off the model's mask, a
  value computed from frame positions alone, evaluated at a few hundred frames: it must
  depend on the distance of query and key only and let no later key through; it becomes
  the constant of the call's queries and keys. Keys before the stream's start get -inf
  before the softmax over keys (a state of -inf the call's frames push out);
- `torch.arange(T)` read by the stream's values (rotary positions) is a counter state,
  the position of the call's first frame, plus the call's offsets;
- an op that needs the whole sequence (a reduction, softmax or norm over time, a view that
  folds time into another dim, attention without a window) is refused with one line naming
  the op.

The edges. A value D frames late holds, over the stream's first calls, D frames before its
frame 0, which the layers before computed from the stream's start; and the calls of
`flush()`, fed zeros, compute frames past each value's end. The offline model has neither:
a convolution or a pad reads its padding there. So an fp32 value a convolution or a pad
reads is masked to that padding before it: `clamp(min(terms), 0, 1)` over the call's
frames j, each term `rate * count + j + offset` or its negation, from a count of the input
frames before the call (a state, "frames") and, when the stream needs `flush()` (a
lookahead or an output tail; found by walking the function once without), of those after
the stream's end ("past", counted while the "live" state, which the runner sets to 0 in
`flush()`, is 0). A lookahead model then equals the offline model from its first sample
to its last.

The function then takes `(chunk, *other inputs, *states)` and returns `(*outputs,
*states)`, with static shapes (F frames) when F is a number. Each rewritten op records
what the analysis found: `xnnc.stream = {rate = "16", delay = 0}` on every op on the time
axis, with `history = h` where it keeps input frames (key or value frames on attention's
products), `carry = c` where it carries an output tail, `delay_line = d` on an alignment,
`edges = n` where n masks replace frames past an edge, `recurrent = 1` on an LSTM and
`position = 1` on a position counter. The module
records the stream, `xnnc.stream = {axis, frames, min_frames, input, lookahead, delays,
tails, rates, axes, states, fills}`, which `StreamLayout` reads.

lookahead: "none" refuses a model whose output is late (its first op that looks ahead is
named), "auto" delays the outputs by the smallest whole number of input frames L that makes
them exact, an int N delays them by N >= L. max-frames: frames per call from `frames` to
it, the symbol F.

    xnn-opt m.mlir -p 'aten-stream{frames=1 lookahead=auto}'
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f64,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.conversion.lstm import KEPT_LSTM
from xnnc.dialects import aten
from xnnc.dialects.locations import op_label, where
from xnnc.dialects.quant import quant_type
from xnnc.dialects.types import (
    SymbolsAttr,
    dims_of_type,
    element_type,
    int_value,
    ints,
    module_attribute,
    tensor_type,
)
from xnnc.errors import LocatedError, OptionError
from xnnc.ir.aten_builder import AtenBuilder, int_array
from xnnc.ir.dtypes import TORCH_DTYPES, torch_dtype
from xnnc.ir.rebuild import rebuilt

STREAM_ATTR = "xnnc.stream"
LOOKAHEADS = ("none", "auto")
FRAMES_SYMBOL = "F"  # frames per call, when it changes from call to call
_TO_END = 2**63 - 1  # a slice's end at the end of its dim, as torch.export writes it
Size = int | DimExpr
TRANSPOSED_FORMS = ("history", "carry")

# Ops that compute each frame from the same frame of their operands (and of constants),
# provided the dims they work along are not the time axis (`_local_dims`).
_FRAME_LOCAL = (
    aten._Unary,
    aten._Binary,
    aten.PreluOp,
    aten.WhereOp,
    aten.LinearOp,
    aten.MatmulOp,
    aten._Reduce,
    aten.BatchNormOp,
    aten.LayerNormOp,
    aten.PermuteOp,
    aten.ViewOp,
    aten.SqueezeOp,
    aten.UnsqueezeOp,
    aten.ExpandOp,
    aten.SliceOp,
    aten.SelectOp,
    aten.CatOp,
    aten.FlipOp,
    aten.QuantizeOp,
    aten.DequantizeOp,
)


def _stored_fill(type: TensorType, fill: float, op: Operation) -> float:
    """What a state of `type` holds for `fill`: the value itself, or a quantized state's
    storage integer for it (the pad value of a quantized model is its zero point's)."""
    q = quant_type(type.element_type)
    if q is None:
        return fill
    if not q.per_tensor or not math.isfinite(fill):
        kind = "per-tensor quantized" if q.per_tensor else "quantized per channel"
        raise _Refused(op, f"keeps a history of {kind} values starting as {fill}: a "
                       "quantized history starts from a finite value of one scale")  # fmt: skip
    lo, hi = q.storage_range
    return float(min(max(round(fill / q.scale) + q.zero_point, lo), hi))


def parse_lookahead(text: str | int) -> str | int:
    """ "none", "auto" or a whole number of input frames (OptionError otherwise)."""
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text
    if isinstance(text, str) and text in LOOKAHEADS:
        return text
    if isinstance(text, str) and text.isdigit():
        return int(text)
    raise OptionError(f"lookahead: expected 'none', 'auto' or frames >= 0, got {text!r}")


# The frame counts a mask of frame positions is computed at to find its window: the
# second when the first shows no bound within half its frames.
_MASK_FRAMES = (512, 4096)


def _mask_frames(need: int, rate: Fraction) -> int:
    """The input frame count to compute a mask at so that it holds `need` of its frames
    (`rate` per input frame): one of `_MASK_FRAMES` when it does (band computed those), else
    just enough."""
    return next((n for n in _MASK_FRAMES if n * rate >= need), math.ceil(need / rate))


@dataclass
class _Timed:
    """A value on the time axis: its new chunk, the dim, rate and delay (own frames)."""

    chunk: SSAValue
    dim: int
    rate: Fraction
    delay: int
    fill: float = 0.0  # what frames before the stream's start hold (a causal pad's value)
    end: int = 0  # its offline length past `rate` frames per input frame (a*T + end)


@dataclass
class _Pair:
    """A value with the time axis on two dims, queries by keys (attention scores): its new
    chunk holds the call's query frames (delay as `_Timed`) by the `keys` key frames before
    them and the call's own."""

    chunk: SSAValue
    query: int
    key: int
    rate: Fraction
    delay: int
    keys: int


class _Refused(Exception):
    def __init__(self, op: Operation, problem: str):
        super().__init__(problem)
        self.op, self.problem = op, problem


class _Stepper:
    """Builds the step function of `func` into `block` (see the module docstring)."""

    def __init__(
        self, func: FuncOp, symbol: str, coeff: int, frames: int, transposed: str,
        max_frames: int = 0, ends: bool = False,
    ):  # fmt: skip
        self.func, self.symbol, self.coeff, self.frames = func, symbol, coeff, frames
        self.transposed = transposed
        # frames per call: the symbol F (its range on the module) when they change
        self.dynamic = max_frames > frames
        self.max_frames = max(frames, max_frames)
        # the stream ends with `flush()`: the frames past a value's end are masked too
        self.ends = ends
        self.masks: dict[Any, SSAValue] = {}  # the masks of the call's frames and their terms
        self.lives: dict[str, SSAValue] = {}  # the frame counts (`counted`)
        self.streamed = 0  # the streamed input's index (`StreamPass`)
        self.block = Block()
        self.values: dict[SSAValue, SSAValue] = {}
        self.timed: dict[SSAValue, _Timed] = {}
        self.states: list[tuple[SSAValue, SSAValue | None, float, str]] = []  # arg, next, fill
        self.first_late: Operation | None = None
        # a channels-last state's value as the step reads it -> its argument, permutation
        self.stored: dict[SSAValue, tuple[SSAValue, list[int]]] = {}
        # values computed from frame positions alone (`torch.arange(T)`), built when a
        # value of the stream reads them (`positions`)
        self.deferred: dict[SSAValue, Operation] = {}
        self.pairs: dict[SSAValue, _Pair] = {}  # attention scores: queries x keys
        # ops whose stream differs from the offline model over its first frames
        self.inexact: list[str] = []
        # frame count -> the reference interpreter and the position values it computed
        self.evaluated: dict[int, tuple[Any, dict[SSAValue, torch.Tensor]]] = {}

    # --- values -----------------------------------------------------------------------------

    def time_dims(self, value: SSAValue) -> list[tuple[int, DimExpr]]:
        """The dims of `value` on the time axis, with their sizes."""
        if not isinstance(value.type, TensorType):
            return []
        return [
            (i, d)
            for i, d in enumerate(dims_of_type(value.type))
            if isinstance(d, DimExpr) and self.symbol in d.symbols
        ]

    def time_of(self, value: SSAValue, op: Operation) -> tuple[int, Fraction, int] | None:
        """(dim, rate, offline offset) of a value on the time axis, or None."""
        dims = self.time_dims(value)
        if not dims:
            return None
        if len(dims) > 1:
            raise _Refused(
                op,
                "has the time axis on two dims (attention over the whole "
                "sequence): it needs the whole sequence",
            )
        (i, d), = dims  # fmt: skip
        if len(d.terms) != 1:
            raise _Refused(op, f"size {d} mixes the time axis with other symbols")
        return i, Fraction(dict(d.terms)[self.symbol], self.coeff), d.const

    def length(self, rate: Fraction, op: Operation) -> int | DimExpr:
        """A value's frames per call, at `rate` frames per input frame."""
        if self.dynamic:
            if rate.denominator != 1:
                raise _Refused(op, f"makes {rate} frames per input frame: a frame count per "
                               "call that changes needs whole frames per input frame")  # fmt: skip
            return DimExpr.symbol(FRAMES_SYMBOL) * rate.numerator
        n = rate * self.frames
        if n.denominator != 1:
            raise _Refused(op, f"makes {n} frames of {self.frames} input frame(s) per call: "
                           f"stream a multiple of {n.denominator} frames per call")  # fmt: skip
        return int(n)

    def cut(self, b: AtenBuilder, x: SSAValue, dim: int, start: Size, stop: Size) -> SSAValue:
        """Frames [start, stop) of `x` along `dim`. Where a bound is symbolic (a frame
        count per call that changes), the slice counts it from the end, which XNNPACK's
        slice resolves at each reshape."""
        total = dims_of_type(x.type)[dim]
        if all(isinstance(n, int) for n in (start, stop, total)):
            return b.slice(x, dim, start, stop)
        first = start if isinstance(start, int) else start - total
        last = _TO_END if stop == total else (stop if isinstance(stop, int) else stop - total)
        assert isinstance(first, int) and isinstance(last, int), "a fixed distance from an end"
        props = {"dim": IntegerAttr(dim, i64), "start": IntegerAttr(first, i64),
                 "end": IntegerAttr(last, i64)}  # fmt: skip
        return b.op(aten.SliceOp, [x], self.chunk_type(x, dim, stop - start), **props)

    def chunk_type(self, value: SSAValue, dim: int, length: Size) -> TensorType:
        shape = list(dims_of_type(value.type))
        shape[dim] = length
        return tensor_type(element_type(value), shape)

    def new(self, value: SSAValue) -> SSAValue | None:
        timed = self.timed.get(value)
        return timed.chunk if timed is not None else self.values.get(value)

    def state(
        self, type: TensorType, fill: float, role: str, at: Operation | None = None
    ) -> SSAValue:
        """A new function argument of `type`, carried to the next call (`carry_out` sets
        what goes back), `fill` everywhere at the stream's start. With `at` (the op it is
        built for), a state of a [N, C, ..., T] value is kept channels last, [N, ..., T, C],
        the layout XNNPACK's convolutions work in, so that no transpose runs at the
        step's boundary; the returned value is [N, C, ..., T] as `type` says."""
        rank = len(type.get_shape())
        order = [0, *range(2, rank), 1] if at is not None and rank >= 3 else None
        stored = type if order is None else tensor_type(
            type.element_type, [type.get_shape()[d] for d in order])  # fmt: skip
        arg = self.block.insert_arg(stored, len(self.block.args))
        arg.name_hint = f"{role}{len(self.states)}"
        self.states.append((arg, None, fill, role))
        if order is None:
            return arg
        back = [order.index(d) for d in range(rank)]
        value = self.builder(at).permute(arg, back)
        self.stored[value] = (arg, order)
        return value

    def carry_out(self, state: SSAValue, value: SSAValue, at: Operation | None = None) -> None:
        arg, order = self.stored.get(state, (state, None))
        if order is not None:
            value = self.builder(at).permute(value, order)
        i = next(i for i, s in enumerate(self.states) if s[0] is arg)
        _, _, fill, role = self.states[i]
        self.states[i] = (arg, value, fill, role)

    def builder(self, op: Operation) -> AtenBuilder:
        return AtenBuilder(self.block.add_op, op)

    def window(
        self, op: Operation, value: SSAValue, frames: int, chunk: SSAValue | None = None
    ) -> SSAValue:
        """`value`'s chunk (or `chunk`, the same frames) after `frames` frames of its history
        (a state kept channels last, the convolutions' layout); negative: the chunk without
        its first frames."""
        t = self.timed[value]
        chunk = t.chunk if chunk is None else chunk
        if frames > 0:
            return self.history(op, chunk, t, frames, "history", channels_last=True)
        length = self.length(t.rate, op)
        return self.cut(self.builder(op), chunk, t.dim, -frames, length) if frames else chunk

    def history(
        self, op: Operation, chunk: SSAValue, t: _Timed, frames: int, role: str,
        channels_last: bool = False,
    ) -> SSAValue:  # fmt: skip
        """`chunk` (of a value at `t`'s dim and rate) after its last `frames` frames, a
        state named `role`: channels last (see `state`) or as laid out (a KV cache)."""
        b = self.builder(op)
        length = self.length(t.rate, op)
        at = op if channels_last else None
        kept = self.chunk_type(chunk, t.dim, frames)
        state = self.state(kept, _stored_fill(kept, t.fill, op), role, at)
        joined = b.cat([state, chunk], t.dim)
        self.carry_out(state, self.cut(b, joined, t.dim, length, length + frames), at)
        return joined

    def aligned(self, op: Operation, value: SSAValue, delay: int) -> SSAValue:
        """`value`'s chunk at `delay` frames (at least its own), through a delay line when
        it is earlier."""
        t = self.timed[value]
        return t.chunk if t.delay == delay else self.delayed(op, value, delay - t.delay)

    def delayed(self, op: Operation, value: SSAValue, frames: int) -> SSAValue:
        """`value`'s chunk `frames` frames later (a delay line), as a new timed value."""
        t = self.timed[value]
        joined = self.window(op, value, frames)
        chunk = self.cut(self.builder(op), joined, t.dim, 0, self.length(t.rate, op))
        _note(chunk.owner, t.rate, t.delay + frames, **{"delay_line": frames})
        return chunk

    def known(self, op: Operation, t: _Timed, fill: float) -> SSAValue:
        """`t`'s chunk with the frames the offline model does not have replaced by `fill`,
        for an op that reads neighbouring frames (a convolution, a pad) and must see there
        what the offline model reads (its padding: zeros, or a pad's value):
        - before its frame 0: a value `t.delay` frames late holds them over the stream's
          first calls, computed by the layers before from the stream's start;
        - past its end (`self.ends`): the calls of `flush()` compute them from the zero
          chunks it feeds.
        fp32 chunks only (the masks count frames in fp32); others are left as they are and
        named in `inexact`."""
        fed = t.chunk in self.block.args and fill == 0.0  # `flush()` feeds zeros: padding
        begins, ends = t.delay > 0, self.ends and t.delay + t.end >= 0 and not fed
        if not (begins or ends):
            return t.chunk
        if element_type(t.chunk) != Float32Type():
            self.inexact.append(
                f"{where(op)}: {op_label(op)} reads {element_type(t.chunk)} frames the offline "
                "model pads (before the stream's start or past its end), which the stream "
                "masks in fp32 only: its first or last frames differ from the offline model's"
            )
            return t.chunk
        b = self.builder(op)
        terms = []  # integers, >= 1 on the frames the offline model has
        if begins:  # frame j is at `calls + j - delay`: >= 0
            terms.append(self.frame_term(op, t, self.counted(op, "frames"), 1 - t.delay))
        if ends:  # frame j is at `past + j - delay`, after the end: < `end`
            terms.append(self.frame_term(op, t, self.counted(op, "past"), t.delay + t.end, -1))
        key = tuple(id(v) for v in terms)
        if key not in self.masks:
            least = terms[0] if len(terms) == 1 else b.binary(aten.MinimumOp, *terms)
            bounds = {"min": FloatAttr(0.0, f64), "max": FloatAttr(1.0, f64)}
            self.masks[key] = b.op(aten.ClampOp, [least], least.type, **bounds)
        mask = self.masks[key]
        if fill == 0.0:
            known = b.binary(aten.MulOp, t.chunk, mask)
        else:
            shifted = b.binary(aten.MulOp, b.binary(aten.SubOp, t.chunk, fill), mask)
            known = b.binary(aten.AddOp, shifted, fill)
        _note(known.owner, t.rate, t.delay, edges=len(terms))
        return known

    def frame_term(
        self, op: Operation, t: _Timed, counted: SSAValue, offset: int, sign: int = 1
    ) -> SSAValue:
        """sign * (rate * counted + j) + offset for the call's frames j of a value at `t`'s
        rate and dim: integers, exact in fp32. One per key, shared by every reader."""
        rank = len(dims_of_type(t.chunk.type))
        key = (t.rate, t.dim, rank, id(counted), offset, sign)
        if key in self.masks:
            return self.masks[key]
        b = self.builder(op)
        length = self.length(t.rate, op)
        shape = [1] * rank
        most = length if isinstance(length, int) else int(self.max_frames * t.rate)
        shape[t.dim] = most
        ramp = torch.arange(most, dtype=torch.float32).reshape(shape) * sign + offset
        frames = b.constant(ramp, f"stream.frames{most}{'+' if sign > 0 else '-'}{offset}")
        if not isinstance(length, int):
            frames = self.first_frames(b, frames, t.chunk, t.dim, length)
        rate = t.rate * sign
        scaled = (id(counted), rate, rank)  # the count at this rate, of this rank: shared
        if scaled not in self.masks:
            count = counted if rate == 1 else b.binary(aten.MulOp, counted, float(rate))
            self.masks[scaled] = b.view(count, [1] * rank)
        self.masks[key] = b.binary(aten.AddOp, frames, self.masks[scaled])
        return self.masks[key]

    def counted(self, op: Operation, what: str) -> SSAValue:
        """A count of input frames before this call, a state: "frames", all of them (it
        stops at 2^24, where fp32 stops counting, which every mask reads as "long past");
        "past", those after the stream's end (the calls `flush()` makes: the runner sets
        the "live" state from 1 to 0), and -2^20 while the stream is live."""
        if what in self.lives:
            return self.lives[what]
        b = self.builder(op)
        f32 = TensorType(Float32Type(), [1])
        count = self.state(f32, 0.0, what)
        per_call = self.call_frames(b)
        if what == "frames":
            counted = b.binary(aten.AddOp, count, per_call)
            self.carry_out(count, b.op(aten.ClampOp, [counted], f32, max=FloatAttr(2.0**24, f64)))
        else:
            live = self.state(f32, 1.0, "live")
            self.carry_out(live, b.binary(aten.MulOp, live, live))  # x * x keeps 0 and 1
            ended = b.binary(aten.SubOp, b.constant(torch.ones(1), "stream.one"), live)
            after = ended if per_call == 1.0 else b.binary(aten.MulOp, ended, per_call)
            self.carry_out(count, b.binary(aten.AddOp, count, after))
            # while live, a count far before the end: every frame is before it
            count = b.binary(aten.SubOp, count, b.binary(aten.MulOp, live, float(2**20)))
        self.lives[what] = count
        return count

    def call_frames(self, b: AtenBuilder) -> SSAValue | float:
        """The input frames of this call: a number, or (frames changing from call to call)
        a [1] value, the last of 1..F over the streamed input's chunk."""
        if not self.dynamic:
            return float(self.frames)
        t = self.timed[self.func.body.block.args[self.streamed]]
        shape = [1] * len(dims_of_type(t.chunk.type))
        shape[t.dim] = self.max_frames
        ramp = b.constant(torch.arange(1, self.max_frames + 1, dtype=torch.float32)
                          .reshape(shape), f"stream.count{self.max_frames}")  # fmt: skip
        length = self.length(t.rate, self.func)
        counts = self.first_frames(b, ramp, t.chunk, t.dim, length)
        return b.view(self.cut(b, counts, t.dim, length - 1, length), [1])

    def first_frames(
        self, b: AtenBuilder, most: SSAValue, chunk: SSAValue, dim: int, length: DimExpr
    ) -> SSAValue:
        """The first `length` (F, changing from call to call) frames along `dim` of `most`, a
        constant of the most frames a call: [most, any F frames of `chunk`][:F], a slice
        counted from the end, which XNNPACK resolves at each reshape."""
        for d, n in enumerate(dims_of_type(chunk.type)):
            if d != dim and n != 1:
                chunk = b.slice(chunk, d, 0, 1)
        return self.cut(b, b.cat([most, chunk], dim), dim, 0, length)

    # --- the walk ---------------------------------------------------------------------------

    def run(self) -> list[int]:
        """Builds the step function's body but its return; each output's offline tail (the
        constant of its length: frames past its rate)."""
        body = self.func.body.block
        for arg in body.args:
            timed = self.time_of(arg, self.func)
            if timed is None:
                new = self.block.insert_arg(arg.type, len(self.block.args))
                self.values[arg] = new
            else:
                dim, rate, end = timed
                length = self.length(rate, self.func)
                new = self.block.insert_arg(self.chunk_type(arg, dim, length), len(self.block.args))
                self.timed[arg] = _Timed(new, dim, rate, 0, end=end)
            new.name_hint = arg.name_hint
        for op in list(body.ops):
            if isinstance(op, ReturnOp):
                return self.outputs(op)
            self.step(op)
        raise AssertionError("a function body ends with func.return")

    def outputs(self, ret: ReturnOp) -> list[int]:
        if any(v not in self.timed for v in ret.operands):
            raise _Refused(ret, "returns a value without the time axis")
        self.returned = list(ret.operands)
        return [self.time_of(v, ret)[2] for v in ret.operands]

    def step(self, op: Operation) -> None:
        timed_in = [v for v in op.operands if v in self.timed or v in self.pairs]
        if not timed_in:
            if (
                _is_arange(op)
                and self.time_dims(op.results[0])
                or any(v in self.deferred for v in op.operands)
            ):  # frame positions, and what is computed from them alone
                self.deferred.update((r, op) for r in op.results)
                return
            if any(self.time_dims(r) for r in op.results):
                raise _Refused(op, "makes a time axis from no input along it")
            self.move(op)
            return
        for v in op.operands:
            if v in self.deferred and len(self.time_dims(v)) == 1:
                self.positions(v)
        if any(len(self.time_dims(v)) > 1 for v in (*op.operands, *op.results)):
            self.attend(op)
            return
        timed_out = [(r, self.time_of(r, op)) for r in op.results]
        if isinstance(op, aten.GenericOp) and op.target.data in ("aten::lstm.input", KEPT_LSTM):
            self.lstm(op)
            return
        if isinstance(op, (aten.SplitWithSizesOp, aten.LayerNormOp)) and all(
            t for _, t in timed_out
        ):  # pieces of another dim; a norm's statistics: each on the time axis
            self.local(op)
            return
        if len(op.results) != 1 or timed_out[0][1] is None:
            if isinstance(op, _FRAME_LOCAL):
                self.check_local(op)
            raise _Refused(op, "drops the time axis: it needs the whole sequence")
        if isinstance(op, (aten.ConstantPadNdOp, aten._SpatialPad)):
            self.pad(op)
        elif isinstance(op, aten.ConvolutionOp):
            transposed = op.transposed.value.data
            (self.conv_transposed if transposed else self.conv)(op)
        elif isinstance(op, aten.SliceOp) and self.on_time(op, op.input, op.dim):
            self.slice(op)
        elif isinstance(op, _FRAME_LOCAL):
            self.local(op)
        elif isinstance(op, aten.PadCircularOp):
            raise _Refused(op, "pads the time axis with frames from its far end")
        else:
            raise _Refused(op, "has no streaming rule (it may need the whole sequence)")

    def move(self, op: Operation) -> None:
        """An op off the time axis (weights, constants): moved as it is."""
        for i, v in enumerate(op.operands):
            if v in self.values:
                op.operands[i] = self.values[v]
        op.detach()
        self.block.add_op(op)
        for r in op.results:
            self.values[r] = r

    def on_time(self, op: Operation, value: SSAValue, dim_attr: Attribute | None) -> bool:
        t = self.timed[value]
        rank = len(dims_of_type(value.type))
        dim = int_value(dim_attr) if dim_attr is not None else 0
        return dim % rank == t.dim

    def record(self, old: SSAValue, chunk: SSAValue, delay: int, fill: float = 0.0) -> None:
        dim, rate, end = self.time_of(old, old.owner)
        if delay > 0 and self.first_late is None:
            inputs = [self.timed[v].delay for v in old.owner.operands if v in self.timed]
            if all(d <= 0 for d in inputs):
                self.first_late = old.owner
        self.timed[old] = _Timed(chunk, dim, rate, delay, fill, end)

    # --- rules ------------------------------------------------------------------------------

    def pad(self, op: aten.ConstantPadNdOp | aten._SpatialPad) -> None:
        """A pad of the time axis moves the frames by its left size. Frames before the
        stream's start hold a constant pad's value; a reflect or replicate pad's would be
        the stream's first frames, and zeros stand for them (exact from its width on)."""
        t = self.timed[op.input]
        key = "pad" if isinstance(op, aten.ConstantPadNdOp) else "padding"
        pad = list(ints(op.properties[key]))
        rank = len(dims_of_type(op.input.type))
        i = 2 * (rank - 1 - t.dim)
        left, right = (pad[i], pad[i + 1]) if i < len(pad) else (0, 0)
        value = op.properties.get("value")
        fill = float(value.value.data) if value is not None else 0.0
        chunk = self.known(op, t, fill) if left or right else t.chunk
        if left and not isinstance(op, aten.ConstantPadNdOp):
            self.inexact.append(
                f"{where(op)}: {op_label(op)} pads the time axis with the sequence's own "
                "frames, which a stream has not seen at its start: zeros stand for them, and "
                "the stream's first frames differ from the offline model's"
            )
        if i < len(pad):
            pad[i] = pad[i + 1] = 0
        if any(pad):  # other dims padded too: those pads stay
            length = self.length(t.rate, op)
            new = rebuilt(op, operands=[chunk], result_types=[
                self.chunk_type(op.result, t.dim, length)])  # fmt: skip
            new.properties[key] = int_array(pad)
            self.block.add_op(new)
            chunk = new.results[0]
        self.record(op.result, chunk, t.delay - left, fill)

    def lstm(self, op: aten.GenericOp) -> None:
        """`aten::lstm.input` over the time axis carries h and c: its initial states (constants
        of the model) become the stream's, and its final ones go back."""
        args = op.args.data
        x, h0, c0 = op.operands[:3]
        bidirectional, batch_first = (_flag(args[7]), _flag(args[8]))
        t = self.timed.get(x)
        if t is None or h0 in self.timed or c0 in self.timed:
            raise _Refused(op, "runs along the time axis from a state that has it")
        if bidirectional:
            raise _Refused(op, "is bidirectional: it needs the whole sequence")
        if t.dim != (1 if batch_first else 0):
            raise _Refused(op, "runs along a dim other than the time axis")
        length = self.length(t.rate, op)
        if t.delay < 0:
            raise _Refused(op, "reads padding frames that come before the stream's start")
        chunk, delay = t.chunk, t.delay
        if delay and self.dynamic:
            raise _Refused(op, "waits behind a lookahead, which needs a fixed frame count "
                           "per call")  # fmt: skip
        if delay % length:  # whole calls before its first frame: delayed to a call's start
            extra = -delay % length
            chunk, delay = self.delayed(op, x, extra), delay + extra
        if any(r.uses for r in op.results[1:]):
            raise _Refused(op, "has its final state read: it needs the whole sequence")
        states = [self.state(v.type, _fill_of(v), role) for v, role in ((h0, "h"), (c0, "c"))]
        out = self.chunk_type(op.results[0], t.dim, length)
        props = dict(op.properties)
        if not self.dynamic:  # a few frames a call: unrolled inside the step's subgraph
            props["target"] = StringAttr(KEPT_LSTM)
        new = aten.GenericOp.create(
            operands=[chunk, *states, *(self.new(v) for v in op.operands[3:])],
            result_types=[out, h0.type, c0.type], properties=props,
            attributes=dict(op.attributes),
        )  # fmt: skip
        new.location = op.location
        self.block.add_op(new)
        skip = {"skip_calls": delay // length} if delay else {}
        _note(new, t.rate, delay, recurrent=1, **skip)
        started = self.started(op, delay // length)
        b = self.builder(op)
        for arg, final in zip(states, new.results[1:], strict=True):
            if started is not None:  # arg + started * (final - arg)
                step = b.binary(aten.MulOp, b.binary(aten.SubOp, final, arg), started)
                final = b.binary(aten.AddOp, arg, step)
            self.carry_out(arg, final)
        self.record(op.results[0], new.results[0], delay)

    def started(self, op: Operation, calls: int) -> SSAValue | None:
        """1.0 from the stream's `calls`-th call on, 0.0 before (None when `calls` is 0): a
        counter state that counts up to `calls` and stays there. A recurrent op's frames
        before the stream's start are none of the model's (the lookahead's first frames):
        its state waits for the first real one."""
        if calls == 0:
            return None
        b = self.builder(op)
        f32 = TensorType(Float32Type(), [1])
        count = self.state(f32, 0.0, "calls")
        limit = b.constant(torch.tensor([float(calls)]), f"stream.calls{calls}")
        nxt = b.binary(aten.MinimumOp, b.binary(aten.AddOp, count, 1.0), limit)
        self.carry_out(count, nxt)
        # count - nxt is -1 while counting, 0 from the `calls`-th call on
        return b.binary(aten.AddOp, b.binary(aten.SubOp, count, nxt), 1.0)

    def conv(self, op: aten.ConvolutionOp) -> None:
        t = self.timed[op.input]
        if t.dim < 2:
            raise _Refused(op, "convolves along channels or batch on the time axis")
        s, p, d, k = self.conv_sizes(op, t.dim)
        reach = (k - 1) * d + 1
        delay = -((-(t.delay + reach - s - p)) // s)  # ceil
        history = delay * s + p - t.delay
        window = self.window(op, op.input, history, self.known(op, t, t.fill))
        padding = list(ints(op.padding))
        padding[t.dim - 2] = 0
        length = self.length(t.rate / s, op)
        bias = self.new(op.bias) if op.bias is not None else None
        y = self.builder(op).op(
            aten.ConvolutionOp, [window, self.new(op.weight), bias],
            self.chunk_type(op.result, t.dim, length),
            **{**op.properties, "padding": int_array(padding)},
        )  # fmt: skip
        _note(y.owner, t.rate / s, delay, history=history)
        self.record(op.result, y, delay)

    def conv_transposed(self, op: aten.ConvolutionOp) -> None:
        t = self.timed[op.input]
        if t.dim < 2:
            raise _Refused(op, "convolves along channels or batch on the time axis")
        s, p, d, k = self.conv_sizes(op, t.dim)
        rank = len(dims_of_type(op.input.type))
        if t.dim != rank - 1:
            raise _Refused(op, "a transposed convolution streams on its last dim only")
        reach = (k - 1) * d + 1
        carry = reach - s
        length = self.length(t.rate * s, op)
        padding = list(ints(op.padding))
        padding[t.dim - 2] = 0
        out_padding = list(ints(op.output_padding))
        out_padding[t.dim - 2] = 0
        b = self.builder(op)
        props = {**op.properties, "padding": int_array(padding),
                 "output_padding": int_array(out_padding)}  # fmt: skip
        bias = self.new(op.bias) if op.bias is not None else None
        known = self.known(op, t, 0.0)  # frames before its frame 0 add nothing
        if self.transposed == "history" and carry > 0:
            h = -(-carry // s)  # input frames whose outputs overlap this call's
            window = self.window(op, op.input, h, known)
            frames_in = self.length(t.rate, op) + h
            full = self.chunk_type(op.result, t.dim, (frames_in - 1) * s + reach)
            z = b.op(aten.ConvolutionOp, [window, self.new(op.weight), bias], full, **props)
            _note(z.owner, t.rate * s, s * t.delay + p, history=h)
            y = self.cut(b, z, t.dim, h * s, h * s + length)
            self.record(op.result, y, s * t.delay + p)
            return
        if self.dynamic and carry != 0:
            raise _Refused(op, "carries its output's tail (transposed=carry), which needs a "
                           "fixed frame count per call")  # fmt: skip
        full = self.chunk_type(op.result, t.dim, length + max(carry, 0))
        z = b.op(aten.ConvolutionOp, [known, self.new(op.weight), bias], full, **props)
        _note(z.owner, t.rate * s, s * t.delay + p, carry=max(carry, 0))
        y = z
        if 0 < carry <= length:  # the tail of the last call goes on the first frames
            tail = self.state(self.chunk_type(z, t.dim, carry), 0.0, "carry", op)
            head = b.binary(aten.AddOp, b.slice(z, t.dim, 0, carry), tail)
            y = b.cat([head, b.slice(z, t.dim, carry, length)], t.dim) if carry < length else head
            self.carry_out(tail, self.unbiased(b, b.slice(z, t.dim, length, length + carry),
                                               bias, rank), op)  # fmt: skip
        elif carry > length:  # a tail longer than a call's frames: added whole
            tail = self.state(self.chunk_type(z, t.dim, carry), 0.0, "carry", op)
            y = b.binary(aten.AddOp, z, b.pad_last(tail, 0, length))
            after = self.unbiased(b, b.slice(y, t.dim, length, length + carry), bias, rank)
            self.carry_out(tail, after, op)
            y = b.slice(y, t.dim, 0, length)
        elif carry < 0:  # a kernel shorter than the stride: zeros between
            y = b.pad_last(z, 0, -carry)
        self.record(op.result, y, s * t.delay + p)

    @staticmethod
    def unbiased(b: AtenBuilder, tail: SSAValue, bias: SSAValue | None, rank: int) -> SSAValue:
        """A transposed convolution's tail without its bias, which the next call's frames
        get from their own convolution."""
        if bias is None:
            return tail
        channels = dims_of_type(bias.type)[0]
        return b.binary(aten.SubOp, tail, b.view(bias, [channels] + [1] * (rank - 2)))

    def conv_sizes(self, op: aten.ConvolutionOp, dim: int) -> tuple[int, int, int, int]:
        """stride, padding, dilation and kernel size on the time axis."""
        i = dim - 2
        kernel = dims_of_type(op.weight.type)[dim]
        if not isinstance(kernel, int):
            raise _Refused(op, "has a kernel whose size is on the time axis")
        return ints(op.stride)[i], ints(op.padding)[i], ints(op.dilation)[i], kernel

    def slice(self, op: aten.SliceOp) -> None:
        t = self.timed[op.input]
        start = int_value(op.start) if op.start is not None else 0
        step = int_value(op.step) if op.step is not None else 1
        if step != 1:
            raise _Refused(op, "takes every n-th frame of the time axis")
        if start < 0:
            raise _Refused(op, "slices the time axis from its end: it needs the whole sequence")
        self.record(op.result, t.chunk, t.delay + start, t.fill)

    def check_local(self, op: Operation) -> None:
        for dims in _local_dims(op):
            if any(
                v in self.timed and self.timed[v].dim == d % len(dims_of_type(v.type))
                for v, d in dims
            ):
                raise _Refused(op, "works along the time axis: it needs the whole sequence")

    def local(self, op: Operation) -> None:
        self.check_local(op)
        timed = [v for v in op.operands if v in self.timed]
        rates = {self.timed[v].rate for v in timed}
        (dim, rate, _) = self.time_of(op.results[0], op)
        if rates != {rate}:
            raise _Refused(op, "combines values of different frame rates")
        delay = max(self.timed[v].delay for v in timed)
        operands = [self.aligned(op, v, delay) if v in self.timed else self.new(v)
                    for v in op.operands]  # fmt: skip
        length = self.length(rate, op)
        results = [self.chunk_type(r, dim, length) for r in op.results]
        props = dict(op.properties)
        if isinstance(op, (aten.ViewOp, aten.ExpandOp)):
            sizes = list(ints(op.properties["size"]))
            if sizes[dim] != -1:
                sizes[dim] = length if isinstance(length, int) else -1
            props["size"] = int_array(sizes)
        new = rebuilt(op, operands=operands, result_types=results, properties=props)
        _note(new, rate, delay)  # frame-local: no state
        self.block.add_op(new)
        for old, result in zip(op.results, new.results, strict=True):
            self.record(old, result, delay)

    # --- frame positions --------------------------------------------------------------------

    def positions(self, value: SSAValue) -> None:
        """Builds a value computed from frame positions alone: `torch.arange(T)` becomes a
        counter state (the offline position of the call's first frame) plus the call's
        offsets, and what is computed from it follows the rules of the stream."""
        if value in self.timed:
            return
        needed: set[Operation] = set()
        todo = [value]
        while todo:
            v = todo.pop()
            op = self.deferred.get(v)
            if op is not None and op not in needed:
                needed.add(op)
                todo.extend(op.operands)
        for op in dict.fromkeys(self.deferred.values()):  # in the function's order
            if op not in needed or any(r in self.timed for r in op.results):
                continue
            if _is_arange(op):
                self.arange(op)
            else:
                self.step(op)

    def arange(self, op: Operation) -> None:
        t = self.time_of(op.results[0], op)
        if t is None or t[2] != 0:
            raise _Refused(op, "counts frames from an offset")
        length = self.length(t[1], op)
        if not isinstance(length, int):
            raise _Refused(op, "counts frames, which needs a fixed frame count per call")
        b = self.builder(op)
        dtype = TORCH_DTYPES[element_type(op.results[0])]
        counter = self.state(TensorType(element_type(op.results[0]), [1]), 0.0, "position")
        offsets = b.constant(torch.arange(length, dtype=dtype), f"stream.frames{length}")
        chunk = b.binary(aten.AddOp, counter, offsets)
        self.carry_out(counter, b.binary(aten.AddOp, counter, length))  # int64 stays int64
        _note(chunk.owner, t[1], 0, position=1)
        self.timed[op.results[0]] = _Timed(chunk, t[0], t[1], 0)

    # --- attention --------------------------------------------------------------------------

    def attend(self, op: Operation) -> None:
        """Ops on attention scores (the time axis on two dims): a product of queries and
        keys makes them, with the keys of the last `window` frames (a state, the KV cache);
        frame-local ops, a mask computed from frame positions and a softmax over the keys
        follow; the product with the values takes the values' window."""
        if self.dynamic:
            raise _Refused(op, "attends over frames, which needs a fixed frame count per call")
        operands = [v for v in op.operands if v in self.pairs]
        if isinstance(op, (aten.BmmOp, aten.MatmulOp)) and not operands:
            self.scores(op)
        elif isinstance(op, (aten.BmmOp, aten.MatmulOp)) and op.operands[0] in self.pairs:
            self.weighted(op)
        elif isinstance(op, (aten.SoftmaxOp, aten.SafeSoftmaxOp)):
            self.softmax(op)
        elif isinstance(op, (aten._Unary, aten._Binary, aten.ViewOp, aten.ExpandOp)):
            self.pair_local(op)
        else:
            raise _Refused(op, "has no streaming rule for attention scores (the time axis "
                           "on two dims)")  # fmt: skip

    def scores(self, op: Operation) -> None:
        q, k = op.operands
        rank = len(dims_of_type(q.type))
        tq, tk = self.timed.get(q), self.timed.get(k)
        if tq is None or tk is None or tq.dim != rank - 2 or tk.dim != rank - 1:
            raise _Refused(op, "multiplies along the time axis in a way attention does not")
        if tq.rate != tk.rate:
            raise _Refused(op, "attends over keys of another frame rate")
        keys = self.window_of(op)
        delay = max(tq.delay, tk.delay)
        q_chunk, k_chunk = self.aligned(op, q, delay), self.aligned(op, k, delay)
        length = self.length(tq.rate, op)
        k_window = self.history(op, k_chunk, tk, keys, "keys")
        shape = list(dims_of_type(op.results[0].type))
        shape[-2:] = [length, keys + length]
        y = self.builder(op).op(type(op), [q_chunk, k_window],
                                tensor_type(element_type(op.results[0]), shape))  # fmt: skip
        _note(y.owner, tq.rate, delay, history=keys)
        self.pairs[op.results[0]] = _Pair(y, rank - 2, rank - 1, tq.rate, delay, keys)

    def weighted(self, op: Operation) -> None:
        p = self.pairs[op.operands[0]]
        v = op.operands[1]
        t = self.timed.get(v)
        rank = len(dims_of_type(v.type))
        if t is None or p.key != rank - 1 or t.dim != rank - 2 or p.query != rank - 2:
            raise _Refused(op, "multiplies attention scores along the query frames")
        if t.delay > p.delay:
            raise _Refused(op, "takes values later than its keys")
        chunk = self.aligned(op, v, p.delay)
        window = self.history(op, chunk, t, p.keys, "values")
        length = self.length(p.rate, op)
        y = self.builder(op).op(type(op), [p.chunk, window],
                                self.chunk_type(op.results[0], rank - 2, length))  # fmt: skip
        _note(y.owner, p.rate, p.delay, history=p.keys)
        self.record(op.results[0], y, p.delay)

    def softmax(self, op: Operation) -> None:
        """A softmax over the keys, none of them before the stream's start: those get -inf
        (a state of -inf that the call's frames push out)."""
        p = self.pairs[op.operands[0]]
        rank = len(dims_of_type(op.operands[0].type))
        if int_value(op.properties["dim"]) % rank != p.key:
            raise _Refused(op, "normalizes over query frames: it needs the whole sequence")
        b = self.builder(op)
        length = self.length(p.rate, op)
        shape = [1] * rank
        shape[p.key] = length
        dtype = TORCH_DTYPES[element_type(op.operands[0])]
        zeros = b.constant(torch.zeros(shape, dtype=dtype), f"stream.zeros{length}")
        late = _Timed(zeros, p.key, p.rate, 0, -math.inf)
        valid = self.history(op, zeros, late, p.keys + p.delay, "valid_keys")
        if p.delay:
            valid = self.cut(b, valid, p.key, 0, p.keys + length)
        masked = b.binary(aten.AddOp, p.chunk, valid)
        new = rebuilt(op, operands=[masked], result_types=[masked.type])
        self.block.add_op(new)
        _note(new, p.rate, p.delay)
        self.pairs[op.results[0]] = dataclasses.replace(p, chunk=new.results[0])

    def pair_local(self, op: Operation) -> None:
        """A frame-local op on attention scores: a position mask becomes the constant of
        the call's queries and keys."""
        (result,) = op.results
        rank = len(dims_of_type(result.type))
        operand = next(v for v in op.operands if v in self.pairs)
        p = self.pairs[operand]
        if any((q.delay, q.keys, q.rate) != (p.delay, p.keys, p.rate)
               for q in (self.pairs[v] for v in op.operands if v in self.pairs)):  # fmt: skip
            raise _Refused(op, "combines attention scores of different windows")
        if any(v in self.timed for v in op.operands):
            raise _Refused(op, "combines attention scores with a value of one time axis")
        if isinstance(op, (aten.ViewOp, aten.ExpandOp)):
            dims = self.time_dims(result)
            if len(dims) != 2 or dims[0][1] != dims_of_type(operand.type)[p.query]:
                raise _Refused(op, "reshapes attention scores across their time dims")
        query, key = self.pair_dims(op, operand, p.query, p.key)
        length = self.length(p.rate, op)
        operands = []
        for v in op.operands:
            if v in self.pairs:
                operands.append(self.pairs[v].chunk)
            elif v in self.deferred:
                offset = rank - len(dims_of_type(v.type))
                operands.append(self.mask(op, v, query - offset, key - offset, p, length))
            else:
                operands.append(self.new(v))
        shape = list(dims_of_type(result.type))
        shape[query], shape[key] = length, p.keys + length
        props = dict(op.properties)
        if isinstance(op, (aten.ViewOp, aten.ExpandOp)):
            sizes = list(ints(op.properties["size"]))
            sizes[query], sizes[key] = length, p.keys + length
            props["size"] = int_array(sizes)
        new = rebuilt(op, operands=operands, properties=props,
                      result_types=[tensor_type(element_type(result), shape)])  # fmt: skip
        self.block.add_op(new)
        _note(new, p.rate, p.delay)
        self.pairs[result] = _Pair(new.results[0], query, key, p.rate, p.delay, p.keys)

    def pair_dims(self, op: Operation, operand: SSAValue, query: int, key: int) -> tuple[int, int]:
        """The query and key dims of `op`'s result, from those of its scores `operand`: a
        view or an expand keeps the two time dims in their order; other ops broadcast
        from the right."""
        result = op.results[0]
        if isinstance(op, (aten.ViewOp, aten.ExpandOp)):
            (query, _), (key, _) = self.time_dims(result)
            return query, key
        offset = len(dims_of_type(result.type)) - len(dims_of_type(operand.type))
        return query + offset, key + offset

    def mask(
        self, op: Operation, value: SSAValue, query: int, key: int, p: _Pair, length: int
    ) -> SSAValue:
        """A mask computed from frame positions, as a constant for the call's queries and
        keys: its offline value where the queries are at frame `keys` (computed at the
        frame counts `band` read it at, when they hold that many frames)."""
        need = p.keys + length
        m = self.evaluate(op, value, _mask_frames(need, p.rate))
        m = m.narrow(query, p.keys, length).narrow(key, 0, p.keys + length)
        return self.builder(op).constant(m.contiguous(), f"stream.mask{p.keys}")

    def window_of(self, op: Operation) -> int:
        """How many key frames before a query the attention anchored at `op` reads: the
        band of the position masks on its scores (computed at a few hundred frames)."""
        reach: list[int] = []
        rank = len(dims_of_type(op.results[0].type))
        todo = [(op.results[0], rank - 2, rank - 1)]
        seen: set[Operation] = set()
        while todo:
            value, query, key = todo.pop()
            for use in value.uses:
                user = use.operation
                if user in seen or not user.results or len(self.time_dims(user.results[0])) != 2:
                    continue
                seen.add(user)
                user_query, user_key = self.pair_dims(user, value, query, key)
                rank = len(dims_of_type(user.results[0].type))
                for v in user.operands:
                    if len(self.time_dims(v)) == 2 and _of_positions(v):
                        offset = rank - len(dims_of_type(v.type))
                        reach.append(self.band(user, v, user_query - offset))
                todo.append((user.results[0], user_query, user_key))
        if not reach:
            raise _Refused(op, "attends over the whole sequence (no mask of frame positions "
                           "bounds how far back it looks)")  # fmt: skip
        return min(reach)

    def band(self, op: Operation, mask: SSAValue, query: int) -> int:
        """The farthest key frame before its query that `mask` lets through; it must let
        none after it through and depend on the distance between them only."""
        for frames in _MASK_FRAMES:
            m = self.evaluate(op, mask, frames)
            n = m.shape[query]  # a*frames at `a` frames per input frame
            m = m.movedim((query, query + 1), (-2, -1)).reshape(-1, n, n)
            blocked = ~m if m.dtype == torch.bool else (m <= torch.finfo(m.dtype).min / 2)
            if not torch.equal(m[:, 1:, 1:], m[:, :-1, :-1]):
                raise _Refused(op, "masks attention by more than the distance between frames")
            open_ = ~blocked.all(dim=0)
            rows, cols = torch.nonzero(open_, as_tuple=True)
            if rows.numel() == 0:
                raise _Refused(op, "masks every key of its attention")
            if bool((cols > rows).any()):
                raise _Refused(op, "lets attention see later frames (a non-causal mask)")
            farthest = int((rows - cols).max())
            if farthest < n // 2:
                return farthest
        raise _Refused(op, "lets attention see every earlier frame (a causal mask with no "
                       "window): "
                       "its keys would grow without bound")  # fmt: skip

    def evaluate(self, op: Operation, value: SSAValue, frames: int) -> torch.Tensor:
        """A value computed from frame positions alone, at `frames` frames."""
        from xdsl.interpreter import Interpreter

        from xnnc.interpreter.aten import AtenFunctions

        if self.coeff != 1:
            raise _Refused(op, "masks attention of a time axis streamed by a multiple")
        if frames not in self.evaluated:
            interpreter = Interpreter(self.func.parent_op())
            functions = AtenFunctions()
            functions.sizes = {self.symbol: frames}
            interpreter.register_implementations(functions)
            self.evaluated[frames] = (interpreter, {})
        interpreter, env = self.evaluated[frames]

        def get(v: SSAValue) -> torch.Tensor:
            if v not in env:
                owner = v.owner
                assert isinstance(owner, Operation), "positions come from ops, not arguments"
                args = tuple(get(a) for a in owner.operands)
                for r, out in zip(owner.results, interpreter.run_op(owner, args), strict=True):
                    env[r] = out
            return env[v]

        return get(value)


def _is_arange(op: Operation) -> bool:
    return isinstance(op, aten.GenericOp) and op.target.data.startswith("aten::arange")


def _of_positions(value: SSAValue) -> bool:
    """Whether `value` is computed from frame positions (`torch.arange(T)`) and constants
    alone, with no input of the function among them."""
    todo, seen, found = [value], set(), False
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if not isinstance(v.owner, Operation):
            return False  # a function argument
        found = found or _is_arange(v.owner)
        todo.extend(v.owner.operands)
    return found


def _flag(attr: Attribute) -> bool:
    return isinstance(attr, IntegerAttr) and bool(attr.value.data)


def _fill_of(value: SSAValue) -> float:
    """The value an initial state holds everywhere: an `aten::full`'s or zeros' (else it is
    refused)."""
    op = value.owner
    if isinstance(op, aten.GenericOp) and op.target.data in ("aten::full", "aten::zeros"):
        if op.target.data == "aten::zeros":
            return 0.0
        fill = op.args.data[1]
        return float(getattr(fill, "value", fill).data)
    raise _Refused(op, "gives an LSTM an initial state the stream cannot start from")


def _local_dims(op: Operation) -> list[list[tuple[SSAValue, int]]]:
    """The dims of its operands a frame-local op works along (none may be time)."""
    if isinstance(op, aten._Reduce):
        dims = ints(op.properties.get("dim")) if op.properties.get("dim") else None
        x = op.operands[0]
        rank = len(dims_of_type(x.type))
        return [[(x, d) for d in (range(rank) if not dims else dims)]]
    if isinstance(op, aten._AlongDim):
        return [[(op.operands[0], int_value(op.properties["dim"]))]]
    if isinstance(op, (aten.LinearOp, aten.MatmulOp)):
        return [[(op.operands[0], -1)]] + (
            [[(op.operands[1], -2)]] if isinstance(op, aten.MatmulOp) else []
        )
    if isinstance(op, aten.LayerNormOp):
        x = op.operands[0]
        n = len(ints(op.properties["normalized_shape"]))
        return [[(x, -1 - i) for i in range(n)]]
    if isinstance(op, aten.BatchNormOp):
        return [[(op.operands[0], 1)]]
    if isinstance(op, (aten.CatOp, aten.SelectOp, aten.SliceOp, aten.SplitWithSizesOp)):
        dim = op.properties.get("dim")
        d = int_value(dim) if dim is not None else 0
        return [[(v, d) for v in op.operands]]
    if isinstance(op, aten.FlipOp):
        return [[(op.operands[0], d) for d in ints(op.properties["dims"])]]
    if isinstance(op, aten.PreluOp):
        return [[(op.operands[1], 0)]] if len(op.operands) > 1 else []
    if isinstance(op, aten.ViewOp):
        return []  # checked by its result's time dim (time_of) and rate
    return []


def _note(op: Operation, rate: Fraction, delay: int, **found: int) -> None:
    entries: dict[str, Attribute] = {"rate": StringAttr(str(rate)),
                                     "delay": IntegerAttr(delay, i64)}  # fmt: skip
    entries.update({k: IntegerAttr(v, i64) for k, v in found.items()})
    op.attributes[STREAM_ATTR] = DictionaryAttr(entries)


@dataclass(frozen=True)
class StreamPass(ModulePass):
    """The function of the module as a per-chunk step with state (the module docstring).
    axis: the time axis of the streamed input (-1: its symbolic dim); frames: frames per
    call; max-frames: with a larger number, each call takes from `frames` to `max-frames`
    frames (the symbol F; one XNNPACK reshape per new count); lookahead: "none", "auto" or
    input frames; transposed: how a transposed convolution carries its overlap, "history"
    (its input frames) or "carry" (its output's tail)."""

    name = "aten-stream"
    axis: int = -1
    frames: int = 1
    max_frames: int = 0
    lookahead: str = "none"
    transposed: str = "history"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.frames < 1:
            raise OptionError(f"aten-stream: frames must be at least 1, got {self.frames}")
        lookahead = parse_lookahead(self.lookahead)
        func = next((f for f in op.ops if isinstance(f, FuncOp)), None)
        if func is None or not func.body.blocks:
            raise OptionError("aten-stream: the module has no function to stream")
        index, axis, symbol, coeff = _streamed_input(func, self.axis)
        if self.transposed not in TRANSPOSED_FORMS:
            forms = ", ".join(TRANSPOSED_FORMS)
            raise OptionError(f"aten-stream: transposed must be {forms}; got {self.transposed!r}")
        dynamic = self.max_frames > self.frames
        if self.max_frames and self.max_frames < self.frames:
            raise OptionError(f"aten-stream: max-frames {self.max_frames} is less than frames "
                              f"{self.frames}")  # fmt: skip
        # a copy to walk again (the walk moves the function's ops into the step) when the
        # stream turns out to need `flush()`, with the frames past each end masked
        spare = ModuleOp([func.clone()], attributes=dict(op.attributes))

        def walk(func: FuncOp, ends: bool) -> tuple[_Stepper, list[int]]:
            stepper = _Stepper(func, symbol, coeff, self.frames, self.transposed,
                               self.max_frames, ends)  # fmt: skip
            stepper.streamed = index
            try:
                return stepper, stepper.run()
            except _Refused as e:
                problem = f"streaming: {op_label(e.op)} {e.problem}"
                raise LocatedError(where(e.op), problem) from None

        stepper, tails = walk(func, ends=False)
        outputs = [stepper.timed[v] for v in stepper.returned]
        needed = max(
            math.ceil(Fraction(t.delay) / t.rate) for t in outputs
        )  # input frames of lookahead
        if lookahead == "none" and needed > 0:
            late = stepper.first_late
            raise LocatedError(
                where(late),
                f"streaming: {op_label(late)} looks {needed} input frame(s) ahead "
                "(lookahead='none'); use lookahead='auto' or a number of frames",
            )
        frames_ahead = needed if lookahead in LOOKAHEADS else lookahead
        if frames_ahead < needed:
            raise OptionError(
                f"aten-stream: lookahead={lookahead} is less than the {needed} input frames "
                "the model looks ahead"
            )
        if frames_ahead or any(tails):  # `flush()` computes frames past the input's end
            stepper, tails = walk(next(iter(spare.ops)), ends=True)
            outputs = [stepper.timed[v] for v in stepper.returned]
        results = []
        for v, t in zip(stepper.returned, outputs, strict=True):
            extra = int(frames_ahead * t.rate) - t.delay
            chunk = stepper.delayed(v.owner, v, extra) if extra > 0 else t.chunk
            results.append(chunk)
        states = stepper.states
        block = stepper.block
        block.add_op(ReturnOp(*results, *(s[1] for s in states)))
        old = func.body.blocks[0]
        for dead in reversed(list(old.ops)):
            dead.drop_all_references()
        func.body.detach_block(old)
        old.erase(safe_erase=False)
        func.body.add_block(block)
        func.function_type = FunctionType.from_lists(
            [a.type for a in block.args], [r.type for r in block.ops.last.operands]
        )
        for key in ("arg_attrs", "res_attrs"):
            func.properties.pop(key, None)
        op.attributes.pop("xnnc.symbols", None)
        if dynamic:
            op.attributes["xnnc.symbols"] = SymbolsAttr.of(
                {FRAMES_SYMBOL: (self.frames, self.max_frames)}
            )
        stream_rates = [str(t.rate) for t in outputs]
        op.attributes[STREAM_ATTR] = DictionaryAttr({
            "axis": IntegerAttr(axis, i64),
            "frames": IntegerAttr(max(self.frames, self.max_frames), i64),
            "min_frames": IntegerAttr(self.frames, i64),
            "input": IntegerAttr(index, i64),
            "lookahead": IntegerAttr(frames_ahead, i64),
            "delays": ArrayAttr([IntegerAttr(int(frames_ahead * t.rate), i64) for t in outputs]),
            "tails": ArrayAttr([IntegerAttr(n, i64) for n in tails]),
            "rates": ArrayAttr([StringAttr(r) for r in stream_rates]),
            "axes": ArrayAttr([IntegerAttr(t.dim, i64) for t in outputs]),
            "states": ArrayAttr([StringAttr(s[3]) for s in states]),
            "fills": ArrayAttr([FloatAttr(s[2], f64) for s in states]),
            "inexact": ArrayAttr([StringAttr(text) for text in stepper.inexact]),
        })  # fmt: skip


def _streamed_input(func: FuncOp, axis: int) -> tuple[int, int, str, int]:
    """(index, dim, symbol, coefficient) of the input the stream feeds: the one with a symbolic
    dim (at `axis`, when given)."""
    found = []
    for i, arg in enumerate(func.body.block.args):
        shape = dims_of_type(arg.type) if isinstance(arg.type, TensorType) else ()
        for d, size in enumerate(shape):
            if isinstance(size, DimExpr):
                found.append((i, d, size))
    if not found:
        raise OptionError(
            "aten-stream: no input has a symbolic time axis (import the model with a "
            "torch.export Dim on it)"
        )
    if axis >= 0 or len(found) > 1:
        rank = len(dims_of_type(func.body.block.args[found[0][0]].type))
        chosen = [f for f in found if axis < 0 or f[1] == axis % rank]
        if len(chosen) != 1:
            raise OptionError(
                f"aten-stream: axis={axis} does not name one symbolic dim of the inputs "
                f"(symbolic: {', '.join(f'input {i} dim {d}' for i, d, _ in found)})"
            )
        found = chosen
    i, dim, size = found[0]
    if size.const != 0 or len(size.terms) != 1:
        raise OptionError(f"aten-stream: input {i}'s time axis is {size}; it must be a symbol")
    (symbol, coeff), = size.terms  # fmt: skip
    return i, dim, symbol, coeff


Spec = tuple[tuple[int, ...], torch.dtype]  # a tensor's shape and dtype


@dataclass(frozen=True)
class StreamLayout:
    """A stream's step as the module's `xnnc.stream` attribute and its function's type
    record it: the streamed input and its axis, frames per call (a size of -1 in a spec:
    from `min_frames` to `frames`), the lookahead (input frames), per output its delay and
    offline tail (its own frames), rate and time axis, per state its role and initial
    value, the step's inputs, states and outputs, and the ops that make the stream differ
    from the offline model over its first frames (`inexact`: one line each)."""

    axis: int
    frames: int  # the most per call
    min_frames: int  # the fewest: frames unless the count changes from call to call
    input: int
    lookahead: int
    delays: tuple[int, ...]
    tails: tuple[int, ...]
    rates: tuple[Fraction, ...]
    axes: tuple[int, ...]
    roles: tuple[str, ...]
    fills: tuple[float, ...]
    inputs: tuple[Spec, ...]
    states: tuple[Spec, ...]
    outputs: tuple[Spec, ...]
    # where the stream differs from the offline model over its first frames, and why
    inexact: tuple[str, ...] = ()

    @staticmethod
    def of(module: ModuleOp) -> StreamLayout | None:
        """The layout `aten-stream` recorded on `module`, or None."""
        attr = module_attribute(module, STREAM_ATTR)
        func = next((op for op in module.ops if isinstance(op, FuncOp)), None)
        if not isinstance(attr, DictionaryAttr) or func is None:
            return None
        d = attr.data

        def seq(key: str) -> tuple:
            value = d[key]
            assert isinstance(value, ArrayAttr)
            return tuple(getattr(a, "value", a).data for a in value.data)

        def specs(types: Any) -> tuple[Spec, ...]:
            return tuple(
                (tuple(d if isinstance(d, int) else -1 for d in dims_of_type(t)),
                 torch_dtype(t.element_type)) for t in types
            )  # fmt: skip

        roles = seq("states")
        args = func.function_type.inputs.data
        n = len(args) - len(roles)
        return StreamLayout(
            axis=d["axis"].value.data, frames=d["frames"].value.data,
            min_frames=d["min_frames"].value.data,
            input=d["input"].value.data, lookahead=d["lookahead"].value.data,
            delays=seq("delays"), tails=seq("tails"),
            rates=tuple(Fraction(r) for r in seq("rates")), axes=seq("axes"), roles=roles,
            fills=seq("fills"), inputs=specs(args[:n]), states=specs(args[n:]),
            outputs=specs(func.function_type.outputs.data[: len(seq("delays"))]),
            inexact=seq("inexact") if "inexact" in d else (),
        )  # fmt: skip

    def to_json(self) -> str:
        """The layout as text (a `.pte` carries it as its `xnnc_stream` method's value)."""
        fields = dataclasses.asdict(self)
        fields["rates"] = [str(r) for r in self.rates]
        for key in ("inputs", "states", "outputs"):
            fields[key] = [[list(shape), dtype_name(dtype)] for shape, dtype in getattr(self, key)]
        return json.dumps(fields)

    @staticmethod
    def from_json(text: str) -> StreamLayout:
        fields = json.loads(text)
        fields["rates"] = [Fraction(r) for r in fields["rates"]]
        for key in ("inputs", "states", "outputs"):
            fields[key] = [(tuple(shape), getattr(torch, dtype)) for shape, dtype in fields[key]]
        return StreamLayout(**{k: tuple(v) if isinstance(v, list) else v
                               for k, v in fields.items()})  # fmt: skip

    def initial_state(self) -> list[torch.Tensor]:
        """The states at a stream's start, each with XNN_EXTRA_BYTES after it."""
        return [stream_buffer(shape, dtype).fill_(fill)
                for (shape, dtype), fill in zip(self.states, self.fills, strict=True)]  # fmt: skip


def stream_buffer(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A tensor with XNN_EXTRA_BYTES (16) readable after it: XNNPACK may read that far past
    the end of an input."""
    n = math.prod(shape)
    return torch.empty(n + 16 // dtype.itemsize + 1, dtype=dtype)[:n].view(shape)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")
