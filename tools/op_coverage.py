"""docs/op-coverage.md, generated: every core ATen overload of this torch, and the others xnnc
keeps whole at import, with what each becomes on both runtimes.

    python -m xnnc.tools.op_coverage > docs/op-coverage.md

The facts come from the code: the overloads from torch's tags and decomposition table
(`decomposition_table`), the import from the `aten` dialect's OVERLOADS, the reason an op
stays on torch from `convertible`. What an op lowers to is read by compiling a fixture of
it (tools/op_fixtures.py) for each runtime: the xnn ops `convert-aten-to-xnn` emits (before
the layout rewrites cancel transposes), then, for stock ExecuTorch, those left after
`xnn-legalize-stock`, serialized with the stock node table. tests/tools/test_op_coverage.py
checks that the page is this output, so a lowering added or removed without regenerating it
fails the suite.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import torch
from torch.fx import Graph
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

import xnnc
from xnnc.conversion.aten_to_xnn import LOWERINGS, OUTSIDE_REASONS, SIZE_GENERIC, convertible
from xnnc.dialects import aten, xnn
from xnnc.dialects.xnn import set_target
from xnnc.errors import XnncError
from xnnc.frontend.fx_importer import OPS_BY_OVERLOAD, decomposition_table
from xnnc.frontend.views import fold_identity_views
from xnnc.ir.schema import torch_overload
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import stage_passes
from xnnc.tools.op_fixtures import NAMED, REWRITTEN, binary, unary
from xnnc.translate.xnnpack import serialize_subgraph

HEADER = """# Op coverage

Every core ATen overload of torch {torch} (the `aten` overloads tagged `torch.Tag.core`) and
the other overloads the `aten` dialect models, generated from the code by
`python -m xnnc.tools.op_coverage > docs/op-coverage.md` (a test keeps this page equal to its
output). For each: how xnnc imports it (a named `aten` op, `aten.generic`, or not at all when
torch.export's default decompositions replace it), the xnn ops it becomes on the extended
and on the stock runtime, and why it stays on torch when it does.

The xnn columns come from compiling a small f32 fixture of each op (`tools/op_fixtures.py`):
the ops `convert-aten-to-xnn` emits, transposes to and from NHWC included (the layout
rewrites cancel most of them later), and for stock ExecuTorch 1.5.1 those left after
`xnn-legalize-stock`. Every lowering takes f32, f16 and bf16 values of static shape (int8
through quantized types, [quantization.md](quantization.md)); "symbolic sizes" marks the ones
that also follow a symbolic size ([dynamic-shapes.md](dynamic-shapes.md)). "declines" lists
the reasons a lowering's own check gives for a use it leaves on torch. A generic op in the
third column stays on torch with the reason given. [adding-an-op.md](adding-an-op.md) tells
how to add a lowering.

{summary}
"""

GROUPS = (
    "Elementwise unary", "Elementwise binary", "Activations", "Convolution, pooling, padding and "
    "resampling", "Matrix multiplication", "Reductions, softmax and norms",
    "Layout, views and indexing", "Creation and random", "Other",
)  # fmt: skip
_ACTIVATIONS = ("relu", "elu", "gelu", "sigmoid", "tanh", "hardtanh", "leaky_relu", "hardswish",
                "hardsigmoid", "softplus", "mish", "silu", "prelu", "clamp", "glu", "log_sigmoid",
                "threshold", "rrelu", "celu", "selu")  # fmt: skip
_SPATIAL = ("conv", "pool", "pad", "upsample", "pixel_", "grid_sampler", "im2col", "col2im",
            "unfold", "fft", "lstm")  # fmt: skip
_MATMUL = ("mm", "bmm", "addmm", "linear", "matmul", "baddbmm", "addmv", "cdist", "pdist")
_REDUCE = ("sum", "mean", "amax", "amin", "var", "std", "prod", "max", "min", "argmax", "argmin",
           "any", "all", "cumsum", "softmax", "norm", "logsumexp", "topk", "sort")  # fmt: skip
_LAYOUT = ("view", "permute", "slice", "select", "cat", "split", "expand", "squeeze", "unsqueeze",
           "index", "gather", "scatter", "as_strided", "flip", "roll", "clone", "alias", "repeat",
           "diagonal", "copy", "embedding", "_to_copy", "nonzero", "masked", "where", "resize_",
           "_to_dim_order_copy", "_clone_dim_order")  # fmt: skip
_CREATION = ("empty", "full", "zeros", "ones", "arange", "rand", "scalar_tensor", "fill",
             "native_dropout", "randperm", "linspace")  # fmt: skip


def _group(qualified: str) -> str:
    """The page section of an overload, from its name and torch's `pointwise` tag."""
    name = qualified.split("::")[1].split(".")[0]
    words = name.removeprefix("_").removeprefix("native_").removesuffix("_kernel")
    if name.endswith("_backward") or name.startswith("sym_") or name == "_local_scalar_dense":
        return "Other"
    if name in _ACTIVATIONS or words in _ACTIVATIONS:
        return "Activations"
    if any(k in name for k in _SPATIAL):
        return GROUPS[3]
    if name in _MATMUL or words in _MATMUL:
        return "Matrix multiplication"
    if name in _REDUCE or words in _REDUCE or any(k in name for k in ("norm", "softmax")):
        return "Reductions, softmax and norms"
    if name in _LAYOUT or any(name.startswith(k) for k in _LAYOUT):
        return "Layout, views and indexing"
    if any(name.startswith(k) for k in _CREATION):
        return "Creation and random"
    overload = _overload(qualified)
    if overload is not None and torch.Tag.pointwise in overload.tags:
        tensors = [a for a in overload._schema.arguments if "Tensor" in str(a.type)]
        return "Elementwise unary" if len(tensors) == 1 else "Elementwise binary"
    return "Other"


def _overload(qualified: str):
    try:
        return torch_overload(qualified)
    except AttributeError:  # another namespace's op, e.g. ExecuTorch's dim_order_ops
        return None


# --- which overloads ---------------------------------------------------------------------------


def core_overloads() -> list[str]:
    """The `aten` overloads of this torch tagged core, as "aten::add.Tensor"."""
    names = {
        s.name + (f".{s.overload_name}" if s.overload_name else "")
        for s in torch._C._jit_get_all_schemas()
        if s.name.startswith("aten::")
    }
    return sorted(q for q in names if (o := _overload(q)) is not None and torch.Tag.core in o.tags)


def kept_whole() -> list[str]:
    """Overloads `decompose` keeps that torch.export would decompose (a static LSTM's
    included), and the ones the dialect models that are not core."""
    table = decomposition_table(keep_lstm=True)
    default = torch.export.default_decompositions()
    popped = [q for q in _all_overloads() if (o := _overload(q)) is not None and o in default]
    kept = {q for q in popped if _overload(q) not in table}
    kept.update(OPS_BY_OVERLOAD)
    return sorted(kept - set(core_overloads()))


def _all_overloads() -> list[str]:
    return [*OPS_BY_OVERLOAD, "aten::lstm.input"]


# --- what one fixture becomes ------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """A fixture compiled for one runtime: the xnn ops in its subgraphs, in order of first
    appearance, and the reason for each op left on torch ("" when all lowered)."""

    kinds: tuple[str, ...]
    outside: str
    refused: str = ""  # why serializing for stock fails

    def text(self) -> str:
        if self.outside:
            return f"stays on torch: {self.outside}"
        if self.refused:
            return f"refused at save: {self.refused}"
        return ", ".join(f"`{k}`" for k in self.kinds)


def _kind(op: Operation) -> str:
    kind = op.properties.get("kind")
    return f"{op.name} {kind.data}" if kind is not None and hasattr(kind, "data") else op.name


@cache
def compile_fixture(text: str, runtime: str) -> Outcome:
    ctx = xnnc.make_context()
    module = Parser(ctx, text).parse_module()
    options = CompileOptions(target=runtime, tune=False)
    set_target(module, options.target)
    stages = stage_passes(options)
    passes = stages["aten"] + stages["conversion"]
    if runtime == "stock":
        passes += stages["runtime kinds"]
    PassPipeline(tuple(passes)).apply(ctx, module)
    return _outcome(module, runtime)


def _outcome(module: ModuleOp, runtime: str) -> Outcome:
    kinds: dict[str, None] = {}
    outside: dict[str, None] = {}
    refused = ""
    for op in module.walk():
        if isinstance(op, xnn.SubgraphOp):
            try:
                serialize_subgraph(op, runtime)
            except XnncError as e:
                refused = str(e).split(": ", 1)[-1]
        elif op.name.startswith("xnn.") and op.results and not isinstance(op, xnn.ConstantOp):
            kinds[_kind(op)] = None
        elif op.name.startswith("aten.") and not isinstance(op, aten.ConstantOp):
            outside[f"{convertible(op) or 'not partitioned'}"] = None
    return Outcome(tuple(kinds), "; ".join(outside), refused)


# --- one row per overload ----------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    overload: str
    imported: str
    extended: str
    stock: str
    notes: str
    fate: str  # "lowered", "rewritten", "decomposed" or "torch"


def _fixture(cls: type[Operation], qualified: str) -> str | None:
    if cls.name in NAMED:
        return NAMED[cls.name]
    fields = tuple(name for name, _ in cls.get_irdl_definition().operands)
    if fields == ("input",):
        return unary(cls.name.removeprefix("aten."))
    if fields == ("input", "other"):
        overload = _overload(qualified)
        second = overload._schema.arguments[1].type if overload is not None else None
        scalar = "Tensor" not in str(second)
        return binary(cls.name.removeprefix("aten."), scalar, "mode" in qualified)
    return None


def _stock(extended: Outcome, stock: Outcome) -> str:
    if extended.outside or stock.outside or stock.refused:
        return stock.text()
    if stock.kinds == extended.kinds:
        return "same"
    return f"legalized: {stock.text()}"


def _declines(cls: type[Operation]) -> list[str]:
    """The reasons the op's lowering check returns, read from its source, and whether it
    follows symbolic sizes. A check several lowerings share (the unary and binary ones)
    gives reasons of its other ops too: it is left out rather than misattributed."""
    notes = ["symbolic sizes"] if cls in SIZE_GENERIC else []
    check = LOWERINGS[cls].check
    shared = sum(lowering.check is check for lowering in LOWERINGS.values()) > 1
    if check.__name__ == "<lambda>" or shared:
        return notes
    reasons = _returned_reasons(check, set())
    return notes + ([f"declines: {'; '.join(dict.fromkeys(reasons))}"] if reasons else [])


def _returned_reasons(fn: Callable, seen: set[Callable]) -> list[str]:
    """The strings `fn` returns, f-strings with "…" for their values, and those of the
    module-level helpers whose result it returns."""
    seen.add(fn)
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    reasons: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            reasons += _reason_texts(node.value, fn, seen)
    return reasons


def _reason_texts(value: ast.expr, fn: Callable, seen: set[Callable]) -> list[str]:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return [value.value]
    if isinstance(value, ast.JoinedStr):
        parts = [p.value if isinstance(p, ast.Constant) else "…" for p in value.values]
        return ["".join(str(p) for p in parts).strip()]
    if isinstance(value, ast.BoolOp | ast.IfExp):
        children = value.values if isinstance(value, ast.BoolOp) else [value.body, value.orelse]
        return [t for c in children for t in _reason_texts(c, fn, seen)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        helper = fn.__globals__.get(value.func.id)
        if inspect.isfunction(helper) and helper not in seen:
            return _returned_reasons(helper, seen)
    return []


def _named_row(qualified: str, cls: type[Operation], fate_if_lowered: str) -> Row:
    imported = f"`{cls.name}`"
    text = _fixture(cls, qualified)
    if text is None:
        raise KeyError(f"{cls.name} has no fixture in tools/op_fixtures.py")
    ext, stock = compile_fixture(text, "extended"), compile_fixture(text, "stock")
    notes = _declines(cls) if cls in LOWERINGS else []
    fate = "torch" if ext.outside else fate_if_lowered
    return Row(qualified, imported, ext.text(), _stock(ext, stock), ", ".join(notes), fate)


def _generic_row(qualified: str) -> Row:
    if qualified in REWRITTEN:
        text = REWRITTEN[qualified]
        ext, stock = compile_fixture(text, "extended"), compile_fixture(text, "stock")
        by = _rewriting_pass(text)
        fate = "torch" if ext.outside else "rewritten"
        extended = (
            ext.text() if ext.outside or by is None else f"rewritten by `{by}` into {ext.text()}"
        )
        otherwise = OUTSIDE_REASONS.get(qualified.replace("::", "."))
        note = "static shapes only" + (f"; otherwise on torch: {otherwise}" if otherwise else "")
        return Row(qualified, "`aten.generic`", extended, _stock(ext, stock), note, fate)
    if qualified in _VIEWS:
        return Row(qualified, "`aten.generic`", f"rewritten at import by `frontend/views.py` into "
                   f"{_VIEWS[qualified]}; any other stays on torch", "same",
                   "an identity view or a slice of a contiguous tensor", "rewritten")  # fmt: skip
    op = aten.GenericOp.build(properties={"target": StringAttr(qualified)}, operands=[[]],
                              result_types=[[]])  # fmt: skip
    reason = convertible(op) or "no xnn lowering"
    return Row(qualified, "`aten.generic`", f"stays on torch: {reason}", "—", "", "torch")


def _rewriting_pass(text: str) -> str | None:
    """The first pass of the `aten` stage that removes the fixture's generic op (None: it
    lowers as it is)."""
    ctx = xnnc.make_context()
    module = Parser(ctx, text).parse_module()
    set_target(module, CompileOptions(tune=False).target)
    before = Counter(o.target.data for o in module.walk() if isinstance(o, aten.GenericOp))
    for p in stage_passes(CompileOptions(tune=False))["aten"]:
        p.apply(ctx, module)
        after = Counter(o.target.data for o in module.walk() if isinstance(o, aten.GenericOp))
        if after != before:
            return p.name
    return None


def _identity_views() -> dict[str, str]:
    """What `fold_identity_views` makes of an as_strided that views, and one that slices,
    a contiguous [4, 6]."""
    made = []
    for size, stride, offset in (([6, 4], [4, 1], 0), ([2, 6], [6, 1], 6)):
        g = Graph()
        x = g.placeholder("x")
        x.meta["val"] = torch.zeros(4, 6)
        y = g.call_function(torch.ops.aten.as_strided.default, (x, size, stride, offset))
        g.output(y)
        fold_identity_views(g)
        made.append(f"`aten.{y.target._schema.name.split('::')[1]}`")
    return {"aten::as_strided": " or ".join(made)}


_VIEWS = _identity_views()


def row(qualified: str, decomposed: set[str]) -> Row:
    cls = OPS_BY_OVERLOAD.get(qualified)
    if qualified in decomposed:
        return Row(qualified, "decomposed by torch.export", "—", "—", "", "decomposed")
    if cls is not None:
        return _named_row(qualified, cls, "lowered")
    return _generic_row(qualified)


# --- the page ----------------------------------------------------------------------------------


def _table(rows: list[Row]) -> list[str]:
    lines = ["| overload | imports as | extended | stock | conditions |", "|---|---|---|---|---|"]
    for r in rows:
        cells = (f"`{r.overload}`", r.imported, r.extended, r.stock, r.notes)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def _sections(rows: list[Row]) -> list[str]:
    lines: list[str] = []
    for group in GROUPS:
        mine = [r for r in rows if _group(r.overload) == group]
        if mine:
            lines += [f"### {group}", "", *_table(mine), ""]
    return lines


def _summary(core: list[Row]) -> str:
    fates = Counter(r.fate for r in core)
    return (
        f"**{len(core)} core overloads: {fates['lowered']} lowered, {fates['rewritten']} "
        f"rewritten into lowered ops by a pass, {fates['torch']} left to torch, "
        f"{fates['decomposed']} decomposed by torch.export before import.**"
    )


def reference() -> str:
    """The page's text."""
    table = decomposition_table()
    decomposed = {q for q in core_overloads() if _overload(q) in table}
    core = [row(q, decomposed) for q in core_overloads()]
    kept = [row(q, decomposed) for q in kept_whole()]
    lines = [HEADER.format(torch=torch.__version__.split("+")[0], summary=_summary(core))]
    lines += ["## Core ATen", "", *_sections(core)]
    lines += ["## Kept whole at import", "",
              "Overloads outside the core set that `decompose` keeps from torch's decompositions, "
              "or that the dialect models for programs that hold them (edge programs, "
              "`*_copy` variants).", "", *_sections(kept)]  # fmt: skip
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    print(reference(), end="")


if __name__ == "__main__":
    main()
