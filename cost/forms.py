"""The cost-guided forms, one entry each: every fact xnnc keeps about a choice between
equivalent forms of a layer, as `backend_xnnpack/nodes.py` keeps a node kind's.

    Form("depthwise-rows", ("width", "rows"), rules.depthwise_rows,
         layers=(rules.RowLayer,), keys=("dwconv1d", "maxpool1d", "avgpool1d"),
         symbolic=BY_RULE, rewrite="xnn-depthwise-rows", stage="optimize",
         disable="xnn-depthwise-rows", edge_reshapes_in_place=True)

What reads an entry: `xnn.decision` (`cost.decision`) takes its choices and how a symbolic
size is decided; `rules`' dispatch (`decide`) its rule; the tuning database its keys and
revision; `xnn-tune` (`tuning.tuner.SPECS`) builds its forms with its rewrite and the passes
it is timed with, found by name through the pass lists of `xnnc.transforms` and
`xnnc.legalize` (this layer may not import them), and finds and reads its layers through
the rewrite pass's `form_layers` (`FormLayers`: the rewrite knows the ops it decides); the
default pipeline runs `xnn-tune{form=...}` in its stage just before its rewrite (before
`canonicalize`, for a seed rewrite), and `disable=` accepts its rewrite's name
(`pipeline.stages`, `pipeline.options`). `tests/cost/test_forms.py` checks the table against
the rules, the rewrites, the tuner, the pass registry and the default pipeline;
`docs/adding-a-form.md` walks through adding one.

This module imports nothing from the dialects (xDSL's `Operation` only as a type).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xnnc.cost import rules
from xnnc.cost.rules import Choice, Layer
from xnnc.target import Target

if TYPE_CHECKING:
    from xdsl.ir import Operation

# How a layer with a symbolic size is decided (`cost.decision.decide`), besides keeping the
# form as converted (`Form.fixed_size`):
BY_RULE = "rule"  # the rule reads no size: it decides, and the rewrite checks that its form follows
OVER_RANGE = "range"  # the rule at both ends of the sizes' recorded ranges (`xnnc.symbols`)
AT_SMALLEST = "smallest"  # one form serves every size: the form at the smallest (decode)

# The stages of the default pipeline (`pipeline.stages`) a form is tuned in; "import": the
# choice is made once, when the model is imported (no layer, no `xnn.decision`, not tuned).
STAGES = ("type legalization", "canonicalize", "optimize", "import")


def _alone(op: Operation) -> list[Operation]:
    return [op]


@dataclass(frozen=True)
class FormLayers:
    """How `xnn-tune` finds a form's layers and reads them: declared by the form's rewrite
    pass as its `form_layers`, since the rewrite knows which ops it has a decision about. A
    layer is found by its `anchor` op: the op itself, the last op of a chain (the upsample's
    reshape) or the first layer of an fp16 region; its decision sits on its `carriers`."""

    anchor: Callable[[Operation], bool]  # is this op the anchor of a layer the pass decides?
    read: Callable[[Operation], Layer]  # the layer, read off its anchor
    ops: Callable[[Operation], list[Operation]] = _alone  # the layer's ops, in order
    carriers: Callable[[Operation], list[Operation]] = _alone  # of `ops`
    # The choices that are distinct forms of the layer (None: all of the form's choices).
    choices: Callable[[Operation], tuple[str, ...]] | None = None
    # Where the layer is, for the decision's reason (a region's first layer and size).
    where: Callable[[Operation], str] | None = None
    # What timing the layer would cost, in ms (None: small enough never to matter).
    timing_ms: Callable[[Layer, Target], float] | None = None


def _every_target(target: Target) -> bool:
    return True


@dataclass(frozen=True)
class Form:
    """A choice between equivalent forms of a layer. `choices[0]` is the layer as converted.

    - rule: the static choice, `(target, layer) -> Choice` (`cost.rules`, with where its
      numbers come from); an import choice's is `(target, disable) -> Choice`.
    - layers: the `rules` layer classes the rule decides (each names this form); keys: the
      first words of their keys (`Layer.key()`), which the tuning database files them by.
    - revision: bumped when the rewrite builds one of the forms differently, so that the
      tuning database's times of the old construction miss (its keys end in `|r<revision>`
      past 1). Adding a choice is not a revision: an entry without its time keeps its choice.
    - symbolic / fixed_size: how a layer of a symbolic size is decided: `BY_RULE`,
      `OVER_RANGE`, `AT_SMALLEST`; or, with `fixed_size` saying why the other forms are
      built for one size, the form as converted.
    - rewrite: the pass that builds the chosen form, following `xnn.decision` (a seed
      rewrite's canonicalization set, which runs inside `canonicalize`, is also a pass).
    - stage: where the default pipeline runs `xnn-tune{form=<name>}`, just before `rewrite`
      (in "canonicalize", before `canonicalize`), when the options tune (`STAGES`).
    - disable: the `disable=` name that switches the rewrite and its tuning off ("" when the
      rewrite cannot be switched off).
    - option: a `CompileOptions` field that fixes the choice for the whole compile unless it
      is "auto" (then nothing is tuned).
    - timed_with: the passes `xnn-tune` runs after `rewrite` (with their default options)
      when it builds a form to time: those of the pipeline that change the form's time, so
      that it is timed as the program runs it.
    - edge_reshapes_in_place: time the forms without the reshapes their rewrite puts at the
      layer's edges: inside a model XNNPACK runs a reshape in place, at a subgraph's input
      or output it copies.
    - runs_on: whether the target's CPU has every form to time; if not, the static rule
      decides.
    """

    name: str
    choices: tuple[str, ...]
    rule: Callable[..., Choice]
    layers: tuple[type, ...] = ()
    keys: tuple[str, ...] = ()
    revision: int = 1
    symbolic: str = ""
    fixed_size: str = ""
    rewrite: str = ""
    stage: str = ""
    disable: str = ""
    option: str = ""
    timed_with: tuple[str, ...] = ()
    edge_reshapes_in_place: bool = False
    runs_on: Callable[[Target], bool] = _every_target

    @property
    def tuned_before(self) -> str:
        """The pass of the default pipeline that `xnn-tune{form=<name>}` runs just before."""
        return "canonicalize" if self.stage == "canonicalize" else self.rewrite


TABLE: tuple[Form, ...] = (
    # Revisions: 2, a one-output-channel layer's gemm form is a depthwise convolution and a
    # channel sum, no longer a fully-connected node of ones (2026-12-03); 3, the gemm form is
    # timed as the program runs it: its depthwise convolution over rows where
    # `depthwise_rows` says so, the reshapes at its edges in place (2026-12-05). Timed with
    # `xnn-depthwise-rows` by its rule: a one-output-channel layer's depthwise convolution
    # over rows when the threads outnumber the batch (Mimi's last layer at 2 threads, 0.74 ->
    # 0.46 ms for the depthwise convolution on the AMD EPYC Zen 4).
    Form("conv-as-gemm", ("direct", "gemm"), rules.conv_as_gemm,
         layers=(rules.ConvLayer,), keys=("conv",), revision=3, symbolic=OVER_RANGE,
         rewrite="xnn-conv-as-gemm", stage="optimize", disable="xnn-conv-as-gemm",
         timed_with=("xnn-depthwise-rows",), edge_reshapes_in_place=True),
    # Without XNNPACK's bf16 GEMM kernel (AVX512-BF16) "native" is XNNPACK's own fp32
    # fallback of the same GEMM: the two forms time alike, and noise would pick one.
    Form("bf16-gemm", ("fp32", "native"), rules.bf16_gemm,
         layers=(rules.GemmLayer,), keys=("fc", "bmm"), symbolic=AT_SMALLEST,
         rewrite="xnn-legalize-casts", stage="type legalization",
         disable="xnn-legalize-casts", runs_on=lambda target: target.bf16_gemm),
    # Revision 2: the broadcast form is timed without the reshapes at its edges (before, two
    # copies of which one of the output's size were timed with it) (2026-12-05).
    Form("upsample-nearest", ("broadcast", "depth-to-space"), rules.upsample_nearest,
         layers=(rules.UpsampleLayer,), keys=("upsample2x",), revision=2,
         fixed_size="its profitability is decided at one size",
         rewrite="xnn-upsample-nearest", stage="canonicalize", disable="xnn-upsample-nearest",
         edge_reshapes_in_place=True),
    # Revision 2: the rewritten forms are timed as the program runs them: the phases' trim
    # folded into the convolution's padding (`xnn-fold-pad`: Mimi's upsamples keep no
    # slice), depthwise phases over rows by `depthwise_rows`, the interleave's reshape at the
    # output in place, no longer with two copies of the output the program does not make
    # (2026-12-05).
    Form("polyphase", ("deconvolution", "polyphase", "per-phase"), rules.polyphase,
         layers=(rules.DeconvLayer,), keys=("deconv",), revision=2, symbolic=BY_RULE,
         rewrite="xnn-polyphase", stage="canonicalize", disable="xnn-polyphase",
         timed_with=("xnn-fold-pad", "xnn-depthwise-rows"), edge_reshapes_in_place=True),
    Form("fc-or-bmm", ("fc", "bmm"), rules.fc_or_bmm,
         layers=(rules.LinearLayer,), keys=("linear",),
         fixed_size="the forms are timed at one size",
         rewrite="xnn-fc-as-bmm", stage="optimize", disable="xnn-fc-as-bmm"),
    # A region is timed as the program runs it: the rewrites that follow `xnn-fp16-precision`
    # in the pipeline, by their static rules, change its time more than either form does: as
    # converted, MI-GAN-like's region runs 260-330 ms, in the program 43-67 ms (depthwise
    # deconvolutions become convolutions, layout transposes cancel, fp32 1x1 convolutions
    # become GEMMs; Sapphire Rapids Xeon, 1 thread).
    Form("fp16-compute", ("native", "fp32"), rules.fp16_compute,
         layers=(rules.Fp16Layer, rules.Fp16Region), keys=("fp16",), symbolic=BY_RULE,
         rewrite="xnn-fp16-precision", stage="type legalization", option="fp16",
         timed_with=("xnn-legalize-casts", "canonicalize", "xnn-fc-as-bmm", "xnn-conv-as-gemm",
                     "canonicalize")),
    Form("space-to-depth", ("direct", "space-to-depth"), rules.space_to_depth,
         layers=(rules.StemLayer,), keys=("stem",),
         fixed_size="its pad and blocks have fixed sizes",
         rewrite="xnn-space-to-depth", stage="optimize", disable="xnn-space-to-depth"),
    Form("depthwise-rows", ("width", "rows"), rules.depthwise_rows,
         layers=(rules.RowLayer,), keys=("dwconv1d", "maxpool1d", "avgpool1d"),
         symbolic=BY_RULE, rewrite="xnn-depthwise-rows", stage="optimize",
         disable="xnn-depthwise-rows", edge_reshapes_in_place=True),
    # A static LSTM on xnnc's recurrent loop or unrolled into one `xnn.lstm`: decided by the
    # importer for the whole model (`xnnc.frontend`), never recorded or tuned.
    Form("lstm-loop", ("loop", "unrolled"), rules.lstm_loop, stage="import", disable="lstm-loop"),
)  # fmt: skip

# Every form by name, in the table's order.
FORMS: dict[str, Form] = {f.name: f for f in TABLE}
# The forms decided layer by layer: recorded as `xnn.decision`, timed by `xnn-tune`, kept in
# the tuning database.
LAYER_FORMS: dict[str, Form] = {f.name: f for f in TABLE if f.layers}
# The first word of each layer key -> its form (the tuning database checks its entries by it).
KEY_FORMS: dict[str, str] = {k: f.name for f in TABLE for k in f.keys}
# Each form's revision (1 unless the table says otherwise).
REVISIONS: dict[str, int] = {f.name: f.revision for f in TABLE}


def decide(target: Target, layer: Layer) -> Choice:
    """The static choice for `layer` on `target`: its form's rule."""
    return FORMS[layer.form].rule(target, layer)
