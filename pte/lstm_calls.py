"""An LSTM in a `.pte` as one XNNPACK delegate that every time step calls.

Stock ExecuTorch's pip wheel (1.5.1) runs XNNPACK without a weights cache, so an LSTM
lowered into one delegate, whose blob holds a fully-connected node per step over the same
W_hh, packs W_hh once per step: EnCodec's `.pte` took 23.5x its weights on that runtime,
and each step read its own copy from memory. `to_pte` writes such an LSTM as calls instead:

- `stepped` (before `to_edge`) rewrites each LSTM into, per layer and direction, one
  `aten.linear` projecting every frame (`b_ih + b_hh` as its bias) and per frame one
  `xnnc::lstm_step(gx_t, h, c, w_hh) -> (h', c')`, an op of xnnc's namespace that no
  decomposition table names. `XnncPartitioner` delegates the projections, the frames'
  selects and the stacks of outputs with their neighbours and leaves the steps outside.
- `call_steps` (after lowering) compiles one step per W_hh, a small program through
  `XnncPartitioner` (so the step is what xnnc makes of it: a fully-connected node, an add,
  the gate slices and activations), and makes each step node a call of that lowered module.
- ExecuTorch's emitter gives each call a delegate entry of its own over the one blob;
  `share_identical_delegates` then points every call at one entry: one XNNPACK runtime and
  one packed W_hh per layer and direction, whatever the frame count.

`to_pte(..., lstm_step_calls=True)` takes this form when every LSTM of the program is one
`xnn.lstm` would take whole (`XnncPartitioner._lstms_taken`); by default the LSTM's steps
are nodes of one delegate (the form ExecuTorch's own flow gets from `XnncPartitioner`).

Measured 2026-12-04, AMD EPYC Zen 3 (AVX2/FMA3/F16C), 2 cores, EnCodec's decoder (28 MiB
of weights, a 2-layer 512 LSTM over 75 frames) on stock ExecuTorch 1.5.1's runtime: load and
first call 23.5x the weights -> 2.5x; a call 57.1 -> 31.3 ms (median of 12 alternating,
same runtime settings), outputs equal. Not the default yet: `to_pte`'s peak went 1.24 ->
2.12x the weights (issue 12's limit is 1.3x). The ~600 nodes of the stepped program
(select, step, getitems per frame) pass through `to_edge`'s copies of the graph (+23 MiB
of Python objects before the partitioner runs); keeping one node per layer through
`to_edge` and expanding it into the calls afterwards would leave `to_edge` as it was.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from executorch.exir.delegate import executorch_call_delegate
from executorch.exir.lowered_backend_module import LoweredBackendModule, get_lowered_module_name
from torch.export import ExportedProgram

from xnnc.errors import XnncError
from xnnc.frontend.symbolic_lstm import LSTM
from xnnc.options import CompileOptions

_LIBRARY = torch.library.Library("xnnc", "FRAGMENT")
_LIBRARY.define("lstm_step(Tensor gx, Tensor h, Tensor c, Tensor w_hh) -> (Tensor, Tensor)")


def step(
    gx: torch.Tensor, h: torch.Tensor, c: torch.Tensor, w_hh: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One LSTM step on the frame's projected gates `gx` (x W_ih^T + b_ih + b_hh), torch's
    gate order (i, f, g, o): (h', c')."""
    i, f, g, o = (gx + F.linear(h, w_hh)).chunk(4, -1)
    c_next = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c_next), c_next


_LIBRARY.impl("lstm_step", step, "CompositeExplicitAutograd")


@torch.library.register_fake("xnnc::lstm_step")
def _step_fake(gx: Any, h: Any, c: Any, w_hh: Any) -> tuple[Any, Any]:
    return torch.empty_like(h), torch.empty_like(c)


STEP = torch.ops.xnnc.lstm_step.default


def _steps(
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
    """`aten.lstm.input` as projections and `xnnc::lstm_step` calls (inference: `stepped`
    is only asked for LSTMs `xnn.lstm` takes, which excludes training and proj_size)."""
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
            h, c = h0[k], c0[k]
            frames: list[Any] = [None] * x.shape[0]
            for t in reversed(range(x.shape[0])) if d else range(x.shape[0]):
                h, c = STEP(gx[t], h, c, w_hh)
                frames[t] = h
            outputs.append(torch.stack(frames))
            last_h.append(h)
            last_c.append(c)
        x = outputs[0] if directions == 1 else torch.cat(outputs, -1)
    return x.transpose(0, 1) if batch_first else x, torch.stack(last_h), torch.stack(last_c)


def stepped(ep: ExportedProgram, taken: set[str]) -> ExportedProgram | None:
    """`ep` with each LSTM as projections and steps (module docstring), or None when it has
    none or one that `taken` (the LSTM nodes xnnc takes whole) does not name."""
    lstms = {n.name for n in ep.graph.nodes if n.op == "call_function" and n.target is LSTM}
    if not lstms or not lstms <= taken:
        return None
    return ep.run_decompositions({LSTM: _steps})


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

        from xnnc.pte.partitioner import XnncPartitioner

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
                "lstm_step_calls=False keeps the LSTM in one delegate"
            )
        (call,) = calls
        self.module: LoweredBackendModule = getattr(
            lowered.exported_program().graph_module, call.args[0].target
        )
        users = lowered.exported_program().graph_signature.user_inputs
        self.order = [users.index(arg.name) for arg in call.args[1:]]
        (results,) = (n.args[0] for n in graph.nodes if n.op == "output")
        self.outs = [r.args[1] for r in results]  # the step's result i is the delegate's outs[i]


def call_steps(edge: Any, options: CompileOptions) -> int:
    """Makes each `xnnc::lstm_step` node of `edge` (ExecuTorch's edge program manager, after
    lowering) a call of one lowered step per W_hh, and drops the W_hh inputs the program no
    longer reads; returns how many steps it replaced."""
    program = edge.exported_program()
    gm = program.graph_module
    state = {spec.arg.name: spec for spec in program.graph_signature.input_specs}
    made: dict[str, tuple[_Lowered, str]] = {}
    steps = [n for n in gm.graph.nodes if n.op == "call_function" and _op(n.target) is STEP]
    for node in steps:
        gx, h, c, w_hh = node.args
        if w_hh.name not in made:
            weight = _state_tensor(program, state[w_hh.name])
            lowered = _Lowered(weight, [a.meta["val"] for a in (gx, h, c)], options)
            made[w_hh.name] = (lowered, get_lowered_module_name(gm, lowered.module))
            # the step's constants (W_hh), which ExecuTorch collected from the modules
            # lowered in to_edge_transform_and_lower only
            edge._named_data_store.merge_named_data_store(lowered.module.named_data_store_output)
        lowered, name = made[w_hh.name]
        inputs = (gx, h, c)
        with gm.graph.inserting_before(node):
            module = gm.graph.get_attr(name)
            call = gm.graph.call_function(
                executorch_call_delegate, (module, *(inputs[i] for i in lowered.order))
            )
        values: list[Any] = [None] * len(lowered.outs)
        for i, k in enumerate(lowered.outs):
            values[k] = node.meta["val"][i]
        call.meta.update({k: v for k, v in node.meta.items() if k != "val"})
        call.meta["val"] = values
        for user in list(node.users):  # getitem(step, i) -> getitem(call, outs[i])
            user.args = (call, lowered.outs[user.args[1]])
        gm.graph.erase_node(node)
    for name in made:
        _drop_input(program, name)
    gm.recompile()
    return len(steps)


def _op(target: Any) -> Any:
    return getattr(target, "_op", target)  # an EdgeOpOverload's ATen overload


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
