"""The shared form of `aten.constant` and `xnn.constant`: a weight by reference or a small
dense literal, with one syntax and one verifier."""

from __future__ import annotations

from typing import ClassVar, Self

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xnnc.dialects.types import tensor_nbytes


class ConstantValueOp(IRDLOperation):
    """Mixin of the constant ops: `value` (a weight or a dense literal) and one result.

        %w = aten.constant #xnnc.weight<"conv.weight"> : tensor<8x3x3x3xf32>
        %c = xnn.constant dense<1.0> : tensor<1xf32>

    A dense literal carries its type (as in `arith.constant`); a weight is followed by it.
    """

    RESULT_ROLE: ClassVar[str] = "result"

    def __init__(self, value: Attribute, type: TensorType):
        super().__init__(properties={"value": value}, result_types=[type])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        attrs = parser.parse_optional_attr_dict()
        value = parser.parse_attribute()
        if isinstance(value, DenseIntOrFPElementsAttr):
            type = value.get_type()
        else:
            parser.parse_punctuation(":")
            type = parser.parse_type()
        op = cls(value, type)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)
        if not isinstance(self.value, DenseIntOrFPElementsAttr):
            printer.print_string(" : ")
            printer.print_attribute(self.results[0].type)

    def verify_(self) -> None:
        """A dense value has the op's type; a weight with data has exactly its byte size."""
        t = self.results[0].type
        assert isinstance(t, TensorType)
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            if self.value.get_type() != t:
                raise VerifyException(
                    f"dense value of type {self.value.get_type()} does not match "
                    f"{self.RESULT_ROLE} {t}"
                )
            return
        blob = self.value.data
        if blob.has_data:
            try:
                want = tensor_nbytes(t.get_shape(), t.element_type)
            except ValueError as e:
                raise VerifyException(str(e)) from None
            if blob.nbytes != want:
                raise VerifyException(
                    f"weight '{blob.name}' has {blob.nbytes} bytes but {t} needs {want}"
                )
