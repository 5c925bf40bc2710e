"""Shapes and element types of tensor-typed values, symbolic dims included.

A symbolic dim is `?` in the tensor type, its expression in the type's encoding, and each
symbol's range in the module attribute `xnnc.symbols` (docs/dynamic-shapes.md):

    builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [1, 64]>} {
      ... tensor<1x8x?xf32, #xnnc.dims<"2*T + 1">> ...
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    IntAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xnnc.backend_xnnpack.dims import DimExpr, Ranges

SYMBOLS_ATTR_NAME = "xnnc.symbols"
_NONE = NoneAttr()


@irdl_attr_definition
class DimsAttr(ParametrizedAttribute):
    """A tensor type's encoding: the expression of each `?` dim, in order,
    `#xnnc.dims<"T", "2*T + 1">`."""

    name = "xnnc.dims"
    exprs: ArrayAttr[StringAttr]

    @staticmethod
    def of(exprs: Sequence[DimExpr]) -> DimsAttr:
        return DimsAttr(ArrayAttr([StringAttr(str(e)) for e in exprs]))

    def dims(self) -> list[DimExpr]:
        return [DimExpr.parse(e.data) for e in self.exprs]  # type: ignore[misc]

    def verify(self) -> None:
        for e in self.exprs:
            try:
                if not isinstance(DimExpr.parse(e.data), DimExpr):
                    raise ValueError(f"'{e.data}' is a constant: write it as a static dim")
            except ValueError as err:
                raise VerifyException(f"#xnnc.dims: {err}") from None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            exprs = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_str_literal
            )
        return (ArrayAttr([StringAttr(e) for e in exprs]),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.exprs, lambda e: printer.print_string_literal(e.data))


@irdl_attr_definition
class SymbolsAttr(ParametrizedAttribute):
    """The module's size symbols and their inclusive ranges, `#xnnc.symbols<T = [1, 64]>`."""

    name = "xnnc.symbols"
    names: ArrayAttr[StringAttr]
    lows: ArrayAttr[IntAttr]
    highs: ArrayAttr[IntAttr]

    @staticmethod
    def of(ranges: Ranges) -> SymbolsAttr:
        names = sorted(ranges)
        return SymbolsAttr(
            ArrayAttr([StringAttr(n) for n in names]),
            ArrayAttr([IntAttr(ranges[n][0]) for n in names]),
            ArrayAttr([IntAttr(ranges[n][1]) for n in names]),
        )

    def ranges(self) -> dict[str, tuple[int, int]]:
        return {
            n.data: (lo.data, hi.data)
            for n, lo, hi in zip(self.names, self.lows, self.highs, strict=True)
        }

    def verify(self) -> None:
        for name, (lo, hi) in self.ranges().items():
            if not 1 <= lo <= hi:
                raise VerifyException(
                    f"#xnnc.symbols: {name} = [{lo}, {hi}] is not a range of sizes >= 1"
                )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def entry() -> tuple[str, tuple[int, int]]:
            name = parser.parse_identifier()
            parser.parse_punctuation("=")
            parser.parse_punctuation("[")
            lo = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            hi = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation("]")
            return name, (lo, hi)

        with parser.in_angle_brackets():
            entries = parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
        return SymbolsAttr.of(dict(entries)).parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(
                self.ranges().items(),
                lambda kv: printer.print_string(f"{kv[0]} = [{kv[1][0]}, {kv[1][1]}]"),
            )


def shape_of(value: SSAValue) -> tuple[int | DimExpr, ...]:
    """The shape of a tensor-typed value; a symbolic dim is its `DimExpr`."""
    t = value.type
    assert isinstance(t, TensorType)
    return dims_of_type(t)


def dims_of_type(t: TensorType) -> tuple[int | DimExpr, ...]:
    shape = t.get_shape()
    if t.encoding == _NONE or not isinstance(t.encoding, DimsAttr):
        return shape
    if len(t.encoding.exprs) != shape.count(DYNAMIC_INDEX):
        raise VerifyException(
            f"{t}: {len(t.encoding.exprs)} dim expressions for {shape.count(DYNAMIC_INDEX)} "
            "'?' dims"
        )
    exprs = iter(_parsed(t.encoding))
    return tuple(next(exprs) if d == DYNAMIC_INDEX else d for d in shape)


@lru_cache(maxsize=1024)
def _parsed(encoding: DimsAttr) -> tuple[DimExpr, ...]:
    return tuple(encoding.dims())


def has_known_shape(t: Attribute) -> bool:
    """Whether `t` is a tensor type whose every dim is known: static, or symbolic with its
    expression (`#xnnc.dims`), not a bare `?`."""
    if not isinstance(t, TensorType):
        return False
    return t.has_static_shape() or isinstance(t.encoding, DimsAttr)


def is_symbolic_value(value: SSAValue) -> bool:
    """Whether a value's type has a symbolic dim."""
    t = value.type
    return isinstance(t, TensorType) and DYNAMIC_INDEX in t.get_shape()


def size_symbols(op: Operation) -> list[str]:
    """The size symbols in `op`'s operand and result types, sorted (empty when static)."""
    found: set[str] = set()
    for v in (*op.operands, *op.results):
        if is_symbolic_value(v):
            found.update(s for d in shape_of(v) if isinstance(d, DimExpr) for s in d.symbols)
    return sorted(found)


def module_attribute(op: Operation, name: str) -> Attribute | None:
    """Attribute `name` of the nearest builtin.module around `op` (or `op`) carrying it."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp) and name in current.attributes:
            return current.attributes[name]
        current = current.parent_op()
    return None


def symbol_ranges(op: Operation) -> dict[str, tuple[int, int]]:
    """The ranges of `xnnc.symbols` on the nearest builtin.module around `op` (or `op`)."""
    attr = module_attribute(op, SYMBOLS_ATTR_NAME)
    if attr is None:
        return {}
    if not isinstance(attr, SymbolsAttr):
        raise VerifyException(f"{SYMBOLS_ATTR_NAME} must be a #xnnc.symbols<...>")
    return attr.ranges()


def element_type(value: SSAValue) -> Attribute:
    """The element type of a tensor-typed value."""
    t = value.type
    assert isinstance(t, TensorType)
    return t.element_type


def has_element_type(value: SSAValue, elem: Attribute) -> bool:
    """Whether `value` is a tensor of `elem`."""
    return isinstance(value.type, TensorType) and value.type.element_type == elem


def tensor_type(elem: Attribute, shape: Sequence[int | DimExpr]) -> TensorType:
    """`tensor<...>` of `shape`; symbolic dims become `?` with their `#xnnc.dims`."""
    exprs = [d for d in shape if isinstance(d, DimExpr)]
    if not exprs:
        return TensorType(elem, list(shape))
    static = [DYNAMIC_INDEX if isinstance(d, DimExpr) else d for d in shape]
    return TensorType(elem, static, DimsAttr.of(exprs))


def ints(attr: DenseArrayBase | None, default: Sequence[int] = ()) -> tuple[int, ...]:
    """An integer array property as a tuple (`default` when absent)."""
    return tuple(default) if attr is None else tuple(int(v) for v in attr.get_values())


def int_value(attr: Attribute) -> int:
    """An integer property's value (an `IntegerAttr`)."""
    return attr.value.data  # type: ignore[attr-defined]


def is_complex(value: SSAValue) -> bool:
    """Whether `value` is a tensor of complex numbers."""
    t = value.type
    return isinstance(t, TensorType) and isinstance(t.element_type, ComplexType)


def has_complex(op: Operation) -> bool:
    """Whether `op` reads or makes a tensor of complex numbers."""
    return any(is_complex(v) for v in (*op.operands, *op.results))


def tensor_nbytes(shape: Sequence[int], elem: Attribute) -> int:
    """Bytes of a tensor's storage: elements below a byte (XNNPACK's 4-bit weights) pack
    into whole bytes per innermost row, as XNNPACK and stock ExecuTorch store them."""
    width = getattr(elem, "bitwidth", None)
    if width is not None and width < 8 and shape:
        rows = math.prod(shape[:-1])
        return rows * ((shape[-1] * width + 7) // 8)
    return math.prod(shape) * element_nbytes(elem)


def element_nbytes(elem: Attribute) -> int:
    """Bytes per element in torch's storage of a builtin element type (i1 is a byte)."""
    if isinstance(elem, ComplexType):
        return 2 * element_nbytes(elem.element_type)
    width = getattr(elem, "bitwidth", None)
    if width is None:
        raise ValueError(f"unsupported element type {elem}")
    return max(1, width // 8)
