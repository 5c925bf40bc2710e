"""Quantized element types, the way MLIR's `quant` dialect carries them.

A quantized tensor is a builtin tensor whose element type says how its integers stand for
real numbers, `real = scale * (stored - zero_point)`:

    tensor<1x32x8x8x!xnn.quant.uniform<i8:f32, 0.0235:-3>>               per tensor
    tensor<32x3x3x3x!xnn.quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25, ...}>>   per axis 0
    tensor<64x128x!xnn.quant.uniform<i4:f32:0, block 32, {...}>>             blockwise

`i8<-127:127>` narrows the storage range (a symmetric weight); `:0` names the quantized
axis; `block 32` splits the innermost dimension into blocks of 32 with a scale each
(row-major [channel, block]). Zero points print after their scale (`0.5:3`) and are
omitted where they are all 0. More than `INLINE_SCALES` scales print as their count and
one hex string (`{64 x f32 "0x..."}`, i32 zero points after the scales), so a
per-channel type stays one short line and still round-trips exactly.

The type checks itself (scales finite and positive, zero points in the storage range);
the checks that need the tensor's shape (axis in range, one scale per channel or block)
are `check_quantized_tensor`, which the ops' verifiers call.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntAttr,
    IntegerType,
    TensorType,
    f32,
)
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

INLINE_SCALES = 8
PER_TENSOR = -1


class _QuantParameters(Data[tuple]):
    """A tuple parameter of `!xnn.quant.uniform`, written only inside it."""

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple:
        parser.raise_error(f"#{cls.name} is written inside !xnn.quant.uniform<...>")

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(repr(self.data))


@irdl_attr_definition
class ScalesAttr(_QuantParameters):
    """The scales of a quantized type (one per tensor, channel or block)."""

    name = "xnn.quant.scales"


@irdl_attr_definition
class ZeroPointsAttr(_QuantParameters):
    """The zero points of a quantized type, one per scale."""

    name = "xnn.quant.zero_points"


def _storage_limits(storage: IntegerType) -> tuple[int, int]:
    width = storage.width.data
    if storage.signedness.data.name == "UNSIGNED":
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


# --- syntax shared by the quantized types ----------------------------------------------------


def parse_storage(parser: AttrParser) -> tuple[IntegerType, int, int, Attribute]:
    """`i8<-127:127>:f32`: the storage type, its range (the type's whole range unless
    narrowed) and the expressed type."""
    storage = parser.parse_type()
    if not isinstance(storage, IntegerType):
        parser.raise_error(f"quantized storage must be an integer type, not {storage}")
    lo, hi = _storage_limits(storage)
    if parser.parse_optional_punctuation("<"):
        lo = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        hi = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(">")
    parser.parse_punctuation(":")
    return storage, lo, hi, parser.parse_type()


def print_storage(
    printer: Printer, storage: IntegerType, storage_range: tuple[int, int], expressed: Attribute
) -> None:
    printer.print_attribute(storage)
    if storage_range != _storage_limits(storage):
        printer.print_string(f"<{storage_range[0]}:{storage_range[1]}>")
    printer.print_string(":")
    printer.print_attribute(expressed)


def verified(
    cls: type[ParametrizedAttribute], params: Sequence[Attribute], parser: AttrParser, start: int
) -> Sequence[Attribute]:
    """`params` once the type they make verifies; its error is reported at the type (from
    `start`), not at the op using it."""
    try:
        cls.new(params).verify()
    except VerifyException as e:
        parser.raise_error(str(e), start, parser.pos)
    return params


@irdl_attr_definition
class UniformQuantType(ParametrizedAttribute, TypeAttribute):
    """Uniform (affine) quantization: per tensor, per axis, or blockwise along an axis."""

    name = "xnn.quant.uniform"

    storage_type: IntegerType
    storage_min: IntAttr
    storage_max: IntAttr
    expressed_type: Attribute
    axis: IntAttr  # PER_TENSOR, or the channel axis
    block_size: IntAttr  # 0, or blocks of this size along the innermost dimension
    scales: ScalesAttr
    zero_points: ZeroPointsAttr

    def __init__(
        self,
        storage_type: IntegerType,
        scales: Sequence[float],
        zero_points: Sequence[int] | None = None,
        *,
        axis: int = PER_TENSOR,
        block_size: int = 0,
        storage_range: tuple[int, int] | None = None,
        expressed_type: Attribute = f32,
    ):
        lo, hi = storage_range or _storage_limits(storage_type)
        zps = tuple(int(z) for z in zero_points) if zero_points is not None else (0,) * len(scales)
        super().__init__(
            storage_type, IntAttr(lo), IntAttr(hi), expressed_type, IntAttr(axis),
            IntAttr(block_size), ScalesAttr(tuple(float(s) for s in scales)),
            ZeroPointsAttr(zps),
        )  # fmt: skip

    # --- queries ---------------------------------------------------------------------------

    @property
    def bitwidth(self) -> int:
        """The storage width (so byte-size helpers treat the type like its storage)."""
        return self.storage_type.width.data

    @property
    def per_tensor(self) -> bool:
        return self.axis.data == PER_TENSOR

    @property
    def blockwise(self) -> bool:
        return self.block_size.data > 0

    @property
    def symmetric(self) -> bool:
        return all(z == 0 for z in self.zero_points.data)

    @property
    def scale(self) -> float:
        """The one scale of a per-tensor type."""
        return self.scales.data[0]

    @property
    def zero_point(self) -> int:
        return self.zero_points.data[0]

    @property
    def storage_range(self) -> tuple[int, int]:
        return self.storage_min.data, self.storage_max.data

    # --- verification ----------------------------------------------------------------------

    def verify(self) -> None:
        width = self.storage_type.width.data
        if width not in (4, 8, 16, 32):
            raise VerifyException(
                f"quantized storage {self.storage_type} must be 4, 8, 16 or 32 bits"
            )
        low, high = _storage_limits(self.storage_type)
        lo, hi = self.storage_range
        if not low <= lo < hi <= high:
            raise VerifyException(
                f"storage range [{lo}, {hi}] does not fit {self.storage_type} ([{low}, {high}])"
            )
        if not isinstance(self.expressed_type, Float32Type | Float16Type | BFloat16Type):
            raise VerifyException(
                f"quantized types express f32, f16 or bf16, not {self.expressed_type}"
            )
        scales, zps = self.scales.data, self.zero_points.data
        if not scales:
            raise VerifyException("a quantized type needs at least one scale")
        if len(zps) != len(scales):
            raise VerifyException(f"{len(scales)} scales but {len(zps)} zero points")
        if self.per_tensor and (len(scales) != 1 or self.blockwise):
            raise VerifyException(
                f"a per-tensor type has one scale, got {len(scales)}; name the axis (i8:f32:0) "
                "for per-channel scales"
            )
        if self.axis.data < PER_TENSOR:
            raise VerifyException(f"quantized axis {self.axis.data} is negative")
        if self.block_size.data < 0:
            raise VerifyException(f"block size {self.block_size.data} is negative")
        for i, s in enumerate(scales):
            if not (math.isfinite(s) and s > 0):
                raise VerifyException(f"scale {i} is {s}; scales must be finite and positive")
        for i, z in enumerate(zps):
            if not lo <= z <= hi:
                raise VerifyException(
                    f"zero point {i} is {z}, outside the storage range [{lo}, {hi}]"
                )

    # --- syntax ----------------------------------------------------------------------------

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            storage, lo, hi, expressed = parse_storage(parser)
            axis, block = PER_TENSOR, 0
            if parser.parse_optional_punctuation(":"):
                axis = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            if axis != PER_TENSOR and parser.parse_optional_keyword("block"):
                block = parser.parse_integer(allow_boolean=False, allow_negative=False)
                parser.parse_punctuation(",")
            if axis == PER_TENSOR:
                scales, zps = _parse_pairs(parser)
            else:
                with parser.in_braces():
                    scales, zps = _parse_channels(parser)
        params = (
            storage, IntAttr(lo), IntAttr(hi), expressed, IntAttr(axis), IntAttr(block),
            ScalesAttr(tuple(scales)), ZeroPointsAttr(tuple(zps)),
        )  # fmt: skip
        return verified(cls, params, parser, start)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_storage(printer, self.storage_type, self.storage_range, self.expressed_type)
            scales, zps = self.scales.data, self.zero_points.data
            if self.per_tensor:
                printer.print_string(f", {_pair(scales[0], zps[0])}")
                return
            printer.print_string(f":{self.axis.data}, ")
            if self.blockwise:
                printer.print_string(f"block {self.block_size.data}, ")
            if len(scales) > INLINE_SCALES:
                printer.print_string("{" + _packed(scales, zps) + "}")
                return
            printer.print_string("{" + ", ".join(map(_pair, scales, zps)) + "}")


def _packed(scales: Sequence[float], zps: Sequence[int]) -> str:
    """`N x f32 "0x..."`: the scales as little-endian f32 when each is one (torch's
    per-channel scales are), else f64, then i32 zero points unless all are 0."""
    n = len(scales)
    width = (
        "f32" if all(struct.unpack("<f", struct.pack("<f", s))[0] == s for s in scales) else "f64"
    )
    packed = struct.pack(f"<{n}{width == 'f32' and 'f' or 'd'}", *scales)
    if any(zps):
        packed += struct.pack(f"<{n}i", *zps)
    return f'{n} x {width} "0x{packed.hex().upper()}"'


def _pair(scale: float, zero_point: int) -> str:
    return repr(scale) if zero_point == 0 else f"{scale!r}:{zero_point}"


def _parse_pairs(parser: AttrParser) -> tuple[list[float], list[int]]:
    scale = parser.parse_float()
    zp = parser.parse_integer(allow_boolean=False) if parser.parse_optional_punctuation(":") else 0
    return [scale], [zp]


def _parse_channels(parser: AttrParser) -> tuple[list[float], list[int]]:
    """`s:z, s:z, ...`, or the long form `N x "0x..."` (N f64 scales, then N i32 zero
    points when they are not all 0)."""
    pos = parser.pos
    n = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
    if n is None:
        pairs = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, lambda: _parse_pairs(parser)
        )
        return [p[0][0] for p in pairs], [p[1][0] for p in pairs]
    parser.parse_keyword("x")
    width = 4
    if not parser.parse_optional_keyword("f32"):
        parser.parse_keyword("f64", " or f32: the width of the packed scales")
        width = 8
    text = parser.parse_str_literal(" holding the scales as hex")
    try:
        raw = bytes.fromhex(text.removeprefix("0x"))
    except ValueError:
        parser.raise_error("quantization scales must be a hex string '0x...'", pos)
    if len(raw) not in (width * n, (width + 4) * n):
        parser.raise_error(f"{len(raw)} bytes do not hold {n} scales (and i32 zero points)", pos)
    scales = list(struct.unpack(f"<{n}{'f' if width == 4 else 'd'}", raw[: width * n]))
    rest = raw[width * n :]
    zps = list(struct.unpack(f"<{n}i", rest)) if rest else [0] * n
    return scales, zps


def quant_type(elem: Attribute) -> UniformQuantType | None:
    """`elem` as a quantized type, or None."""
    return elem if isinstance(elem, UniformQuantType) else None


def is_quantized(t: Attribute) -> bool:
    """Whether `t` is a tensor of a quantized element type."""
    return isinstance(t, TensorType) and isinstance(t.element_type, UniformQuantType)


def check_quantized_tensor(t: Attribute) -> None:
    """The checks of a quantized tensor type that need its shape: the axis is one of its
    dims, and there is one scale per channel (or per block of each channel)."""
    if not is_quantized(t):
        return
    q: UniformQuantType = t.element_type
    if q.per_tensor:
        return
    shape, axis = t.get_shape(), q.axis.data
    if axis >= len(shape):
        raise VerifyException(f"quantized axis {axis} is out of range for {len(shape)}-D {t}")
    want = shape[axis]
    if q.blockwise:
        block, inner = q.block_size.data, shape[-1]
        if len(shape) < 2 or axis == len(shape) - 1:
            raise VerifyException(f"blockwise {t} needs an innermost dimension besides axis {axis}")
        if inner % block:
            raise VerifyException(
                f"block size {block} does not divide the innermost dim {inner} of {t}"
            )
        want *= inner // block
    got = len(q.scales.data)
    if got != want:
        what = "blocks" if q.blockwise else f"channels along axis {axis}"
        raise VerifyException(f"{got} scales for {want} {what} of {t}")


def expressed_tensor(t: TensorType) -> TensorType:
    """The float tensor type a quantized tensor type stands for."""
    q = quant_type(t.element_type)
    return t if q is None else TensorType(q.expressed_type, t.get_shape())


__all__ = [
    "INLINE_SCALES",
    "PER_TENSOR",
    "QuantizedShapesVerifier",
    "ScalesAttr",
    "UniformQuantType",
    "ZeroPointsAttr",
    "check_quantized_tensor",
    "expressed_tensor",
    "is_quantized",
    "quant_type",
]


class QuantizedShapesVerifier(Operation):
    """Mixin of the ops that take quantized tensors: each operand and result type passes
    `check_quantized_tensor`, reported on the op like its own verifier's errors."""

    def verify(self, verify_nested_ops: bool = True) -> None:
        super().verify(verify_nested_ops)
        try:
            for v in (*self.operands, *self.results):
                check_quantized_tensor(v.type)
        except VerifyException as err:
            self.emit_error(f"Operation does not verify: {err}", err)
