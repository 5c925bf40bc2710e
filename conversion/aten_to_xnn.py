"""`convert-aten-to-xnn`: the `aten` ops inside `xnn.subgraph` regions, op by op, to `xnn`.

    %y = aten.convolution %x, %w, %b {...}       %t = xnn.static_transpose %x {perm = [0,2,3,1]}
                                          ==>    %c = xnn.convolution_2d %t, %w_ohwi, %b {...}
                                                 %y = xnn.static_transpose %c {perm = [0,3,1,2]}

Values keep their logical (PyTorch) types between ops; an op that XNNPACK runs in NHWC is
wrapped in explicit transposes, and filters are permuted at compile time. `convertible(op)`
is the single answer to "can this op be lowered?": the partitioner asks it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xnnc.backend_xnnpack.dims import DimExpr
from xnnc.backend_xnnpack.nodes import has_stock_kind
from xnnc.backend_xnnpack.shapes import numel, relative_begin, relative_end, slice_bounds
from xnnc.conversion.dynamic_quant_to_xnn import (
    dynamic_reason,
    lower_dynamic_linear,
    uses_dynamic,
)
from xnnc.conversion.dynamic_quant_to_xnn import filter_type as dynamic_filter_type
from xnnc.conversion.lstm import LstmArgs, check_kept_lstm, is_kept_lstm, lstm_args
from xnnc.conversion.quant_to_xnn import (
    deconvolution_filter_type,
    filter_reason,
    filter_type,
    qtype,
    quantized_bias,
    quantized_reason,
)
from xnnc.conversion.resample import (
    MAX_NEAREST_PIECES,
    Pieces,
    bilinear_mismatch,
    nearest_period,
    torch_source_maps,
)
from xnnc.dialects import aten, xnn
from xnnc.dialects.dynamic_quant import is_dynamic
from xnnc.dialects.locations import op_label, where
from xnnc.dialects.quant import UniformQuantType, is_quantized
from xnnc.dialects.types import (
    DimsAttr,
    element_type,
    has_complex,
    ints,
    shape_of,
    symbol_ranges,
)
from xnnc.dialects.xnn import BinaryOperator as B
from xnnc.dialects.xnn import ReduceOperator as R
from xnnc.dialects.xnn import UnaryOperator as U
from xnnc.dialects.xnn import target_of
from xnnc.errors import LocatedError
from xnnc.ir.constants import constant_op, constant_tensor, drop_constant, weight_name
from xnnc.ir.dtypes import TORCH_DTYPES
from xnnc.ir.emitter import Emitter

FLOATS = (f32, f16)
CAST_TYPES = (f32, f16, bf16)


class ConversionError(LocatedError):
    """An op that cannot be lowered as it stands (no lowering, or weights without data)."""


def constant_data(value: SSAValue) -> torch.Tensor:
    """A constant operand's tensor; conversion needs the bytes of the weights it transforms."""
    tensor = constant_tensor(value)
    if tensor is None:
        op = value.owner
        raise ConversionError(
            where(op),
            "the weight has no data (it was printed elided or traced without data); load it "
            "with --weights or import the model itself",
        )
    return tensor


def prop_value(op: Operation, name: str, default: Any = None) -> Any:
    attr = op.properties.get(name)
    if attr is None:
        return default
    if isinstance(attr, (IntegerAttr, FloatAttr)):
        return attr.value.data
    if hasattr(attr, "get_values"):
        return list(attr.get_values())
    if hasattr(attr, "data"):
        return attr.data
    return attr


Check = Callable[[Operation], str | None]
Lower = Callable[[Operation, Emitter], Sequence[SSAValue | None]]


@dataclass
class Lowering:
    check: Check
    lower: Lower


LOWERINGS: dict[type[Operation], Lowering] = {}


def lowering(*ops: type[Operation], check: Check | None = None):
    def register(fn: Lower) -> Lower:
        for op in ops:
            LOWERINGS[op] = Lowering(check or (lambda _: None), fn)
        return fn

    return register


def lowered_ops() -> list[type[Operation]]:
    """The `aten` ops conversion can lower (each may still decline a particular use)."""
    return [op for op in LOWERINGS if op is not aten.ConstantOp]


def convertible(op: Operation) -> str | None:
    """None when `op` lowers to xnn, else the reason it stays outside.

    The same for both runtimes: xnn-legalize-casts computes the nodes XNNPACK cannot define
    on bf16 in fp32 between converts and gives bf16 GEMMs an fp32 output, which stock
    ExecuTorch 1.5.1 runs as well, and xnn-legalize-stock rewrites extension kinds."""
    if has_complex(op):
        return COMPLEX_REASON
    lowering_ = _lowering_of(op)
    if lowering_ is None:
        return OUTSIDE_REASONS.get(op_label(op), "no xnn lowering")
    allowed = CAST_TYPES
    # Unused results (max pooling's indices, batch norm's statistics) take no part.
    for v in (*op.operands, *(r for r in op.results if r.uses)):
        if not isinstance(v.type, TensorType):
            continue
        # Quantized types have reasons of their own: quantized_reason, dynamic_reason.
        quantized = is_quantized(v.type) or is_dynamic(v.type)
        if not quantized and v.type.element_type not in allowed:
            return f"dtype {v.type.element_type} (XNNPACK runs {', '.join(map(str, allowed))})"
        if not v.type.has_static_shape():
            if not isinstance(v.type.encoding, DimsAttr):  # no expressions, so no bounds
                return f"dynamic shape {v.type} (XNNPACK subgraphs here are static)"
            if not _size_generic(op):
                return f"symbolic shape {v.type}: {op.name} is not lowered size-generic yet"
    if uses_dynamic(op):
        return dynamic_reason(op) or lowering_.check(op)
    return quantized_reason(op) or lowering_.check(op)


# The ops whose lowering stays correct when XNNPACK reshapes it at run time: every shape it
# emits follows the input's, and each reshape it emits has at most one symbolic dim.
SIZE_GENERIC: frozenset[type[Operation]] = frozenset({
    aten.ConvolutionOp, aten.LinearOp, aten.CatOp, aten.CloneOp, aten.ReluOp, aten.HardtanhOp,
    aten.ClampOp, aten.GeluOp, aten.SiluOp, aten.EluOp, aten.LeakyReluOp, aten.AddOp,
    aten.SubOp, aten.MulOp, aten.DivOp, aten.MaximumOp, aten.MinimumOp, aten.SigmoidOp,
    aten.HardsigmoidOp, aten.SoftplusOp, aten.MishOp,
    aten.TanhOp, aten.ExpOp, aten.LogOp, aten.Log2Op, aten.Log10Op, aten.SqrtOp, aten.RsqrtOp,
    aten.AbsOp, aten.NegOp,
    aten.SinOp, aten.CosOp, aten.SquareOp, aten.HardswishOp, aten.PowOp, aten.RoundOp,
    aten.ToCopyOp,
    aten.ToDimOrderCopyOp, aten.ViewOp, aten.SqueezeOp, aten.UnsqueezeOp, aten.PermuteOp,
    aten.ExpandOp, aten.BmmOp, aten.MatmulOp, aten.SoftmaxOp, aten.MeanOp, aten.SumOp,
    aten.AmaxOp, aten.MaxPool2dWithIndicesOp, aten.AvgPool2dOp, aten.AdaptiveAvgPool2dOp,
    aten.AdaptiveMaxPool2dOp, aten.BatchNormOp, aten.SelectOp, aten.PreluOp, aten.LayerNormOp,
    aten.SafeSoftmaxOp, aten.SplitWithSizesOp,
    aten.ConstantPadNdOp, aten.SliceOp, aten.ReflectionPad1dOp, aten.ReflectionPad2dOp,
    aten.ReplicationPad1dOp, aten.ReplicationPad2dOp, aten.PadCircularOp,
})  # fmt: skip


def _size_generic(op: Operation) -> bool:
    """Whether `op`'s lowering follows a symbolic size (`SIZE_GENERIC`). PT2E's static
    quantize and dequantize are elementwise converts; dynamic quantization's qd8 convert
    computes its per-token parameters at run time, over however many tokens there are."""
    return isinstance(op, (aten.QuantizeOp, aten.DequantizeOp)) or type(op) in SIZE_GENERIC


# --- convolutions ----------------------------------------------------------------------------


def _check_conv(op: aten.ConvolutionOp) -> str | None:
    if len(shape_of(op.input)) not in (3, 4):
        return "3-D convolution"
    return static_weights_refusal(op.weight, op.bias)


def static_weights_refusal(*values: SSAValue | None) -> str | None:
    """XNNPACK packs filters and biases at load: they must be constants."""
    for v in values:
        if v is not None and isinstance(v.owner, aten.DequantizeOp):
            # aten-fold-qdq left the op float: say why the quantized form does not lower.
            reason = filter_reason(v.owner.input, 0) or "the op's activations are not qs8"
            return f"a dequantized weight the qs8 lowering cannot take: {reason}"
        if v is not None and constant_op(v) is None:
            return "weights are not constants"
    return None


def _pair(values: Sequence[int], rank: int, fill: int) -> tuple[int, int]:
    return (fill, values[0]) if rank == 3 else (values[0], values[1])


@lowering(aten.ConvolutionOp, check=_check_conv)
def _conv(op: aten.ConvolutionOp, e: Emitter) -> Sequence[SSAValue]:
    rank = len(shape_of(op.input))
    w = constant_data(op.weight)
    if rank == 3:
        w = w.unsqueeze(2)
    groups = op.groups.value.data
    stride = _pair(ints(op.stride), rank, 1)
    pad = _pair(ints(op.padding), rank, 0)
    dil = _pair(ints(op.dilation), rank, 1)
    kh, kw = w.shape[2], w.shape[3]
    dynamic = is_dynamic(op.input.type)
    x = _dynamic_nhwc(op, e) if dynamic else e.to_nhwc(op.input)
    n, h, wd, cin = shape_of(x)
    out = shape_of(op.result)
    oh, ow = (1, out[2]) if rank == 3 else (out[2], out[3])
    bias = None
    name = weight_name(op.weight)
    wq = qtype(op.weight)
    transposed = op.transposed.value.data
    if op.bias is not None and dynamic:
        bias = e.const(constant_data(op.bias), weight_name(op.bias))  # qd8 convolutions add f32
    elif op.bias is not None and not (transposed and wq is not None):
        bias = _bias(op, e)
    window = dict(
        padding_top=pad[0], padding_bottom=pad[0], padding_left=pad[1], padding_right=pad[1],
        kernel_height=kh, kernel_width=kw, dilation_height=dil[0], dilation_width=dil[1],
    )  # fmt: skip
    if transposed:
        # torch [G*Cin_g, Cout_g, KH, KW] -> XNNPACK [G*Cout_g, KH, KW, Cin_g]
        cin_g, cout_g = w.shape[0] // groups, w.shape[1]
        filt = w.reshape(groups, cin_g, cout_g, kh, kw).permute(0, 2, 3, 4, 1)
        filt = filt.reshape(groups * cout_g, kh, kw, cin_g)
        filt_type = None
        if wq is not None and dynamic:
            filt_type = dynamic_filter_type(wq, tuple(filt.shape))
        elif wq is not None:
            filt_type = deconvolution_filter_type(wq, tuple(filt.shape), groups)
            if op.bias is not None:
                bias = _quantized_bias(op, e, filt_type.element_type)
        if filt.dtype == torch.float16:
            # XNNPACK's fp16 deconvolution takes fp32 static weights (and converts them).
            filt = filt.float()
            if op.bias is not None:
                bias = e.const(constant_data(op.bias).float(), f"{weight_name(op.bias)}.f32")
        adj = _pair(ints(op.output_padding), rank, 0)
        y = e.node(
            xnn.Deconvolution2dOp, x, e.const(filt, f"{name}.deconv", filt_type), bias,
            shape=(n, oh, ow, groups * cout_g), elem=element_type(op.result),
            upsampling_height=stride[0],
            upsampling_width=stride[1], adjustment_height=adj[0], adjustment_width=adj[1],
            groups=groups, group_input_channels=cin_g, group_output_channels=cout_g, **window,
        )  # fmt: skip
    elif groups == cin and groups > 1 and w.shape[1] == 1:
        # depthwise: torch [C*M, 1, KH, KW] -> XNNPACK [1, KH, KW, C*M]
        filt = w.permute(1, 2, 3, 0)
        y = e.node(
            xnn.DepthwiseConvolution2dOp, x, e.const(filt, f"{name}.dw", _filter(wq, filt, 3)),
            bias, shape=(n, oh, ow, w.shape[0]), elem=element_type(op.result),
            subsampling_height=stride[0],
            subsampling_width=stride[1], depth_multiplier=w.shape[0] // cin,
            input_channels=cin, **window,
        )  # fmt: skip
    else:
        filt = w.permute(0, 2, 3, 1)  # OIHW -> OHWI
        filt_type = _filter(wq, filt, 0)
        if dynamic:
            filt_type = dynamic_filter_type(wq, tuple(filt.shape))
        y = e.node(
            xnn.Convolution2dOp, x, e.const(filt, f"{name}.ohwi", filt_type), bias,
            shape=(n, oh, ow, w.shape[0]), elem=element_type(op.result),
            subsampling_height=stride[0],
            subsampling_width=stride[1], groups=groups, group_input_channels=cin // groups,
            group_output_channels=w.shape[0] // groups, **window,
        )  # fmt: skip
    return [e.from_nhwc(y, rank)]


def _dynamic_nhwc(op: aten.ConvolutionOp, e: Emitter) -> SSAValue:
    """A qd8 convolution's input: the f32 value its dynamic quantize reads, to NHWC, then
    quantized there (XNNPACK cannot move a qd8 tensor, whose parameters are per image). The
    quantize left unused is erased after conversion (`ConvertAtenToXnnPass`)."""
    source = op.input.owner
    assert isinstance(source, (aten.QuantizeOp, xnn.ConvertOp)), source
    x = e.to_nhwc(source.operands[0])
    return e.node(xnn.ConvertOp, x, shape=shape_of(x), elem=element_type(op.input))


def _filter(q: UniformQuantType | None, filt: torch.Tensor, axis: int) -> TensorType | None:
    """A quantized filter's type in XNNPACK's layout (channels along `axis`); None: float."""
    return None if q is None else filter_type(q, tuple(filt.shape), axis)


def _bias(op: Operation, e: Emitter) -> SSAValue:
    """The bias constant: as is, or for a quantized op XNNPACK's int32 bias."""
    if qtype(op.weight) is None:
        return e.const(constant_data(op.bias), weight_name(op.bias))
    return _quantized_bias(op, e, qtype(op.weight))


def _quantized_bias(op: Operation, e: Emitter, filter_q: UniformQuantType) -> SSAValue:
    """XNNPACK's int32 bias of a quantized op whose filter (in XNNPACK's layout) is `filter_q`."""
    data, name = constant_data(op.bias), weight_name(op.bias)
    values, type_ = quantized_bias(data, qtype(op.input), filter_q)
    return e.const(values, f"{name}.qint32", type_)


def _result_elem(op: Operation) -> Attribute | None:
    """The result's element type when quantized (each qs8 value has its own scale)."""
    return element_type(op.results[0]) if is_quantized(op.results[0].type) else None


# --- elementwise -----------------------------------------------------------------------------

_BINARY = {aten.AddOp: B.ADD, aten.SubOp: B.SUBTRACT, aten.MulOp: B.MULTIPLY,
           aten.DivOp: B.DIVIDE, aten.MaximumOp: B.MAXIMUM, aten.MinimumOp: B.MINIMUM,
           aten.PowOp: B.POW}  # fmt: skip


def _check_binary(op: Operation) -> str | None:
    if prop_value(op, "rounding_mode") is not None:
        return "rounding_mode"
    if len(shape_of(op.result)) > xnn.MAX_TENSOR_DIMS:
        return "rank above XNNPACK's maximum"
    if isinstance(op, aten.PowOp) and target_of(op).runtime == "stock" and not _scalar_pow(op):
        return ("pow by a tensor: stock ExecuTorch 1.5.1 has no node kind for XNNPACK's pow "
                "operator (xnn-legalize-stock rewrites a pow by a constant scalar)")  # fmt: skip
    return None


def _scalar_pow(op: aten.PowOp) -> bool:
    """Whether xnn-legalize-stock's PowAsStockKinds takes the pow: a scalar or one-element
    constant exponent that does not broadcast the base."""
    if op.other is None:
        return True
    one = constant_op(op.other) is not None and numel(shape_of(op.other)) == 1
    return one and shape_of(op.input) == shape_of(op.result)


def _operand_or_scalar(op: Operation, e: Emitter) -> SSAValue:
    """`other`, scaled by add/sub's alpha: `x + alpha * y`."""
    alpha = float(prop_value(op, "alpha", 1))
    if op.other is None:
        return e.scalar(alpha * float(prop_value(op, "scalar")), op.input)
    if alpha == 1:
        return op.other
    return e.node(xnn.BinaryOp, op.other, e.scalar(alpha, op.other), shape=shape_of(op.other),
                  kind=B.MULTIPLY)  # fmt: skip


@lowering(*_BINARY, check=_check_binary)
def _binary(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    if isinstance(op, aten.PowOp) and op.other is None and prop_value(op, "scalar") == 2:
        return [e.node(xnn.UnaryOp, op.input, shape=shape_of(op.result), kind=U.SQUARE)]
    if isinstance(op, aten.PowOp) and op.other is None and prop_value(op, "scalar") == 0.5:
        return [e.node(xnn.UnaryOp, op.input, shape=shape_of(op.result), kind=U.SQUARE_ROOT)]
    other = _operand_or_scalar(op, e)
    return [e.node(xnn.BinaryOp, op.input, other, shape=shape_of(op.result),
                   elem=_result_elem(op), kind=_BINARY[type(op)])]  # fmt: skip


_UNARY = {aten.SigmoidOp: U.SIGMOID, aten.TanhOp: U.TANH, aten.ExpOp: U.EXP, aten.LogOp: U.LOG,
          aten.SqrtOp: U.SQUARE_ROOT, aten.RsqrtOp: U.RECIPROCAL_SQUARE_ROOT, aten.AbsOp: U.ABS,
          aten.NegOp: U.NEGATE, aten.FloorOp: U.FLOOR, aten.CeilOp: U.CEILING,
          aten.RoundOp: U.BANKERS_ROUNDING,
          aten.SinOp: U.SINE, aten.CosOp: U.COSINE, aten.SquareOp: U.SQUARE,
          aten.HardswishOp: U.HARDSWISH}  # fmt: skip


def _check_unary(op: Operation) -> str | None:
    if prop_value(op, "decimals", 0) != 0:
        return "round to decimals != 0 (XNNPACK rounds to integers)"
    operator = _UNARY[type(op)]
    if target_of(op).runtime == "stock" and not has_stock_kind("xnn.unary", operator):
        return f"stock ExecuTorch 1.5.1 has no node kind for XNNPACK's {operator.value} operator"
    return None


@lowering(*_UNARY, check=_check_unary)
def _unary(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    return [e.node(xnn.UnaryOp, op.input, shape=shape_of(op.result), elem=_result_elem(op),
                   kind=_UNARY[type(op)])]  # fmt: skip


_MINUS_ABS_EXP = ((aten.ExpOp, U.EXP), (aten.NegOp, U.NEGATE), (aten.AbsOp, U.ABS))


def _exp_of_minus_abs(value: SSAValue) -> bool:
    """value = exp(-|x|), so 0 <= value <= 1 (log_sigmoid's decomposition), in `aten` or
    already lowered to `xnn` (conversion goes producers first)."""
    for aten_op, kind in _MINUS_ABS_EXP:
        op = value.owner
        if not isinstance(op, aten_op) and not (
            isinstance(op, xnn.UnaryOp) and op.kind.data == kind
        ):
            return False
        value = op.input
    return True


def _check_log1p(op: aten.Log1pOp) -> str | None:
    if not _exp_of_minus_abs(op.input):
        return (
            "XNNPACK 92a7ad50 has no log1p; its composition log(w) + (u - (w - 1)) / w, "
            "w = 1 + u, is NaN at u = inf, so it is used only on u = exp(-|x|) (log_sigmoid)"
        )
    return None


def log1p_of(u: SSAValue, e: Emitter) -> SSAValue:
    """log1p(u) = log(w) + (u - (w - 1)) / w with w = 1 + u rounded: w - 1 is exact, so the
    second term restores, to first order, the part of u the rounding lost; where w = 1 the
    result is u itself, to full relative precision. Between, XNNPACK's log near 1 is
    accurate to ~1e-7 absolute, not relative: measured over u = exp(-x), x in [0, 30],
    2e-7 absolute in fp32 (torch's default fp32 atol is 1e-5), half an ulp in fp16. For
    0 <= u < inf (at u = inf it is NaN)."""
    shape = shape_of(u)

    def binary(a: SSAValue, b: SSAValue, kind: B) -> SSAValue:
        return e.node(xnn.BinaryOp, a, b, shape=shape, kind=kind)

    w = binary(u, e.scalar(1.0, u), B.ADD)
    lost = binary(u, binary(w, e.scalar(1.0, u), B.SUBTRACT), B.SUBTRACT)
    log = e.node(xnn.UnaryOp, w, shape=shape, kind=U.LOG)
    return binary(log, binary(lost, w, B.DIVIDE), B.ADD)


_LOG_BASES = {aten.Log2Op: 2.0, aten.Log10Op: 10.0}


@lowering(*_LOG_BASES)
def _log_base(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """log_b(x) = log(x) * (1 / log(b)): XNNPACK has the natural log alone (a few ulps from
    torch's log2/log10; exact powers of b may land an ulp off their integer)."""
    shape = shape_of(op.input)
    log = e.node(xnn.UnaryOp, op.input, shape=shape, kind=U.LOG)
    scale = e.scalar(1.0 / math.log(_LOG_BASES[type(op)]), log)
    return [e.node(xnn.BinaryOp, log, scale, shape=shape, kind=B.MULTIPLY)]


@lowering(aten.Log1pOp, check=_check_log1p)
def _log1p(op: aten.Log1pOp, e: Emitter) -> Sequence[SSAValue]:
    return [log1p_of(op.input, e)]


def _prelu_channels_last(op: aten.PreluOp) -> bool:
    """Whether the PReLU runs channels-last: per-channel slopes need the channels
    innermost; a single slope is repeated along the innermost dim, unless that dim is
    symbolic (the repeated slopes are a constant)."""
    x = shape_of(op.input)
    shared = numel(shape_of(op.weight)) == 1
    return len(x) != 2 and not (shared and not isinstance(x[-1], DimExpr))


def _check_prelu(op: aten.PreluOp) -> str | None:
    x = shape_of(op.input)
    if not x:
        return "PReLU of a 0-D tensor"
    if _prelu_channels_last(op) and len(x) not in (3, 4):
        return "PReLU with a slope per channel on a rank other than 2, 3 or 4"
    channels = x[1] if _prelu_channels_last(op) else x[-1]
    if isinstance(channels, DimExpr):
        return f"PReLU over the symbolic dim {channels} as its channels (one slope each)"
    return static_weights_refusal(op.weight)


@lowering(aten.PreluOp, check=_check_prelu)
def _prelu(op: aten.PreluOp, e: Emitter) -> Sequence[SSAValue]:
    """XNNPACK's PReLU takes one slope per channel of the innermost dim: per-channel
    slopes need the input channels-last (the layout pass cancels the transposes between
    NHWC neighbours); a single slope is repeated along whatever dim is innermost."""
    rank = len(shape_of(op.input))
    last = _prelu_channels_last(op)
    x = e.to_nhwc(op.input) if last else op.input
    channels = shape_of(x)[-1]
    slope = constant_data(op.weight).reshape(-1).expand(channels).contiguous()
    slopes = e.const(slope, f"{weight_name(op.weight)}.slope")
    y = e.node(xnn.BinaryOp, x, slopes, shape=shape_of(x), kind=B.PRELU)
    return [e.from_nhwc(y, rank) if last else y]


def _check_elu(op: aten.EluOp) -> str | None:
    if prop_value(op, "input_scale", 1) != 1:
        return "ELU with an input_scale (it scales only the negative branch)"
    return None


@lowering(aten.EluOp, check=_check_elu)
def _elu(op: aten.EluOp, e: Emitter) -> Sequence[SSAValue]:
    """ELU, and SELU's scaled form: `scale * elu(x, alpha)`."""
    shape, scale = shape_of(op.result), float(prop_value(op, "scale", 1.0))
    y = e.node(xnn.UnaryOp, op.input, shape=shape, elem=_result_elem(op), kind=U.ELU,
               alpha=float(prop_value(op, "alpha", 1.0)))  # fmt: skip
    if scale == 1.0:
        return [y]
    return [e.node(xnn.BinaryOp, y, e.scalar(scale, y), shape=shape, kind=B.MULTIPLY)]


@lowering(aten.HardsigmoidOp)
def _hardsigmoid(op: aten.HardsigmoidOp, e: Emitter) -> Sequence[SSAValue]:
    """relu6(x + 3) / 6 as torch computes it: the add clamped to [0, 6], then a divide."""
    shape = shape_of(op.result)
    y = e.node(xnn.BinaryOp, op.input, e.scalar(3.0, op.input), shape=shape, kind=B.ADD,
               output_min=0.0, output_max=6.0)  # fmt: skip
    return [e.node(xnn.BinaryOp, y, e.scalar(6.0, y), shape=shape, kind=B.DIVIDE)]


def _softplus_of(x: SSAValue, beta: float, e: Emitter) -> SSAValue:
    """log(1 + exp(beta * x)) / beta without overflow: relu(z) + log1p(exp(-|z|)) over
    z = beta * x (`log1p_of`: XNNPACK 92a7ad50 has no log1p and no select), which equals
    torch's `x where z > threshold` (threshold >= 16: exp(-z) is below half an ulp of z
    there)."""
    shape = shape_of(x)
    z = x
    if beta != 1.0:
        z = e.node(xnn.BinaryOp, x, e.scalar(beta, x), shape=shape, kind=B.MULTIPLY)
    t = z
    for kind in (U.ABS, U.NEGATE, U.EXP):
        t = e.node(xnn.UnaryOp, t, shape=shape, kind=kind)
    relu = e.node(xnn.ClampOp, z, shape=shape, output_min=0.0)
    y = e.node(xnn.BinaryOp, log1p_of(t, e), relu, shape=shape, kind=B.ADD)
    if beta == 1.0:
        return y
    return e.node(xnn.BinaryOp, y, e.scalar(beta, y), shape=shape, kind=B.DIVIDE)


def _check_softplus(op: aten.SoftplusOp) -> str | None:
    beta, threshold = float(prop_value(op, "beta", 1.0)), float(prop_value(op, "threshold", 20.0))
    if beta <= 0 or threshold < 16:
        return "softplus with beta <= 0 or a threshold below 16 (where x replaces it early)"
    return None


@lowering(aten.SoftplusOp, check=_check_softplus)
def _softplus(op: aten.SoftplusOp, e: Emitter) -> Sequence[SSAValue]:
    return [_softplus_of(op.input, float(prop_value(op, "beta", 1.0)), e)]


@lowering(aten.MishOp)
def _mish(op: aten.MishOp, e: Emitter) -> Sequence[SSAValue]:
    """x * tanh(softplus(x)) as x * n / (n + 2), n = a * (a + 2), a = exp(min(x, 20)): the
    same function (tanh(log(1 + a)) = n / (n + 2)) with no log, so it keeps its relative
    precision where x is very negative (a log near 1 loses it); from x = 20 on the ratio
    is 1 in fp32, as torch's softplus threshold makes it."""
    x, shape = op.input, shape_of(op.result)

    def binary(kind: Any, a: SSAValue, b: SSAValue) -> SSAValue:
        return e.node(xnn.BinaryOp, a, b, shape=shape, kind=kind)

    a = e.node(xnn.UnaryOp, e.node(xnn.ClampOp, x, shape=shape, output_max=20.0), shape=shape,
               kind=U.EXP)  # fmt: skip
    n = binary(B.MULTIPLY, a, binary(B.ADD, a, e.scalar(2.0, a)))
    ratio = binary(B.DIVIDE, n, binary(B.ADD, n, e.scalar(2.0, n)))
    return [binary(B.MULTIPLY, x, ratio)]


@lowering(aten.GeluOp)
def _gelu(op: aten.GeluOp, e: Emitter) -> Sequence[SSAValue]:
    kind = U.APPROXGELU if prop_value(op, "approximate", "none") == "tanh" else U.GELU
    return [e.node(xnn.UnaryOp, op.input, shape=shape_of(op.result), elem=_result_elem(op),
                   kind=kind)]  # fmt: skip


@lowering(aten.LeakyReluOp)
def _leaky_relu(op: aten.LeakyReluOp, e: Emitter) -> Sequence[SSAValue]:
    return [e.node(xnn.UnaryOp, op.input, shape=shape_of(op.result), elem=_result_elem(op),
                   kind=U.LEAKY_RELU,
                   negative_slope=float(prop_value(op, "negative_slope", 0.01)))]  # fmt: skip


@lowering(aten.ReluOp, aten.HardtanhOp, aten.ClampOp)
def _clamp(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    if isinstance(op, aten.ReluOp):
        lo, hi = 0.0, math.inf
    elif isinstance(op, aten.HardtanhOp):
        lo, hi = float(prop_value(op, "min_val", -1.0)), float(prop_value(op, "max_val", 1.0))
    else:
        lo, hi = prop_value(op, "min"), prop_value(op, "max")
        lo = -math.inf if lo is None else float(lo)
        hi = math.inf if hi is None else float(hi)
    bounds = {"output_min": lo, "output_max": hi}
    bounds = {k: v for k, v in bounds.items() if math.isfinite(v)}  # absent = unbounded
    return [e.node(xnn.ClampOp, op.input, shape=shape_of(op.result), **bounds)]


@lowering(aten.SiluOp)
def _silu(op: aten.SiluOp, e: Emitter) -> Sequence[SSAValue]:
    shape = shape_of(op.result)
    s = e.node(xnn.UnaryOp, op.input, shape=shape, kind=U.SIGMOID)
    return [e.node(xnn.BinaryOp, op.input, s, shape=shape, kind=B.MULTIPLY)]


@lowering(aten.ReciprocalOp)
def _reciprocal(op: aten.ReciprocalOp, e: Emitter) -> Sequence[SSAValue]:
    one = e.scalar(1.0, op.input)
    return [e.node(xnn.BinaryOp, one, op.input, shape=shape_of(op.result), kind=B.DIVIDE)]


def _check_cast(op: Operation) -> str | None:
    if prop_value(op, "memory_format") not in (None, "torch.preserve_format",
                                           "torch.contiguous_format"):  # fmt: skip
        return "changes the memory format"
    order = prop_value(op, "dim_order")
    if order is not None and list(order) != list(range(len(order))):
        return "changes the dim order"
    return None


@lowering(aten.ToCopyOp, aten.ToDimOrderCopyOp, check=_check_cast)
def _cast(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    if element_type(op.input) == element_type(op.result):
        return [e.node(xnn.CopyOp, op.input, shape=shape_of(op.result))]
    shape, elem = shape_of(op.result), element_type(op.result)
    return [e.node(xnn.ConvertOp, op.input, shape=shape, elem=elem)]


@lowering(aten.QuantizeOp, aten.DequantizeOp)
def _quantize(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """qcast/dcast at the edge of quantized ops: XNNPACK's convert f32 <-> qs8."""
    return [e.node(xnn.ConvertOp, op.input, shape=shape_of(op.result), elem=_elem(op))]


def _elem(op: Operation) -> Attribute:
    return element_type(op.results[0])


@lowering(aten.CloneOp, check=_check_cast)
def _clone(op: aten.CloneOp, e: Emitter) -> Sequence[SSAValue]:
    return [e.node(xnn.CopyOp, op.input, shape=shape_of(op.result))]


# --- matrix products -------------------------------------------------------------------------


def _check_linear(op: aten.LinearOp) -> str | None:
    return static_weights_refusal(op.weight, op.bias)


@lowering(aten.LinearOp, check=_check_linear)
def _linear(op: aten.LinearOp, e: Emitter) -> Sequence[SSAValue]:
    if is_dynamic(op.input.type):
        bias = None if op.bias is None else constant_data(op.bias)
        return lower_dynamic_linear(op, e, constant_data(op.weight), bias)
    bias = None if op.bias is None else _bias(op, e)
    w = e.const(constant_data(op.weight), weight_name(op.weight), op.weight.type)
    return [e.node(xnn.FullyConnectedOp, op.input, w, bias, shape=shape_of(op.result),
                   elem=_result_elem(op))]  # fmt: skip


def _check_addmm(op: aten.AddmmOp) -> str | None:
    if prop_value(op, "alpha", 1) != 1 or prop_value(op, "beta", 1) != 1:
        return "alpha or beta != 1"
    if static_weights_refusal(op.mat2, op.input):
        return "weight or bias is not a constant"
    if shape_of(op.input) not in ((shape_of(op.mat2)[1],), (1, shape_of(op.mat2)[1])):
        return "bias is not per output channel"
    return None


@lowering(aten.AddmmOp, check=_check_addmm)
def _addmm(op: aten.AddmmOp, e: Emitter) -> Sequence[SSAValue]:
    # mat2 is [K, N]; XNNPACK's filter is [N, K].
    w = e.const(constant_data(op.mat2).t(), f"{weight_name(op.mat2)}.t")
    b = e.const(constant_data(op.input).reshape(-1), weight_name(op.input))
    return [e.node(xnn.FullyConnectedOp, op.mat1, w, b, shape=shape_of(op.result))]


@lowering(aten.MmOp)
def _mm(op: aten.MmOp, e: Emitter) -> Sequence[SSAValue]:
    if constant_op(op.mat2) is not None:
        filt = e.const(constant_data(op.mat2).t(), f"{weight_name(op.mat2)}.t")
        return [e.node(xnn.FullyConnectedOp, op.input, filt, None, shape=shape_of(op.result))]
    return [e.node(xnn.BatchMatrixMultiplyOp, op.input, op.mat2, shape=shape_of(op.result))]


@lowering(aten.BmmOp, aten.MatmulOp)
def _bmm(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    return [e.node(xnn.BatchMatrixMultiplyOp, *op.operands, shape=shape_of(op.result))]


# --- the ops models need beyond convolutions: log-probabilities, and what stays outside ------
# GELU (both forms), SiLU and GLU need nothing here: gelu and silu lower above, and
# torch.export decomposes glu into two slices, a sigmoid and a multiply.


def _check_log_softmax(op: aten.LogSoftmaxOp) -> str | None:
    if op.half_to_float.value.data:
        return "half_to_float"
    return None if shape_of(op.input) else "0-D input"


@lowering(aten.LogSoftmaxOp, check=_check_log_softmax)
def _log_softmax(op: aten.LogSoftmaxOp, e: Emitter) -> Sequence[SSAValue]:
    """s - log(sum(exp(s))) with s = x - max(x) along `dim`, as torch computes it: exp(s) <= 1
    cannot overflow and the sum is >= 1, so its log is finite. XNNPACK 92a7ad50 has no
    log-softmax, and log(softmax(x)) would give -inf wherever softmax(x) underflows to 0."""
    shape = shape_of(op.result)
    dim = op.dim.value.data % len(shape)
    kept = tuple(1 if d == dim else n for d, n in enumerate(shape))

    def reduce(x: SSAValue, kind: R) -> SSAValue:
        return e.node(xnn.StaticReduceOp, x, shape=kept, kind=kind, axes=[dim],
                      flags=xnn.FLAG_KEEP_DIMS)  # fmt: skip

    s = e.node(xnn.BinaryOp, op.input, reduce(op.input, R.MAX), shape=shape, kind=B.SUBTRACT)
    total = reduce(e.node(xnn.UnaryOp, s, shape=shape, kind=U.EXP), R.SUM)
    log_total = e.node(xnn.UnaryOp, total, shape=kept, kind=U.LOG)
    return [e.node(xnn.BinaryOp, s, log_total, shape=shape, kind=B.SUBTRACT)]


_NO_COMPARISON = (
    "XNNPACK 92a7ad50 has no comparison operator (its binary operators are arithmetic, "
    "min/max and bitwise) and no bool tensors"
)
_NO_GATHER = (
    "XNNPACK 92a7ad50 has no gather node and no int64 tensors; a one-hot x table product "
    "would be exact but costs num_embeddings x dim per index and cannot reject an "
    "out-of-range index as torch does"
)
_NO_SELECT = (
    "XNNPACK 92a7ad50 has no select operator and no bool tensors; a blend "
    "y + c * (x - y) is not exact (an inf or nan in the operand not chosen leaks through)"
)
# XNNPACK has no complex type: aten-lower-complex splits complex values into real parts for
# the ops it has rules for, and what it leaves reads or makes complex values still.
COMPLEX_REASON = "complex values (aten-lower-complex has no real form of this op)"

# Why ops that have no lowering stay outside, keyed by `op_label`
# (tests/conversion/test_model_ops.py checks that each key names an aten op or an ATen
# overload the dialect leaves generic); the rest say "no xnn lowering".
OUTSIDE_REASONS = {
    **{f"aten.{c}.{o}": _NO_COMPARISON for c in ("eq", "ne", "lt", "le", "gt", "ge")
       for o in ("Tensor", "Scalar")},
    "aten.where": _NO_SELECT,
    **{f"aten.where.{o}": _NO_SELECT for o in ("ScalarSelf", "ScalarOther", "Scalar")},
    "aten.embedding": _NO_GATHER,
    "aten.index_select": _NO_GATHER,
    "aten.index_put": "XNNPACK 92a7ad50 has no scatter node and no int64 tensors",
    # A static one imported whole runs on the recurrent loop (its reason then says so) or
    # is `xnnc::lstm`, lowered to xnn.lstm (conversion/lstm.py).
    "aten.lstm.input": "an LSTM over a symbolic time axis: XNNPACK 92a7ad50 has no recurrent "
    "node and unrolling needs the frame count; runs on torch's LSTM",
}  # fmt: skip


# --- reductions, softmax, normalization ------------------------------------------------------


def _axes(op: Operation) -> list[int]:
    rank = len(shape_of(op.input))
    dims = ints(op.dim) or tuple(range(rank))
    return sorted(d % rank for d in dims)


_REDUCE = {aten.MeanOp: R.MEAN, aten.SumOp: R.SUM, aten.AmaxOp: R.MAX}


def _check_reduce(op: Operation) -> str | None:
    x = shape_of(op.input)
    if not x:
        return "a 0-d input (XNNPACK reduces over at least one dim)"
    symbolic = [x[a] for a in _axes(op) if isinstance(x[a], DimExpr)]
    if symbolic and type(op) is not aten.MeanOp and target_of(op).runtime == "stock":
        # xnn-legalize-stock: a mean is global average pooling at any size; a sum is a
        # fully-connected node and a max a max-pooling window, both of a fixed size.
        return (f"a {_REDUCE[type(op)].value} over the symbolic dim {symbolic[0]}: stock "
                "ExecuTorch has no reduce node, and its fully-connected and max-pooling forms "
                "have a fixed size")  # fmt: skip
    return None


@lowering(*_REDUCE, check=_check_reduce)
def _reduce(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """mean/sum with `dtype=` cast the input first, as torch does (`convertible` has already
    kept float64 and integer dtypes, which XNNPACK lacks, outside). With no dims (`x.mean()`)
    every dim is reduced into a 0-d result, as torch gives."""
    keep = bool(prop_value(op, "keepdim", False))
    x, elem = op.input, element_type(op.result)
    if element_type(x) != elem and not is_quantized(x.type):
        x = e.node(xnn.ConvertOp, x, shape=shape_of(x), elem=elem)
    return [e.node(xnn.StaticReduceOp, x, shape=shape_of(op.result), kind=_REDUCE[type(op)],
                   elem=elem, axes=_axes(op), flags=xnn.FLAG_KEEP_DIMS if keep else 0)]  # fmt: skip


def _check_softmax(op: aten.SoftmaxOp) -> str | None:
    return "half_to_float" if op.half_to_float.value.data else None


@lowering(aten.SoftmaxOp, check=_check_softmax)
def _softmax(op: aten.SoftmaxOp, e: Emitter) -> Sequence[SSAValue]:
    """XNNPACK normalizes the last dim: move `dim` there and back."""
    rank = len(shape_of(op.input))
    dim = op.dim.value.data % rank
    if dim == rank - 1:
        return [e.node(xnn.SoftmaxOp, op.input, shape=shape_of(op.result))]
    perm = [d for d in range(rank) if d != dim] + [dim]
    x = e.transpose(op.input, perm)
    y = e.node(xnn.SoftmaxOp, x, shape=shape_of(x))
    return [e.transpose(y, [perm.index(d) for d in range(rank)])]


def _check_batch_norm(op: aten.BatchNormOp) -> str | None:
    if static_weights_refusal(op.running_mean, op.running_var, op.weight, op.bias):
        return "batch norm statistics are not constants"
    if any(r.uses for r in (op.save_mean, op.save_rstd)):
        return "batch norm statistics are used"
    return None


@lowering(aten.BatchNormOp, check=_check_batch_norm)
def _batch_norm(op: aten.BatchNormOp, e: Emitter) -> Sequence[SSAValue]:
    """y = x * scale + shift, per channel (folding into a preceding conv is xnn-fold-bn)."""
    scale, shift = batch_norm_affine(op)
    rank = len(shape_of(op.input))
    bshape = (-1,) + (1,) * (rank - 2)
    name = weight_name(op.running_mean)
    shape = shape_of(op.result)
    s = e.const(scale.reshape(bshape), f"{name}.scale")
    b = e.const(shift.reshape(bshape), f"{name}.shift")
    y = e.node(xnn.BinaryOp, op.input, s, shape=shape, kind=B.MULTIPLY)
    y = e.node(xnn.BinaryOp, y, b, shape=shape, kind=B.ADD)
    return [y, None, None]  # the statistics are unused (checked)


def batch_norm_affine(op: aten.BatchNormOp) -> tuple[torch.Tensor, torch.Tensor]:
    """Inference batch norm as y = x * scale + shift, computed in fp32, cast to x's dtype."""
    mean = constant_data(op.running_mean).float()
    var = constant_data(op.running_var).float()
    gamma = constant_data(op.weight).float() if op.weight is not None else torch.ones_like(mean)
    beta = constant_data(op.bias).float() if op.bias is not None else torch.zeros_like(mean)
    scale = gamma / torch.sqrt(var + op.eps.value.data)
    dtype = TORCH_DTYPES[element_type(op.input)]
    return scale.to(dtype), (beta - mean * scale).to(dtype)


# --- upsampling by output size or scale factors ----------------------------------------------
# Each checked against torch's own index maps (conversion/resample.py), so a scale factor
# that samples other points than the size ratio (1.5 on 5 pixels) never lowers silently.


def _check_bilinear(op: aten.UpsampleBilinear2dOp) -> str | None:
    if len(shape_of(op.input)) != 4:
        return "not 4-D"
    return bilinear_mismatch(shape_of(op.input)[2:], shape_of(op.result)[2:],
                             prop_value(op, "output_size"), prop_value(op, "scale_factors"),
                             bool(op.align_corners.value.data))  # fmt: skip


@lowering(aten.UpsampleBilinear2dOp, check=_check_bilinear)
def _bilinear(op: aten.UpsampleBilinear2dOp, e: Emitter) -> Sequence[SSAValue]:
    n, c, oh, ow = shape_of(op.result)
    flags = xnn.FLAG_ALIGN_CORNERS if op.align_corners.value.data else 0
    y = e.node(xnn.StaticResizeBilinear2dOp, e.to_nhwc(op.input), shape=(n, oh, ow, c),
               new_height=oh, new_width=ow, flags=flags)  # fmt: skip
    return [e.from_nhwc(y, 4)]


Period = tuple[int, int, Pieces]  # resample.nearest_period's (p, q, pieces)


Nearest = aten.UpsampleNearest1dOp | aten.UpsampleNearest2dOp


def _nearest_periods(op: Nearest) -> tuple[Period | None, Period | None]:
    """Per dim, the period of torch's index map; a 1-D upsample is a 2-D one of height 1."""
    size, scales = prop_value(op, "output_size"), prop_value(op, "scale_factors")
    h, w = (1, *shape_of(op.input)[2:])[-2:]
    if isinstance(op, aten.UpsampleNearest1dOp):
        size = None if size is None else (1, *size)
        scales = None if scales is None else (1.0, *scales)
    rows, cols = torch_source_maps("nearest", (h, w), size, scales)
    return nearest_period(rows, h), nearest_period(cols, w)


def _check_nearest(op: Nearest) -> str | None:
    if min(shape_of(op.input)[2:]) < 1:
        return "empty input"
    for axis, period in zip(("height", "width"), _nearest_periods(op), strict=True):
        if period is None:
            return (f"the {axis}'s index map needs more than {MAX_NEAREST_PIECES} slices "
                    "per period")  # fmt: skip
    return None


def _repeats(period: Period) -> int | None:
    """s when the map is j // s (each input element repeated s times), else None."""
    p, q, pieces = period
    return p if q == 1 and pieces == [(0, 1)] * p else None


@lowering(aten.UpsampleNearest2dOp, check=_check_nearest)
def _nearest(op: aten.UpsampleNearest2dOp, e: Emitter) -> Sequence[SSAValue]:
    """Integer scales: each NHWC pixel broadcast to an sh x sw block, [N,H,1,W,1,C] ->
    [N,H,sh,W,sw,C] (the form xnn-upsample-nearest rewrites). Other maps: per dim, the
    periodic gather of `_gather_period`."""
    ph, pw = _nearest_periods(op)
    x = e.to_nhwc(op.input)
    n, h, w, c = shape_of(x)
    sh, sw = _repeats(ph), _repeats(pw)
    if sh == sw == 1:
        return [_identity(op, e)]
    if sh is not None and sw is not None:
        blocks = (n, h, sh, w, sw, c)
        x = e.node(xnn.StaticBroadcastOp, e.reshape(x, (n, h, 1, w, 1, c)), shape=blocks,
                   new_shape=blocks)  # fmt: skip
        return [e.from_nhwc(e.reshape(x, (n, h * sh, w * sw, c)), 4)]
    x = _gather_period(e, x, 1, ph)
    return [e.from_nhwc(_gather_period(e, x, 2, pw), 4)]


@lowering(aten.UpsampleNearest1dOp, check=_check_nearest)
def _nearest_1d(op: aten.UpsampleNearest1dOp, e: Emitter) -> Sequence[SSAValue]:
    """The width is the innermost dim already: `_gather_period` on it, no layout change."""
    _, pw = _nearest_periods(op)
    if _repeats(pw) == 1:
        return [_identity(op, e)]
    return [_gather_period(e, op.input, 2, pw)]


def _gather_period(e: Emitter, x: SSAValue, axis: int, period: Period) -> SSAValue:
    """Output j = input (j // p) * q + m[j % p]: the dim split into [L / q, q], the inner q
    gathered to p by slices and a concatenate, merged back (1.5x: every 2 inputs a, b give
    a, a, b). A plain repeat is a broadcast instead."""
    p, q, pieces = period
    shape = list(shape_of(x))
    if p == q and pieces == [(0, q)]:
        return x
    split = [*shape[:axis], shape[axis] // q, q, *shape[axis + 1 :]]
    merged = [*shape[:axis], shape[axis] // q * p, *shape[axis + 1 :]]
    xs = e.reshape(x, split)
    if _repeats(period) is not None:
        blocks = [*split[: axis + 1], p, *split[axis + 2 :]]
        return e.reshape(e.node(xnn.StaticBroadcastOp, xs, shape=blocks, new_shape=blocks), merged)
    sliced = {(0, q): xs}
    for piece in pieces:
        if piece not in sliced:
            sliced[piece] = e.slice(xs, axis + 1, *piece)
    return e.reshape(e.concatenate([sliced[piece] for piece in pieces], axis + 1), merged)


def _identity(op: Operation, e: Emitter) -> SSAValue:
    """The op's input as its result; copied when both are the subgraph's (an output cannot
    be an input)."""
    x = op.input
    if isinstance(x, BlockArgument) and _yielded(op.result):
        x = e.node(xnn.CopyOp, x, shape=shape_of(x))
    return x


@lowering(aten.PixelShuffleOp)
def _pixel_shuffle(op: aten.PixelShuffleOp, e: Emitter) -> Sequence[SSAValue]:
    n, crr, h, w = shape_of(op.input)
    r = op.upscale_factor.value.data
    c = crr // (r * r)
    x = e.reshape(op.input, (n, c, r, r, h, w))
    x = e.transpose(x, (0, 1, 4, 2, 5, 3))
    return [e.reshape(x, (n, c, h * r, w * r))]


def _check_pixel_unshuffle(op: aten.PixelUnshuffleOp) -> str | None:
    if len(shape_of(op.input)) != 4:
        return "not 4-D"
    return None if op.downscale_factor.value.data >= 2 else "downscale_factor below 2"


@lowering(aten.PixelUnshuffleOp, check=_check_pixel_unshuffle)
def _pixel_unshuffle(op: aten.PixelUnshuffleOp, e: Emitter) -> Sequence[SSAValue]:
    """xnn.space_to_depth_2d puts the block before the channel (TensorFlow DCR), torch after
    it (CRD): NHWC [N, h, w, r*r*C] -> [N, h, w, r*r, C] -> NCHW [N, C*r*r, h, w]."""
    r = op.downscale_factor.value.data
    n, c, h, w = shape_of(op.input)
    x = e.node(xnn.SpaceToDepth2dOp, e.to_nhwc(op.input), shape=(n, h // r, w // r, c * r * r),
               block_size=r)  # fmt: skip
    x = e.transpose(e.reshape(x, (n, h // r, w // r, r * r, c)), (0, 4, 3, 1, 2))
    return [e.reshape(x, shape_of(op.result))]


# --- shape and layout ------------------------------------------------------------------------


def _check_reshape(op: Operation) -> str | None:
    if sum(isinstance(d, DimExpr) for d in shape_of(op.result)) > 1:
        return "a reshape to more than one symbolic dim (XNNPACK's reshape infers one)"
    return None


@lowering(aten.ViewOp, aten.SqueezeOp, aten.UnsqueezeOp, check=_check_reshape)
def _reshape(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    return [e.node(xnn.StaticReshapeOp, op.input, shape=shape_of(op.result),
                   new_shape=_inferred(shape_of(op.result)))]  # fmt: skip


def _inferred(shape: Sequence[int | DimExpr]) -> list[int]:
    """XNNPACK's `new_shape`: a symbolic dim is 0, inferred (reshape) or kept (broadcast)."""
    return [0 if isinstance(d, DimExpr) else d for d in shape]


def _check_expand(op: aten.ExpandOp) -> str | None:
    x, y = shape_of(op.input), shape_of(op.result)
    x = (1,) * (len(y) - len(x)) + x
    if any(isinstance(b, DimExpr) and a != b for a, b in zip(x, y)):
        return "an expand to a symbolic size (XNNPACK's broadcast keeps a 0 dim as it is)"
    return None


@lowering(aten.ExpandOp, check=_check_expand)
def _expand(op: aten.ExpandOp, e: Emitter) -> Sequence[SSAValue]:
    # ATen aligns trailing dims; XNNPACK's broadcast wants the input's rank to match.
    x = shape_of(op.input)
    y = shape_of(op.result)
    value = e.reshape(op.input, (1,) * (len(y) - len(x)) + x)
    if shape_of(value) == y:
        return [value]  # a no-op expand (as torch.matmul's decomposition emits)
    return [e.node(xnn.StaticBroadcastOp, value, shape=y, new_shape=_inferred(y))]


@lowering(aten.PermuteOp)
def _permute(op: aten.PermuteOp, e: Emitter) -> Sequence[SSAValue]:
    rank = len(shape_of(op.input))
    return [e.transpose(op.input, [d % rank for d in ints(op.dims)])]


def _check_slice(op: aten.SliceOp) -> str | None:
    if prop_value(op, "step", 1) != 1:
        return "strided slice"
    if prop_value(op, "end") == DYNAMIC_INDEX:
        return "its end is a size traced from another input (no XNNPACK node computes it)"
    x = shape_of(op.input)
    d = prop_value(op, "dim", 0) % len(x)
    start, length = slice_bounds(x[d], prop_value(op, "start"), prop_value(op, "end"))
    end_gap = x[d] - start - length
    # The extended runtime's XNNStaticSliceV3 ends it where XNNPACK's v3 slice does.
    stock = target_of(op).runtime == "stock"
    if end_gap != 0 and not isinstance(x[d], int) and stock and not _from_deconvolution(op.input):
        return (
            f"a slice ending {end_gap} before the end of the symbolic dim {x[d]}: XNNPACK's "
            "stock slice node takes absolute sizes (only a transposed convolution's trim folds)"
        )
    if not isinstance(start, int) and stock:
        return (
            f"a slice starting {x[d] - start} before the end of the symbolic dim {x[d]}: "
            "XNNPACK's stock slice node takes absolute offsets"
        )
    return None


def _from_deconvolution(value: SSAValue) -> bool:
    """Whether `value` is a transposed convolution's result used once: `xnn-fold-slice`
    folds a trim of it into the deconvolution's padding."""
    while len(list(value.uses)) == 1:
        owner = value.owner
        if isinstance(owner, aten.ConvolutionOp):
            return bool(prop_value(owner, "transposed", False))
        if isinstance(owner, xnn.Deconvolution2dOp):
            return True
        if not isinstance(owner, xnn.StaticTransposeOp | xnn.StaticReshapeOp):
            return False
        value = owner.input  # the NHWC wrapping of an already converted convolution
    return False


@lowering(aten.SliceOp, check=_check_slice)
def _slice(op: aten.SliceOp, e: Emitter) -> Sequence[SSAValue]:
    x = shape_of(op.input)
    d = prop_value(op, "dim", 0) % len(x)
    start, length = slice_bounds(x[d], prop_value(op, "start"), prop_value(op, "end"))
    offsets = [0] * len(x)
    offsets[d] = relative_begin(x[d], start)
    sizes = [relative_end(n, 0, n) for n in x]
    sizes[d] = relative_end(x[d], start, length)
    return [e.node(xnn.StaticSliceOp, op.input, shape=shape_of(op.result), offsets=offsets,
                   sizes=sizes)]  # fmt: skip


def _check_select(op: aten.SelectOp) -> str | None:
    x = shape_of(op.input)
    if isinstance(size := x[prop_value(op, "dim") % len(x)], DimExpr):
        return f"a select of one index of the symbolic dim {size}"
    return _check_reshape(op)


@lowering(aten.SelectOp, check=_check_select)
def _select(op: aten.SelectOp, e: Emitter) -> Sequence[SSAValue]:
    x = shape_of(op.input)
    d = prop_value(op, "dim") % len(x)
    one = e.slice(op.input, d, prop_value(op, "index") % x[d], 1)
    return [e.node(xnn.StaticReshapeOp, one, shape=shape_of(op.result),
                   new_shape=_inferred(shape_of(op.result)))]  # fmt: skip


@lowering(aten.SplitWithSizesOp)
def _split(op: aten.SplitWithSizesOp, e: Emitter) -> Sequence[SSAValue]:
    """One slice per piece along the split dim, static (the verifier has its sizes add up
    to it); the other dims whole (a symbolic one to its end, which XNNPACK's slice resolves
    at each reshape)."""
    x = shape_of(op.input)
    d = prop_value(op, "dim", 0) % len(x)
    outs, start = [], 0
    for r in op.outputs:
        offsets = [0] * len(x)
        offsets[d] = start
        sizes = [relative_end(n, 0, n) for n in x]
        sizes[d] = shape_of(r)[d]
        start += sizes[d]
        outs.append(e.node(xnn.StaticSliceOp, op.input, shape=shape_of(r), offsets=offsets,
                           sizes=sizes))  # fmt: skip
    return outs


@lowering(aten.CatOp)
def _cat(op: aten.CatOp, e: Emitter) -> Sequence[SSAValue]:
    values = list(op.tensors)
    if len(values) == 1:
        return [e.node(xnn.CopyOp, values[0], shape=shape_of(op.result))]
    return [e.concatenate(values, prop_value(op, "dim", 0) % len(shape_of(op.result)))]


# XNNPACK 92a7ad50 has no reverse node: a flip is one slice per element of each flipped dim,
# concatenated backwards; exact, and worth it only for short dims (a bidirectional RNN's time
# axis, a flipped kernel).
MAX_FLIP_PIECES = 64


def _flipped_dims(op: aten.FlipOp) -> list[int]:
    x = shape_of(op.input)
    return sorted({d % len(x) for d in ints(op.dims)} - {d for d in range(len(x)) if x[d] == 1})


def _check_flip(op: aten.FlipOp) -> str | None:
    x = shape_of(op.input)
    long = [x[d] for d in _flipped_dims(op) if x[d] > MAX_FLIP_PIECES]
    if long:
        return (
            f"flip along a dim of {long[0]} elements: XNNPACK 92a7ad50 has no reverse node, "
            f"and a flip is one slice per element (at most {MAX_FLIP_PIECES} here)"
        )
    return None


@lowering(aten.FlipOp, check=_check_flip)
def _flip(op: aten.FlipOp, e: Emitter) -> Sequence[SSAValue]:
    value = op.input
    for d in _flipped_dims(op):
        n = shape_of(value)[d]
        value = e.concatenate([e.slice(value, d, i, 1) for i in reversed(range(n))], d)
    if value is op.input:  # only dims of size 1: a copy, the result is a value of its own
        value = e.node(xnn.CopyOp, value, shape=shape_of(op.result))
    return [value]


def _check_pad(op: aten.ConstantPadNdOp) -> str | None:
    if any(p < 0 for p in ints(op.pad)):
        return "negative padding (a crop)"
    return None


@lowering(aten.ConstantPadNdOp, check=_check_pad)
def _pad(op: aten.ConstantPadNdOp, e: Emitter) -> Sequence[SSAValue]:
    rank, pad = len(shape_of(op.input)), ints(op.pad)
    pre, post = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        pre[rank - 1 - i], post[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    return [e.node(xnn.StaticConstantPadOp, op.input, shape=shape_of(op.result),
                   pre_paddings=pre, post_paddings=post,
                   padding_value=float(prop_value(op, "value", 0.0)))]  # fmt: skip


# --- padding modes: reflect, replicate, circular --------------------------------------------
# Each padded dim becomes static slices of the input concatenated around it; XNNPACK has no
# reversing or gathering slice, so a mirrored or repeated element is its own one-element
# slice. None of them is a static_constant_pad, so xnn-fold-pad never folds them into a conv.


def reflect_pieces(length: int, left: int, right: int) -> Pieces:
    """The mirror leaves the edge out: the left pad is x[left], ..., x[1] and the right pad
    x[L-2], ..., x[L-1-right].

        reflect_pieces(5, 2, 1) == [(2, 1), (1, 1), (0, 5), (3, 1)]
    """
    return [
        *((i, 1) for i in range(left, 0, -1)),
        (0, length),
        *((length - 2 - i, 1) for i in range(right)),
    ]


def replicate_pieces(length: int, left: int, right: int) -> Pieces:
    """The edge elements repeated: replicate_pieces(5, 2, 1) == [(0, 1), (0, 1), (0, 5), (4, 1)]"""
    return [*[(0, 1)] * left, (0, length), *[(length - 1, 1)] * right]


def circular_pieces(length: int, left: int, right: int) -> Pieces:
    """The other end wrapped around: circular_pieces(5, 2, 1) == [(3, 2), (0, 5), (0, 1)]"""
    return [*([(length - left, left)] if left else []), (0, length),
            *([(0, right)] if right else [])]  # fmt: skip


def _check_pad_mode(op: Operation) -> str | None:
    x, pad = shape_of(op.input), _padding(op)
    if len(pad) // 2 not in (1, 2) or len(x) < len(pad) // 2 + 1:
        return "padding of other than 1 or 2 trailing dims of a batched or channelled input"
    if min(pad) < 0:
        return "negative padding (a crop)"
    circular = isinstance(op, aten.PadCircularOp)
    for i in range(len(pad) // 2):
        length, (left, right) = x[len(x) - 1 - i], pad[2 * i : 2 * i + 2]
        if isinstance(length, DimExpr):
            # The pieces at the far end start a fixed distance before it (from-end slices).
            if (left if circular else right) and target_of(op).runtime == "stock":
                return (
                    f"a pad of the symbolic dim {length}: its pieces at the end start a fixed "
                    "distance before it, which XNNPACK's stock slice node (absolute offsets) "
                    "cannot write; the extended runtime's can"
                )
            ranges = symbol_ranges(op)  # torch.export checked the pads against them
            length = length.bounds(ranges)[0] if set(length.symbols) <= set(ranges) else 1
        if isinstance(op, aten.ReplicationPad1dOp | aten.ReplicationPad2dOp):
            continue
        if circular and max(left, right) > length:
            return "circular padding wider than the dim"
        if not circular and max(left, right) >= length:
            return "reflect padding as wide as the dim"
    return None


def _padding(op: Operation) -> tuple[int, ...]:
    return ints(op.pad if isinstance(op, aten.PadCircularOp) else op.padding)


_PIECES = {aten.ReflectionPad1dOp: reflect_pieces, aten.ReflectionPad2dOp: reflect_pieces,
           aten.ReplicationPad1dOp: replicate_pieces, aten.ReplicationPad2dOp: replicate_pieces,
           aten.PadCircularOp: circular_pieces}  # fmt: skip


@lowering(*_PIECES, check=_check_pad_mode)
def _pad_mode(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """Per padded dim, the input between its edge slices, concatenated: the small pads are
    joined first so the input itself is copied once per dim. 2-D pads the width first; the
    height pad then takes the padded rows, corners included.

    It runs channels-last, like the convolutions it feeds (their transposes then cancel):
    an edge element is a contiguous row of C values, not C strided ones."""
    pad = _padding(op)
    if not any(pad):
        return [_identity(op, e)]
    rank, spatial = len(shape_of(op.input)), len(pad) // 2
    channels = rank - 1 - spatial
    perm = [*range(channels), *range(channels + 1, rank), channels]
    x = e.transpose(op.input, perm)
    for i in range(spatial):
        axis = rank - 2 - i
        length = shape_of(x)[axis]
        x = _join_pieces(e, x, axis, _PIECES[type(op)](length, pad[2 * i], pad[2 * i + 1]))
    return [e.transpose(x, [perm.index(d) for d in range(rank)])]


def _join_pieces(e: Emitter, x: SSAValue, axis: int, pieces: Pieces) -> SSAValue:
    length = shape_of(x)[axis]
    middle = pieces.index((0, length))
    sliced = {(0, length): x}  # one slice each, though both sides read it
    for piece in pieces:
        if piece not in sliced:
            sliced[piece] = e.slice(x, axis, *piece)
    left = [sliced[p] for p in pieces[:middle]]
    right = [sliced[p] for p in pieces[middle + 1 :]]
    if len(pieces) <= xnn.MAX_CONCATENATE_INPUTS:
        return e.concatenate([*left, x, *right], axis)
    sides = [e.concatenate(left, axis)] if left else []
    return e.concatenate([*sides, x, *([e.concatenate(right, axis)] if right else [])], axis)


def _yielded(value: SSAValue) -> bool:
    return any(isinstance(use.operation, xnn.OutputOp) for use in value.uses)


@lowering(aten.ConstantOp)
def _constant(op: aten.ConstantOp, e: Emitter) -> Sequence[SSAValue]:
    new = xnn.ConstantOp(op.value, op.result.type)
    e.rewriter.insert(new)
    return [new.results[0]]


def _lower_kept_lstm(op: aten.GenericOp, e: Emitter) -> Sequence[SSAValue]:
    """`xnn.lstm` with each cell's two biases folded into one (the projection adds it once
    per frame); a state of zero constants (an LSTM called without one) left out, so the
    first step skips h0 @ W_hh and f * c0."""
    args = lstm_args(op)
    assert isinstance(args, LstmArgs), args
    values = list(op.operands)
    params = [values[i] for i in args.params]
    per = 4 if args.has_biases else 2
    weights: list[SSAValue] = []
    for k in range(0, len(params), per):
        w_ih, w_hh, *biases = params[k : k + per]
        weights += [w_ih, w_hh]
        if biases:
            b_ih, b_hh = (constant_data(b) for b in biases)
            name = "+".join(weight_name(b) for b in biases)
            weights.append(e.const(b_ih + b_hh, name))
    h0, c0 = values[args.h0], values[args.c0]
    zeros = [constant_tensor(v) for v in (h0, c0)]
    state = [] if all(z is not None and not z.any() for z in zeros) else [h0, c0]
    new = xnn.LstmOp.build(
        operands=[values[args.x], state, weights],
        result_types=[r.type for r in op.results],
        properties={
            "layers": IntegerAttr(args.layers, i64),
            "bidirectional": IntegerAttr(int(args.bidirectional), i64),
            "batch_first": IntegerAttr(int(args.batch_first), i64),
            "has_bias": IntegerAttr(int(args.has_biases), i64),
        },
    )
    new.location = op.location
    e.rewriter.insert(new)
    return list(new.results)


# A static LSTM kept whole off the recurrent loop (conversion/lstm.py); any other
# `aten.generic` has no lowering.
_KEPT_LSTM_LOWERING = Lowering(check_kept_lstm, _lower_kept_lstm)


def _lowering_of(op: Operation) -> Lowering | None:
    if isinstance(op, aten.GenericOp):
        return _KEPT_LSTM_LOWERING if is_kept_lstm(op) else None
    return LOWERINGS.get(type(op))


# --- the pass --------------------------------------------------------------------------------


class ConvertAtenOp(RewritePattern):
    """One `aten` op inside an `xnn.subgraph` to its xnn ops."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lowering_ = _lowering_of(op)
        if lowering_ is None or not isinstance(op.parent_op(), xnn.SubgraphOp):
            return
        if not isinstance(op, aten.ConstantOp) and convertible(op) is not None:
            return
        operands = list(op.operands)
        results = lowering_.lower(op, Emitter(rewriter, op))
        rewriter.replace(op, [], list(results))
        if isinstance(op, aten.ConstantOp):
            op.properties.clear()  # its weight moved on; see drop_constant
        # A weight the lowering transformed (a permuted filter) goes now, not after the
        # pass, so that one layer's old and new copies coexist, not the whole model's.
        for value in operands:
            const = constant_op(value)
            if const is not None and not const.results[0].uses:
                drop_constant(rewriter, const)


def _erase_dead(block: Block) -> None:
    """Erase the ops of a subgraph body whose results nobody reads: constants a lowering
    replaced (a permuted filter) and nodes it left behind (a qd8 convolution quantizes its
    NHWC input itself, `_dynamic_nhwc`, leaving the NCHW value's quantize unused), which
    XNNPACK would otherwise run. Every op in a body but its terminator computes only its
    results."""
    for inner in reversed(list(block.ops)):
        if inner is not block.last_op and not any(r.uses for r in inner.results):
            inner.detach()
            inner.erase()


@dataclass(frozen=True)
class ConvertAtenToXnnPass(ModulePass):
    """Lower every `aten` op inside `xnn.subgraph` regions to `xnn` ops."""

    name = "convert-aten-to-xnn"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([ConvertAtenOp()]), apply_recursively=False
        ).rewrite_module(op)
        for sub in [o for o in op.walk() if isinstance(o, xnn.SubgraphOp)]:
            _erase_dead(sub.body.block)
            left = [o for o in sub.body.block.ops if o.name.startswith("aten.")]
            if left:
                o = left[0]
                raise ConversionError(
                    where(o),
                    f"{op_label(o)} inside xnn.subgraph has no lowering: "
                    f"{convertible(o) or 'no xnn lowering'}",
                )
