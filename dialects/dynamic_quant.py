"""Dynamically quantized element types: the scale and zero point are computed from the
values at run time, so the type names how, not what.

    tensor<4x64x!xnn.quant.dynamic<i8:f32, tensor, eps 2.44140625e-04>>   one (scale, zp)
    tensor<1x8x64x!xnn.quant.dynamic<i8:f32, token, eps 1.17549435e-38>>  one per token

`tensor` is PT2E's `choose_qparams.tensor` (XNNPACKQuantizer's dynamic config), `token` is
torchao's `choose_qparams_affine` over blocks [1, ..., 1, K] (8da4w, 8da8w): one pair per
row of the innermost dim. Both are asymmetric over the storage range:
`scale = max((max(x, 0) - min(x, 0)) / (qmax - qmin), eps)`,
`zero_point = clamp(qmin - round(min(x, 0) / scale), qmin, qmax)`. XNNPACK's `qdint8`
(a convert to qd8 feeding a fully-connected) computes per token: the lowering of a `tensor`
type therefore differs from the model by the finer grid, never by more than its steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import Float32Type, FloatData, IntAttr, IntegerType, StringAttr, f32
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xnnc.dialects.quant import parse_storage, print_storage, verified

GRANULARITIES = ("tensor", "token")
I8 = IntegerType(8)


@irdl_attr_definition
class DynamicQuantType(ParametrizedAttribute, TypeAttribute):
    """Asymmetric int8 quantization whose parameters are chosen per tensor or per token
    when the value is computed."""

    name = "xnn.quant.dynamic"

    storage_type: IntegerType
    storage_min: IntAttr
    storage_max: IntAttr
    expressed_type: Attribute
    granularity: StringAttr
    eps: FloatData

    def __init__(
        self,
        granularity: str,
        eps: float,
        *,
        storage_range: tuple[int, int] = (-128, 127),
        storage_type: IntegerType = I8,
        expressed_type: Attribute = f32,
    ):
        lo, hi = storage_range
        super().__init__(
            storage_type, IntAttr(lo), IntAttr(hi), expressed_type, StringAttr(granularity),
            FloatData(float(eps)),
        )  # fmt: skip

    @property
    def storage_range(self) -> tuple[int, int]:
        return self.storage_min.data, self.storage_max.data

    @property
    def per_token(self) -> bool:
        return self.granularity.data == "token"

    def verify(self) -> None:
        if self.storage_type != I8:
            raise VerifyException(
                f"dynamically quantized storage is i8 (XNNPACK's qdint8), not {self.storage_type}"
            )
        lo, hi = self.storage_range
        if not -128 <= lo < hi <= 127:
            raise VerifyException(f"storage range [{lo}, {hi}] does not fit i8 ([-128, 127])")
        if not isinstance(self.expressed_type, Float32Type):
            raise VerifyException(f"dynamic quantization expresses f32, not {self.expressed_type}")
        if self.granularity.data not in GRANULARITIES:
            raise VerifyException(
                f"granularity '{self.granularity.data}' is not one of {', '.join(GRANULARITIES)}"
            )
        eps = self.eps.data
        if not (math.isfinite(eps) and eps > 0):
            raise VerifyException(f"eps {eps} must be finite and positive (the smallest scale)")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            storage, lo, hi, expressed = parse_storage(parser)
            parser.parse_punctuation(",")
            granularity = parser.parse_identifier(" (tensor or token)")
            parser.parse_punctuation(",")
            parser.parse_keyword("eps")
            eps = parser.parse_float()
        params = (
            storage, IntAttr(lo), IntAttr(hi), expressed, StringAttr(granularity),
            FloatData(eps),
        )  # fmt: skip
        return verified(cls, params, parser, start)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_storage(printer, self.storage_type, self.storage_range, self.expressed_type)
            printer.print_string(f", {self.granularity.data}, eps {_float_text(self.eps.data)}")


def _float_text(x: float) -> str:
    """The shortest repr that reads back exactly, as a float literal (`1.0e-05`, not
    `1e-05`)."""
    text = repr(x)
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


def dynamic_quant_type(elem: Attribute) -> DynamicQuantType | None:
    """`elem` as a dynamically quantized type, or None."""
    return elem if isinstance(elem, DynamicQuantType) else None


def is_dynamic(t: Attribute) -> bool:
    """Whether `t` is a tensor type of a dynamically quantized element type."""
    return isinstance(getattr(t, "element_type", None), DynamicQuantType)


__all__ = ["GRANULARITIES", "DynamicQuantType", "dynamic_quant_type", "is_dynamic"]
