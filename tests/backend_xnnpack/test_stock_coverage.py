"""Every node kind and operator of the node table (`backend_xnnpack/nodes.py`) that stock
ExecuTorch 1.5.1 lacks is, on `target="stock"`, either legalized into stock kinds
(`xnn-legalize-stock`) or kept outside XNNPACK (a lowering's check): never serialized, so
`xnnc.compile`, `Program.save` and `to_pte` keep working for every model that uses it.

The entries come from the table: each kind past stock's union, and for a kind that carries
an operator (XNNUnary, XNNBinary, XNNStaticReduce) each operator that encodes to it. Each
entry names a small model that produces it on the extended target (checked), whose stock
`.pte` runs on stock ExecuTorch's `executorch.runtime.Runtime` against torch eager; or, when
no compile produces it, why. A new extended-only kind or operator fails
`test_every_extended_only_entry_has_a_model` until it gets one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from executorch.runtime import Runtime
from op_cases import Fn

import xnnc
from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.backend_xnnpack.nodes import EncodeView, kind_for
from xnnc.pte import to_pte

ROOT = Path(xnnc.__file__).resolve().parent
# The packages that build xnn IR from aten or rewrite it before legalization.
EMITTERS = ("conversion", "transforms", "tuning", "cost", "ir", "frontend")
# The operator enum of each xnn op whose kinds are chosen by operator (its `kind`).
OPERATORS: dict[str, type[StrEnum]] = {
    "xnn.unary": nodes.UnaryOperator,
    "xnn.binary": nodes.BinaryOperator,
    "xnn.static_reduce": nodes.ReduceOperator,
}
T = torch.export.Dim("T", min=4, max=64)


@dataclass(frozen=True)
class Model:
    fn: Callable[..., Any]
    inputs: tuple[torch.Tensor, ...]
    # torch.export's dynamic_shapes for the inputs, and the inputs to run at other sizes.
    dynamic: Any = None
    others: tuple[tuple[torch.Tensor, ...], ...] = ()
    tol: float = 0.0  # 0: bit-exact


def _movement(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return F.interpolate(x, scale_factor=2), F.pixel_unshuffle(y, 2), z.relu().expand(2, 3, 8)


def _elementwise(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return torch.round(x * 2.5), F.gelu(x, approximate="tanh"), (x.abs() + 0.5) ** y, x**3


torch.manual_seed(0)
MODELS = {
    "movement": Model(_movement, (torch.randn(1, 8, 6, 6), torch.randn(1, 2, 6, 6),
                                  torch.randn(3, 1))),
    "elementwise": Model(_elementwise, (torch.randn(2, 64) * 3, torch.randn(2, 64)), tol=1e-5),
    "reductions": Model(lambda x: (x.mean(-1), x.sum(1), x.amax(-1)), (torch.randn(2, 6, 20),),
                        tol=1e-5),
    "slice_from_the_end": Model(lambda x: x[:, 1:-1].relu(), (torch.randn(2, 16),),
                                dynamic={"xs": ({1: T},)}, others=((torch.randn(2, 5),),)),
}  # fmt: skip

_NOT_LOWERED = "no lowering or rewrite emits it"
# Extended-only entry -> the model producing it, or why no compile produces it.
COVERAGE = {
    "XNNDepthToSpace2d": "movement",
    "XNNStaticReduce sum": "reductions",
    "XNNStaticReduce sum_squared": _NOT_LOWERED,
    "XNNStaticReduce mean": "reductions",
    "XNNStaticReduce mean_squared": _NOT_LOWERED,
    "XNNStaticReduce max": "reductions",
    "XNNStaticReduce min": _NOT_LOWERED,
    "XNNUnary approxgelu": "elementwise",
    "XNNUnary bankers_rounding": "elementwise",
    "XNNUnary clamp": "a clamp is xnn.clamp (XNNClamp)",
    "XNNUnary convert": "xnn.unary's verifier refuses it: a cast is xnn.convert (XNNConvert)",
    **{f"XNNUnary {o}": _NOT_LOWERED for o in ("bitwise_not", "count_leading_zeros",
                                               "cube_root", "popcount", "sign")},
    "XNNBinary pow": "elementwise",
    **{f"XNNBinary {o}": _NOT_LOWERED for o in ("copysign", "squared_difference", "modulus",
                                                "atan2", "bitwise_and", "bitwise_or",
                                                "bitwise_xor", "shift_left",
                                                "shift_right_logical", "shift_right_arithmetic")},
    "XNNConcatenate": "never selected: xnn.concatenate takes 2 to 5 inputs, each a stock "
    "XNNConcatenate2..5 (test_concatenate_encodes_to_stock_kinds_at_every_arity)",
    "XNNStaticBroadcast": "movement",
    "XNNSpaceToDepth2d": "movement",
    "XNNStaticSliceV3": "slice_from_the_end",
}  # fmt: skip


def _operator_field(kind: nodes.NodeKind) -> str | None:
    """The table field `kind` takes from the op's operator (`kind`), if any."""
    return next((name for name, source in kind.fields.items() if source == "kind"), None)


def extended_only() -> list[str]:
    """The table's kinds stock ExecuTorch 1.5.1 lacks: "XNNDepthToSpace2d", or for a kind
    chosen by operator one entry per operator encoding to it: "XNNUnary bankers_rounding"."""
    entries = []
    for kind in nodes.KINDS_LIST:
        if kind.stock:
            continue
        if _operator_field(kind) is None:
            entries.append(kind.name)
            continue
        for operator in OPERATORS[kind.op.name]:
            if kind_for(kind.op.name, EncodeView({"kind": operator}, {}, {})) is kind:
                entries.append(f"{kind.name} {operator.value}")
    return entries


def produced(program: xnnc.program.Program) -> set[str]:
    """The entries (kinds, and kinds with their operator) in `program`'s blobs."""
    out = set()
    for data in program.blobs:
        blob = read_blob(data)
        for name, node in zip(blob.node_kinds, blob.graph.xnodes, strict=True):
            kind = nodes.KINDS[name]
            field = _operator_field(kind)
            if field is None:
                out.add(name)
            else:
                value = getattr(node.xnodeUnion, nodes.camel(field))
                out.add(f"{name} {list(OPERATORS[kind.op.name])[value].value}")
    return out


def test_every_extended_only_entry_has_a_model() -> None:
    entries = extended_only()
    missing = [e for e in entries if e not in COVERAGE]
    assert not missing, (
        f"extended-only node kinds or operators with no model in COVERAGE: {missing}; map each "
        "to a model producing it on the extended target (its stock .pte must run)"
    )
    stale = sorted(set(COVERAGE) - set(entries))
    assert not stale, f"COVERAGE entries that are not extended-only kinds or operators: {stale}"
    unused = sorted(set(MODELS) - set(COVERAGE.values()))
    assert not unused, f"models no entry names: {unused}"


def test_operators_said_not_emitted_are_named_by_no_emitter() -> None:
    """An operator listed as produced by no compile is named nowhere in the packages that
    build xnn IR (`U.SIGN`, `UnaryOperator.SIGN`): emitting it needs a model here."""
    named = []
    for entry, why in COVERAGE.items():
        if why in MODELS or " " not in entry:
            continue
        operator = entry.split(" ", 1)[1].upper()
        pattern = re.compile(rf"\b(U|B|R|\w*Operator)\.{operator}\b")
        for package in EMITTERS:
            for path in (ROOT / package).rglob("*.py"):
                if pattern.search(path.read_text()):
                    named.append(f"{entry} in {path.relative_to(ROOT)}")
    assert not named, f"operators COVERAGE says no compile emits, named by an emitter: {named}"


def test_concatenate_encodes_to_stock_kinds_at_every_arity() -> None:
    for arity in range(2, nodes.MAX_CONCATENATE_INPUTS + 1):
        view = EncodeView({"axis": 0}, {"inputs": list(range(arity))}, {"output": (arity,)})
        assert kind_for("xnn.concatenate", view).stock, arity


def _run_stock(pte: bytes, inputs: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    return Runtime.get().load_program(pte).load_method("forward").execute(list(inputs))


def _assert_matches(got: Any, want: Any, tol: float) -> None:
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", MODELS)
def test_model_produces_its_entries_and_its_stock_pte_runs(name: str) -> None:
    m = MODELS[name]
    model = Fn(m.fn).eval()
    claimed = {entry for entry, model_name in COVERAGE.items() if model_name == name}
    # The target's static rules, not timings: a host compile tunes, and on a loaded host the
    # x2 upsample's forms time alike, so its timed choice (broadcast or depth-to-space) flips.
    extended = xnnc.compile(model, m.inputs, dynamic_shapes=m.dynamic, savable=True, tune=False)
    assert claimed <= produced(extended), f"{name} does not produce {claimed}"
    pte = to_pte(model, m.inputs, dynamic_shapes=m.dynamic)
    for inputs in (m.inputs, *m.others):
        _assert_matches(_run_stock(pte, inputs), model(*inputs), m.tol)
