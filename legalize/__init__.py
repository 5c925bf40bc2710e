"""The legalizations: types a target computes in (fp16, bf16, casts) and the node kinds and
shapes its runtime takes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.passes import ModulePass


def passes() -> dict[str, type[ModulePass]]:
    """Every pass of this package by name, imported on first use (`pipeline.registry` lists
    them all; `xnn-tune` finds a form's rewrite here by its name, `cost.forms`)."""
    from xnnc.legalize.bf16_precision import Bf16PrecisionPass
    from xnnc.legalize.broadcasts import LegalizeBroadcastsPass
    from xnnc.legalize.casts import LegalizeCastsPass
    from xnnc.legalize.fp16_precision import Fp16PrecisionPass
    from xnnc.legalize.outputs import LegalizeOutputsPass
    from xnnc.legalize.stock import LegalizeStockPass

    classes = (Fp16PrecisionPass, Bf16PrecisionPass, LegalizeCastsPass, LegalizeStockPass,
               LegalizeBroadcastsPass, LegalizeOutputsPass)  # fmt: skip
    return {p.name: p for p in classes}
