"""The `aten` dialect: core ATen with value semantics and PyTorch (NCHW) layouts.

Op and field names are ATen's: an op's operands and properties are named after the
arguments of its ATen schema (`self` becomes `input`), and `OVERLOADS` lists the
overloads it stands for, canonical first (the edge dialect's `*_copy` variants included).
The importer and the reference interpreter map FX arguments to fields, and fields back to
a call, by those names alone.

    %y = aten.convolution %x, %w, %b {stride = array<i64: 2>, ...}
           : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x7xf32>

Every ATen overload without an op here imports as `aten.generic`, which keeps the
overload name and its non-tensor arguments, so every model imports whole.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Data, Dialect, SSAValue
from xdsl.irdl import (
    AnyOf,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.operations import OperandDef, OptOperandDef, VarOperandDef, _OperandFieldDef
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from xnnc.backend_xnnpack.dims import DimExpr, NotAffine
from xnnc.backend_xnnpack.shapes import (
    broadcast_shapes,
    conv_output_size,
    deconv_output_size,
    normalize_dim,
    numel,
    pool_output_size,
    same_numel,
    slice_bounds,
)
from xnnc.dialects.constant_value import ConstantValueOp
from xnnc.dialects.dynamic_quant import dynamic_quant_type
from xnnc.dialects.quant import QuantizedShapesVerifier, quant_type
from xnnc.dialects.types import ints, shape_of
from xnnc.dialects.weights import WeightAttr

Scalar = AnyOf([base(IntegerAttr), base(FloatAttr)])
IntList = DenseArrayBase
FloatList = DenseArrayBase


# --- helpers -------------------------------------------------------------------------------


def _fail(msg: str) -> None:
    raise VerifyException(msg)


def _fmt(cls: type) -> str:
    """Assembly format from the operand fields: `%a, %b bias %c attr-dict : fn-type`."""
    fields: dict[str, type] = {}
    for klass in reversed(cls.__mro__):
        for name, field in vars(klass).items():
            if isinstance(field, _OperandFieldDef):
                fields.setdefault(name, field.cls)
    parts: list[str] = []
    for i, (name, kind) in enumerate(fields.items()):
        if kind is OptOperandDef:
            # A trailing optional operand reads as one more operand; others take a keyword.
            lead = "`,`" if i == len(fields) - 1 and parts else f"`{name}`"
            parts.append(f"({lead} ${name}^)?")
        elif kind in (OperandDef, VarOperandDef):
            parts.append(f"`,` ${name}" if parts else f"${name}")
    return " ".join(parts + ["attr-dict `:` functional-type(operands, results)"])


def aten_op(*overloads: str, renames: dict[str, str] | None = None):
    """`irdl_op_definition` with the shared assembly format and the ATen overloads the op
    stands for (canonical first); `renames` maps schema argument names to field names."""

    def define(cls: type[IRDLOperation]) -> type[IRDLOperation]:
        own = cls.__mro__[: cls.__mro__.index(IRDLOperation)]  # not IRDL's defaults
        if not any({"assembly_format", "parse", "print"} & set(vars(k)) for k in own):
            cls.assembly_format = _fmt(cls)
        op = irdl_op_definition(cls)
        op.OVERLOADS = overloads
        op.RENAMES = {"self": "input", **(renames or {})}
        return op

    return define


class AtenOp(QuantizedShapesVerifier, IRDLOperation):
    """Base of the `aten` ops: Pure, properties in the attribute dictionary."""

    OVERLOADS: ClassVar[tuple[str, ...]] = ()
    # Schema argument name -> field name, where they differ.
    RENAMES: ClassVar[dict[str, str]] = {"self": "input"}
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def verify(self, verify_nested_ops: bool = True) -> None:
        # A shape rule written for ints meets a symbolic dim it cannot decide on (NotAffine
        # names the dim's expression): a verifier error on the op, not an internal one.
        try:
            super().verify(verify_nested_ops)
        except NotAffine as e:
            err = VerifyException(f"cannot be checked for every size of its symbolic dims: {e}")
            self.emit_error(f"Operation does not verify: {err}", err)


# --- constants and the generic op ------------------------------------------------------------


@aten_op()
class ConstantOp(ConstantValueOp, AtenOp):
    """A parameter, buffer or lifted constant: a weight by reference, or a small dense."""

    name = "aten.constant"
    value = prop_def(AnyOf([base(WeightAttr), base(DenseIntOrFPElementsAttr)]))
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())


@irdl_attr_definition
class OperandRefAttr(Data[int]):
    """In `aten.generic`'s argument list: the position of a tensor operand."""

    name = "aten.operand"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> int:
        with parser.in_angle_brackets():
            return parser.parse_integer(allow_boolean=False, allow_negative=False)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")


@irdl_attr_definition
class ComplexAttr(Data[tuple[float, float]]):
    """A complex scalar argument (`1j` in `x * 1j`): `#aten.complex<0.0, 1.0>`, its real and
    imaginary parts. Builtin attributes have no complex number."""

    name = "aten.complex"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[float, float]:
        with parser.in_angle_brackets():
            real = parser.parse_float()
            parser.parse_punctuation(",")
            return real, parser.parse_float()

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data[0]!r}, {self.data[1]!r}>")


@aten_op()
class GenericOp(AtenOp):
    """Any other ATen overload: its qualified name, operands and non-tensor arguments.

    `args` mirrors the schema's positional arguments and `kwargs` its keyword ones;
    tensors appear as `#aten.operand<i>`, None as `none`, dtypes as builtin types.
    """

    name = "aten.generic"
    target = prop_def(StringAttr)
    args = prop_def(ArrayAttr, ArrayAttr([]))
    kwargs = prop_def(DictionaryAttr, DictionaryAttr({}))
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    traits = traits_def()
    assembly_format = "$target `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)"

    def verify_(self) -> None:
        if "::" not in self.target.data:
            _fail(f"target '{self.target.data}' is not a qualified overload like 'aten::sin'")
        refs: list[int] = []

        def collect(a: Attribute) -> None:
            if isinstance(a, OperandRefAttr):
                refs.append(a.data)
            elif isinstance(a, ArrayAttr):
                for x in a.data:
                    collect(x)

        for a in self.args.data:
            collect(a)
        for a in self.kwargs.data.values():
            collect(a)
        if sorted(refs) != list(range(len(self.inputs))):
            _fail(
                f"arguments reference operands {sorted(refs)} but the op has "
                f"{len(self.inputs)} operands; each operand must be referenced exactly once"
            )


# --- convolution and padding -----------------------------------------------------------------


@aten_op("aten::convolution")
class ConvolutionOp(AtenOp):
    """aten::convolution, 1-D to 3-D, grouped, transposed."""

    name = "aten.convolution"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    stride = prop_def(IntList)
    padding = prop_def(IntList)
    dilation = prop_def(IntList)
    transposed = prop_def(BoolAttr)
    output_padding = prop_def(IntList)
    groups = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, w, y = shape_of(self.input), shape_of(self.weight), shape_of(self.result)
        if len(x) not in (3, 4, 5) or len(w) != len(x):
            _fail(f"expects a 3-D, 4-D or 5-D input and a weight of the same rank, got {x}, {w}")
        n = len(x) - 2
        stride, padding, dilation = ints(self.stride), ints(self.padding), ints(self.dilation)
        out_pad = ints(self.output_padding)
        for label, v in (("stride", stride), ("padding", padding), ("dilation", dilation)):
            if len(v) != n:
                _fail(f"{label} has {len(v)} values but the convolution has {n} spatial dims")
        if min(stride + dilation) < 1:
            _fail(f"stride {list(stride)} and dilation {list(dilation)} must be positive")
        groups = self.groups.value.data
        if groups < 1:
            _fail(f"groups must be positive, got {groups}")
        transposed = bool(self.transposed.value.data)
        if transposed:
            if len(out_pad) != n:
                _fail(f"output_padding has {len(out_pad)} values, expected {n}")
            if x[1] != w[0]:
                _fail(f"input has {x[1]} channels but the transposed weight expects {w[0]}")
            cout = w[1] * groups
        else:
            if x[1] != w[1] * groups:
                _fail(
                    f"input has {x[1]} channels but weight expects {w[1]} per group "
                    f"x {groups} groups = {w[1] * groups}"
                )
            cout = w[0]
        if x[1] % groups or cout % groups:
            _fail(f"channels ({x[1]} in, {cout} out) are not divisible by groups={groups}")
        if self.bias is not None and shape_of(self.bias) != (cout,):
            _fail(f"bias has shape {list(shape_of(self.bias))}, expected [{cout}]")
        spatial = []
        for i in range(n):
            k = w[2 + i]
            if transposed:
                size = deconv_output_size(
                    x[2 + i], k, stride[i], 2 * padding[i], dilation[i], out_pad[i]
                )
            else:
                size = conv_output_size(x[2 + i], k, stride[i], 2 * padding[i], dilation[i])
            spatial.append(size)
        want = (x[0], cout, *spatial)
        if y != want:
            _fail(f"result shape {list(y)} does not match the computed shape {list(want)}")


@aten_op("aten::constant_pad_nd")
class ConstantPadNdOp(AtenOp):
    name = "aten.constant_pad_nd"
    input = operand_def(TensorType)
    pad = prop_def(IntList)
    value = opt_prop_def(Scalar)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_pad(shape_of(self.input), ints(self.pad), shape_of(self.result), None)


def _verify_pad(x: tuple[int, ...], pad: tuple[int, ...], y: tuple[int, ...], dims: int | None):
    """ATen pads are (last_lo, last_hi, second_last_lo, ...)."""
    if len(pad) % 2 or len(pad) // 2 > len(x):
        _fail(f"pad has {len(pad)} values; it needs pairs for at most {len(x)} dims")
    if dims is not None and len(pad) != 2 * dims:
        _fail(f"padding has {len(pad)} values, expected {2 * dims}")
    want = list(x)
    for i in range(len(pad) // 2):
        want[len(x) - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    if tuple(want) != y:
        _fail(f"result shape {list(y)} does not match the padded shape {want}")


class _SpatialPad(AtenOp):
    PAD_DIMS: ClassVar[int] = 1
    input = operand_def(TensorType)
    padding = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        if len(x) not in (self.PAD_DIMS + 1, self.PAD_DIMS + 2):
            _fail(f"expects a {self.PAD_DIMS + 1}-D or {self.PAD_DIMS + 2}-D input, got {list(x)}")
        _verify_pad(x, ints(self.padding), shape_of(self.result), self.PAD_DIMS)


@aten_op("aten::reflection_pad1d")
class ReflectionPad1dOp(_SpatialPad):
    name = "aten.reflection_pad1d"


@aten_op("aten::reflection_pad2d")
class ReflectionPad2dOp(_SpatialPad):
    name = "aten.reflection_pad2d"
    PAD_DIMS: ClassVar[int] = 2


@aten_op("aten::replication_pad1d")
class ReplicationPad1dOp(_SpatialPad):
    name = "aten.replication_pad1d"


@aten_op("aten::replication_pad2d")
class ReplicationPad2dOp(_SpatialPad):
    name = "aten.replication_pad2d"
    PAD_DIMS: ClassVar[int] = 2


@aten_op("aten::_pad_circular")
class PadCircularOp(AtenOp):
    """Circular (wrap-around) padding, what `F.pad(mode="circular")` calls; kept whole so it
    does not decompose into `empty` + `slice_scatter` writes."""

    name = "aten._pad_circular"
    input = operand_def(TensorType)
    pad = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_pad(shape_of(self.input), ints(self.pad), shape_of(self.result), None)


# --- elementwise -----------------------------------------------------------------------------


class _Binary(AtenOp):
    """`input op other`, where `other` is a tensor operand or the `scalar` property (a
    complex one for complex values: `x * 1j`)."""

    input = operand_def(TensorType)
    other = opt_operand_def(TensorType)
    scalar = opt_prop_def(AnyOf([base(IntegerAttr), base(FloatAttr), base(ComplexAttr)]))
    result = result_def(TensorType)

    def verify_(self) -> None:
        if (self.other is None) == (self.scalar is None):
            _fail("needs exactly one of a tensor `other` operand and a `scalar` property")
        shapes = [shape_of(self.input)] + ([shape_of(self.other)] if self.other is not None else [])
        want = broadcast_shapes(*shapes)
        if want is None:
            _fail(f"operand shapes {[list(s) for s in shapes]} do not broadcast")
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} is not the broadcast {list(want)}")


@aten_op("aten::add.Tensor", "aten::add.Scalar")
class AddOp(_Binary):
    name = "aten.add"
    alpha = opt_prop_def(Scalar)


@aten_op("aten::sub.Tensor", "aten::sub.Scalar")
class SubOp(_Binary):
    name = "aten.sub"
    alpha = opt_prop_def(Scalar)


@aten_op("aten::mul.Tensor", "aten::mul.Scalar")
class MulOp(_Binary):
    name = "aten.mul"


@aten_op("aten::div.Tensor_mode", "aten::div.Tensor", "aten::div.Scalar")
class DivOp(_Binary):
    name = "aten.div"
    rounding_mode = opt_prop_def(StringAttr)


@aten_op("aten::pow.Tensor_Scalar", "aten::pow.Tensor_Tensor", renames={"exponent": "other"})
class PowOp(_Binary):
    """aten::pow with a tensor or scalar exponent (ATen calls it `exponent`)."""

    name = "aten.pow"


@aten_op("aten::maximum")
class MaximumOp(_Binary):
    name = "aten.maximum"


@aten_op("aten::minimum")
class MinimumOp(_Binary):
    name = "aten.minimum"


@aten_op("aten::prelu", "aten::_prelu_kernel")
class PreluOp(AtenOp):
    """max(0, x) + weight * min(0, x), `weight` one slope or one per channel (dim 1), flat
    (`prelu`) or viewed to broadcast (`_prelu_kernel`, which `prelu` calls)."""

    name = "aten.prelu"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape, slopes = shape_of(self.input), numel(shape_of(self.weight))
        if shape_of(self.result) != shape:
            _fail(
                f"result shape {list(shape_of(self.result))} differs from input shape {list(shape)}"
            )
        channels = shape[1] if len(shape) >= 2 else 1
        if slopes not in (1, channels):
            _fail(f"weight has {slopes} slopes; expected 1 or the {channels} channels of dim 1")


class _Unary(AtenOp):
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        if shape_of(self.result) != shape_of(self.input):
            _fail(
                f"result shape {list(shape_of(self.result))} differs from "
                f"input shape {list(shape_of(self.input))}"
            )


def _unary(op_name: str, doc: str, **props: object) -> type[IRDLOperation]:
    class_name = "".join(p.title() for p in op_name.split("_")) + "Op"
    namespace = {"name": f"aten.{op_name}", "__doc__": doc, "__qualname__": class_name, **props}
    return aten_op(f"aten::{op_name}")(type(class_name, (_Unary,), namespace))


ReluOp = _unary("relu", "max(x, 0)")
EluOp = _unary(
    "elu",
    "scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1))",
    alpha=opt_prop_def(Scalar),
    scale=opt_prop_def(Scalar),
    input_scale=opt_prop_def(Scalar),
)
GeluOp = _unary("gelu", "GELU, exact or tanh-approximated", approximate=opt_prop_def(StringAttr))
SigmoidOp = _unary("sigmoid", "1 / (1 + exp(-x))")
TanhOp = _unary("tanh", "tanh(x)")
HardtanhOp = _unary(
    "hardtanh", "clamp(x, min_val, max_val)", min_val=opt_prop_def(Scalar),
    max_val=opt_prop_def(Scalar),
)  # fmt: skip
LeakyReluOp = _unary("leaky_relu", "x if x > 0 else negative_slope * x",
                     negative_slope=opt_prop_def(Scalar))  # fmt: skip
HardswishOp = _unary("hardswish", "x * relu6(x + 3) / 6")
HardsigmoidOp = _unary("hardsigmoid", "relu6(x + 3) / 6")
SoftplusOp = _unary(
    "softplus", "log(1 + exp(beta * x)) / beta, or x where beta * x > threshold",
    beta=opt_prop_def(Scalar), threshold=opt_prop_def(Scalar),
)  # fmt: skip
MishOp = _unary("mish", "x * tanh(softplus(x))")
SiluOp = _unary("silu", "x * sigmoid(x)")
ClampOp = _unary("clamp", "clamp(x, min, max); either bound may be absent",
                 min=opt_prop_def(Scalar), max=opt_prop_def(Scalar))  # fmt: skip
ExpOp = _unary("exp", "exp(x)")
LogOp = _unary("log", "log(x)")
Log1pOp = _unary("log1p", "log(1 + x), to full relative precision for small x")
Log2Op = _unary("log2", "log(x) / log(2)")
Log10Op = _unary("log10", "log(x) / log(10)")
SqrtOp = _unary("sqrt", "sqrt(x)")
RsqrtOp = _unary("rsqrt", "1 / sqrt(x)")
ReciprocalOp = _unary("reciprocal", "1 / x")
AbsOp = _unary("abs", "|x|")
NegOp = _unary("neg", "-x")
FloorOp = _unary("floor", "floor(x)")
CeilOp = _unary("ceil", "ceil(x)")


@aten_op("aten::round", "aten::round.decimals")
class RoundOp(_Unary):
    """x rounded to `decimals` places (absent: 0), halves to even."""

    name = "aten.round"
    decimals = opt_prop_def(IntegerAttr)


SinOp = _unary("sin", "sin(x)")
CosOp = _unary("cos", "cos(x)")
SquareOp = _unary("square", "x * x")


@aten_op("aten::where.self")
class WhereOp(AtenOp):
    name = "aten.where"
    condition = operand_def(TensorType)
    input = operand_def(TensorType)
    other = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shapes = [shape_of(v) for v in (self.condition, self.input, self.other)]
        want = broadcast_shapes(*shapes)
        if want is None or shape_of(self.result) != want:
            _fail(f"operand shapes {[list(s) for s in shapes]} do not broadcast to the result")


# --- matrix products -------------------------------------------------------------------------


@aten_op("aten::linear")
class LinearOp(AtenOp):
    """y = x @ weight^T + bias, over the last dim of x."""

    name = "aten.linear"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, w = shape_of(self.input), shape_of(self.weight)
        if len(w) != 2 or not x or x[-1] != w[1]:
            k = x[-1] if x else "?"
            _fail(f"input {list(x)} and weight {list(w)} do not multiply: need weight [N, {k}]")
        if self.bias is not None and shape_of(self.bias) not in ((w[0],), ()):
            _fail(f"bias has shape {list(shape_of(self.bias))}, expected [{w[0]}]")
        if shape_of(self.result) != (*x[:-1], w[0]):
            _fail(f"result shape {list(shape_of(self.result))} should be {[*x[:-1], w[0]]}")


@aten_op("aten::addmm")
class AddmmOp(AtenOp):
    """beta * input + alpha * (mat1 @ mat2)."""

    name = "aten.addmm"
    input = operand_def(TensorType)
    mat1 = operand_def(TensorType)
    mat2 = operand_def(TensorType)
    beta = opt_prop_def(Scalar)
    alpha = opt_prop_def(Scalar)
    result = result_def(TensorType)

    def verify_(self) -> None:
        a, b = shape_of(self.mat1), shape_of(self.mat2)
        if len(a) != 2 or len(b) != 2 or a[1] != b[0]:
            _fail(f"mat1 {list(a)} and mat2 {list(b)} do not multiply")
        if broadcast_shapes(shape_of(self.input), (a[0], b[1])) != (a[0], b[1]):
            _fail(f"input {list(shape_of(self.input))} does not broadcast to [{a[0]}, {b[1]}]")
        if shape_of(self.result) != (a[0], b[1]):
            _fail(f"result shape {list(shape_of(self.result))} should be {[a[0], b[1]]}")


@aten_op("aten::mm")
class MmOp(AtenOp):
    name = "aten.mm"
    input = operand_def(TensorType)
    mat2 = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        a, b = shape_of(self.input), shape_of(self.mat2)
        if len(a) != 2 or len(b) != 2 or a[1] != b[0]:
            _fail(f"{list(a)} and {list(b)} do not multiply")
        if shape_of(self.result) != (a[0], b[1]):
            _fail(f"result shape {list(shape_of(self.result))} should be {[a[0], b[1]]}")


@aten_op("aten::bmm")
class BmmOp(AtenOp):
    name = "aten.bmm"
    input = operand_def(TensorType)
    mat2 = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_batched(self.input, self.mat2, self.result, rank=3)


def _verify_batched(x: SSAValue, y: SSAValue, result: SSAValue, rank: int | None) -> None:
    """[B..., M, K] x [B..., K, N] -> [B..., M, N], equal batch dims (`rank` dims, or any
    number from 3)."""
    a, b = shape_of(x), shape_of(y)
    ranked = len(a) == rank if rank is not None else len(a) >= 3
    if not ranked or len(a) != len(b) or a[:-2] != b[:-2] or a[-1] != b[-2]:
        batch = "B" if rank == 3 else "B..."
        _fail(f"{list(a)} and {list(b)} are not batched [{batch}, M, K] x [{batch}, K, N]")
    if shape_of(result) != (*a[:-1], b[-1]):
        _fail(f"result shape {list(shape_of(result))} should be {[*a[:-1], b[-1]]}")


@aten_op()
class MatmulOp(AtenOp):
    """[B..., M, K] x [B..., K, N] -> [B..., M, N] with equal batch dims: what
    `aten-recognize-matmul` raises torch.matmul's view -> bmm -> view decomposition back to.
    No ATen overload: torch.matmul's broadcasting forms still decompose at import."""

    name = "aten.matmul"
    input = operand_def(TensorType)
    other = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_batched(self.input, self.other, self.result, rank=None)


# --- reductions and normalization ------------------------------------------------------------


class _Reduce(AtenOp):
    input = operand_def(TensorType)
    dim = opt_prop_def(IntList)
    keepdim = opt_prop_def(BoolAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        dims = ints(self.dim)
        norm = [normalize_dim(d, len(x)) for d in dims]
        if any(d is None for d in norm):
            _fail(f"reduction dims {list(dims)} are out of range for rank {len(x)}")
        reduced = set(norm) if dims else set(range(len(x)))
        keep = self.keepdim is not None and bool(self.keepdim.value.data)
        want = [1 if i in reduced else d for i, d in enumerate(x) if keep or i not in reduced]
        if list(shape_of(self.result)) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {want}")


@aten_op("aten::mean.dim", "aten::mean")
class MeanOp(_Reduce):
    name = "aten.mean"
    dtype = opt_prop_def(Attribute)


@aten_op("aten::sum.dim_IntList", "aten::sum")
class SumOp(_Reduce):
    name = "aten.sum"
    dtype = opt_prop_def(Attribute)


@aten_op("aten::amax", "aten::max")
class AmaxOp(_Reduce):
    """amax over `dim`; over every dim when none (`x.max()`, `aten::max`, is the same)."""

    name = "aten.amax"


@aten_op("aten::var.correction")
class VarOp(_Reduce):
    """Variance over `dim`, divided by count - correction (1 when absent: Bessel's)."""

    name = "aten.var"
    correction = opt_prop_def(Scalar)


class _AlongDim(_Unary):
    """An op along one dim of its input, checked against its rank."""

    dim = prop_def(IntegerAttr)

    def verify_(self) -> None:
        super().verify_()
        if normalize_dim(self.dim.value.data, len(shape_of(self.input))) is None:
            _fail(f"dim {self.dim.value.data} is out of range for rank {len(shape_of(self.input))}")


class _Softmax(_AlongDim):
    half_to_float = prop_def(BoolAttr)


@aten_op("aten::_softmax")
class SoftmaxOp(_Softmax):
    name = "aten._softmax"


@aten_op("aten::_log_softmax")
class LogSoftmaxOp(_Softmax):
    name = "aten._log_softmax"


@aten_op("aten::_safe_softmax")
class SafeSoftmaxOp(_AlongDim):
    """Softmax over `dim` that gives 0, not NaN, on a slice that is all -inf (a fully masked
    attention row): what the SDPA decomposition computes with eq/any/where around _softmax."""

    name = "aten._safe_softmax"
    dtype = opt_prop_def(Attribute)


@aten_op("aten::_native_batch_norm_legit_no_training")
class BatchNormOp(AtenOp):
    """Inference batch norm; the second and third results are empty, as in ATen."""

    name = "aten._native_batch_norm_legit_no_training"
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    input = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    running_mean = operand_def(TensorType)
    running_var = operand_def(TensorType)
    momentum = prop_def(FloatAttr)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)
    save_mean = result_def(TensorType)
    save_rstd = result_def(TensorType)
    assembly_format = (
        "$input `:` type($input) (`weight` $weight^ `:` type($weight))? "
        "(`bias` $bias^ `:` type($bias))? `mean` $running_mean `:` type($running_mean) "
        "`var` $running_var `:` type($running_var) attr-dict `->` type(results)"
    )

    def verify_(self) -> None:
        x = shape_of(self.input)
        if len(x) < 2:
            _fail(f"expects at least [N, C], got {list(x)}")
        params = {"weight": self.weight, "bias": self.bias,
                  "running_mean": self.running_mean, "running_var": self.running_var}  # fmt: skip
        for label, v in params.items():
            if v is not None and shape_of(v) != (x[1],):
                _fail(f"{label} has shape {list(shape_of(v))}, expected [{x[1]}] (channels)")
        if shape_of(self.result) != x:
            _fail(f"result shape {list(shape_of(self.result))} differs from input {list(x)}")


@aten_op("aten::native_layer_norm")
class LayerNormOp(AtenOp):
    name = "aten.native_layer_norm"
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    input = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    normalized_shape = prop_def(IntList)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)
    mean = result_def(TensorType)
    rstd = result_def(TensorType)
    assembly_format = (
        "$input `:` type($input) (`weight` $weight^ `:` type($weight))? "
        "(`bias` $bias^ `:` type($bias))? attr-dict `->` type(results)"
    )

    def verify_(self) -> None:
        x, norm = shape_of(self.input), ints(self.normalized_shape)
        if not norm or x[len(x) - len(norm) :] != norm:
            _fail(f"normalized_shape {list(norm)} is not a suffix of the input shape {list(x)}")
        for label, v in (("weight", self.weight), ("bias", self.bias)):
            if v is not None and shape_of(v) != norm:
                _fail(f"{label} has shape {list(shape_of(v))}, expected {list(norm)}")
        if shape_of(self.result) != x:
            _fail(f"result shape {list(shape_of(self.result))} differs from input {list(x)}")


@aten_op("aten::native_group_norm", renames={"HxW": "hxw"})
class GroupNormOp(AtenOp):
    """Group norm of [N, C, *] over `group` groups of C / group channels; weight and bias are
    per channel. The second and third results are the per-group mean and rstd, [N, group]."""

    name = "aten.native_group_norm"
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    input = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    N = prop_def(IntegerAttr)
    C = prop_def(IntegerAttr)
    hxw = prop_def(IntegerAttr)
    group = prop_def(IntegerAttr)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)
    mean = result_def(TensorType)
    rstd = result_def(TensorType)
    assembly_format = LayerNormOp.assembly_format

    def verify_(self) -> None:
        x = shape_of(self.input)
        n, c, hxw, g = (a.value.data for a in (self.N, self.C, self.hxw, self.group))
        if len(x) < 2 or x[0] != n or x[1] != c or numel(x) != n * c * hxw:
            _fail(f"N={n}, C={c}, HxW={hxw} do not describe the input shape {list(x)}")
        if g < 1 or c % g:
            _fail(f"{c} channels do not split into {g} groups")
        for label, v in (("weight", self.weight), ("bias", self.bias)):
            if v is not None and shape_of(v) != (c,):
                _fail(f"{label} has shape {list(shape_of(v))}, expected [{c}] (channels)")
        if shape_of(self.result) != x:
            _fail(f"result shape {list(shape_of(self.result))} differs from input {list(x)}")


@aten_op("aten::embedding")
class EmbeddingOp(AtenOp):
    name = "aten.embedding"
    weight = operand_def(TensorType)
    indices = operand_def(TensorType)
    padding_idx = opt_prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        w, i = shape_of(self.weight), shape_of(self.indices)
        if len(w) != 2:
            _fail(f"weight must be [num_embeddings, dim], got {list(w)}")
        if shape_of(self.result) != (*i, w[1]):
            _fail(f"result shape {list(shape_of(self.result))} should be {[*i, w[1]]}")


# --- pooling and resampling ------------------------------------------------------------------


def _verify_pool(op: IRDLOperation, kernel, stride, padding, dilation, ceil_mode) -> None:
    x, y = shape_of(op.input), shape_of(op.result)
    if len(x) not in (3, 4):
        _fail(f"expects a 3-D or 4-D input, got {list(x)}")
    kernel = list(kernel) * (2 // len(kernel)) if len(kernel) == 1 else list(kernel)
    stride = list(stride) * (2 // len(stride)) if len(stride) == 1 else list(stride or kernel)
    padding = list(padding) * (2 // len(padding)) if len(padding) == 1 else list(padding)
    dilation = list(dilation) * 2 if len(dilation) == 1 else list(dilation)
    if len(kernel) != 2 or len(stride) != 2 or len(padding) != 2 or len(dilation) != 2:
        _fail("kernel_size, stride, padding and dilation need 1 or 2 values")
    if min(stride + dilation) < 1:
        _fail(f"stride {stride} and dilation {dilation} must be positive")
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            _fail(f"padding {p} is more than half the kernel {k}")
    spatial = [
        pool_output_size(x[-2 + i], kernel[i], stride[i], 2 * padding[i], dilation[i], ceil_mode)
        for i in range(2)
    ]
    want = (*x[:-2], *spatial)
    if y != want:
        _fail(f"result shape {list(y)} does not match the computed shape {list(want)}")


@aten_op("aten::max_pool2d_with_indices")
class MaxPool2dWithIndicesOp(AtenOp):
    name = "aten.max_pool2d_with_indices"
    input = operand_def(TensorType)
    kernel_size = prop_def(IntList)
    stride = opt_prop_def(IntList)
    padding = opt_prop_def(IntList)
    dilation = opt_prop_def(IntList)
    ceil_mode = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    indices = result_def(TensorType)

    def verify_(self) -> None:
        ceil_mode = bool(self.ceil_mode and self.ceil_mode.value.data)
        _verify_pool(self, ints(self.kernel_size), ints(self.stride), ints(self.padding, (0,)),
                     ints(self.dilation, (1,)), ceil_mode)  # fmt: skip


@aten_op("aten::avg_pool2d")
class AvgPool2dOp(AtenOp):
    name = "aten.avg_pool2d"
    input = operand_def(TensorType)
    kernel_size = prop_def(IntList)
    stride = opt_prop_def(IntList)
    padding = opt_prop_def(IntList)
    ceil_mode = opt_prop_def(BoolAttr)
    count_include_pad = opt_prop_def(BoolAttr)
    divisor_override = opt_prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_pool(self, ints(self.kernel_size), ints(self.stride), ints(self.padding, (0,)),
                     (1, 1), bool(self.ceil_mode and self.ceil_mode.value.data))  # fmt: skip


@aten_op("aten::_adaptive_avg_pool2d")
class AdaptiveAvgPool2dOp(AtenOp):
    name = "aten._adaptive_avg_pool2d"
    input = operand_def(TensorType)
    output_size = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, out = shape_of(self.input), ints(self.output_size)
        if len(x) not in (3, 4) or len(out) != 2 or shape_of(self.result) != (*x[:-2], *out):
            _fail(f"result {list(shape_of(self.result))} is not input {list(x)} pooled to {out}")


@aten_op("aten::adaptive_max_pool2d")
class AdaptiveMaxPool2dOp(AtenOp):
    name = "aten.adaptive_max_pool2d"
    input = operand_def(TensorType)
    output_size = prop_def(IntList)
    result = result_def(TensorType)
    indices = result_def(TensorType)

    def verify_(self) -> None:
        x, out = shape_of(self.input), ints(self.output_size)
        if len(x) not in (3, 4) or len(out) != 2 or shape_of(self.result) != (*x[:-2], *out):
            _fail(f"result {list(shape_of(self.result))} is not input {list(x)} pooled to {out}")


class _Upsample(AtenOp):
    input = operand_def(TensorType)
    output_size = opt_prop_def(IntList)
    scale_factors = opt_prop_def(FloatList)
    result = result_def(TensorType)
    LAYOUT: ClassVar[str] = "[N, C, H, W]"

    def verify_(self) -> None:
        x, y = shape_of(self.input), shape_of(self.result)
        rank = self.LAYOUT.count(",") + 1
        if len(x) != rank or len(y) != rank or x[:2] != y[:2]:
            _fail(f"expects {rank}-D {self.LAYOUT} input and result, got {list(x)} -> {list(y)}")
        if self.output_size is None and self.scale_factors is None:
            _fail("needs output_size or scale_factors")
        if self.output_size is not None and ints(self.output_size) != y[2:]:
            _fail(f"output_size {list(ints(self.output_size))} differs from result {list(y)}")


@aten_op("aten::upsample_nearest2d.vec")
class UpsampleNearest2dOp(_Upsample):
    name = "aten.upsample_nearest2d"


@aten_op("aten::upsample_nearest1d.vec")
class UpsampleNearest1dOp(_Upsample):
    name = "aten.upsample_nearest1d"
    LAYOUT: ClassVar[str] = "[N, C, W]"


@aten_op("aten::upsample_bilinear2d.vec")
class UpsampleBilinear2dOp(_Upsample):
    name = "aten.upsample_bilinear2d"
    align_corners = prop_def(BoolAttr)


@aten_op("aten::pixel_shuffle")
class PixelShuffleOp(AtenOp):
    name = "aten.pixel_shuffle"
    input = operand_def(TensorType)
    upscale_factor = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, r = shape_of(self.input), self.upscale_factor.value.data
        if len(x) < 3 or r < 1 or x[-3] % (r * r):
            _fail(f"input {list(x)} channels are not divisible by upscale_factor^2 = {r * r}")
        want = (*x[:-3], x[-3] // (r * r), x[-2] * r, x[-1] * r)
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


@aten_op("aten::pixel_unshuffle")
class PixelUnshuffleOp(AtenOp):
    name = "aten.pixel_unshuffle"
    input = operand_def(TensorType)
    downscale_factor = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, r = shape_of(self.input), self.downscale_factor.value.data
        if len(x) < 3 or r < 1 or x[-2] % r or x[-1] % r:
            _fail(f"input {list(x)} height and width are not divisible by downscale_factor {r}")
        want = (*x[:-3], x[-3] * r * r, x[-2] // r, x[-1] // r)
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


# --- shape and layout ------------------------------------------------------------------------


@aten_op("aten::view", "aten::view_copy")
class ViewOp(AtenOp):
    name = "aten.view"
    input = operand_def(TensorType)
    size = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, y = shape_of(self.input), shape_of(self.result)
        try:
            same = same_numel(x, y)
        except NotAffine:
            _fail(f"cannot view {list(x)} as {list(y)} for every size")
        if not same:
            _fail(f"cannot view {list(x)} ({numel(x)} elements) as {list(y)} ({numel(y)})")


@aten_op("aten::permute", "aten::permute_copy")
class PermuteOp(AtenOp):
    name = "aten.permute"
    input = operand_def(TensorType)
    dims = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, dims = shape_of(self.input), ints(self.dims)
        norm = [normalize_dim(d, len(x)) for d in dims]
        if sorted(d for d in norm if d is not None) != list(range(len(x))) or None in norm:
            _fail(f"dims {list(dims)} are not a permutation of {len(x)} dims")
        want = tuple(x[d] for d in norm)
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


@aten_op("aten::squeeze.dims", "aten::squeeze_copy.dims")
class SqueezeOp(AtenOp):
    name = "aten.squeeze"
    input = operand_def(TensorType)
    dim = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        norm = {normalize_dim(d, len(x)) for d in ints(self.dim)} if x else set()
        if None in norm:
            _fail(f"dims {list(ints(self.dim))} are out of range for rank {len(x)}")
        want = tuple(d for i, d in enumerate(x) if not (i in norm and d == 1))
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


@aten_op("aten::unsqueeze", "aten::unsqueeze_copy")
class UnsqueezeOp(AtenOp):
    name = "aten.unsqueeze"
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, d = (
            shape_of(self.input),
            normalize_dim(self.dim.value.data, len(shape_of(self.input)) + 1),
        )
        if d is None:
            _fail(f"dim {self.dim.value.data} is out of range for rank {len(x) + 1}")
        if shape_of(self.result) != (*x[:d], 1, *x[d:]):
            _fail(f"result shape {list(shape_of(self.result))} should be {[*x[:d], 1, *x[d:]]}")


@aten_op("aten::expand", "aten::expand_copy")
class ExpandOp(AtenOp):
    name = "aten.expand"
    input = operand_def(TensorType)
    size = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x, y = shape_of(self.input), shape_of(self.result)
        if broadcast_shapes(x, y) != y:
            _fail(f"cannot expand {list(x)} to {list(y)}")


@aten_op("aten::slice.Tensor", "aten::slice_copy.Tensor")
class SliceOp(AtenOp):
    name = "aten.slice"
    input = operand_def(TensorType)
    dim = opt_prop_def(IntegerAttr)
    start = opt_prop_def(IntegerAttr)
    end = opt_prop_def(IntegerAttr)
    step = opt_prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        # `is not None`: an IntegerAttr holding 0 is falsy.
        d = normalize_dim(self.dim.value.data if self.dim is not None else 0, len(x))
        if d is None:
            _fail(f"dim is out of range for rank {len(x)}")
        step = self.step.value.data if self.step is not None else 1
        if step < 1:
            _fail(f"step must be positive, got {step}")
        if x[d] == DYNAMIC_INDEX:
            return  # the sliced length is known only at run time
        if self.end is not None and self.end.value.data == DYNAMIC_INDEX:
            # Ends at a symbolic size, which the result's dim carries (from start 0).
            got = shape_of(self.result)[d]
            if not isinstance(got, DimExpr) or (self.start and self.start.value.data) or step != 1:
                _fail(f"a symbolic end needs start 0, step 1 and a symbolic result dim, got {got}")
            return
        bounds = [b.value.data if b is not None else None for b in (self.start, self.end)]
        if isinstance(x[d], DimExpr):
            if step != 1:
                _fail(f"a strided slice of the symbolic dim {x[d]}")
            try:
                length = slice_bounds(x[d], *bounds)[1]
            except (ValueError, NotAffine) as e:
                _fail(str(e))
        else:
            length = len(range(*slice(*bounds, step).indices(x[d])))
        want = (*x[:d], length, *x[d + 1 :])
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


@aten_op("aten::select.int", "aten::select_copy.int")
class SelectOp(AtenOp):
    """input[..., index, ...] at `dim`: that dim is dropped."""

    name = "aten.select"
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    index = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        d = normalize_dim(self.dim.value.data, len(x))
        if d is None:
            _fail(f"dim {self.dim.value.data} is out of range for rank {len(x)}")
        index = self.index.value.data
        if not -x[d] <= index < x[d]:
            _fail(f"index {index} is out of range for dim {d} of size {x[d]}")
        want = (*x[:d], *x[d + 1 :])
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


@aten_op("aten::flip")
class FlipOp(AtenOp):
    """x reversed along each of `dims`."""

    name = "aten.flip"
    input = operand_def(TensorType)
    dims = prop_def(IntList)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        if any(normalize_dim(d, len(x)) is None for d in ints(self.dims)):
            _fail(f"dims {list(ints(self.dims))} are out of range for rank {len(x)}")
        if shape_of(self.result) != x:
            _fail(f"result shape {list(shape_of(self.result))} differs from input shape {list(x)}")


@aten_op("aten::cat")
class CatOp(AtenOp):
    name = "aten.cat"
    tensors = var_operand_def(TensorType)
    dim = opt_prop_def(IntegerAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shapes = [shape_of(t) for t in self.tensors]
        if not shapes:
            _fail("needs at least one tensor")
        rank = len(shapes[0])
        d = normalize_dim(self.dim.value.data if self.dim is not None else 0, rank)
        if d is None:
            _fail(f"dim is out of range for rank {rank}")
        for s in shapes:
            if len(s) != rank or any(
                a != b for i, (a, b) in enumerate(zip(s, shapes[0])) if i != d
            ):
                _fail(f"shapes {[list(s) for s in shapes]} differ outside dim {d}")
        want = (*shapes[0][:d], sum(s[d] for s in shapes), *shapes[0][d + 1 :])
        if shape_of(self.result) != want:
            _fail(f"result shape {list(shape_of(self.result))} should be {list(want)}")


@aten_op("aten::split_with_sizes", "aten::split_with_sizes_copy")
class SplitWithSizesOp(AtenOp):
    name = "aten.split_with_sizes"
    input = operand_def(TensorType)
    split_sizes = prop_def(IntList)
    dim = opt_prop_def(IntegerAttr)
    outputs = var_result_def(TensorType)

    def verify_(self) -> None:
        x, sizes = shape_of(self.input), ints(self.split_sizes)
        d = normalize_dim(self.dim.value.data if self.dim is not None else 0, len(x))
        if d is None or sum(sizes) != x[d]:
            size = x[d] if d is not None else "?"
            _fail(f"split_sizes {list(sizes)} do not add up to dim of size {size}")
        if len(self.outputs) != len(sizes):
            _fail(f"has {len(self.outputs)} results for {len(sizes)} split sizes")
        for r, s in zip(self.outputs, sizes):
            if shape_of(r) != (*x[:d], s, *x[d + 1 :]):
                _fail(f"result shape {list(shape_of(r))} should be {[*x[:d], s, *x[d + 1 :]]}")


# --- casts -----------------------------------------------------------------------------------


class _Cast(_Unary):
    dtype = opt_prop_def(Attribute)

    def verify_(self) -> None:
        super().verify_()
        t = self.result.type
        assert isinstance(t, TensorType)
        if self.dtype is not None and self.dtype != t.element_type:
            _fail(f"dtype {self.dtype} differs from the result element type {t.element_type}")


@aten_op("aten::_to_copy")
class ToCopyOp(_Cast):
    name = "aten._to_copy"
    memory_format = opt_prop_def(StringAttr)


@aten_op("dim_order_ops::_to_dim_order_copy")
class ToDimOrderCopyOp(_Cast):
    name = "aten._to_dim_order_copy"
    dim_order = opt_prop_def(IntList)


@aten_op("aten::clone", "dim_order_ops::_clone_dim_order", "aten::alias", "aten::alias_copy")
class CloneOp(_Unary):
    name = "aten.clone"
    memory_format = opt_prop_def(StringAttr)
    dim_order = opt_prop_def(IntList)


# --- quantization (MLIR's quant.qcast / quant.dcast) -----------------------------------------


def _verify_quant_cast(op: IRDLOperation, real: TensorType, quantized: TensorType) -> None:
    q = quant_type(quantized.element_type) or dynamic_quant_type(quantized.element_type)
    if q is None:
        _fail(f"{op.name} needs a quantized tensor, got {quantized}")
    if quant_type(real.element_type) or dynamic_quant_type(real.element_type):
        _fail(f"{op.name} converts between a float and a quantized tensor, got {real}")
    if real.element_type != q.expressed_type:
        _fail(f"{real} is not the type {quantized} expresses ({q.expressed_type})")
    if real.get_shape() != quantized.get_shape():
        _fail(f"shapes differ: {real} and {quantized}")


@aten_op()
class QuantizeOp(AtenOp):
    """Float to quantized, as PT2E's quantize_per_tensor / _per_channel: the result type
    holds the scales, zero points and storage range,
    `clamp(round(x / scale) + zero_point, min, max)`."""

    name = "aten.quantize"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_quant_cast(self, self.input.type, self.result.type)


@aten_op()
class DequantizeOp(AtenOp):
    """Quantized to float, `(q - zero_point) * scale`."""

    name = "aten.dequantize"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _verify_quant_cast(self, self.result.type, self.input.type)


ATEN_OPS: list[type[IRDLOperation]] = [
    ConstantOp, GenericOp, ConvolutionOp, ConstantPadNdOp, ReflectionPad1dOp, ReflectionPad2dOp,
    PadCircularOp,
    ReplicationPad1dOp, ReplicationPad2dOp, AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp,
    MinimumOp, PreluOp, ReluOp, EluOp, GeluOp, SigmoidOp, TanhOp, HardtanhOp, LeakyReluOp,
    HardswishOp,
    HardsigmoidOp, SoftplusOp, MishOp,
    SiluOp, ClampOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, AbsOp, NegOp,
    FloorOp, CeilOp, RoundOp, SinOp, CosOp, SquareOp, Log1pOp, Log2Op, Log10Op, WhereOp,
    LinearOp, AddmmOp, MmOp, BmmOp, MatmulOp, MeanOp,
    SumOp, AmaxOp, VarOp, SoftmaxOp, LogSoftmaxOp, SafeSoftmaxOp, BatchNormOp, LayerNormOp,
    GroupNormOp, EmbeddingOp,
    MaxPool2dWithIndicesOp, AvgPool2dOp, AdaptiveAvgPool2dOp, AdaptiveMaxPool2dOp,
    UpsampleNearest1dOp, UpsampleNearest2dOp, UpsampleBilinear2dOp, PixelShuffleOp,
    PixelUnshuffleOp, ViewOp, PermuteOp,
    SqueezeOp, UnsqueezeOp, ExpandOp, SliceOp, SelectOp, FlipOp, CatOp, SplitWithSizesOp,
    ToCopyOp, ToDimOrderCopyOp, CloneOp, QuantizeOp, DequantizeOp,
]  # fmt: skip

Aten = Dialect("aten", ATEN_OPS, [OperandRefAttr, ComplexAttr])
