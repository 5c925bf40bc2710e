"""The `xnn` dialect: XNNPACK subgraph nodes, one op per `xnn_define_*` function.

Ops, operands and properties carry XNNPACK's names (at XNNPACK commit 92a7ad50,
`include/xnnpack.h`): an op is its define function without `xnn_define_`, an operand or
result is its `*_id` argument without `_id`, a property is its parameter. Tensor dims are
XNNPACK's physical dims, NHWC for the convolution and pooling family, so every layout change
is an explicit `xnn.static_transpose`. Integer parameters are i64, `flags` is the i32
`XNN_FLAG_*` bit set, and `output_min`/`output_max` are f32 bounds (absent = unbounded).

    %r = xnn.subgraph(%x) : (tensor<1x8x8x3xf32>) -> (tensor<1x8x8x8xf32>) {
    ^bb0(%in: tensor<1x8x8x3xf32>):
      %w = xnn.constant #xnnc.weight<"conv.weight"> : tensor<8x3x3x3xf32>
      %y = xnn.convolution_2d %in, %w {padding_top = 1 : i64, ..., output_min = 0.0 : f32}
             : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
      xnn.output %y : tensor<1x8x8x8xf32>
    }
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, ClassVar, Self

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    bf16,
    f16,
    f32,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AnyOf,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
)
from xdsl.utils.exceptions import VerifyException

from xnnc.dialects.weights import WeightAttr
from xnnc.errors import OptionError
from xnnc.ir.constants import ConstantValueOp
from xnnc.ir.shapes import (
    broadcast_shapes,
    conv_output_size,
    deconv_output_size,
    normalize_dim,
    numel,
)
from xnnc.ir.types import element_type, ints, shape_of
from xnnc.target import Target

# --- XNNPACK enums and flags (include/xnnpack.h at 92a7ad50) ---------------------------------

# XNN_FLAG_* bits used by the nodes below. Some bits mean different things per node.
FLAG_TRANSPOSE_WEIGHTS = 0x1  # fully_connected; XNN_FLAG_TRANSPOSE_B for batch_matrix_multiply
FLAG_TRANSPOSE_B = 0x1
FLAG_TENSORFLOW_SAME_PADDING = 0x4
FLAG_TENSORFLOW_LEGACY_MODE = 0x4  # static_resize_bilinear_2d: no half-pixel centers
FLAG_ALIGN_CORNERS = 0x8
FLAG_TRANSIENT_INDIRECTION_BUFFER = 0x20
FLAG_KEEP_DIMS = 0x40
FLAG_NO_BROADCAST = 0x1000

# XNN_MAX_TENSOR_DIMS: no value in a subgraph has more dims.
MAX_TENSOR_DIMS = 6


class UnaryOperator(StrEnum):
    """`enum xnn_unary_operator`, in declaration order (the C value is the index)."""

    ABS = "abs"
    APPROXGELU = "approxgelu"
    BANKERS_ROUNDING = "bankers_rounding"
    CEILING = "ceiling"
    CLAMP = "clamp"
    CONVERT = "convert"
    COSINE = "cosine"
    ELU = "elu"
    EXP = "exp"
    FLOOR = "floor"
    GELU = "gelu"
    HARDSWISH = "hardswish"
    LEAKY_RELU = "leaky_relu"
    LOG = "log"
    NEGATE = "negate"
    RECIPROCAL_SQUARE_ROOT = "reciprocal_square_root"
    SIGMOID = "sigmoid"
    SINE = "sine"
    SQUARE_ROOT = "square_root"
    SQUARE = "square"
    TANH = "tanh"
    # XNNPACK marks the following as experimental.
    BITWISE_NOT = "bitwise_not"
    COUNT_LEADING_ZEROS = "count_leading_zeros"
    CUBE_ROOT = "cube_root"
    POPCOUNT = "popcount"
    SIGN = "sign"


class BinaryOperator(StrEnum):
    """`enum xnn_binary_operator`, in declaration order (the C value is the index)."""

    ADD = "add"
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"
    DIVIDE = "divide"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    COPYSIGN = "copysign"
    SQUARED_DIFFERENCE = "squared_difference"
    PRELU = "prelu"
    # XNNPACK marks the following as experimental.
    MODULUS = "modulus"
    ATAN2 = "atan2"
    POW = "pow"
    BITWISE_AND = "bitwise_and"
    BITWISE_OR = "bitwise_or"
    BITWISE_XOR = "bitwise_xor"
    SHIFT_LEFT = "shift_left"
    SHIFT_RIGHT_LOGICAL = "shift_right_logical"
    SHIFT_RIGHT_ARITHMETIC = "shift_right_arithmetic"


class ReduceOperator(StrEnum):
    """`enum xnn_reduce_operator`, in declaration order (the C value is the index)."""

    SUM = "sum"
    SUM_SQUARED = "sum_squared"
    MEAN = "mean"
    MEAN_SQUARED = "mean_squared"
    MAX = "max"
    MIN = "min"


def c_value(member: StrEnum) -> int:
    """The C enum value of a member of one of the mirrored XNNPACK enums."""
    return list(type(member)).index(member)


@irdl_attr_definition
class UnaryOperatorAttr(EnumAttribute[UnaryOperator], SpacedOpaqueSyntaxAttribute):
    """`#xnn<unary_operator tanh>`; `tanh` in `xnn.unary`'s custom form."""

    name = "xnn.unary_operator"


@irdl_attr_definition
class BinaryOperatorAttr(EnumAttribute[BinaryOperator], SpacedOpaqueSyntaxAttribute):
    """`#xnn<binary_operator add>`; `add` in `xnn.binary`'s custom form."""

    name = "xnn.binary_operator"


@irdl_attr_definition
class ReduceOperatorAttr(EnumAttribute[ReduceOperator], SpacedOpaqueSyntaxAttribute):
    """`#xnn<reduce_operator mean>`; `mean` in `xnn.static_reduce`'s custom form."""

    name = "xnn.reduce_operator"


_ENUM_ATTRS: dict[type[StrEnum], type[EnumAttribute]] = {
    UnaryOperator: UnaryOperatorAttr,
    BinaryOperator: BinaryOperatorAttr,
    ReduceOperator: ReduceOperatorAttr,
}

# --- the target ------------------------------------------------------------------------------

DEFAULT_TARGET = Target()
"""The target of a module without `xnn.target`: no CPU feature assumed, so a rewrite whose
profitability depends on one does nothing."""

TARGET_ATTR_NAME = "xnn.target"


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """The `xnnc.target.Target` a module is compiled for, as the builtin.module's discardable
    attribute `xnn.target`; passes read every target-dependent decision from it:

        #xnn.target<runtime = "stock", arch = "x86_64", features = ["avx2", "f16c", "fma3"],
                    threads = 2>
    """

    name = "xnn.target"
    runtime: StringAttr
    arch: StringAttr
    features: ArrayAttr[StringAttr]
    threads: IntAttr

    @classmethod
    def from_target(cls, target: Target) -> TargetAttr:
        features = ArrayAttr([StringAttr(f) for f in sorted(target.features)])
        return cls(StringAttr(target.runtime), StringAttr(target.arch), features,
                   IntAttr(target.threads))  # fmt: skip

    @property
    def target(self) -> Target:
        features = frozenset(f.data for f in self.features)
        return Target(self.runtime.data, self.arch.data, features, self.threads.data)

    def verify(self) -> None:
        try:
            _ = self.target  # Target validates its fields
        except OptionError as e:
            raise VerifyException(f"#xnn.target: {e}") from None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            runtime = _parse_field(parser, "runtime", parser.parse_str_literal)
            parser.parse_punctuation(",")
            arch = _parse_field(parser, "arch", parser.parse_str_literal)
            parser.parse_punctuation(",")
            features = _parse_field(parser, "features", lambda: parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_str_literal))  # fmt: skip
            parser.parse_punctuation(",")
            threads = _parse_field(parser, "threads", lambda: parser.parse_integer(False))
        try:
            target = Target(runtime, arch, frozenset(features), threads)
        except OptionError as e:
            parser.raise_error(f"#xnn.target: {e}", start, parser.pos)
        return TargetAttr.from_target(target).parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("runtime = ")
            printer.print_string_literal(self.runtime.data)
            printer.print_string(", arch = ")
            printer.print_string_literal(self.arch.data)
            printer.print_string(", features = [")
            printer.print_list(self.features, lambda f: printer.print_string_literal(f.data))
            printer.print_string(f"], threads = {self.threads.data}")


def _parse_field(parser: AttrParser, key: str, parse_value: Callable[[], Any]) -> Any:
    """`key = value` in an attribute's custom syntax."""
    parser.parse_keyword(key)
    parser.parse_punctuation("=")
    return parse_value()


def target_of(op: Operation) -> Target:
    """The target of the nearest builtin.module around `op` (or `op` itself) carrying
    `xnn.target`; DEFAULT_TARGET when none does."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp) and TARGET_ATTR_NAME in current.attributes:
            attr = current.attributes[TARGET_ATTR_NAME]
            if not isinstance(attr, TargetAttr):
                raise VerifyException(f"{TARGET_ATTR_NAME} must be a #xnn.target<...>, got {attr}")
            return attr.target
        current = current.parent_op()
    return DEFAULT_TARGET


def set_target(module: ModuleOp, target: Target) -> None:
    """Record `target` on `module` (replacing any target it had)."""
    module.attributes[TARGET_ATTR_NAME] = TargetAttr.from_target(target)


# --- helpers ---------------------------------------------------------------------------------


def _fail(msg: str) -> None:
    raise VerifyException(msg)


def _int(default: int | None = None):
    """An i64 parameter; with a default it may be omitted, and is elided when equal to it."""
    if default is None:
        return prop_def(IntegerAttr.constr(i64))
    return prop_def(IntegerAttr.constr(i64), IntegerAttr(default, i64))


def _f32(default: float | None = None):
    """An f32 parameter; without a default it is optional."""
    if default is None:
        return opt_prop_def(FloatAttr[Float32Type])
    return prop_def(FloatAttr[Float32Type], FloatAttr(default, f32))


def _ints():
    return prop_def(DenseArrayBase.constr(i64))


def _to_attr(name: str, value: object) -> Attribute:
    if isinstance(value, Attribute):
        return value
    if isinstance(value, StrEnum) and type(value) in _ENUM_ATTRS:
        return _ENUM_ATTRS[type(value)](value)
    if isinstance(value, bool):
        raise TypeError(f"parameter '{name}': XNNPACK takes flags, not booleans")
    if isinstance(value, int):
        return IntegerAttr(value, i32 if name == "flags" else i64)
    if isinstance(value, float):
        return FloatAttr(value, f32)
    if isinstance(value, Sequence):
        return DenseArrayBase.from_list(i64, [int(v) for v in value])
    raise TypeError(f"parameter '{name}': cannot make an attribute from {value!r}")


def _same_element_type(**values: SSAValue) -> None:
    types = {name: element_type(v) for name, v in values.items()}
    if len(set(types.values())) > 1:
        _fail("element types differ: " + ", ".join(f"{k} {t}" for k, t in types.items()))


def _gemm_element_types(output: SSAValue, **inputs: SSAValue) -> None:
    """One element type throughout, or XNNPACK's bf16 GEMM: bf16 inputs, an f32 output."""
    if all(element_type(v) == bf16 for v in inputs.values()) and element_type(output) == f32:
        return
    _same_element_type(**inputs, output=output)


def _same_shape(input: SSAValue, output: SSAValue) -> None:
    if shape_of(input) != shape_of(output):
        _fail(
            f"output shape {list(shape_of(output))} differs from input shape "
            f"{list(shape_of(input))}"
        )


def _check_output(output: SSAValue, want: Sequence[int], why: str = "") -> None:
    if shape_of(output) != tuple(want):
        _fail(f"output shape {list(shape_of(output))} should be {list(want)}{why}")


def _positive(op: IRDLOperation, *names: str) -> tuple[int, ...]:
    """The named integer parameters of `op`, which must all be positive."""
    values = tuple(getattr(op, n).value.data for n in names)
    bad = [f"{n} = {v}" for n, v in zip(names, values, strict=True) if v < 1]
    if bad:
        _fail(", ".join(bad) + " must be positive")
    return values


def _nhwc(value: SSAValue, role: str = "input") -> tuple[int, ...]:
    shape = shape_of(value)
    if len(shape) != 4:
        _fail(f"{role} must be 4-D NHWC, got {list(shape)}")
    return shape


# --- bases -----------------------------------------------------------------------------------


class XnnCanonicalization(HasCanonicalizationPatternsTrait):
    """The canonicalization patterns of an xnn op. The rewrites that define them live in
    `xnnc.transforms` and register them here when they load (`register_patterns`), so this
    dialect never imports a transform; `canonicalize` loads them all."""

    _patterns: ClassVar[dict[type[Operation], list[RewritePattern]]] = {}

    @classmethod
    def register_patterns(cls, op: type[Operation], patterns: Sequence[RewritePattern]) -> None:
        cls._patterns.setdefault(op, []).extend(patterns)

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        return tuple(self._patterns.get(op, ()))

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()


class XnnNode(IRDLOperation):
    """An XNNPACK node: Pure, parameters in the attribute dictionary, one output.

    `FLAGS` names the `XNN_FLAG_*` bits its define function accepts; `verify_node` holds
    the node's shape rules.
    """

    FLAGS: ClassVar[dict[str, int]] = {}
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), XnnCanonicalization())
    flags = prop_def(IntegerAttr.constr(i32), IntegerAttr(0, i32))
    output = result_def(TensorType)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    @classmethod
    def make(
        cls,
        *operands: SSAValue | Sequence[SSAValue] | None,
        result_type: Attribute,
        **params: object,
    ) -> Self:
        """Build from operands in definition order (None for an absent bias, a list for
        `xnn.concatenate`'s inputs) and XNNPACK-named parameters as Python values: ints,
        floats, int lists, enum members or attributes; None leaves a parameter absent."""
        given = {k: _to_attr(k, v) for k, v in params.items() if v is not None}
        # Definition order, so built ops print their parameters like XNNPACK lists them.
        order = [k for k in cls.get_irdl_definition().properties if k in given]
        props = {k: given[k] for k in order + [k for k in given if k not in order]}
        return cls.build(operands=list(operands), result_types=[result_type], properties=props)

    def has_flag(self, bit: int) -> bool:
        return bool(self.flags.value.data & bit)

    def verify_(self) -> None:
        flags = self.flags.value.data
        accepted = 0
        for bit in self.FLAGS.values():
            accepted |= bit
        if flags & ~accepted:
            known = ", ".join(f"{k} = {v:#x}" for k, v in self.FLAGS.items()) or "none"
            _fail(
                f"flags {flags:#x} set bits {flags & ~accepted:#x} that {self.name} does not "
                f"accept (accepted: {known})"
            )
        for v in (*self.operands, *self.results):
            if isinstance(v.type, TensorType) and v.type.get_num_dims() > MAX_TENSOR_DIMS:
                _fail(f"XNNPACK tensors have at most {MAX_TENSOR_DIMS} dims, got {v.type}")
        self.verify_node()

    def verify_node(self) -> None:
        pass


class ClampedNode(XnnNode):
    """A node whose define function takes `output_min`/`output_max` (a fused clamp)."""

    output_min = _f32()
    output_max = _f32()

    def output_range(self) -> tuple[float, float]:
        lo = -math.inf if self.output_min is None else self.output_min.value.data
        hi = math.inf if self.output_max is None else self.output_max.value.data
        return lo, hi

    def verify_(self) -> None:
        super().verify_()
        lo, hi = self.output_range()
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            _fail(f"output range [{lo}, {hi}] is invalid: output_min must be <= output_max")


class _Window2dNode(ClampedNode):
    """Shared by the convolutions and poolings: explicit or TensorFlow SAME padding."""

    padding_top = _int(0)
    padding_right = _int(0)
    padding_bottom = _int(0)
    padding_left = _int(0)

    def padding(self) -> tuple[int, int, int, int]:
        """(top, right, bottom, left), XNNPACK's order."""
        p = (self.padding_top, self.padding_right, self.padding_bottom, self.padding_left)
        pad = tuple(a.value.data for a in p)
        if min(pad) < 0:
            _fail(f"padding (top, right, bottom, left) = {pad} must be >= 0")
        return pad

    def verify_window(
        self,
        x: tuple[int, ...],
        kernel: tuple[int, ...],
        stride: tuple[int, ...],
        dilation: tuple[int, ...],
        channels: int,
    ) -> None:
        """The output of a window sliding over NHWC `x` is [N, OH, OW, channels]."""
        top, right, bottom, left = pad = self.padding()
        if self.has_flag(FLAG_TENSORFLOW_SAME_PADDING):
            if any(pad):
                _fail("XNN_FLAG_TENSORFLOW_SAME_PADDING cannot be combined with explicit padding")
            spatial = [-(-x[1 + i] // stride[i]) for i in range(2)]
            how = "TensorFlow SAME padding"
        else:
            pads = (top + bottom, left + right)
            spatial = [
                conv_output_size(x[1 + i], kernel[i], stride[i], pads[i], dilation[i])
                for i in range(2)
            ]
            if min(spatial) < 1:
                _fail(
                    f"the {kernel[0]}x{kernel[1]} window (dilation {dilation[0]}x{dilation[1]}) "
                    f"does not fit the padded {x[1] + pads[0]}x{x[2] + pads[1]} input"
                )
            how = f"padding (top, right, bottom, left) {pad}"
        why = (
            f" for input {x[1]}x{x[2]}, window {kernel[0]}x{kernel[1]}, stride "
            f"{stride[0]}x{stride[1]}, dilation {dilation[0]}x{dilation[1]} and {how}"
        )
        _check_output(self.output, (x[0], *spatial, channels), why)


_CONV_FORMAT = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)"
_CONV_FLAGS = {
    "XNN_FLAG_TENSORFLOW_SAME_PADDING": FLAG_TENSORFLOW_SAME_PADDING,
    "XNN_FLAG_TRANSIENT_INDIRECTION_BUFFER": FLAG_TRANSIENT_INDIRECTION_BUFFER,
}
_SAME_PADDING = {"XNN_FLAG_TENSORFLOW_SAME_PADDING": FLAG_TENSORFLOW_SAME_PADDING}
_KEEP_DIMS = {"XNN_FLAG_KEEP_DIMS": FLAG_KEEP_DIMS}


def _verify_bias(bias: SSAValue | None, channels: int) -> None:
    if bias is not None and shape_of(bias) != (channels,):
        _fail(f"bias shape {list(shape_of(bias))} should be [{channels}] (output channels)")


# --- subgraph, output, constant --------------------------------------------------------------


@irdl_op_definition
class SubgraphOp(IRDLOperation):
    """An XNNPACK subgraph. Operands are its external inputs, which the body receives as
    block arguments; `xnn.output` yields its external outputs."""

    name = "xnn.subgraph"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())
    assembly_format = (
        "`(` $inputs `)` attr-dict-with-keyword `:` functional-type($inputs, $outputs) $body"
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        output_types: Sequence[Attribute],
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=[v.type for v in inputs]))
        super().__init__(operands=[inputs], result_types=[output_types], regions=[body])

    def verify_(self) -> None:
        block = self.body.block
        args = [a.type for a in block.args]
        ins = [v.type for v in self.inputs]
        if args != ins:
            _fail(
                f"block arguments ({', '.join(map(str, args))}) must match the inputs "
                f"({', '.join(map(str, ins))})"
            )
        term = block.last_op
        if not isinstance(term, OutputOp):
            _fail("body must end with xnn.output")
        got = [v.type for v in term.outputs]
        want = [r.type for r in self.outputs]
        if got != want:
            _fail(
                f"xnn.output yields ({', '.join(map(str, got))}) but the subgraph returns "
                f"({', '.join(map(str, want))})"
            )


@irdl_op_definition
class OutputOp(IRDLOperation):
    """The subgraph's external outputs."""

    name = "xnn.output"
    outputs = var_operand_def(TensorType)
    traits = traits_def(HasParent(SubgraphOp), IsTerminator(), ReturnLike(), Pure())
    assembly_format = "attr-dict ($outputs^ `:` type($outputs))?"

    def __init__(self, *outputs: SSAValue):
        super().__init__(operands=[outputs])


@irdl_op_definition
class ConstantOp(ConstantValueOp):
    """A static tensor: a weight by reference, or a small dense literal."""

    name = "xnn.constant"
    RESULT_ROLE: ClassVar[str] = "output"
    value = prop_def(AnyOf([base(WeightAttr), base(DenseIntOrFPElementsAttr)]))
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())


# --- convolutions ----------------------------------------------------------------------------


def _verify_grouped_filter(
    x: tuple[int, ...],
    w: tuple[int, ...],
    kernel: tuple[int, ...],
    groups: int,
    cin: int,
    cout: int,
) -> None:
    if x[3] != groups * cin:
        _fail(
            f"input has {x[3]} channels (NHWC) but groups * group_input_channels = "
            f"{groups} * {cin} = {groups * cin}"
        )
    want = (groups * cout, *kernel, cin)
    if w != want:
        _fail(
            f"filter shape {list(w)} should be {list(want)}: [groups * group_output_channels, "
            "kernel_height, kernel_width, group_input_channels]"
        )


@irdl_op_definition
class Convolution2dOp(_Window2dNode):
    """input [N, H, W, groups * group_input_channels],
    filter [groups * group_output_channels, kernel_height, kernel_width, group_input_channels]
    (OHWI, per-group input channels), bias [groups * group_output_channels]."""

    name = "xnn.convolution_2d"
    FLAGS: ClassVar[dict[str, int]] = _CONV_FLAGS
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    kernel_height = _int()
    kernel_width = _int()
    subsampling_height = _int(1)
    subsampling_width = _int(1)
    dilation_height = _int(1)
    dilation_width = _int(1)
    groups = _int(1)
    group_input_channels = _int()
    group_output_channels = _int()
    assembly_format = _CONV_FORMAT

    def verify_node(self) -> None:
        kernel = _positive(self, "kernel_height", "kernel_width")
        stride = _positive(self, "subsampling_height", "subsampling_width")
        dilation = _positive(self, "dilation_height", "dilation_width")
        g, cin, cout = _positive(self, "groups", "group_input_channels", "group_output_channels")
        x = _nhwc(self.input)
        _verify_grouped_filter(x, shape_of(self.filter), kernel, g, cin, cout)
        _verify_bias(self.bias, g * cout)
        self.verify_window(x, kernel, stride, dilation, g * cout)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNConv2d", **_conv_fields(self, fb), **_window(self),
                       subsampling_height=_v(self.subsampling_height),
                       subsampling_width=_v(self.subsampling_width), groups=_v(self.groups),
                       group_input_channels=_v(self.group_input_channels),
                       group_output_channels=_v(self.group_output_channels))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNConv2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_convolution_2d", *_padding_trbl(node), node.kernelHeight,
               node.kernelWidth, node.subsamplingHeight, node.subsamplingWidth,
               node.dilationHeight, node.dilationWidth, node.groups, node.groupInputChannels,
               node.groupOutputChannels, x.min, x.max, *_conv_ids(x, node),
               node.flags)  # fmt: skip


@irdl_op_definition
class DepthwiseConvolution2dOp(_Window2dNode):
    """input [N, H, W, input_channels],
    filter [1, kernel_height, kernel_width, input_channels * depth_multiplier],
    bias [input_channels * depth_multiplier]."""

    name = "xnn.depthwise_convolution_2d"
    FLAGS: ClassVar[dict[str, int]] = _CONV_FLAGS
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    kernel_height = _int()
    kernel_width = _int()
    subsampling_height = _int(1)
    subsampling_width = _int(1)
    dilation_height = _int(1)
    dilation_width = _int(1)
    depth_multiplier = _int(1)
    input_channels = _int()
    assembly_format = _CONV_FORMAT

    def verify_node(self) -> None:
        kernel = _positive(self, "kernel_height", "kernel_width")
        stride = _positive(self, "subsampling_height", "subsampling_width")
        dilation = _positive(self, "dilation_height", "dilation_width")
        m, c = _positive(self, "depth_multiplier", "input_channels")
        x, w = _nhwc(self.input), shape_of(self.filter)
        if x[3] != c:
            _fail(f"input has {x[3]} channels (NHWC) but input_channels = {c}")
        want_w = (1, *kernel, c * m)
        if w != want_w:
            _fail(
                f"filter shape {list(w)} should be {list(want_w)}: "
                "[1, kernel_height, kernel_width, input_channels * depth_multiplier]"
            )
        _verify_bias(self.bias, c * m)
        self.verify_window(x, kernel, stride, dilation, c * m)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        # The stock schema stores depthwise as groups = channels, 1 -> multiplier per group.
        return fb.node("XNNDepthwiseConv2d", **_conv_fields(self, fb), **_window(self),
                       subsampling_height=_v(self.subsampling_height),
                       subsampling_width=_v(self.subsampling_width),
                       groups=_v(self.input_channels), group_input_channels=1,
                       group_output_channels=_v(self.depth_multiplier))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNDepthwiseConv2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        # Stored as groups = input channels, group_output_channels = depth multiplier.
        x.call("xnn_define_depthwise_convolution_2d", *_padding_trbl(node), node.kernelHeight,
               node.kernelWidth, node.subsamplingHeight, node.subsamplingWidth,
               node.dilationHeight, node.dilationWidth, node.groupOutputChannels, node.groups,
               x.min, x.max, *_conv_ids(x, node), node.flags)  # fmt: skip


@irdl_op_definition
class Deconvolution2dOp(_Window2dNode):
    """Transposed convolution. input [N, H, W, groups * group_input_channels],
    filter [groups * group_output_channels, kernel_height, kernel_width, group_input_channels],
    bias [groups * group_output_channels]; padding crops the output, adjustment extends it
    at the bottom and right."""

    name = "xnn.deconvolution_2d"
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    adjustment_height = _int(0)
    adjustment_width = _int(0)
    kernel_height = _int()
    kernel_width = _int()
    upsampling_height = _int(1)
    upsampling_width = _int(1)
    dilation_height = _int(1)
    dilation_width = _int(1)
    groups = _int(1)
    group_input_channels = _int()
    group_output_channels = _int()
    assembly_format = _CONV_FORMAT

    def verify_node(self) -> None:
        kernel = _positive(self, "kernel_height", "kernel_width")
        stride = _positive(self, "upsampling_height", "upsampling_width")
        dilation = _positive(self, "dilation_height", "dilation_width")
        g, cin, cout = _positive(self, "groups", "group_input_channels", "group_output_channels")
        adjust = (self.adjustment_height.value.data, self.adjustment_width.value.data)
        for dim, a, s in (("height", adjust[0], stride[0]), ("width", adjust[1], stride[1])):
            if not 0 <= a < s:
                _fail(f"adjustment_{dim} = {a} must be in [0, upsampling_{dim} = {s})")
        x = _nhwc(self.input)
        _verify_grouped_filter(x, shape_of(self.filter), kernel, g, cin, cout)
        _verify_bias(self.bias, g * cout)
        top, right, bottom, left = pad = self.padding()
        pads = (top + bottom, left + right)
        spatial = [
            deconv_output_size(x[1 + i], kernel[i], stride[i], pads[i], dilation[i], adjust[i])
            for i in range(2)
        ]
        why = (
            f" for input {x[1]}x{x[2]}, kernel {kernel[0]}x{kernel[1]}, upsampling "
            f"{stride[0]}x{stride[1]}, dilation {dilation[0]}x{dilation[1]}, adjustment "
            f"{adjust[0]}x{adjust[1]} and padding (top, right, bottom, left) {pad}"
        )
        _check_output(self.output, (x[0], *spatial, g * cout), why)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNConvTranspose2d", **_conv_fields(self, fb), **_window(self),
                       subsampling_height=_v(self.upsampling_height),
                       subsampling_width=_v(self.upsampling_width),
                       adjustment_height=_v(self.adjustment_height),
                       adjustment_width=_v(self.adjustment_width), groups=_v(self.groups),
                       group_input_channels=_v(self.group_input_channels),
                       group_output_channels=_v(self.group_output_channels))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNConvTranspose2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_deconvolution_2d", *_padding_trbl(node), node.adjustmentHeight,
               node.adjustmentWidth, node.kernelHeight, node.kernelWidth,
               node.subsamplingHeight, node.subsamplingWidth, node.dilationHeight,
               node.dilationWidth, node.groups, node.groupInputChannels,
               node.groupOutputChannels, x.min, x.max, *_conv_ids(x, node),
               node.flags)  # fmt: skip


# --- matrix products -------------------------------------------------------------------------


@irdl_op_definition
class FullyConnectedOp(ClampedNode):
    """output[..., o] = sum_i input[..., i] * filter[o, i] + bias[o]; filter is
    [output_channels, input_channels], or [input_channels, output_channels] with
    XNN_FLAG_TRANSPOSE_WEIGHTS."""

    name = "xnn.fully_connected"
    FLAGS: ClassVar[dict[str, int]] = {"XNN_FLAG_TRANSPOSE_WEIGHTS": FLAG_TRANSPOSE_WEIGHTS}
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    assembly_format = _CONV_FORMAT

    def verify_node(self) -> None:
        x, w = shape_of(self.input), shape_of(self.filter)
        transposed = self.has_flag(FLAG_TRANSPOSE_WEIGHTS)
        layout = (
            "[input_channels, output_channels]"
            if transposed
            else "[output_channels, input_channels]"
        )
        if len(w) != 2:
            _fail(f"filter must be 2-D {layout}, got {list(w)}")
        cin, cout = (w[0], w[1]) if transposed else (w[1], w[0])
        if not x or x[-1] != cin:
            _fail(
                f"input {list(x)} must end in the filter's {cin} input channels "
                f"(filter {list(w)} is {layout})"
            )
        _verify_bias(self.bias, cout)
        want = (*x[:-1], cout)
        _check_output(self.output, want)
        _gemm_element_types(self.output, input=self.input)

    def encode(self, fb: Any) -> Any:
        bias = fb.NO_VALUE if self.bias is None else fb.id(self.bias)
        return fb.node("XNNFullyConnected", input1_id=fb.id(self.input),
                       filter_id=fb.id(self.filter), bias_id=bias, **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNFullyConnected",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_fully_connected", x.min, x.max, x.input(node.input1Id),
               x.input(node.filterId), x.optional_input(node.biasId), x.output(node.outputId),
               node.flags)  # fmt: skip


@irdl_op_definition
class BatchMatrixMultiplyOp(XnnNode):
    """[B..., M, K] x [B..., K, N] -> [B..., M, N], batch dims broadcast; input2 is
    [B..., N, K] with XNN_FLAG_TRANSPOSE_B."""

    name = "xnn.batch_matrix_multiply"
    FLAGS: ClassVar[dict[str, int]] = {
        "XNN_FLAG_TRANSPOSE_B": FLAG_TRANSPOSE_B,
        "XNN_FLAG_NO_BROADCAST": FLAG_NO_BROADCAST,
    }
    input1 = operand_def(TensorType)
    input2 = operand_def(TensorType)
    assembly_format = "$input1 `,` $input2 attr-dict `:` functional-type(operands, results)"

    def verify_node(self) -> None:
        a, b = shape_of(self.input1), shape_of(self.input2)
        if len(a) < 2 or len(b) < 2:
            _fail(f"inputs must be at least 2-D, got {list(a)} and {list(b)}")
        transposed = self.has_flag(FLAG_TRANSPOSE_B)
        m, k = a[-2:]
        kb, n = (b[-1], b[-2]) if transposed else (b[-2], b[-1])
        if k != kb:
            layout = "[..., N, K] (XNN_FLAG_TRANSPOSE_B)" if transposed else "[..., K, N]"
            _fail(f"input1 {list(a)} has K = {k} but input2 {list(b)}, read as {layout}, has {kb}")
        batch = broadcast_shapes(a[:-2], b[:-2])
        if batch is None or (self.has_flag(FLAG_NO_BROADCAST) and a[:-2] != b[:-2]):
            _fail(f"batch dims {list(a[:-2])} and {list(b[:-2])} do not broadcast")
        want = (*batch, m, n)
        _check_output(self.output, want)
        _gemm_element_types(self.output, input1=self.input1, input2=self.input2)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNBatchMatrixMultiply", input1_id=fb.id(self.input1),
                       input2_id=fb.id(self.input2), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNBatchMatrixMultiply",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_batch_matrix_multiply", x.input(node.input1Id),
               x.input(node.input2Id), x.output(node.outputId), node.flags)  # fmt: skip


# --- elementwise -----------------------------------------------------------------------------


@irdl_op_definition
class BinaryOp(ClampedNode):
    """`kind(input1, input2)` with NumPy broadcasting."""

    name = "xnn.binary"
    FLAGS: ClassVar[dict[str, int]] = {"XNN_FLAG_NO_BROADCAST": FLAG_NO_BROADCAST}
    kind = prop_def(BinaryOperatorAttr)
    input1 = operand_def(TensorType)
    input2 = operand_def(TensorType)
    assembly_format = "$kind $input1 `,` $input2 attr-dict `:` functional-type(operands, results)"

    def verify_node(self) -> None:
        a, b = shape_of(self.input1), shape_of(self.input2)
        want = broadcast_shapes(a, b)
        if want is None or (self.has_flag(FLAG_NO_BROADCAST) and a != b):
            _fail(f"input shapes {list(a)} and {list(b)} do not broadcast")
        _check_output(self.output, want, " (the broadcast of the inputs)")
        _same_element_type(input1=self.input1, input2=self.input2, output=self.output)

    # Parameters of `xnn.unary`, by the operator that takes them (`union xnn_unary_params`).

    def encode(self, fb: Any) -> Any:
        ids = dict(input1_id=fb.id(self.input1), input2_id=fb.id(self.input2), **_out(self, fb))
        kind = _STOCK_BINARY.get(self.kind.data)
        if kind is not None:
            return fb.node(kind, **ids)
        return fb.node("XNNBinary", binary_operator=c_value(self.kind.data), **ids)

    DEFINES: ClassVar[tuple[str, ...]] = (
        "XNNAdd",
        "XNNSubtract",
        "XNNMultiply",
        "XNNDiv",
        "XNNMinimum",
        "XNNMaximum",
        "XNNPReLU",
        "XNNBinary",
    )

    @staticmethod
    def define(x: Any, node: Any) -> None:
        if x.kind == "XNNBinary":
            kind = node.binaryOperator
        else:
            kind = _stock_operator(x.kind, _STOCK_BINARY)
        x.call("xnn_define_binary", kind, x.binary_params(), x.input(node.input1Id),
               x.input(node.input2Id), x.output(node.outputId), node.flags)  # fmt: skip


_UNARY_PARAMS = {
    UnaryOperator.CLAMP: ("min", "max"),
    UnaryOperator.ELU: ("alpha",),
    UnaryOperator.LEAKY_RELU: ("negative_slope",),
}
_UNARY_REQUIRED = {UnaryOperator.ELU: "alpha", UnaryOperator.LEAKY_RELU: "negative_slope"}


@irdl_op_definition
class UnaryOp(XnnNode):
    """`kind(input)`, elementwise. Parameters: `min`/`max` (clamp, absent = unbounded),
    `alpha` (elu), `negative_slope` (leaky_relu). Casts are `xnn.convert`."""

    name = "xnn.unary"
    kind = prop_def(UnaryOperatorAttr)
    input = operand_def(TensorType)
    min = _f32()
    max = _f32()
    alpha = _f32()
    negative_slope = _f32()
    assembly_format = "$kind $input attr-dict `:` functional-type(operands, results)"

    def verify_node(self) -> None:
        kind = self.kind.data
        if kind == UnaryOperator.CONVERT:
            _fail("a unary convert changes the element type: use xnn.convert")
        allowed = _UNARY_PARAMS.get(kind, ())
        for param in ("min", "max", "alpha", "negative_slope"):
            if getattr(self, param) is not None and param not in allowed:
                takes = ", ".join(allowed) if allowed else "no parameters"
                _fail(f"'{param}' is not a parameter of {kind}, which takes {takes}")
        if kind in _UNARY_REQUIRED and getattr(self, _UNARY_REQUIRED[kind]) is None:
            _fail(f"{kind} needs its '{_UNARY_REQUIRED[kind]}' parameter")
        if self.min is not None and self.max is not None:
            if not self.min.value.data <= self.max.value.data:
                _fail(f"clamp range [{self.min.value.data}, {self.max.value.data}] is empty")
        _same_shape(self.input, self.output)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        kind, io = self.kind.data, dict(input_id=fb.id(self.input), **_out(self, fb))
        if kind == UnaryOperator.ELU:
            return fb.node("XNNELU", alpha=self.alpha.value.data, **io)
        if kind == UnaryOperator.LEAKY_RELU:
            return fb.node("XNNLeakyReLU", negative_slope=self.negative_slope.value.data, **io)
        if kind in _STOCK_UNARY:
            return fb.node(_STOCK_UNARY[kind], **io)
        params = [p.value.data for p in (self.min, self.max) if p is not None]
        return fb.node("XNNUnary", unary_operator=c_value(kind), param_a=params[0] if params
                       else None, param_b=params[1] if len(params) > 1 else None, **io)  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = (
        "XNNSigmoid",
        "XNNFloor",
        "XNNSquareRoot",
        "XNNCeiling",
        "XNNHardswish",
        "XNNLeakyReLU",
        "XNNNegate",
        "XNNSquare",
        "XNNELU",
        "XNNAbs",
        "XNNReciprocalSquareRoot",
        "XNNLog",
        "XNNGelu",
        "XNNTanh",
        "XNNExp",
        "XNNSin",
        "XNNCos",
        "XNNUnary",
    )

    @staticmethod
    def define(x: Any, node: Any) -> None:
        if x.kind == "XNNUnary":
            kind, params = node.unaryOperator, x.unary_params(node.paramA, node.paramB)
        elif x.kind == "XNNELU":
            kind, params = c_value(UnaryOperator.ELU), x.unary_params(node.alpha)
        elif x.kind == "XNNLeakyReLU":
            kind, params = c_value(UnaryOperator.LEAKY_RELU), x.unary_params(node.negativeSlope)
        else:
            kind, params = _stock_operator(x.kind, _STOCK_UNARY), None
        x.call("xnn_define_unary", kind, params, x.input(node.inputId), x.output(node.outputId),
               node.flags)  # fmt: skip


@irdl_op_definition
class ClampOp(ClampedNode):
    """clamp(input, output_min, output_max)."""

    name = "xnn.clamp"
    input = operand_def(TensorType)

    def verify_node(self) -> None:
        _same_shape(self.input, self.output)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNClamp", input_id=fb.id(self.input), **_out(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNClamp",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_unary", c_value(UnaryOperator.CLAMP), x.unary_params(x.min, x.max),
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class SoftmaxOp(XnnNode):
    """Softmax over the innermost dim."""

    name = "xnn.softmax"
    input = operand_def(TensorType)

    def verify_node(self) -> None:
        if not shape_of(self.input):
            _fail("input must have at least one dim")
        _same_shape(self.input, self.output)
        _same_element_type(input=self.input, output=self.output)

    # Element types xnn.convert converts between (XNNPACK also converts to and from quantized
    # types, which the IR does not model yet).

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNSoftmax", input_id=fb.id(self.input), **_out(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNSoftmax",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_softmax", x.input(node.inputId), x.output(node.outputId), node.flags)


_CONVERT_TYPES = (f32, f16, bf16)


@irdl_op_definition
class ConvertOp(XnnNode):
    """Element type conversion; the shape is unchanged."""

    name = "xnn.convert"
    input = operand_def(TensorType)

    def verify_node(self) -> None:
        _same_shape(self.input, self.output)
        src, dst = element_type(self.input), element_type(self.output)
        if src not in _CONVERT_TYPES or dst not in _CONVERT_TYPES:
            _fail(f"converts between f32, f16 and bf16, not {src} -> {dst}")

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNConvert", input_id=fb.id(self.input), **_out(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNConvert",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_unary", c_value(UnaryOperator.CONVERT), None, x.input(node.inputId),
               x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class CopyOp(XnnNode):
    """output = input."""

    name = "xnn.copy"
    input = operand_def(TensorType)

    def verify_node(self) -> None:
        _same_shape(self.input, self.output)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNCopy", input_id=fb.id(self.input), **_out(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNCopy",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_copy", x.input(node.inputId), x.output(node.outputId), node.flags)


# --- layout and shape ------------------------------------------------------------------------


@irdl_op_definition
class StaticTransposeOp(XnnNode):
    """output dim i is input dim perm[i]."""

    name = "xnn.static_transpose"
    input = operand_def(TensorType)
    perm = _ints()

    def verify_node(self) -> None:
        x, perm = shape_of(self.input), ints(self.perm)
        if sorted(perm) != list(range(len(x))):
            _fail(f"perm {list(perm)} is not a permutation of the input's {len(x)} dims")
        want = tuple(x[p] for p in perm)
        _check_output(self.output, want)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        perm = list(ints(self.perm))
        return fb.node("XNNStaticTranspose", num_dims=len(perm), perm=perm,
                       input_id=fb.id(self.input), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticTranspose",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_static_transpose", len(node.perm), x.sizes(node.perm),
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class StaticReshapeOp(XnnNode):
    """new_shape is the output shape; one 0 in it is inferred from the element count."""

    name = "xnn.static_reshape"
    input = operand_def(TensorType)
    new_shape = _ints()

    def verify_node(self) -> None:
        x, y, new = shape_of(self.input), shape_of(self.output), ints(self.new_shape)
        if new.count(0) > 1 or min(new, default=0) < 0:
            _fail(f"new_shape {list(new)} may hold one 0 (inferred) and no negative dims")
        if len(new) != len(y) or any(n not in (0, d) for n, d in zip(new, y, strict=True)):
            _fail(f"output shape {list(y)} does not match new_shape {list(new)}")
        if numel(x) != numel(y):
            _fail(f"cannot reshape {list(x)} ({numel(x)} elements) to {list(y)} ({numel(y)})")
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        shape = list(ints(self.new_shape))
        return fb.node("XNNStaticReshape", num_dims=len(shape), new_shape=shape,
                       input_id=fb.id(self.input), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticReshape",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_static_reshape", len(node.newShape), x.sizes(node.newShape),
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class StaticBroadcastOp(XnnNode):
    """Broadcasts the input to `new_shape` (numpy rules; a 0 keeps the input's dim)."""

    name = "xnn.static_broadcast"
    input = operand_def(TensorType)
    new_shape = _ints()

    def verify_node(self) -> None:
        x, y, new = shape_of(self.input), shape_of(self.output), ints(self.new_shape)
        if len(new) != len(y) or any(n not in (0, d) for n, d in zip(new, y, strict=True)):
            _fail(f"output shape {list(y)} does not match new_shape {list(new)}")
        if broadcast_shapes(x, y) != y:
            _fail(f"input shape {list(x)} does not broadcast to {list(y)}")
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNStaticBroadcast", new_shape=list(ints(self.new_shape)),
                       input_id=fb.id(self.input), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticBroadcast",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_static_broadcast", len(node.newShape), x.sizes(node.newShape),
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class StaticSliceOp(XnnNode):
    """output = input[offsets[i] : offsets[i] + sizes[i]] in every dim (unit strides:
    `xnn_define_static_slice_v3` rejects any other stride at this XNNPACK commit)."""

    name = "xnn.static_slice"
    input = operand_def(TensorType)
    offsets = _ints()
    sizes = _ints()

    def verify_node(self) -> None:
        x, offsets, sizes = shape_of(self.input), ints(self.offsets), ints(self.sizes)
        if len(offsets) != len(x) or len(sizes) != len(x):
            _fail(f"offsets and sizes need one value per input dim ({len(x)})")
        for i, (o, s, d) in enumerate(zip(offsets, sizes, x, strict=True)):
            if o < 0 or s < 0 or o + s > d:
                _fail(f"slice [{o}, {o + s}) of dim {i} is outside the input's [0, {d})")
        if shape_of(self.output) != sizes:
            _fail(f"output shape {list(shape_of(self.output))} should be sizes {list(sizes)}")
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        offsets, sizes = list(ints(self.offsets)), list(ints(self.sizes))
        return fb.node("XNNStaticSlice", num_dims=len(sizes), offsets=offsets, sizes=sizes,
                       input_id=fb.id(self.input), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticSlice",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        begins = [int(o) for o in node.offsets]
        ends = [b + int(s) for b, s in zip(begins, node.sizes, strict=True)]
        x.call("xnn_define_static_slice_v3", len(begins), x.int64s(begins), x.int64s(ends), None,
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class StaticConstantPadOp(XnnNode):
    """Pads dim i with pre_paddings[i] and post_paddings[i] copies of padding_value."""

    name = "xnn.static_constant_pad"
    input = operand_def(TensorType)
    pre_paddings = _ints()
    post_paddings = _ints()
    padding_value = _f32(0.0)

    def verify_node(self) -> None:
        x, pre, post = shape_of(self.input), ints(self.pre_paddings), ints(self.post_paddings)
        if len(pre) != len(x) or len(post) != len(x):
            _fail(f"pre_paddings and post_paddings need one value per input dim ({len(x)})")
        if min((*pre, *post), default=0) < 0:
            _fail(f"paddings must be >= 0, got pre {list(pre)}, post {list(post)}")
        want = tuple(d + a + b for d, a, b in zip(x, pre, post, strict=True))
        _check_output(self.output, want)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNStaticConstantPad", pre_paddings=list(ints(self.pre_paddings)),
                       post_paddings=list(ints(self.post_paddings)),
                       padding_value=self.padding_value.value.data, input_id=fb.id(self.input),
                       **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticConstantPad",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_static_constant_pad_v2", len(node.prePaddings),
               x.sizes(node.prePaddings), x.sizes(node.postPaddings), node.paddingValue,
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


# Stock ExecuTorch 1.5.1 knows XNNConcatenate2..5: larger joins are trees (Emitter.concatenate).
MAX_CONCATENATE_INPUTS = 5


@irdl_op_definition
class ConcatenateOp(XnnNode):
    """Joins 2 to 5 inputs along axis (negative counts from the end)."""

    name = "xnn.concatenate"
    inputs = var_operand_def(TensorType)
    axis = _int()
    assembly_format = "$inputs attr-dict `:` functional-type(operands, results)"

    def verify_node(self) -> None:
        shapes = [shape_of(v) for v in self.inputs]
        if not 2 <= len(shapes) <= MAX_CONCATENATE_INPUTS:
            _fail(f"takes 2 to {MAX_CONCATENATE_INPUTS} inputs, got {len(shapes)}")
        rank = len(shapes[0])
        axis = normalize_dim(self.axis.value.data, rank)
        if axis is None:
            _fail(f"axis {self.axis.value.data} is out of range for rank {rank}")
        rest = {s[:axis] + s[axis + 1 :] if len(s) == rank else s for s in shapes}
        if len(rest) != 1:
            listed = ", ".join(str(list(s)) for s in shapes)
            _fail(f"input shapes {listed} must have rank {rank} and agree outside axis {axis}")
        want = (*shapes[0][:axis], sum(s[axis] for s in shapes), *shapes[0][axis + 1 :])
        _check_output(self.output, want)
        named = {f"input{i + 1}": v for i, v in enumerate(self.inputs)}
        _same_element_type(**named, output=self.output)

    def encode(self, fb: Any) -> Any:
        axis = self.axis.value.data % len(shape_of(self.output))
        ids = [fb.id(v) for v in self.inputs]
        if 2 <= len(ids) <= 5:
            named = {f"input{i + 1}_id": v for i, v in enumerate(ids)}
            return fb.node(f"XNNConcatenate{len(ids)}", axis=axis, **named, **_out(self, fb))
        return fb.node("XNNConcatenate", axis=axis, input_ids=ids, **_out(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = (
        "XNNConcatenate2",
        "XNNConcatenate3",
        "XNNConcatenate4",
        "XNNConcatenate5",
        "XNNConcatenate",
    )

    @staticmethod
    def define(x: Any, node: Any) -> None:
        if x.kind == "XNNConcatenate":
            ids = list(node.inputIds)
        else:  # XNNConcatenate2..5
            ids = [node.input1Id, node.input2Id, node.input3Id, node.input4Id, node.input5Id]
            ids = ids[: int(x.kind[-1])]
        x.call("xnn_define_concatenate", node.axis, len(ids), x.inputs(ids),
               x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class DepthToSpace2dOp(XnnNode):
    """[N, H, W, C * b * b] -> [N, H * b, W * b, C], block-major (TensorFlow DCR): output
    channel c of block (i, j) is input channel (i * b + j) * C + c. `torch.pixel_shuffle`
    is channel-major (CRD), so it needs its input channels regrouped first."""

    name = "xnn.depth_to_space_2d"
    input = operand_def(TensorType)
    block_size = _int()

    def verify_node(self) -> None:
        b, x = self.block_size.value.data, _nhwc(self.input)
        if b < 2:
            _fail(f"block_size must be at least 2, got {b}")
        if x[3] % (b * b):
            _fail(f"input channels {x[3]} are not divisible by block_size^2 = {b * b}")
        want = (x[0], x[1] * b, x[2] * b, x[3] // (b * b))
        _check_output(self.output, want)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNDepthToSpace2d", block_size=_v(self.block_size),
                       input_id=fb.id(self.input), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNDepthToSpace2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_depth_to_space_2d", node.blockSize, x.input(node.inputId),
               x.output(node.outputId), node.flags)  # fmt: skip


# --- reductions and pooling ------------------------------------------------------------------


def _reduced_shape(x: tuple[int, ...], axes: set[int], keep_dims: bool) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(x) if keep_dims or i not in axes)


@irdl_op_definition
class StaticReduceOp(XnnNode):
    """Reduces axes (negative counts from the end) with kind; XNN_FLAG_KEEP_DIMS keeps them
    as size 1."""

    name = "xnn.static_reduce"
    FLAGS: ClassVar[dict[str, int]] = _KEEP_DIMS
    kind = prop_def(ReduceOperatorAttr)
    input = operand_def(TensorType)
    axes = _ints()
    assembly_format = "$kind $input attr-dict `:` functional-type(operands, results)"

    def verify_node(self) -> None:
        x, axes = shape_of(self.input), ints(self.axes)
        norm = [normalize_dim(a, len(x)) for a in axes]
        if not axes or None in norm or len(set(norm)) != len(norm):
            _fail(f"axes {list(axes)} must be distinct dims of the rank-{len(x)} input")
        want = _reduced_shape(x, set(norm), self.has_flag(FLAG_KEEP_DIMS))
        _check_output(self.output, want)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        rank = len(shape_of(self.input))
        return fb.node("XNNStaticReduce", reduce_operator=c_value(self.kind.data),
                       reduction_axes=sorted(a % rank for a in ints(self.axes)),
                       input_id=fb.id(self.input), **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticReduce",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        axes = node.reductionAxes
        x.call("xnn_define_static_reduce_v2", node.reduceOperator, len(axes), x.int64s(axes),
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


@irdl_op_definition
class GlobalAveragePooling2dOp(ClampedNode):
    """Mean over the two dims before the innermost: [..., H, W, C] -> [..., C], or
    [..., 1, 1, C] with XNN_FLAG_KEEP_DIMS."""

    name = "xnn.global_average_pooling_2d"
    FLAGS: ClassVar[dict[str, int]] = _KEEP_DIMS
    input = operand_def(TensorType)

    def verify_node(self) -> None:
        x = shape_of(self.input)
        if len(x) < 3:
            _fail(f"input must be at least 3-D [..., H, W, C], got {list(x)}")
        want = _reduced_shape(x, {len(x) - 3, len(x) - 2}, self.has_flag(FLAG_KEEP_DIMS))
        _check_output(self.output, want)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNGlobalAvgPooling2d", input_id=fb.id(self.input), **_out(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNGlobalAvgPooling2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        # What the deprecated xnn_define_global_average_pooling_2d forwards to.
        x.call("xnn_define_static_reduce_v2", c_value(ReduceOperator.MEAN), 2, x.int64s([-3, -2]),
               x.input(node.inputId), x.clamped_output(node.outputId), node.flags)  # fmt: skip


class _Pooling2dNode(_Window2dNode):
    """The parameters max and average pooling share: [N, H, W, C] -> [N, OH, OW, C]."""

    FLAGS: ClassVar[dict[str, int]] = _SAME_PADDING
    input = operand_def(TensorType)
    pooling_height = _int()
    pooling_width = _int()
    stride_height = _int(1)
    stride_width = _int(1)

    def dilation(self) -> tuple[int, ...]:
        return 1, 1

    def verify_node(self) -> None:
        kernel = _positive(self, "pooling_height", "pooling_width")
        stride = _positive(self, "stride_height", "stride_width")
        dilation = self.dilation()
        x = _nhwc(self.input)
        self.verify_window(x, kernel, stride, dilation, x[3])
        _same_element_type(input=self.input, output=self.output)


@irdl_op_definition
class MaxPooling2dOp(_Pooling2dNode):
    """Max over each (dilated) pooling window."""

    name = "xnn.max_pooling_2d"
    dilation_height = _int(1)
    dilation_width = _int(1)

    def dilation(self) -> tuple[int, ...]:
        return _positive(self, "dilation_height", "dilation_width")

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNMaxPooling2d", **_pooling_fields(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNMaxPooling2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_max_pooling_2d", *_padding_trbl(node), node.poolingHeight,
               node.poolingWidth, node.strideHeight, node.strideWidth, node.dilationHeight,
               node.dilationWidth, x.min, x.max, x.input(node.inputId), x.output(node.outputId),
               node.flags)  # fmt: skip


@irdl_op_definition
class AveragePooling2dOp(_Pooling2dNode):
    """Mean over each pooling window."""

    name = "xnn.average_pooling_2d"

    # Beyond this XNNPACK rejects the new size.

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNAvgPooling2d", **_pooling_fields(self, fb))

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNAvgPooling2d",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_average_pooling_2d", *_padding_trbl(node), node.poolingHeight,
               node.poolingWidth, node.strideHeight, node.strideWidth, x.min, x.max,
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


_MAX_RESIZE = 1 << 24


@irdl_op_definition
class StaticResizeBilinear2dOp(XnnNode):
    """[N, H, W, C] -> [N, new_height, new_width, C]. Half-pixel centers by default;
    XNN_FLAG_ALIGN_CORNERS or XNN_FLAG_TENSORFLOW_LEGACY_MODE (asymmetric) select the others."""

    name = "xnn.static_resize_bilinear_2d"
    FLAGS: ClassVar[dict[str, int]] = {
        "XNN_FLAG_TENSORFLOW_LEGACY_MODE": FLAG_TENSORFLOW_LEGACY_MODE,
        "XNN_FLAG_ALIGN_CORNERS": FLAG_ALIGN_CORNERS,
        "XNN_FLAG_TRANSIENT_INDIRECTION_BUFFER": FLAG_TRANSIENT_INDIRECTION_BUFFER,
    }
    input = operand_def(TensorType)
    new_height = _int()
    new_width = _int()

    def verify_node(self) -> None:
        h, w = self.new_height.value.data, self.new_width.value.data
        if not (0 < h < _MAX_RESIZE and 0 < w < _MAX_RESIZE):
            _fail(f"new size {h}x{w} must be positive and below 2**24")
        if self.has_flag(FLAG_ALIGN_CORNERS) and self.has_flag(FLAG_TENSORFLOW_LEGACY_MODE):
            _fail("XNN_FLAG_ALIGN_CORNERS and XNN_FLAG_TENSORFLOW_LEGACY_MODE exclude each other")
        x = _nhwc(self.input)
        want = (x[0], h, w, x[3])
        _check_output(self.output, want)
        _same_element_type(input=self.input, output=self.output)

    def encode(self, fb: Any) -> Any:
        return fb.node("XNNStaticResizeBilinear2D", new_height=_v(self.new_height),
                       new_width=_v(self.new_width), input_id=fb.id(self.input),
                       **_out(self, fb))  # fmt: skip

    DEFINES: ClassVar[tuple[str, ...]] = ("XNNStaticResizeBilinear2D",)

    @staticmethod
    def define(x: Any, node: Any) -> None:
        x.call("xnn_define_static_resize_bilinear_2d", node.newHeight, node.newWidth,
               x.input(node.inputId), x.output(node.outputId), node.flags)  # fmt: skip


# --- the dialect -----------------------------------------------------------------------------

# --- flatbuffer encoding helpers ---------------------------------------------------------------
# Each node op's `encode(fb)` returns `fb.node(kind, **fields)`: the flatbuffer node kind
# (a member of the schema's NodeUnion) and its fields by schema name. Stock kinds are used
# wherever the stock ExecuTorch runtime has one; the xnnc kinds (48 and up) otherwise.


def _v(attr: IntegerAttr) -> int:
    return attr.value.data


def _out(op: XnnNode, fb: Any) -> dict[str, int]:
    return {"output_id": fb.id(op.output), "flags": op.flags.value.data}


def _window(op: _Window2dNode) -> dict[str, int]:
    top, right, bottom, left = op.padding()
    return dict(padding_top=top, padding_right=right, padding_bottom=bottom, padding_left=left,
                kernel_height=_v(op.kernel_height), kernel_width=_v(op.kernel_width),
                dilation_height=_v(op.dilation_height),
                dilation_width=_v(op.dilation_width))  # fmt: skip


def _conv_fields(op: IRDLOperation, fb: Any) -> dict[str, int]:
    bias = fb.NO_VALUE if op.bias is None else fb.id(op.bias)
    return dict(input1_id=fb.id(op.input), filter_id=fb.id(op.filter), bias_id=bias,
                **_out(op, fb))  # fmt: skip


def _pooling_fields(op: _Pooling2dNode, fb: Any) -> dict[str, int]:
    top, right, bottom, left = op.padding()
    dh, dw = op.dilation()
    return dict(padding_top=top, padding_right=right, padding_bottom=bottom, padding_left=left,
                pooling_height=_v(op.pooling_height), pooling_width=_v(op.pooling_width),
                stride_height=_v(op.stride_height), stride_width=_v(op.stride_width),
                dilation_height=dh, dilation_width=dw, input_id=fb.id(op.input),
                **_out(op, fb))  # fmt: skip


_STOCK_BINARY = {
    BinaryOperator.ADD: "XNNAdd", BinaryOperator.SUBTRACT: "XNNSubtract",
    BinaryOperator.MULTIPLY: "XNNMultiply", BinaryOperator.DIVIDE: "XNNDiv",
    BinaryOperator.MAXIMUM: "XNNMaximum", BinaryOperator.MINIMUM: "XNNMinimum",
    BinaryOperator.PRELU: "XNNPReLU",
}  # fmt: skip
_STOCK_UNARY = {
    UnaryOperator.SIGMOID: "XNNSigmoid", UnaryOperator.FLOOR: "XNNFloor",
    UnaryOperator.SQUARE_ROOT: "XNNSquareRoot", UnaryOperator.CEILING: "XNNCeiling",
    UnaryOperator.HARDSWISH: "XNNHardswish", UnaryOperator.NEGATE: "XNNNegate",
    UnaryOperator.SQUARE: "XNNSquare", UnaryOperator.ABS: "XNNAbs",
    UnaryOperator.RECIPROCAL_SQUARE_ROOT: "XNNReciprocalSquareRoot", UnaryOperator.LOG: "XNNLog",
    UnaryOperator.GELU: "XNNGelu", UnaryOperator.TANH: "XNNTanh", UnaryOperator.EXP: "XNNExp",
    UnaryOperator.SINE: "XNNSin", UnaryOperator.COSINE: "XNNCos",
}  # fmt: skip


# --- XNNPACK define helpers ----------------------------------------------------------------------
# Each node op's `define(x, node)` is its XNNPACK define call for a decoded flatbuffer node table
# (`node`: XNNNodeConvT, ...) of one of its `DEFINES` kinds. `x` is the runtime's define context
# (backend_xnnpack/runtime): `x.call(function, *args)`, serialized ids mapped by `x.input` and
# `x.output`, the node's fused clamp as `x.min`/`x.max`, its kind as `x.kind`.


def _padding_trbl(node: Any) -> tuple[int, int, int, int]:
    return node.paddingTop, node.paddingRight, node.paddingBottom, node.paddingLeft


def _conv_ids(x: Any, node: Any) -> tuple[int, int, int, int]:
    return (x.input(node.input1Id), x.input(node.filterId), x.optional_input(node.biasId),
            x.output(node.outputId))  # fmt: skip


def _stock_operator(kind: str, kinds: dict[Any, str]) -> int:
    """The operator enum value of a stock node kind, e.g. XNNAdd -> xnn_binary_add."""
    return c_value(next(op for op, k in kinds.items() if k == kind))


XNN_NODE_OPS: list[type[XnnNode]] = [
    Convolution2dOp, DepthwiseConvolution2dOp, Deconvolution2dOp, FullyConnectedOp,
    BatchMatrixMultiplyOp, BinaryOp, UnaryOp, ClampOp, SoftmaxOp, ConvertOp, CopyOp,
    StaticTransposeOp, StaticReshapeOp, StaticBroadcastOp, StaticSliceOp, StaticConstantPadOp,
    ConcatenateOp, DepthToSpace2dOp, StaticReduceOp, GlobalAveragePooling2dOp, MaxPooling2dOp,
    AveragePooling2dOp, StaticResizeBilinear2dOp,
]  # fmt: skip

Xnn = Dialect(
    "xnn",
    [SubgraphOp, OutputOp, ConstantOp, *XNN_NODE_OPS],
    [UnaryOperatorAttr, BinaryOperatorAttr, ReduceOperatorAttr, TargetAttr],
)
