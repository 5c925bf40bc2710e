"""The `xnn` dialect: XNNPACK subgraph nodes, one op per `xnn_define_*` function.

Ops, operands and properties carry XNNPACK's names (at XNNPACK commit 92a7ad50,
`include/xnnpack.h`): an op is its define function without `xnn_define_`, an operand or
result is its `*_id` argument without `_id`, a property is its parameter. Tensor dims are
XNNPACK's physical dims, NHWC for the convolution and pooling family, so every layout change
is an explicit `xnn.static_transpose`. Integer parameters are i64, `flags` is the i32
`XNN_FLAG_*` bit set, and `output_min`/`output_max` are f32 bounds (absent = unbounded).

What XNNPACK accepts of a node is the node table's (backend_xnnpack/nodes.py): an op's flags,
shape rule and element-type rule, and how it encodes to a flatbuffer node kind. The classes
here give IRDL fields and syntax; regular ops (`xnn.space_to_depth_2d`, ...) are generated
from their table entry.

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
from collections.abc import Callable, Iterable, Sequence
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

from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.dims import NotAffine
from xnnc.backend_xnnpack.nodes import (  # noqa: F401 (re-exported: the dialect's vocabulary)
    FLAG_ALIGN_CORNERS,
    FLAG_KEEP_DIMS,
    FLAG_NO_BROADCAST,
    FLAG_TENSORFLOW_LEGACY_MODE,
    FLAG_TENSORFLOW_SAME_PADDING,
    FLAG_TRANSIENT_INDIRECTION_BUFFER,
    FLAG_TRANSPOSE_B,
    FLAG_TRANSPOSE_WEIGHTS,
    MAX_CONCATENATE_INPUTS,
    MAX_TENSOR_DIMS,
    BinaryOperator,
    ReduceOperator,
    UnaryOperator,
    c_value,
)
from xnnc.dialects.constant_value import ConstantValueOp
from xnnc.dialects.dynamic_quant import DynamicQuantType, dynamic_quant_type
from xnnc.dialects.quant import (
    QuantizedShapesVerifier,
    ScalesAttr,
    UniformQuantType,
    ZeroPointsAttr,
    quant_type,
)
from xnnc.dialects.types import (
    element_type,
    ints,
    module_attribute,
    shape_of,
    symbol_ranges,
)
from xnnc.dialects.weights import WeightAttr
from xnnc.errors import OptionError
from xnnc.target import Target

# --- enum attributes (the enums, flags and limits are the node table's, nodes.py) -------------


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
    attr = module_attribute(op, TARGET_ATTR_NAME)
    if attr is None:
        return DEFAULT_TARGET
    if not isinstance(attr, TargetAttr):
        raise VerifyException(f"{TARGET_ATTR_NAME} must be a #xnn.target<...>, got {attr}")
    return attr.target


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


def _python_value(attr: Attribute | None) -> Any:
    """A parameter as the node table's rules read it: int, float, int tuple or enum member."""
    if attr is None:
        return None
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.value.data
    if isinstance(attr, DenseArrayBase):
        return ints(attr)
    if isinstance(attr, EnumAttribute):
        return attr.data
    return attr


def _element_kind(elem: Attribute) -> Attribute:
    """What must agree between operands and output: the type, or for a quantized type its
    storage (each value may have its own scale, as in XNNPACK's qs8 nodes)."""
    q = quant_type(elem)
    return elem if q is None else q.storage_type


def _same_element_type(**values: SSAValue) -> None:
    types = {name: element_type(v) for name, v in values.items()}
    if len({_element_kind(t) for t in types.values()}) > 1:
        _fail("element types differ: " + ", ".join(f"{k} {t}" for k, t in types.items()))


def _gemm_element_types(output: SSAValue, **inputs: SSAValue) -> None:
    """One element type throughout, or XNNPACK's bf16 GEMM: bf16 inputs, an f32 output."""
    if all(element_type(v) == bf16 for v in inputs.values()) and element_type(output) == f32:
        return
    _same_element_type(**inputs, output=output)


def _any_qd8(*values: SSAValue) -> bool:
    return any(dynamic_quant_type(element_type(v)) for v in values)


def _reads_qd8(output: SSAValue, **inputs: SSAValue) -> bool:
    """XNNPACK's dynamically quantized GEMMs and convolutions: qd8 inputs, an f32 output."""
    if element_type(output) != f32:
        return False
    return all(dynamic_quant_type(element_type(v)) for v in inputs.values())


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


class XnnNode(QuantizedShapesVerifier, IRDLOperation):
    """An XNNPACK node: Pure, parameters in the attribute dictionary, one output.

    Its entry in the node table (`nodes.OPS[name]`) gives the `XNN_FLAG_*` bits it accepts,
    its shape rule and element-type rule (checked by `verify_`), and, per node kind it
    encodes to, the flatbuffer fields (`encode`).
    """

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

    @property
    def spec(self) -> nodes.OpSpec:
        return nodes.OPS[self.name]

    def has_flag(self, bit: int) -> bool:
        return bool(self.flags.value.data & bit)

    def params(self) -> dict[str, Any]:
        """Every parameter by XNNPACK name as the node table reads it ("flags" included)."""
        names = type(self).get_irdl_definition().properties
        return {name: _python_value(getattr(self, name)) for name in names}

    def operand_values(self) -> dict[str, SSAValue | Sequence[SSAValue] | None]:
        return {name: getattr(self, name) for name, _ in self.get_irdl_definition().operands}

    def shapes(self) -> dict[str, Any]:
        """Operand and output shapes by name, as the node table's shape rules read them."""
        shapes: dict[str, Any] = {"output": shape_of(self.output)}
        for name, value in self.operand_values().items():
            if value is None or isinstance(value, SSAValue):
                shapes[name] = None if value is None else shape_of(value)
            else:
                shapes[name] = [shape_of(v) for v in value]
        return shapes

    def verify_(self) -> None:
        flags, accepted_flags = self.flags.value.data, self.spec.flags
        accepted = 0
        for bit in accepted_flags.values():
            accepted |= bit
        if flags & ~accepted:
            known = ", ".join(f"{k} = {v:#x}" for k, v in accepted_flags.items()) or "none"
            _fail(
                f"flags {flags:#x} set bits {flags & ~accepted:#x} that {self.name} does not "
                f"accept (accepted: {known})"
            )
        for v in (*self.operands, *self.results):
            if isinstance(v.type, TensorType) and v.type.get_num_dims() > MAX_TENSOR_DIMS:
                _fail(f"XNNPACK tensors have at most {MAX_TENSOR_DIMS} dims, got {v.type}")
        self.verify_node()

    def verify_node(self) -> None:
        """The table's shape rule, then its element-type rule."""
        try:
            shapes = {**self.shapes(), "ranges": symbol_ranges(self)}
            nodes.check_output(self.spec.shape(shapes, self.params()), shape_of(self.output))
        except nodes.ShapeError as e:
            _fail(str(e))
        except NotAffine as e:
            _fail(f"shape rule on symbolic sizes: {e}")
        self.verify_element_types()

    def verify_element_types(self) -> None:
        named: dict[str, SSAValue] = {}
        for name in self.spec.same_type:
            value = getattr(self, name)
            if isinstance(value, SSAValue):
                named[name] = value
            else:  # variadic: input1, input2, ...
                named.update({f"{name[:-1]}{i + 1}": v for i, v in enumerate(value)})
        if named and _any_qd8(self.output, *named.values()):
            if self.spec.reads_qd8 and _reads_qd8(self.output, **named):
                return
            _fail(
                "XNNPACK reads a dynamically quantized (qdint8) value only in a "
                "fully-connected, convolution or deconvolution node with an f32 output, and "
                "writes one only in a convert; got "
                + ", ".join(
                    f"{k} {element_type(v)}" for k, v in {**named, "output": self.output}.items()
                )
            )
        if self.spec.bf16 is nodes.Bf16.GEMM:
            _gemm_element_types(self.output, **named)
        elif named:
            _same_element_type(**named, output=self.output)


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
        return tuple(a.value.data for a in p)


_CONV_FORMAT = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)"

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
class ConstantOp(QuantizedShapesVerifier, ConstantValueOp):
    """A static tensor: a weight by reference, or a small dense literal."""

    name = "xnn.constant"
    RESULT_ROLE: ClassVar[str] = "output"
    value = prop_def(AnyOf([base(WeightAttr), base(DenseIntOrFPElementsAttr)]))
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())


# --- convolutions ----------------------------------------------------------------------------


@irdl_op_definition
class Convolution2dOp(_Window2dNode):
    """input [N, H, W, groups * group_input_channels],
    filter [groups * group_output_channels, kernel_height, kernel_width, group_input_channels]
    (OHWI, per-group input channels), bias [groups * group_output_channels]."""

    name = "xnn.convolution_2d"
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


@irdl_op_definition
class DepthwiseConvolution2dOp(_Window2dNode):
    """input [N, H, W, input_channels],
    filter [1, kernel_height, kernel_width, input_channels * depth_multiplier],
    bias [input_channels * depth_multiplier]."""

    name = "xnn.depthwise_convolution_2d"
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


# --- matrix products -------------------------------------------------------------------------


@irdl_op_definition
class FullyConnectedOp(ClampedNode):
    """output[..., o] = sum_i input[..., i] * filter[o, i] + bias[o]; filter is
    [output_channels, input_channels], or [input_channels, output_channels] with
    XNN_FLAG_TRANSPOSE_WEIGHTS."""

    name = "xnn.fully_connected"
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    assembly_format = _CONV_FORMAT


# --- elementwise -----------------------------------------------------------------------------


@irdl_op_definition
class BinaryOp(ClampedNode):
    """`kind(input1, input2)` with NumPy broadcasting."""

    name = "xnn.binary"
    kind = prop_def(BinaryOperatorAttr)
    input1 = operand_def(TensorType)
    input2 = operand_def(TensorType)
    assembly_format = "$kind $input1 `,` $input2 attr-dict `:` functional-type(operands, results)"


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
        allowed = nodes.UNARY_PARAMS.get(kind, ())
        for param in ("min", "max", "alpha", "negative_slope"):
            if getattr(self, param) is not None and param not in allowed:
                takes = ", ".join(allowed) if allowed else "no parameters"
                _fail(f"'{param}' is not a parameter of {kind}, which takes {takes}")
        if kind in _UNARY_REQUIRED and getattr(self, _UNARY_REQUIRED[kind]) is None:
            _fail(f"{kind} needs its '{_UNARY_REQUIRED[kind]}' parameter")
        if self.min is not None and self.max is not None:
            if not self.min.value.data <= self.max.value.data:
                _fail(f"clamp range [{self.min.value.data}, {self.max.value.data}] is empty")
        super().verify_node()


# Element types xnn.convert converts between; also f32 to and from per-tensor qs8/qu8.
_CONVERT_TYPES = (f32, f16, bf16)


@irdl_op_definition
class ConvertOp(XnnNode):
    """Element type conversion; the shape is unchanged."""

    name = "xnn.convert"
    input = operand_def(TensorType)

    def verify_element_types(self) -> None:
        src, dst = element_type(self.input), element_type(self.output)
        if src in _CONVERT_TYPES and dst in _CONVERT_TYPES:
            return
        if src == f32 and dynamic_quant_type(dst) is not None:
            # XNNPACK's convert to qd8: parameters at run time, per image for a convolution,
            # per row for a fully-connected node (`_quantization`): one or the other.
            readers = {use.operation.name for use in self.output.uses}
            if per_image(self.output) and FullyConnectedOp.name in readers:
                _fail(
                    "a qdint8 value is quantized per image for a convolution and per row for "
                    "a fully-connected node; convert it once for each (read by "
                    + ", ".join(sorted(readers))
                    + ")"
                )
            return
        quantized = quant_type(dst) or quant_type(src)
        real = src if quantized is dst else dst
        if (
            quantized is not None
            and real == f32
            and quantized.per_tensor
            and quantized.bitwidth == 8
        ):
            return
        _fail(
            f"converts between f32, f16 and bf16, or f32 and a per-tensor 8-bit quantized "
            f"type, not {src} -> {dst}"
        )


# --- layout and shape ------------------------------------------------------------------------


@irdl_op_definition
class ConcatenateOp(XnnNode):
    """Joins 2 to 5 inputs along axis (negative counts from the end)."""

    name = "xnn.concatenate"
    inputs = var_operand_def(TensorType)
    axis = _int()
    assembly_format = "$inputs attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class LstmOp(IRDLOperation):
    """An LSTM over a static time axis: `aten.lstm.input` without proj_size, in inference,
    fp32, kept one op through the pipeline and serialized as its steps unrolled into
    XNNPACK nodes (`translate.xnnpack`, `backend_xnnpack.lstm_steps`: one fully-connected node
    projects every frame per layer and direction, then ~15 nodes a step); XNNPACK 92a7ad50
    has no recurrent node. `state` is (h0, c0), each [layers * directions, B, H], or empty
    for zeros; `weights` per cell (layer-major, direction-minor) W_ih [4H, I], W_hh [4H, H]
    and, with `has_bias`, b_ih + b_hh [4H].

        %y, %h, %c = xnn.lstm %x state() weights(%w_ih, %w_hh, %b) {layers = 1 : i64}
          : tensor<75x1x512xf32> state() weights(tensor<2048x512xf32>, ...) -> (...)
    """

    name = "xnn.lstm"
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    input = operand_def(TensorType)
    state = var_operand_def(TensorType)
    weights = var_operand_def(TensorType)
    output = result_def(TensorType)
    h_n = result_def(TensorType)
    c_n = result_def(TensorType)
    layers = _int()
    bidirectional = _int(0)
    batch_first = _int(0)
    has_bias = _int(1)
    assembly_format = (
        "$input `state` `(` $state `)` `weights` `(` $weights `)` attr-dict `:` type($input) "
        "`state` `(` type($state) `)` `weights` `(` type($weights) `)` `->` type(results)"
    )

    @property
    def directions(self) -> int:
        return 2 if self.bidirectional.value.data else 1

    @property
    def cells(self) -> list[tuple[SSAValue, SSAValue, SSAValue | None]]:
        """Per cell (layer-major, direction-minor): W_ih, W_hh and the bias or None."""
        per = 3 if self.has_bias.value.data else 2
        w = list(self.weights)
        return [(w[k], w[k + 1], w[k + 2] if per == 3 else None) for k in range(0, len(w), per)]

    def verify_(self) -> None:
        layers, dirs = self.layers.value.data, self.directions
        if layers < 1:
            _fail(f"layers must be at least 1, got {layers}")
        per = 3 if self.has_bias.value.data else 2
        if len(self.weights) != layers * dirs * per:
            _fail(f"expected {layers * dirs * per} weights ({layers} layers x {dirs} "
                  f"directions x {per}), got {len(self.weights)}")  # fmt: skip
        if len(self.state) not in (0, 2):
            _fail(f"state is (h0, c0) or empty (zeros), got {len(self.state)} values")
        for v in (*self.operands, *self.results):
            if not (isinstance(v.type, TensorType) and v.type.element_type == f32
                    and v.type.has_static_shape()):  # fmt: skip
                _fail(f"xnn.lstm takes static f32 tensors, got {v.type}")
        x = list(shape_of(self.input))
        if len(x) != 3:
            _fail(f"input must be [T, B, I] or (batch_first) [B, T, I], got {x}")
        (t, b) = (x[1], x[0]) if self.batch_first.value.data else (x[0], x[1])
        w_hh = list(shape_of(self.cells[0][1]))
        if len(w_hh) != 2:
            _fail(f"cell 0: W_hh of shape {w_hh}, expected [4H, H]")
        hidden = w_hh[1]
        if min(t, b, hidden) < 1:
            _fail(f"needs at least one frame, batch row and hidden unit, got T={t}, B={b}, "
                  f"H={hidden}")  # fmt: skip
        width = x[2]
        for cell, (w_ih, w_hh, bias) in enumerate(self.cells):
            layer_width = width if cell < dirs else dirs * hidden
            expected = [(w_ih, (4 * hidden, layer_width)), (w_hh, (4 * hidden, hidden))]
            if bias is not None:
                expected.append((bias, (4 * hidden,)))
            for v, shape in expected:
                if shape_of(v) != shape:
                    _fail(f"cell {cell}: weight of shape {list(shape_of(v))}, expected "
                          f"{list(shape)}")  # fmt: skip
        out = [b, t, dirs * hidden] if self.batch_first.value.data else [t, b, dirs * hidden]
        state = (layers * dirs, b, hidden)
        for name, v, shape in (("output", self.output, out), ("h_n", self.h_n, state),
                               ("c_n", self.c_n, state),
                               *(("state", s, state) for s in self.state)):  # fmt: skip
            if shape_of(v) != tuple(shape):
                _fail(f"{name} of shape {list(shape_of(v))}, expected {list(shape)}")


# --- reductions and pooling ------------------------------------------------------------------


@irdl_op_definition
class StaticReduceOp(XnnNode):
    """Reduces axes (negative counts from the end) with kind; XNN_FLAG_KEEP_DIMS keeps them
    as size 1."""

    name = "xnn.static_reduce"
    kind = prop_def(ReduceOperatorAttr)
    input = operand_def(TensorType)
    axes = _ints()
    assembly_format = "$kind $input attr-dict `:` functional-type(operands, results)"


class _Pooling2dNode(_Window2dNode):
    """The parameters max and average pooling share: [N, H, W, C] -> [N, OH, OW, C]."""

    input = operand_def(TensorType)
    pooling_height = _int()
    pooling_width = _int()
    stride_height = _int(1)
    stride_width = _int(1)


@irdl_op_definition
class MaxPooling2dOp(_Pooling2dNode):
    """Max over each (dilated) pooling window."""

    name = "xnn.max_pooling_2d"
    dilation_height = _int(1)
    dilation_width = _int(1)


@irdl_op_definition
class AveragePooling2dOp(_Pooling2dNode):
    """Mean over each pooling window."""

    name = "xnn.average_pooling_2d"


# --- ops generated from the node table -------------------------------------------------------
# A regular node kind needs no class here: its OpSpec (`generated` = the class name) lists its
# operands and parameters; the op verifies and encodes itself from the table, and the runtime
# defines its kind from it.

_PARAM_DEFS = {"int": _int, "f32": _f32, "ints": lambda default: _ints()}


def _generated_op(spec: nodes.OpSpec) -> type[XnnNode]:
    """The IRDL op class of a table entry: operands, parameters, docstring; table verifier."""
    body: dict[str, Any] = {"name": spec.name, "__doc__": spec.doc, "__module__": __name__}
    for operand in spec.operands:
        body[operand] = operand_def(TensorType)
    for param in spec.params:
        body[param.name] = _PARAM_DEFS[param.type](param.default)
    if spec.operands != ("input",):
        operands = " `,` ".join(f"${name}" for name in spec.operands)
        body["assembly_format"] = f"{operands} attr-dict `:` functional-type(operands, results)"
    base = ClampedNode if spec.clamped else XnnNode
    return irdl_op_definition(type(spec.generated, (base,), body))


GENERATED_OPS: dict[str, type[XnnNode]] = {
    spec.name: _generated_op(spec) for spec in nodes.OPS.values() if spec.generated
}
# Each generated class is a module attribute under its table name (xnn.SpaceToDepth2dOp).
globals().update({op.__name__: op for op in GENERATED_OPS.values()})


def per_image(qd8: SSAValue) -> bool:
    """Whether a qd8 value's parameters are per image (a convolution or deconvolution reads
    it), not per row (a fully-connected node): XNNPACK's `num_nonbatch_dims`."""
    return any(isinstance(use.operation, (Convolution2dOp, Deconvolution2dOp)) for use in qd8.uses)


# --- the dialect -----------------------------------------------------------------------------

XNN_NODE_OPS: list[type[XnnNode]] = [
    Convolution2dOp, DepthwiseConvolution2dOp, Deconvolution2dOp, FullyConnectedOp, BinaryOp,
    UnaryOp, ConvertOp, ConcatenateOp, StaticReduceOp, MaxPooling2dOp, AveragePooling2dOp,
    *GENERATED_OPS.values(),
]  # fmt: skip
NODE_OPS_BY_NAME: dict[str, type[XnnNode]] = {op.name: op for op in XNN_NODE_OPS}


def node_ops(names: Iterable[str]) -> tuple[type[XnnNode], ...]:
    """The op classes of xnn op names, e.g. a set the node table derives."""
    return tuple(NODE_OPS_BY_NAME[name] for name in sorted(names))


Xnn = Dialect(
    "xnn",
    [SubgraphOp, OutputOp, ConstantOp, LstmOp, *XNN_NODE_OPS],
    [
        UnaryOperatorAttr,
        BinaryOperatorAttr,
        ReduceOperatorAttr,
        TargetAttr,
        UniformQuantType,
        DynamicQuantType,
        ScalesAttr,
        ZeroPointsAttr,
    ],  # fmt: skip
)
