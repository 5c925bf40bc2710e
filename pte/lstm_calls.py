"""An LSTM in a `.pte` as one XNNPACK delegate that every time step calls.

Stock ExecuTorch's pip wheel (1.5.1) runs XNNPACK without a weights cache, so an LSTM
lowered into one delegate, whose blob holds a fully-connected node per step over the same
W_hh, packs W_hh once per step: EnCodec's `.pte` took 23.5x its weights on that runtime,
and each step read its own copy from memory. `to_pte` writes such an LSTM as calls instead:

- `stepped` (before `to_edge`) rewrites each LSTM into, per layer and direction, one
  `aten.linear` projecting every frame (`b_ih + b_hh` as its bias) and one
  `xnnc::lstm_recurrence(gx, h0, c0, w_hh, reverse) -> (every h, last h, last c)`, an op
  of xnnc's namespace that no decomposition table names: `to_edge` sees a few nodes per
  layer, as many as for the LSTM kept whole. `XnncPartitioner` delegates the projections
  with their neighbours and leaves the recurrences outside.
- `call_steps` (after lowering) compiles one step per W_hh, a small program through
  `XnncPartitioner` (so the step is what xnnc makes of it: a fully-connected node, an add,
  the gate slices and activations), and replaces each recurrence by one call of that step's
  blob over the whole gates [T, B, 4H], giving every frame's h [T, B, H] and the last c
  (its fake run, for ExecuTorch's passes, is the recurrence op's), marked with a compile
  spec: `to_executorch` plans and emits one call per layer and direction, not the frames.
- `expand_calls` (in the emitted program) turns each marked call into the frames' calls of
  that delegate: frame t reads its gates and writes its h through views of the planned
  [T, ...] tensors (values at the frame's offset in the same buffer: no slice, no cat), and
  its c into one of two slots appended to the planned memory; the last frame's c is the
  call's. The last h is a portable `slice_copy` of every h.
- ExecuTorch's emitter gives each call a delegate entry of its own over the one blob;
  `share_identical_delegates` points every call at one entry: one XNNPACK runtime and one
  packed W_hh per layer and direction, whatever the frame count.

`to_pte` takes this form when every LSTM of the program is one `xnn.lstm` would take whole
(`XnncPartitioner._lstms_taken`); `disable=("lstm-step-calls",)` keeps the steps as nodes
of one delegate, the form ExecuTorch's own flow gets from `XnncPartitioner` (where
ExecuTorch's weights cache is on, as in its Android and Apple builds, that form packs W_hh
once too: the named data key is the same).

Measured 2026-12-04, AMD EPYC Zen 3 (AVX2/FMA3/F16C), 2 cores, EnCodec's decoder (28 MiB
of weights; a 2-layer, 512-wide LSTM over 75 frames) on stock ExecuTorch 1.5.1's runtime
(the pybindings' default thread pool): loaded and called once, 23.5x the weights -> 2.5x;
a call 63.6 -> 34.1 ms (median of 12 alternating calls; outputs equal to 3e-6). Expanding
the frames in the graph instead (before `to_executorch`: a slice, a call and two getitems
a frame, ~600 nodes) raised `to_pte`'s peak from 1.24 to 1.78x the weights; expanded in
the emitted program it is 1.19x (AMD EPYC Zen 4, AVX-512, 2 cores), and a call takes 18.3
ms against 18.8 for the graph form and 33.8 for one delegate (median of 15 alternating
calls, outputs bit-equal).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from typing import Any

import torch
import torch.nn.functional as F
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.delegate import executorch_call_delegate
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.lowered_backend_module import LoweredBackendModule, get_lowered_module_name
from executorch.exir.schema import AllocationDetails, DelegateCall, EValue, Instruction, ScalarType
from torch.export import ExportedProgram

from xnnc.errors import XnncError
from xnnc.frontend.symbolic_lstm import LSTM
from xnnc.pipeline.options import CompileOptions
from xnnc.pte.kept_ops import aten_overload
from xnnc.pte.partitioner import XnncPartitioner

_LIBRARY = torch.library.Library("xnnc", "FRAGMENT")
_LIBRARY.define(
    "lstm_recurrence(Tensor gx, Tensor h0, Tensor c0, Tensor w_hh, bool reverse) "
    "-> (Tensor, Tensor, Tensor)"
)


def step(
    gx: torch.Tensor, h: torch.Tensor, c: torch.Tensor, w_hh: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One LSTM step on the frame's projected gates `gx` (x W_ih^T + b_ih + b_hh), torch's
    gate order (i, f, g, o): (h', c')."""
    i, f, g, o = (gx + F.linear(h, w_hh)).chunk(4, -1)
    c_next = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c_next), c_next


def _order(frames: int, reverse: bool) -> range:
    return range(frames - 1, -1, -1) if reverse else range(frames)


def recurrence(
    gx: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor, w_hh: torch.Tensor, reverse: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One layer and direction over the projected gates gx [T, B, 4H] from h0, c0 [1, B, H]:
    (every frame's h [T, B, H], the last h and c [1, B, H]); `reverse` runs from the last
    frame to the first."""
    h, c = h0, c0
    frames: list[Any] = [None] * gx.shape[0]
    for t in _order(gx.shape[0], reverse):
        h, c = step(gx[t : t + 1], h, c, w_hh)
        frames[t] = h
    return torch.cat(frames), h, c


_LIBRARY.impl("lstm_recurrence", recurrence, "CompositeExplicitAutograd")


@torch.library.register_fake("xnnc::lstm_recurrence")
def _recurrence_fake(gx: Any, h0: Any, c0: Any, w_hh: Any, reverse: bool) -> tuple:
    return gx.new_empty((*gx.shape[:-1], h0.shape[-1])), torch.empty_like(h0), torch.empty_like(c0)


RECURRENCE = torch.ops.xnnc.lstm_recurrence.default
# The compile spec of a recurrence's call until `expand_calls`: "frames reverse" then the
# step delegate's input order and output order (`_Lowered.order`, `.outs`).
MARK = "xnnc_lstm_recurrence"
_SLICE = exir_ops.edge.aten.slice_copy.Tensor


def _layers(
    input: torch.Tensor,
    hx: list[torch.Tensor],
    params: list[torch.Tensor],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`aten.lstm.input` as per layer and direction a projection and an
    `xnnc::lstm_recurrence` (inference: `stepped` is only asked for LSTMs `xnn.lstm` takes,
    which excludes training and proj_size)."""
    x = input.transpose(0, 1) if batch_first else input
    h0, c0 = hx
    directions = 2 if bidirectional else 1
    per = 4 if has_biases else 2
    last_h, last_c = [], []
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            k = layer * directions + d
            w_ih, w_hh, *biases = params[k * per : (k + 1) * per]
            gx = F.linear(x, w_ih, biases[0] + biases[1] if biases else None)
            hs, h, c = RECURRENCE(gx, h0[k : k + 1], c0[k : k + 1], w_hh, bool(d))
            outputs.append(hs)
            last_h.append(h)
            last_c.append(c)
        x = outputs[0] if directions == 1 else torch.cat(outputs, -1)
    return x.transpose(0, 1) if batch_first else x, torch.cat(last_h), torch.cat(last_c)


def stepped(ep: ExportedProgram, taken: set[str]) -> ExportedProgram | None:
    """`ep` with each LSTM as projections and `xnnc::lstm_recurrence` nodes (module
    docstring), or None when it has none or one that `taken` (the LSTM nodes xnnc takes
    whole) does not name."""
    lstms = {n.name for n in ep.graph.nodes if n.op == "call_function" and n.target is LSTM}
    if not lstms or not lstms <= taken:
        return None
    return ep.run_decompositions({LSTM: _layers})


class _Step(torch.nn.Module):
    def __init__(self, w_hh: torch.Tensor):
        super().__init__()
        self.w_hh = torch.nn.Parameter(w_hh, requires_grad=False)  # shares its storage

    def forward(self, gx: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> Any:
        return step(gx, h, c, self.w_hh)


class _Lowered:
    """One step's lowered module, by the W_hh its steps read, with the order its delegate
    takes (gx, h, c) in and gives (h', c') out."""

    def __init__(self, w_hh: torch.Tensor, example: list[Any], options: CompileOptions):
        from executorch.exir import to_edge_transform_and_lower

        inputs = tuple(torch.zeros(v.shape, dtype=v.dtype) for v in example)
        program = torch.export.export(_Step(w_hh).eval(), inputs)
        lowered = to_edge_transform_and_lower(program, partitioner=[XnncPartitioner(options)])
        graph = lowered.exported_program().graph
        calls = [n for n in graph.nodes if n.target is executorch_call_delegate]
        outside = [
            n.name for n in graph.nodes
            if n.op == "call_function" and n.target is not executorch_call_delegate
            and n.target.__name__ != "getitem"
        ]  # fmt: skip
        if len(calls) != 1 or outside:
            raise XnncError(
                "to_pte: an LSTM step is not one delegate under these options "
                f"({len(calls)} delegates, outside: {outside}); "
                'disable="lstm-step-calls" keeps the LSTM in one delegate'
            )
        (call,) = calls
        self.module: LoweredBackendModule = getattr(
            lowered.exported_program().graph_module, call.args[0].target
        )
        users = lowered.exported_program().graph_signature.user_inputs
        self.order = [users.index(arg.name) for arg in call.args[1:]]
        (results,) = (n.args[0] for n in graph.nodes if n.op == "output")
        self.outs = [r.args[1] for r in results]  # the step's result i is the delegate's outs[i]
        self.inverse = [self.outs.index(k) for k in range(len(self.outs))]  # delegate's k -> step's


class _Recurrence(torch.nn.Module):
    """What a recurrence's placeholder call computes, for the fake runs of ExecuTorch's
    passes: one `xnnc::lstm_recurrence` node (its fake kernel gives the shapes), the results
    (every h, the last c) in the step delegate's output order."""

    def __init__(self, w_hh: torch.Tensor, reverse: bool, order: list[int], inverse: list[int]):
        super().__init__()
        self.w_hh = torch.nn.Parameter(w_hh, requires_grad=False)  # shares its storage
        self.reverse, self.order, self.inverse = reverse, order, inverse

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        gx, h0, c0 = (inputs[self.order.index(i)] for i in range(3))
        hs, _, c = RECURRENCE(gx, h0, c0, self.w_hh, self.reverse)
        return tuple((hs, c)[i] for i in self.inverse)


def call_steps(edge: Any, options: CompileOptions) -> int:
    """Replaces each `xnnc::lstm_recurrence` node of `edge` (ExecuTorch's edge program
    manager, after lowering) by one call of the lowered step of its W_hh that takes the
    whole gates [T, B, 4H] and gives every frame's h [T, B, H] and the last c, marked with
    a compile spec (`MARK`) that `expand_calls` turns into the frames' calls once the
    program is emitted and planned; the last h is a slice of every h. Drops the W_hh inputs
    the program no longer reads; returns how many recurrences it replaced."""
    program = edge.exported_program()
    graph = program.graph_module.graph
    state = {spec.arg.name: spec for spec in program.graph_signature.input_specs}
    made: dict[str, _Lowered] = {}
    count = 0
    calls = [n for n in graph.nodes if n.op == "call_function"]
    for node in [n for n in calls if aten_overload(n.target) is RECURRENCE]:
        gx, h0, c0, w_hh, reverse = node.args
        gates, h_val, c_val = gx.meta["val"], h0.meta["val"], c0.meta["val"]
        frames = int(gates.shape[0])
        weight = _state_tensor(program, state[w_hh.name])
        if w_hh.name not in made:
            made[w_hh.name] = _Lowered(weight, [_SLICE(gates, 0, 0, 1), h_val, c_val], options)
            # the step's constants (W_hh): ExecuTorch collected the named data of the
            # modules lowered in to_edge_transform_and_lower only
            step_data = made[w_hh.name].module.named_data_store_output
            edge._named_data_store.merge_named_data_store(step_data)
        lowered = made[w_hh.name]
        inputs = (gx, h0, c0)
        args = tuple(inputs[i] for i in lowered.order)
        fake = _Recurrence(weight, bool(reverse), lowered.order, lowered.inverse)
        original = torch.export.export(fake, tuple(torch.zeros(a.meta["val"].shape) for a in args))
        fields = [frames, int(bool(reverse)), *lowered.order, *lowered.outs]
        mark = CompileSpec(MARK, " ".join(map(str, fields)).encode())
        module = LoweredBackendModule(
            original, lowered.module.backend_id, lowered.module.processed_bytes,
            [*lowered.module.compile_specs, mark],
        )  # fmt: skip
        name = get_lowered_module_name(program.graph_module, module)
        add = _adder(graph, node)
        every_h = gates.new_empty((*gates.shape[:-1], h_val.shape[-1]))
        results = [(every_h, torch.empty_like(c_val))[i] for i in lowered.inverse]
        with graph.inserting_before(node):
            call = add(executorch_call_delegate, (graph.get_attr(name), *args), results)
            hs, c = (add(operator.getitem, (call, k), results[k]) for k in lowered.outs)
            last = (0, 1) if reverse else (frames - 1, frames)
            h = add(_SLICE, (hs, 0, *last), _SLICE(every_h, 0, *last))
        for user in list(node.users):  # getitem(node, i): the frames' h, the last h, c
            user.replace_all_uses_with((hs, h, c)[user.args[1]])
            graph.erase_node(user)
        graph.erase_node(node)
        if not h.users:
            graph.erase_node(h)
        count += 1
    for name in made:
        _drop_input(program, name)
    program.graph_module.recompile()
    return count


def expand_calls(manager: Any) -> int:
    """Turns each call `call_steps` marked, in `manager`'s emitted program (ExecuTorch's
    program manager after `to_executorch`), into the frames' calls of its step delegate:
    frame t reads its gates and writes its h as views into the planned whole tensors (no
    slice, no cat), its c into one of two slots appended to the planned memory, the last
    frame into the call's own c. Strips the mark; returns how many calls it expanded."""
    expanded = 0
    for plan in manager.executorch_program.execution_plan:
        marked = {}
        for i, delegate in enumerate(plan.delegates):
            specs = [s for s in delegate.compile_specs if s.key != MARK]
            if len(specs) != len(delegate.compile_specs):
                (mark,) = (s for s in delegate.compile_specs if s.key == MARK)
                frames, reverse, *rest = (int(v) for v in bytes(mark.value).split())
                marked[i] = (frames, bool(reverse), rest[:3], rest[3:])
                delegate.compile_specs = specs
        if not marked:
            continue
        for chain in plan.chains:
            instructions, traces = [], []
            for k, instruction in enumerate(chain.instructions):
                call = instruction.instr_args
                trace = chain.stacktrace[k] if chain.stacktrace else None
                if not isinstance(call, DelegateCall) or call.delegate_index not in marked:
                    instructions.append(instruction)
                    traces.append(trace)
                    continue
                for args in _frame_args(plan, call.args, marked[call.delegate_index]):
                    instructions.append(Instruction(DelegateCall(call.delegate_index, args)))
                    traces.append(trace)
                expanded += 1
            chain.instructions = instructions
            if chain.stacktrace:
                chain.stacktrace = traces
    return expanded


def _frame_args(plan: Any, args: list[int], mark: tuple) -> list[list[int]]:
    """Per frame in run order, the value indices of its step call, in the marked call's
    argument order (the delegate's inputs, then its outputs); appends the frames' views and
    two c slots to `plan`."""
    frames, reverse, order, outs = mark
    inverse = [outs.index(k) for k in range(len(outs))]
    gx, h0, c0 = (args[order.index(i)] for i in range(3))
    hs, c_last = (args[3 + outs[i]] for i in range(2))
    for vid in (gx, hs):
        tensor = plan.values[vid].val
        if tensor.allocation_info is None or tensor.scalar_type != ScalarType.FLOAT:
            raise XnncError(
                f"to_pte: an LSTM's {'gates' if vid == gx else 'output'} are not a planned "
                'fp32 tensor; disable="lstm-step-calls" keeps the LSTM in one delegate'
            )
    state = plan.values[c_last].val  # the slots are tensors like the last c
    slot = _aligned(math.prod(state.sizes) * 4)
    memory = plan.values[hs].val.allocation_info.memory_id
    base = _aligned(plan.non_const_buffer_sizes[memory])
    plan.non_const_buffer_sizes[memory] = base + 2 * slot
    slots = [_value(plan, state, state.sizes, memory, base + k * slot) for k in range(2)]
    h, c = h0, c0
    calls = []
    for n, t in enumerate(_order(frames, reverse)):
        gx_t = _view(plan, gx, t)
        h_t = _view(plan, hs, t)
        c_t = c_last if n == frames - 1 else slots[n % 2]
        step_in, step_out = (gx_t, h, c), (h_t, c_t)
        calls.append([step_in[i] for i in order] + [step_out[i] for i in inverse])
        h, c = h_t, c_t
    return calls


def _aligned(size: int) -> int:
    return -(-size // 64) * 64


def _view(plan: Any, vid: int, t: int) -> int:
    """A value for frame `t` (a [1, ...] view) of the planned tensor `vid` [T, ...]."""
    tensor = plan.values[vid].val
    info = tensor.allocation_info
    frame = [1, *tensor.sizes[1:]]
    offset = info.memory_offset + t * math.prod(frame) * 4
    return _value(plan, tensor, frame, info.memory_id, offset)


def _value(plan: Any, like: Any, sizes: list[int], memory: int, offset: int) -> int:
    """Appends to `plan.values` a tensor like `like` of `sizes` planned at `offset` of
    buffer `memory`; its index."""
    at = AllocationDetails(memory, offset & 0xFFFFFFFF, offset >> 32)
    plan.values.append(EValue(dataclasses.replace(like, sizes=list(sizes), allocation_info=at)))
    return len(plan.values) - 1


def _adder(graph: Any, node: Any) -> Any:
    """A function adding a call (target, args) with the value `val` to `graph`, carrying
    `node`'s source location."""
    meta = {k: node.meta[k] for k in ("stack_trace", "nn_module_stack") if k in node.meta}

    def add(target: Any, args: tuple, val: Any) -> Any:
        new = graph.call_function(target, args)
        new.meta.update(meta)
        new.meta["val"] = val
        return new

    return add


def _state_tensor(program: ExportedProgram, spec: Any) -> torch.Tensor:
    if spec.target in program.state_dict:
        return program.state_dict[spec.target]
    return program.constants[spec.target]


def _drop_input(program: ExportedProgram, name: str) -> None:
    """Removes the weight placeholder `name` once nothing reads it, from the graph and the
    signature (its tensor would otherwise be stored in the `.pte` beside the delegate's)."""
    node = next(n for n in program.graph.nodes if n.op == "placeholder" and n.name == name)
    if node.users:
        return
    specs = program.graph_signature.input_specs
    spec = next(s for s in specs if s.arg.name == name)
    specs.remove(spec)
    if spec.target not in {s.target for s in specs}:
        program.state_dict.pop(spec.target, None)
        program.constants.pop(spec.target, None)
    program.graph.erase_node(node)
