"""One description per XNNPACK node kind: the table the dialect, serializer, blob validator,
runtime and legalizations all read.

Each flatbuffer node kind (a `NodeUnion` member of `schema/xnnc.fbs`) has a `NodeKind`:
which xnn op encodes to it and from which op fields its table's fields come (`fields`), the
`xnn_define_*` function the runtime calls and where each C argument comes from (`args`, so
the ctypes signature and the call are derived), and its per-node blob checks. Facts about
the xnn op itself, shared by the kinds it encodes to (`xnn.binary` -> XNNAdd ... XNNBinary),
are an `OpSpec`: accepted flags, whether it takes a fused clamp, its shape rule (a pure
function on shapes and parameters that the op verifier runs; the runtime's static-weight
checks share its filter layouts), its element-type rule, bf16 capability, layout
agnosticism, and, for ops the dialect generates from the table, their operands and
parameters.

Values from XNNPACK's include/xnnpack.h at google/XNNPACK 92a7ad50. No xDSL here: the
runtime loads blobs with this module and the schema alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from ctypes import POINTER, Structure, c_double, c_float, c_int, c_int32, c_int64, c_size_t
from ctypes import c_uint32 as _u32
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, NamedTuple, NoReturn

from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.backend_xnnpack.shapes import (
    broadcast_shapes,
    conv_output_size,
    deconv_output_size,
    normalize_dim,
    numel,
    sliced_shape,
)
from xnnc.errors import XnncError

# --- limits and flags ----------------------------------------------------------------------------

MAX_TENSOR_DIMS = 6  # XNN_MAX_TENSOR_DIMS: no value in a subgraph has more dims
# XNN_MAX_OPERATOR_OBJECTS: xnn_define_concatenate takes at most 5 inputs, and stock ExecuTorch
# 1.5.1 knows XNNConcatenate2..5, so larger joins are trees (Emitter.concatenate).
MAX_CONCATENATE_INPUTS = 5
INVALID_VALUE_ID = 0xFFFFFFFF  # XNN_INVALID_VALUE_ID: "internal value" / "no bias"
UINT32_MAX = 0xFFFFFFFF
LAST_STOCK_NODE_KIND = 47  # XNNCos: stock ExecuTorch 1.5.1 knows NodeUnion members 1..47

# XNN_FLAG_* bits. Some bits mean different things per node.
FLAG_TRANSPOSE_WEIGHTS = 0x1  # fully_connected; XNN_FLAG_TRANSPOSE_B for batch_matrix_multiply
FLAG_TRANSPOSE_B = 0x1
FLAG_TENSORFLOW_SAME_PADDING = 0x4
FLAG_TENSORFLOW_LEGACY_MODE = 0x4  # static_resize_bilinear_2d: no half-pixel centers
FLAG_ALIGN_CORNERS = 0x8
FLAG_TRANSIENT_INDIRECTION_BUFFER = 0x20
FLAG_KEEP_DIMS = 0x40
FLAG_NO_BROADCAST = 0x1000


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


# Parameters of a unary operator, in `union xnn_unary_params` order; the others take none.
UNARY_PARAMS = {
    UnaryOperator.CLAMP: ("min", "max"),
    UnaryOperator.ELU: ("alpha",),
    UnaryOperator.LEAKY_RELU: ("negative_slope",),
}
# Operators XNNPACK implements for int32 only; on other types xnn_create_runtime_v4 fails
# without naming the node.
INTEGER_OPERATORS = frozenset(
    {
        UnaryOperator.BITWISE_NOT,
        UnaryOperator.COUNT_LEADING_ZEROS,
        UnaryOperator.POPCOUNT,
        BinaryOperator.BITWISE_AND,
        BinaryOperator.BITWISE_OR,
        BinaryOperator.BITWISE_XOR,
        BinaryOperator.SHIFT_LEFT,
        BinaryOperator.SHIFT_RIGHT_LOGICAL,
        BinaryOperator.SHIFT_RIGHT_ARITHMETIC,
    }
)


def camel(name: str) -> str:
    """`input1_id` -> `input1Id`: the flatc object API's attribute for a schema field."""
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


# --- shape rules ------------------------------------------------------------------------------
# A rule takes the op's shapes (operand name -> dims, None for an absent optional operand, a
# list for a variadic one, "output" -> the output's dims) and its parameters by XNNPACK name
# ("flags" included), and returns the output shape or raises ShapeError with one line.


class ShapeError(XnncError):
    """Shapes or parameters a node kind does not accept."""


SAME_AS_INPUT = " (same as input)"


class Out(NamedTuple):
    """The output shape a rule derives, and why (appended to a mismatch message)."""

    shape: tuple[int, ...]
    why: str = ""


Shapes = Mapping[str, Any]
Params = Mapping[str, Any]
ShapeRule = Callable[[Shapes, Params], Out]


def check_output(out: Out, got: Sequence[int]) -> None:
    """Raises ShapeError unless the declared output dims `got` are the derived ones."""
    if tuple(got) == out.shape:
        return
    if out.why == SAME_AS_INPUT:
        raise ShapeError(f"output shape {list(got)} differs from input shape {list(out.shape)}")
    raise ShapeError(f"output shape {list(got)} should be {list(out.shape)}{out.why}")


def _fail(message: str) -> NoReturn:
    raise ShapeError(message)


def _positive(p: Params, *names: str) -> tuple[int, ...]:
    values = tuple(p[n] for n in names)
    bad = [f"{n} = {v}" for n, v in zip(names, values, strict=True) if v < 1]
    if bad:
        _fail(", ".join(bad) + " must be positive")
    return values


def _nhwc(shape: tuple[int, ...], role: str = "input") -> tuple[int, ...]:
    if len(shape) != 4:
        _fail(f"{role} must be 4-D NHWC, got {list(shape)}")
    return shape


def _padding(p: Params) -> tuple[int, int, int, int]:
    pad = (p["padding_top"], p["padding_right"], p["padding_bottom"], p["padding_left"])
    if min(pad) < 0:
        _fail(f"padding (top, right, bottom, left) = {pad} must be >= 0")
    return pad


def conv_filter_dims(groups: int, cin: int, cout: int, kernel: Sequence[int]) -> tuple[int, ...]:
    """OHWI with per-group input channels: convolution and deconvolution filters."""
    return (groups * cout, *kernel, cin)


def depthwise_filter_dims(channels: int, multiplier: int, kernel: Sequence[int]) -> tuple:
    """[1, kernel_height, kernel_width, channels * multiplier]."""
    return (1, *kernel, channels * multiplier)


_CONV_FILTER = "[groups * group_output_channels, kernel_height, kernel_width, group_input_channels]"
_DEPTHWISE_FILTER = "[1, kernel_height, kernel_width, input_channels * depth_multiplier]"


def _filter(shape: tuple[int, ...], want: tuple[int, ...], layout: str) -> None:
    if shape != want:
        _fail(f"filter shape {list(shape)} should be {list(want)}: {layout}")


def _bias(shape: tuple[int, ...] | None, channels: int) -> None:
    if shape is not None and shape != (channels,):
        _fail(f"bias shape {list(shape)} should be [{channels}] (output channels)")


def _window(x: tuple[int, ...], kernel, stride, dilation, channels: int, p: Params) -> Out:
    """A window sliding over NHWC `x`: [N, OH, OW, channels]."""
    top, right, bottom, left = pad = _padding(p)
    if p["flags"] & FLAG_TENSORFLOW_SAME_PADDING:
        if any(pad):
            _fail("XNN_FLAG_TENSORFLOW_SAME_PADDING cannot be combined with explicit padding")
        spatial = [-(-x[1 + i] // stride[i]) for i in range(2)]
        how = "TensorFlow SAME padding"
    else:
        pads = (top + bottom, left + right)
        spatial = [
            conv_output_size(x[1 + i], kernel[i], stride[i], pads[i], dilation[i]) for i in range(2)
        ]
        # A symbolic size is positive over its range: torch.export checked it at import.
        if any(isinstance(d, int) and d < 1 for d in spatial):
            _fail(
                f"the {kernel[0]}x{kernel[1]} window (dilation {dilation[0]}x{dilation[1]}) "
                f"does not fit the padded {x[1] + pads[0]}x{x[2] + pads[1]} input"
            )
        how = f"padding (top, right, bottom, left) {pad}"
    why = (
        f" for input {x[1]}x{x[2]}, window {kernel[0]}x{kernel[1]}, stride "
        f"{stride[0]}x{stride[1]}, dilation {dilation[0]}x{dilation[1]} and {how}"
    )
    return Out((x[0], *spatial, channels), why)


def _grouped_input(x: tuple[int, ...], groups: int, cin: int) -> None:
    if x[3] != groups * cin:
        _fail(
            f"input has {x[3]} channels (NHWC) but groups * group_input_channels = "
            f"{groups} * {cin} = {groups * cin}"
        )


def convolution_2d_shape(s: Shapes, p: Params) -> Out:
    kernel = _positive(p, "kernel_height", "kernel_width")
    stride = _positive(p, "subsampling_height", "subsampling_width")
    dilation = _positive(p, "dilation_height", "dilation_width")
    g, cin, cout = _positive(p, "groups", "group_input_channels", "group_output_channels")
    x = _nhwc(s["input"])
    _grouped_input(x, g, cin)
    _filter(s["filter"], conv_filter_dims(g, cin, cout, kernel), _CONV_FILTER)
    _bias(s["bias"], g * cout)
    return _window(x, kernel, stride, dilation, g * cout, p)


def depthwise_convolution_2d_shape(s: Shapes, p: Params) -> Out:
    kernel = _positive(p, "kernel_height", "kernel_width")
    stride = _positive(p, "subsampling_height", "subsampling_width")
    dilation = _positive(p, "dilation_height", "dilation_width")
    m, c = _positive(p, "depth_multiplier", "input_channels")
    x = _nhwc(s["input"])
    if x[3] != c:
        _fail(f"input has {x[3]} channels (NHWC) but input_channels = {c}")
    _filter(s["filter"], depthwise_filter_dims(c, m, kernel), _DEPTHWISE_FILTER)
    _bias(s["bias"], c * m)
    return _window(x, kernel, stride, dilation, c * m, p)


def deconvolution_2d_shape(s: Shapes, p: Params) -> Out:
    kernel = _positive(p, "kernel_height", "kernel_width")
    stride = _positive(p, "upsampling_height", "upsampling_width")
    dilation = _positive(p, "dilation_height", "dilation_width")
    g, cin, cout = _positive(p, "groups", "group_input_channels", "group_output_channels")
    adjust = (p["adjustment_height"], p["adjustment_width"])
    for dim, a, st in (("height", adjust[0], stride[0]), ("width", adjust[1], stride[1])):
        if not 0 <= a < st:
            _fail(f"adjustment_{dim} = {a} must be in [0, upsampling_{dim} = {st})")
    x = _nhwc(s["input"])
    _grouped_input(x, g, cin)
    _filter(s["filter"], conv_filter_dims(g, cin, cout, kernel), _CONV_FILTER)
    _bias(s["bias"], g * cout)
    top, right, bottom, left = pad = _padding(p)
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
    return Out((x[0], *spatial, g * cout), why)


def fully_connected_shape(s: Shapes, p: Params) -> Out:
    x, w = s["input"], s["filter"]
    transposed = bool(p["flags"] & FLAG_TRANSPOSE_WEIGHTS)
    layout = (
        "[input_channels, output_channels]" if transposed else "[output_channels, input_channels]"
    )
    if len(w) != 2:
        _fail(f"filter must be 2-D {layout}, got {list(w)}")
    cin, cout = (w[0], w[1]) if transposed else (w[1], w[0])
    if not x or x[-1] != cin:
        _fail(
            f"input {list(x)} must end in the filter's {cin} input channels "
            f"(filter {list(w)} is {layout})"
        )
    _bias(s["bias"], cout)
    return Out((*x[:-1], cout))


def batch_matrix_multiply_shape(s: Shapes, p: Params) -> Out:
    a, b = s["input1"], s["input2"]
    if len(a) < 2 or len(b) < 2:
        _fail(f"inputs must be at least 2-D, got {list(a)} and {list(b)}")
    transposed = bool(p["flags"] & FLAG_TRANSPOSE_B)
    m, k = a[-2:]
    kb, n = (b[-1], b[-2]) if transposed else (b[-2], b[-1])
    if k != kb:
        layout = "[..., N, K] (XNN_FLAG_TRANSPOSE_B)" if transposed else "[..., K, N]"
        _fail(f"input1 {list(a)} has K = {k} but input2 {list(b)}, read as {layout}, has {kb}")
    batch = broadcast_shapes(a[:-2], b[:-2])
    if batch is None or (p["flags"] & FLAG_NO_BROADCAST and a[:-2] != b[:-2]):
        _fail(f"batch dims {list(a[:-2])} and {list(b[:-2])} do not broadcast")
    return Out((*batch, m, n))


def binary_shape(s: Shapes, p: Params) -> Out:
    a, b = s["input1"], s["input2"]
    want = broadcast_shapes(a, b)
    if want is None or (p["flags"] & FLAG_NO_BROADCAST and a != b):
        _fail(f"input shapes {list(a)} and {list(b)} do not broadcast")
    return Out(want, " (the broadcast of the inputs)")


def elementwise_shape(s: Shapes, p: Params) -> Out:
    return Out(s["input"], SAME_AS_INPUT)


def softmax_shape(s: Shapes, p: Params) -> Out:
    if not s["input"]:
        _fail("input must have at least one dim")
    return Out(s["input"], SAME_AS_INPUT)


def static_transpose_shape(s: Shapes, p: Params) -> Out:
    x, perm = s["input"], p["perm"]
    if sorted(perm) != list(range(len(x))):
        _fail(f"perm {list(perm)} is not a permutation of the input's {len(x)} dims")
    return Out(tuple(x[i] for i in perm))


def _matches_new_shape(y: tuple[int, ...], new: Sequence[int]) -> None:
    if len(new) != len(y) or any(n not in (0, d) for n, d in zip(new, y, strict=True)):
        _fail(f"output shape {list(y)} does not match new_shape {list(new)}")


def static_reshape_shape(s: Shapes, p: Params) -> Out:
    x, y, new = s["input"], s["output"], p["new_shape"]
    if list(new).count(0) > 1 or min(new, default=0) < 0:
        _fail(f"new_shape {list(new)} may hold one 0 (inferred) and no negative dims")
    _matches_new_shape(y, new)
    if numel(x) != numel(y):
        _fail(f"cannot reshape {list(x)} ({numel(x)} elements) to {list(y)} ({numel(y)})")
    return Out(y)


def static_broadcast_shape(s: Shapes, p: Params) -> Out:
    x, y = s["input"], s["output"]
    _matches_new_shape(y, p["new_shape"])
    if broadcast_shapes(x, y) != y:
        _fail(f"input shape {list(x)} does not broadcast to {list(y)}")
    return Out(y)


def broadcast_drop_misshapes(sources: Sequence[Sequence[Any]], output: Sequence[Any]) -> bool:
    """XNNPACK 92a7ad50's subgraph optimizer drops a static broadcast that feeds a binary
    node (which broadcasts by itself), so that node computes the broadcast of its inputs'
    `sources` (each broadcast undone): True when that is not `output` (XNNPACK then fails
    at reshape, or the node writes a smaller tensor)."""
    inner = broadcast_shapes(*sources)
    return inner is None or tuple(inner) != tuple(output)


def static_slice_shape(s: Shapes, p: Params) -> Out:
    """On a symbolic dim an offset < 0 starts that far before the dim's end and a size <= 0
    stops that far before it (XNNPACK's v3 begins and ends): the slice follows the dim when
    XNNPACK reshapes it. `s["ranges"]`, when given, bounds the symbols (a slice must fit the
    smallest size)."""
    x, offsets, sizes = s["input"], p["offsets"], tuple(p["sizes"])
    if len(offsets) != len(x) or len(sizes) != len(x):
        _fail(f"offsets and sizes need one value per input dim ({len(x)})")
    out = sliced_shape(x, offsets, sizes)
    ranges = s.get("ranges") or {}
    for i, (o, n, d) in enumerate(zip(offsets, out, x, strict=True)):
        if isinstance(d, int):
            if o < 0 or n < 0 or o + n > d:
                _fail(f"slice [{o}, {o + n}) of dim {i} is outside the input's [0, {d})")
            continue
        begin = d + o if o < 0 else o
        # n >= 1 may hold only over the symbols' ranges: refuse what fails at every size.
        if (isinstance(n, int) and n < 1) or (o < 0 and isinstance(n, int) and n > -o):
            _fail(f"slice [{begin}, {begin + n}) of dim {i} is empty or outside the input's "
                  f"[0, {d})")  # fmt: skip
        if o < 0 and set(d.symbols) <= set(ranges) and d.bounds(ranges)[0] < -o:
            low = d.bounds(ranges)[0]
            _fail(f"slice [{begin}, {begin + n}) of dim {i} starts before the input's start "
                  f"when {d} = {low}, its smallest size")  # fmt: skip
    if tuple(s["output"]) != tuple(out):
        _fail(f"output shape {list(s['output'])} should be {list(out)}")
    return Out(tuple(out))


def counts_from_the_end(shape: Sequence[Any], offsets: Sequence[int], sizes: Sequence[int]) -> bool:
    """Whether an xnn.static_slice has an offset or an end counted from a symbolic dim's end
    (other than "to the end"): stock ExecuTorch's XNNStaticSlice (unsigned offsets and sizes)
    cannot write it; the extended runtime's XNNStaticSliceV3 (XNNPACK's v3 arguments) can."""
    return any(
        not isinstance(d, int) and (o < 0 or n < 0)
        for d, o, n in zip(shape, offsets, sizes, strict=True)
    )


def _blob_slice_sizes(v: Any) -> list[int]:
    """Sizes for XNNStaticSlice: a slice to the end of a symbolic dim as UINT32_MAX less the
    offset, which XNNPACK clamps to the dim at every reshape (static-slice.c at 92a7ad50:
    size = min(end - offset, dim - offset)); the stock table has unsigned 32-bit sizes only,
    so a slice counted from a symbolic dim's end is XNNStaticSliceV3 (extended runtime)."""
    return [
        UINT32_MAX - o if not isinstance(d, int) and n == 0 else n
        for d, o, n in zip(v.shapes["input"], v.params["offsets"], v.params["sizes"], strict=True)
    ]


def _v3_bounds(v: Any) -> tuple[list[int], list[int]]:
    """XNNPACK's v3 begins and ends of an xnn.static_slice: a begin < 0 and an end <= 0
    count from the dim's end (0: the end itself)."""
    ends = [
        n if not isinstance(d, int) and n <= 0 else o + n
        for d, o, n in zip(v.shapes["input"], v.params["offsets"], v.params["sizes"], strict=True)
    ]
    return list(v.params["offsets"]), ends


def static_constant_pad_shape(s: Shapes, p: Params) -> Out:
    x, pre, post = s["input"], p["pre_paddings"], p["post_paddings"]
    if len(pre) != len(x) or len(post) != len(x):
        _fail(f"pre_paddings and post_paddings need one value per input dim ({len(x)})")
    if min((*pre, *post), default=0) < 0:
        _fail(f"paddings must be >= 0, got pre {list(pre)}, post {list(post)}")
    return Out(tuple(d + a + b for d, a, b in zip(x, pre, post, strict=True)))


def concatenate_shape(s: Shapes, p: Params) -> Out:
    shapes = s["inputs"]
    if not 2 <= len(shapes) <= MAX_CONCATENATE_INPUTS:
        _fail(f"takes 2 to {MAX_CONCATENATE_INPUTS} inputs, got {len(shapes)}")
    rank = len(shapes[0])
    axis = normalize_dim(p["axis"], rank)
    if axis is None:
        _fail(f"axis {p['axis']} is out of range for rank {rank}")
    rest = {sh[:axis] + sh[axis + 1 :] if len(sh) == rank else sh for sh in shapes}
    if len(rest) != 1:
        listed = ", ".join(str(list(sh)) for sh in shapes)
        _fail(f"input shapes {listed} must have rank {rank} and agree outside axis {axis}")
    return Out((*shapes[0][:axis], sum(sh[axis] for sh in shapes), *shapes[0][axis + 1 :]))


def _block_size(p: Params) -> int:
    b = p["block_size"]
    if b < 2:
        _fail(f"block_size must be at least 2, got {b}")
    return b


def depth_to_space_2d_shape(s: Shapes, p: Params) -> Out:
    b, x = _block_size(p), _nhwc(s["input"])
    if x[3] % (b * b):
        _fail(f"input channels {x[3]} are not divisible by block_size^2 = {b * b}")
    return Out((x[0], x[1] * b, x[2] * b, x[3] // (b * b)))


def space_to_depth_2d_shape(s: Shapes, p: Params) -> Out:
    b, x = _block_size(p), _nhwc(s["input"])
    if x[1] % b or x[2] % b:
        _fail(f"input height and width {x[1]}x{x[2]} are not divisible by block_size {b}")
    return Out((x[0], x[1] // b, x[2] // b, x[3] * b * b))


def _reduced(x: tuple[int, ...], axes: set[int], keep_dims: bool) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(x) if keep_dims or i not in axes)


def static_reduce_shape(s: Shapes, p: Params) -> Out:
    x, axes = s["input"], p["axes"]
    norm = [normalize_dim(a, len(x)) for a in axes]
    if not axes or None in norm or len(set(norm)) != len(norm):
        _fail(f"axes {list(axes)} must be distinct dims of the rank-{len(x)} input")
    return Out(_reduced(x, set(norm), bool(p["flags"] & FLAG_KEEP_DIMS)))


def global_average_pooling_2d_shape(s: Shapes, p: Params) -> Out:
    x = s["input"]
    if len(x) < 3:
        _fail(f"input must be at least 3-D [..., H, W, C], got {list(x)}")
    return Out(_reduced(x, {len(x) - 3, len(x) - 2}, bool(p["flags"] & FLAG_KEEP_DIMS)))


def pooling_2d_shape(s: Shapes, p: Params) -> Out:
    kernel = _positive(p, "pooling_height", "pooling_width")
    stride = _positive(p, "stride_height", "stride_width")
    dilation = (
        _positive(p, "dilation_height", "dilation_width") if "dilation_height" in p else (1, 1)
    )
    x = _nhwc(s["input"])
    return _window(x, kernel, stride, dilation, x[3], p)


MAX_RESIZE = 1 << 24  # XNNPACK rejects new sizes beyond this


def static_resize_bilinear_2d_shape(s: Shapes, p: Params) -> Out:
    h, w = p["new_height"], p["new_width"]
    if not (0 < h < MAX_RESIZE and 0 < w < MAX_RESIZE):
        _fail(f"new size {h}x{w} must be positive and below 2**24")
    if p["flags"] & FLAG_ALIGN_CORNERS and p["flags"] & FLAG_TENSORFLOW_LEGACY_MODE:
        _fail("XNN_FLAG_ALIGN_CORNERS and XNN_FLAG_TENSORFLOW_LEGACY_MODE exclude each other")
    x = _nhwc(s["input"])
    return Out((x[0], h, w, x[3]))


# --- the define call ---------------------------------------------------------------------------
# A kind's `args` list, in the C function's order after the subgraph, where each argument comes
# from: each knows its ctypes types and its values for a decoded node table `node`, given the
# runtime's define context `x` (x.input/x.output map serialized ids, x.min/x.max are the node's
# clamp, x.sizes/x.int64s build arrays, x.unary_params/x.binary_params build parameter structs).


class UnaryParams(Structure):
    """union xnn_unary_params: every member is one or two floats at offset 0, so two floats
    cover all of them (clamp.min/max, elu.alpha, leaky_relu.negative_slope)."""

    _fields_ = [("a", c_float), ("b", c_float)]


class BinaryParams(Structure):
    """struct xnn_binary_params"""

    _fields_ = [("output_min", c_double), ("output_max", c_double)]


_ENUM = c_int  # C enums are ints
_SIZES = POINTER(c_size_t)
_I64S = POINTER(c_int64)


@dataclass(frozen=True)
class Field:
    """A scalar field of the node table."""

    name: str
    ctype: Any = _u32

    def ctypes(self) -> tuple:
        return (self.ctype,)

    def values(self, x: Any, node: Any) -> tuple:
        return (getattr(node, camel(self.name)),)


@dataclass(frozen=True)
class Const:
    """A fixed argument, e.g. the operator of a stock unary kind."""

    value: Any
    ctype: Any = _ENUM

    def ctypes(self) -> tuple:
        return (self.ctype,)

    def values(self, x: Any, node: Any) -> tuple:
        return (self.value,)


@dataclass(frozen=True)
class Value:
    """A value id field: `input` (read), `optional` (XNN_INVALID_VALUE_ID passes), `output`,
    or `clamped_output` (through a clamp node, for functions without output_min/max)."""

    name: str
    role: str = "input"

    def ctypes(self) -> tuple:
        return (_u32,)

    def values(self, x: Any, node: Any) -> tuple:
        vid = getattr(node, camel(self.name))
        return (getattr(x, {"optional": "optional_input"}.get(self.role, self.role))(vid),)


@dataclass(frozen=True)
class Clamp:
    """The node's fused clamp (XNode.output_min_max): `min` or `max` as a float, or `both` as
    clamp's `union xnn_unary_params*`, or `binary` as `struct xnn_binary_params*`."""

    bound: str

    def ctypes(self) -> tuple:
        pointer = {"both": POINTER(UnaryParams), "binary": POINTER(BinaryParams)}
        return (pointer.get(self.bound, c_float),)

    def values(self, x: Any, node: Any) -> tuple:
        if self.bound == "both":
            return (x.unary_params(x.min, x.max),)
        if self.bound == "binary":
            return (x.binary_params(),)
        return (getattr(x, self.bound),)


@dataclass(frozen=True)
class Vector:
    """An integer vector field as `const size_t*` (or `int64_t*`), with its length before it
    when `counted`."""

    name: str
    counted: bool = True
    int64: bool = False

    def ctypes(self) -> tuple:
        pointer = _I64S if self.int64 else _SIZES
        return (c_size_t, pointer) if self.counted else (pointer,)

    def values(self, x: Any, node: Any) -> tuple:
        vector = getattr(node, camel(self.name))
        array = (x.int64s if self.int64 else x.sizes)(vector)
        return (len(vector), array) if self.counted else (array,)


@dataclass(frozen=True)
class Params:
    """`union xnn_unary_params*` from float fields of the table (absent fields: NULL)."""

    names: tuple[str, ...]

    def ctypes(self) -> tuple:
        return (POINTER(UnaryParams),)

    def values(self, x: Any, node: Any) -> tuple:
        return (x.unary_params(*(getattr(node, camel(n)) for n in self.names)),)


@dataclass(frozen=True)
class Hook:
    """Arguments a kind computes itself, where XNNPACK's signature is irregular."""

    types: tuple
    compute: Callable[[Any, Any], tuple]

    def ctypes(self) -> tuple:
        return self.types

    def values(self, x: Any, node: Any) -> tuple:
        return self.compute(x, node)


Arg = Field | Const | Value | Clamp | Vector | Params | Hook

IN, OUT, FLAGS = Value("input_id"), Value("output_id", "output"), Field("flags")
MIN, MAX = Clamp("min"), Clamp("max")
PADDING = tuple(Field(f"padding_{side}") for side in ("top", "right", "bottom", "left"))


def _slice_bounds(x: Any, node: Any) -> tuple:
    # xnn_define_static_slice_v3 takes begins, ends and strides (NULL: unit strides).
    begins = [int(o) for o in node.offsets]
    ends = [b + int(n) for b, n in zip(begins, node.sizes, strict=True)]
    return len(begins), x.int64s(begins), x.int64s(ends), None


def _v3_slice_bounds(x: Any, node: Any) -> tuple:
    begins, ends = [int(b) for b in node.begins], [int(e) for e in node.ends]
    return len(begins), x.int64s(begins), x.int64s(ends), None


def _concatenate_inputs(x: Any, node: Any) -> tuple:
    if isinstance(node, fb.XNNConcatenateT):
        ids = [int(v) for v in node.inputIds]
    else:  # XNNConcatenate2..5: the arity is in the kind's name
        ids = [node.input1Id, node.input2Id, node.input3Id, node.input4Id, node.input5Id]
        ids = ids[: int(x.kind[-1])]
    return node.axis, len(ids), x.inputs(ids)


def _mean_of_hw(x: Any, node: Any) -> tuple:
    # What the deprecated xnn_define_global_average_pooling_2d forwards to.
    return c_value(ReduceOperator.MEAN), 2, x.int64s([-3, -2])


# --- per-node blob checks -----------------------------------------------------------------------


@dataclass(frozen=True)
class NodeView:
    """What a per-node blob check sees: the decoded table and the graph's values."""

    where: str  # "node 3 (XNNConv2d)"
    table: Any
    tensors: Mapping[int, Any]  # value id -> XNNTensorValueT
    value_data: Callable[[int], Any] = lambda vid: None  # constant bytes of a value, or None

    def fail(self, message: str) -> NoReturn:
        raise ValueError(f"{self.where}: {message}")

    def field(self, name: str) -> Any:
        return getattr(self.table, camel(name))

    def dims(self, vid: int) -> list[int]:
        dims = self.tensors[vid].dims
        return [] if dims is None else [int(d) for d in dims]

    def rank(self) -> int:
        return len(self.dims(self.table.inputId))

    def vector(self, name: str) -> list[int]:
        """An integer vector field the runtime reads with a length taken elsewhere."""
        value = self.field(name)
        if value is None:  # the stock runtime dereferences it unconditionally
            self.fail(f"{name} is missing")
        if len(value) > MAX_TENSOR_DIMS:  # before reading it: vectors can be shared
            self.fail(f"{len(value)} {name}, more than {MAX_TENSOR_DIMS}")
        return [int(v) for v in value]


Check = Callable[[NodeView], None]


def _num_dims(*names: str) -> Check:
    def check(n: NodeView) -> None:
        for name in names:
            length = len(n.vector(name))
            if n.table.numDims != length:
                n.fail(f"num_dims {n.table.numDims} != {length} {name}")

    return check


def _check_broadcast_shape(n: NodeView) -> None:
    if len(n.vector("new_shape")) < n.rank():
        n.fail("new_shape has fewer dims than the input")


def _check_paddings(n: NodeView) -> None:
    rank = n.rank()
    for name in ("pre_paddings", "post_paddings"):
        if len(n.vector(name)) != rank:
            n.fail(f"{len(n.vector(name))} {name} for a rank-{rank} input")


def _check_block_size(n: NodeView) -> None:
    if n.table.blockSize < 2:
        n.fail(f"block_size {n.table.blockSize} is below 2")


def _operator(n: NodeView, name: str, enum: type[StrEnum]) -> StrEnum:
    value = n.field(name)
    if value >= len(enum):
        n.fail(f"{name} {value} is unknown")
    return list(enum)[value]


def _check_reduce(n: NodeView) -> None:
    _operator(n, "reduce_operator", ReduceOperator)
    axes, rank = n.vector("reduction_axes"), n.rank()
    if not 1 <= len(axes) <= MAX_TENSOR_DIMS:
        n.fail(f"{len(axes)} reduction_axes, expected 1 to {MAX_TENSOR_DIMS}")
    for axis in axes:
        if not -rank <= axis < rank:
            n.fail(f"reduction axis {axis} outside a rank-{rank} input")


def _check_unary(n: NodeView) -> None:
    operator = _operator(n, "unary_operator", UnaryOperator)
    needs = len(UNARY_PARAMS.get(operator, ()))
    if None in [n.table.paramA, n.table.paramB][:needs]:
        n.fail(f"unary_operator {c_value(operator)} needs {needs} parameter(s)")


def _check_binary(n: NodeView) -> None:
    _operator(n, "binary_operator", BinaryOperator)


def _check_concatenate_axis(n: NodeView) -> None:
    rank = len(n.dims(int(n.table.inputIds[0])))
    if not -rank <= n.table.axis < rank:
        n.fail(f"axis {n.table.axis} outside a rank-{rank} input")


def _check_v3_slice(n: NodeView) -> None:
    """Each begin/end pair selects a non-empty range of the declared (largest) dim, both
    counted from the start or both from the end (an end 0 is the end itself): XNNPACK
    clamps anything else silently."""
    dims, begins, ends = n.dims(n.table.inputId), n.vector("begins"), n.vector("ends")
    if not len(begins) == len(ends) == len(dims):
        n.fail(f"{len(begins)} begins and {len(ends)} ends for a rank-{len(dims)} input")
    for i, (b, e, d) in enumerate(zip(begins, ends, dims, strict=True)):
        if b < -d or b >= d or e < -d or e > d:
            n.fail(f"dim {i}: begin {b} or end {e} is outside the declared dim {d}")
        if b < 0 < e:
            n.fail(f"dim {i}: begin {b} counts from the end, end {e} from the start")
        if (e if e > 0 or b < 0 else d + e) <= b:
            n.fail(f"dim {i}: [{b}, {e}) is empty")


# Runtime checks: what XNNPACK would read out of bounds or fail on without naming the node.


def _static(n: NodeView, name: str, want: Sequence[int]) -> None:
    vid = n.field(name)
    role = name.removesuffix("_id")
    if n.value_data(vid) is None:
        n.fail(f"{role} {vid} must be a constant")
    if n.dims(vid) != list(want):
        n.fail(f"{role} {vid} has dims {n.dims(vid)}, the node implies {list(want)}")


def _static_bias(n: NodeView, channels: int) -> None:
    if n.table.biasId != INVALID_VALUE_ID:
        _static(n, "bias_id", [channels])


def _check_conv_weights(n: NodeView) -> None:
    t = n.table
    kernel = (t.kernelHeight, t.kernelWidth)
    _static(n, "filter_id", conv_filter_dims(t.groups, t.groupInputChannels,
                                             t.groupOutputChannels, kernel))  # fmt: skip
    _static_bias(n, t.groups * t.groupOutputChannels)


def _check_depthwise_weights(n: NodeView) -> None:
    t = n.table
    if t.groupInputChannels != 1:
        n.fail(
            f"group_input_channels is {t.groupInputChannels}; depthwise nodes have 1 "
            "(groups = input channels, group_output_channels = multiplier)"
        )
    kernel = (t.kernelHeight, t.kernelWidth)
    _static(n, "filter_id", depthwise_filter_dims(t.groups, t.groupOutputChannels, kernel))
    _static_bias(n, t.groups * t.groupOutputChannels)


def _check_fully_connected_weights(n: NodeView) -> None:
    t = n.table
    dims = n.dims(t.filterId)
    if len(dims) != 2:
        n.fail(f"filter {t.filterId} has dims {dims}, expected 2")
    if t.biasId != INVALID_VALUE_ID and n.value_data(t.biasId) is not None:
        channels = dims[1] if t.flags & FLAG_TRANSPOSE_WEIGHTS else dims[0]
        if n.dims(t.biasId) != [channels]:
            n.fail(f"bias {t.biasId} has dims {n.dims(t.biasId)}, expected [{channels}]")


def _integer_operator(name: str, enum: type[StrEnum], input_field: str) -> Check:
    def check(n: NodeView) -> None:
        operator = list(enum)[n.field(name)]
        dtype = n.tensors[n.field(input_field)].datatype
        if operator in INTEGER_OPERATORS and dtype != fb.XNNDatatype.int32:
            n.fail(f"{operator.value} takes int32 values, not {_DATATYPE_NAMES[dtype]}")

    return check


_DATATYPE_NAMES = {v: k for k, v in vars(fb.XNNDatatype).items() if not k.startswith("_")}


def _check_nonempty_slices(n: NodeView) -> None:
    for d, (offset, size) in enumerate(zip(n.table.offsets, n.table.sizes, strict=True)):
        if offset == 0 and size == 0:  # v3 reads end 0 as "up to the end"
            n.fail(f"empty slice at offset 0 of dim {d}")


# --- the table --------------------------------------------------------------------------------


class Bf16(Enum):
    """What XNNPACK 92a7ad50 does with a node on bf16 values (found by defining each kind on
    bf16 values)."""

    NATIVE = "defines it"
    VIA_FP32 = "rejects it: run in fp32 between converts"
    # bf16 x bf16 -> fp32 where the cost model chooses it (bf16 operands stay, a bf16 bias
    # is widened; the extended runtime runs it on XNNPACK's operator API, as its subgraph
    # rewrites every bf16 GEMM to fp32), VIA_FP32 on the others.
    GEMM = "bf16 x bf16 -> fp32 GEMM where it pays on the target, else fp32 between converts"


@dataclass(frozen=True)
class Param:
    """A parameter of a generated op: `int` (i64), `f32` or `ints` (an i64 array)."""

    name: str
    type: str = "int"
    default: Any = None


@dataclass(frozen=True)
class OpSpec:
    """Facts about one xnn op, shared by the node kinds it encodes to."""

    name: str  # "xnn.convolution_2d": XNNPACK's define function without xnn_define_
    shape: ShapeRule
    flags: Mapping[str, int] = field(default_factory=dict)  # the XNN_FLAG_* bits it accepts
    clamped: bool = False  # takes output_min/output_max (XNode.output_min_max)
    same_type: tuple[str, ...] = ("input",)  # operands whose element type is the output's
    bf16: Bf16 = Bf16.NATIVE
    layout_agnostic: bool = False  # a layout change can sink through it (transforms/layout)
    reads_qd8: bool = False  # a dynamically quantized (qdint8) input with an f32 output
    # For ops the dialect generates from this spec: class name, docstring, operands, params.
    generated: str = ""
    doc: str = ""
    operands: tuple[str, ...] = ("input",)
    params: tuple[Param, ...] = ()


Encoding = str | int | float | Callable[[Any], Any]


@dataclass(frozen=True)
class NodeKind:
    """One flatbuffer node kind."""

    name: str  # NodeUnion member, e.g. "XNNConv2d"
    op: OpSpec
    define: str  # the xnn_define_* function
    args: tuple[Arg, ...]  # its arguments after the subgraph
    # Table field -> where encoding takes it from: an operand (its value id) or parameter of
    # the op by name, a constant, or a function of the op's `EncodeView`. output_id and flags
    # are implied.
    fields: Mapping[str, Encoding] = field(default_factory=dict)
    selects: Callable[[Any], bool] | None = None  # among the op's kinds; None: the fallback
    optional_ids: tuple[str, ...] = ()  # may be XNN_INVALID_VALUE_ID
    unused_ids: tuple[str, ...] = ()  # id fields the kind ignores (concatenate2..4)
    validate: tuple[Check, ...] = ()  # read_blob: lengths and enum values XNNPACK trusts
    runtime_checks: tuple[Check, ...] = ()  # the runtime: static weights, types
    packed: tuple[str, ...] = ()  # operands XNNPACK copies into packed weights at load
    # Static operands XNNPACK packs at load into the operator's own memory, outside the
    # weights cache (a copy per node, found by no later runtime): released once loaded only.
    packed_per_node: tuple[str, ...] = ()
    native_bf16: tuple[str, ...] = ()  # Bf16.GEMM: operands that stay bf16 (bf16_gemm.py)

    @property
    def number(self) -> int:
        return getattr(fb.NodeUnion, self.name)

    @property
    def stock(self) -> bool:
        return self.number <= LAST_STOCK_NODE_KIND

    def signature(self) -> list:
        return [t for arg in self.args for t in arg.ctypes()]


@dataclass(frozen=True)
class EncodeView:
    """An xnn op as encoding sees it: parameters (enum members, ints, floats, int tuples,
    None when absent), operand value ids (a list for variadic ones) and shapes by name."""

    params: Mapping[str, Any]
    ids: Mapping[str, Any]
    shapes: Mapping[str, Any]

    def get(self, name: str) -> Any:
        return self.ids[name] if name in self.ids else self.params[name]


def encode_fields(kind: NodeKind, v: EncodeView) -> dict[str, Any]:
    """The table fields of `kind` for the op `v`, by schema name."""
    out: dict[str, Any] = {}
    for name, source in {**kind.fields, "output_id": "output", "flags": "flags"}.items():
        value = (
            source(v) if callable(source) else v.get(source) if isinstance(source, str) else source
        )
        if isinstance(value, StrEnum):
            value = c_value(value)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def kind_for(op: str, v: EncodeView) -> NodeKind:
    """The node kind `op` encodes to: the first selective kind that matches, else the fallback."""
    kinds = KINDS_BY_OP[op]
    return next((k for k in kinds if k.selects is not None and k.selects(v)),
                next(k for k in kinds if k.selects is None))  # fmt: skip


def has_stock_kind(op: str, operator: StrEnum) -> bool:
    """Whether `op` (xnn.unary or xnn.binary) with `operator` encodes to a node kind stock
    ExecuTorch 1.5.1 knows (XNNFloor, XNNAdd, ...), not to xnnc's XNNUnary or XNNBinary."""
    return kind_for(op, EncodeView({"kind": operator}, {}, {})).stock


# --- the entries -------------------------------------------------------------------------------

_SAME_PADDING = {"XNN_FLAG_TENSORFLOW_SAME_PADDING": FLAG_TENSORFLOW_SAME_PADDING}
_CONV_FLAGS = {
    **_SAME_PADDING,
    "XNN_FLAG_TRANSIENT_INDIRECTION_BUFFER": FLAG_TRANSIENT_INDIRECTION_BUFFER,
}
_KEEP_DIMS = {"XNN_FLAG_KEEP_DIMS": FLAG_KEEP_DIMS}
_CONV_IDS = (Value("input1_id"), Value("filter_id"), Value("bias_id", "optional"),
             Value("output_id", "output"), FLAGS)  # fmt: skip
_CONV_SHARED = {name: name for name in (
    "padding_top", "padding_right", "padding_bottom", "padding_left", "kernel_height",
    "kernel_width", "dilation_height", "dilation_width")}  # fmt: skip
_CONV_OPERANDS = {"input1_id": "input", "filter_id": "filter", "bias_id": "bias"}
_WINDOW = (*PADDING, *(Field(f"{what}_{dim}") for what in ("kernel", "subsampling", "dilation")
                       for dim in ("height", "width")))  # fmt: skip
_CONV_CHECKS = dict(optional_ids=("bias_id",), packed=("filter_id", "bias_id"))

CONVOLUTION_2D = OpSpec("xnn.convolution_2d", convolution_2d_shape, _CONV_FLAGS, clamped=True,
                        bf16=Bf16.VIA_FP32, reads_qd8=True)  # fmt: skip
DEPTHWISE_CONVOLUTION_2D = OpSpec("xnn.depthwise_convolution_2d", depthwise_convolution_2d_shape,
                                  _CONV_FLAGS, clamped=True, bf16=Bf16.VIA_FP32)  # fmt: skip
DECONVOLUTION_2D = OpSpec("xnn.deconvolution_2d", deconvolution_2d_shape, clamped=True,
                          bf16=Bf16.VIA_FP32, reads_qd8=True)  # fmt: skip
FULLY_CONNECTED = OpSpec("xnn.fully_connected", fully_connected_shape,
                         {"XNN_FLAG_TRANSPOSE_WEIGHTS": FLAG_TRANSPOSE_WEIGHTS}, clamped=True,
                         bf16=Bf16.GEMM, reads_qd8=True)  # fmt: skip
BATCH_MATRIX_MULTIPLY = OpSpec(
    "xnn.batch_matrix_multiply", batch_matrix_multiply_shape,
    {"XNN_FLAG_TRANSPOSE_B": FLAG_TRANSPOSE_B, "XNN_FLAG_NO_BROADCAST": FLAG_NO_BROADCAST},
    same_type=("input1", "input2"), bf16=Bf16.GEMM, generated="BatchMatrixMultiplyOp",
    doc="[B..., M, K] x [B..., K, N] -> [B..., M, N], batch dims broadcast; input2 is "
    "[B..., N, K] with XNN_FLAG_TRANSPOSE_B.",
    operands=("input1", "input2"),
)  # fmt: skip
BINARY = OpSpec("xnn.binary", binary_shape, {"XNN_FLAG_NO_BROADCAST": FLAG_NO_BROADCAST},
                clamped=True, same_type=("input1", "input2"), layout_agnostic=True)  # fmt: skip
UNARY = OpSpec("xnn.unary", elementwise_shape, layout_agnostic=True)
CLAMP = OpSpec("xnn.clamp", elementwise_shape, clamped=True, layout_agnostic=True,
               generated="ClampOp", doc="clamp(input, output_min, output_max).")  # fmt: skip
SOFTMAX = OpSpec("xnn.softmax", softmax_shape, bf16=Bf16.VIA_FP32, generated="SoftmaxOp",
                 doc="Softmax over the innermost dim.")  # fmt: skip
CONVERT = OpSpec("xnn.convert", elementwise_shape, same_type=(), layout_agnostic=True)
COPY = OpSpec("xnn.copy", elementwise_shape, layout_agnostic=True, generated="CopyOp",
              doc="output = input.")  # fmt: skip
STATIC_TRANSPOSE = OpSpec("xnn.static_transpose", static_transpose_shape,
                          generated="StaticTransposeOp", doc="output dim i is input dim perm[i].",
                          params=(Param("perm", "ints"),))  # fmt: skip
STATIC_RESHAPE = OpSpec(
    "xnn.static_reshape", static_reshape_shape, generated="StaticReshapeOp",
    doc="new_shape is the output shape; one 0 in it is inferred from the element count.",
    params=(Param("new_shape", "ints"),),
)  # fmt: skip
STATIC_BROADCAST = OpSpec(
    "xnn.static_broadcast", static_broadcast_shape, layout_agnostic=True,
    generated="StaticBroadcastOp",
    doc="Broadcasts the input to `new_shape` (numpy rules; a 0 keeps the input's dim).",
    params=(Param("new_shape", "ints"),),
)  # fmt: skip
STATIC_SLICE = OpSpec(
    "xnn.static_slice", static_slice_shape, layout_agnostic=True, generated="StaticSliceOp",
    doc="output = input[offsets[i] : offsets[i] + sizes[i]] in every dim (unit strides: "
    "`xnn_define_static_slice_v3` rejects any other stride at this XNNPACK commit).",
    params=(Param("offsets", "ints"), Param("sizes", "ints")),
)  # fmt: skip
STATIC_CONSTANT_PAD = OpSpec(
    "xnn.static_constant_pad", static_constant_pad_shape, layout_agnostic=True,
    generated="StaticConstantPadOp",
    doc="Pads dim i with pre_paddings[i] and post_paddings[i] copies of padding_value.",
    params=(Param("pre_paddings", "ints"), Param("post_paddings", "ints"),
            Param("padding_value", "f32", 0.0)),
)  # fmt: skip
CONCATENATE = OpSpec("xnn.concatenate", concatenate_shape, same_type=("inputs",),
                     layout_agnostic=True)  # fmt: skip
DEPTH_TO_SPACE_2D = OpSpec(
    "xnn.depth_to_space_2d", depth_to_space_2d_shape, generated="DepthToSpace2dOp",
    doc="[N, H, W, C * b * b] -> [N, H * b, W * b, C], block-major (TensorFlow DCR): output "
    "channel c of block (i, j) is input channel (i * b + j) * C + c. `torch.pixel_shuffle` is "
    "channel-major (CRD), so it needs its input channels regrouped first.",
    params=(Param("block_size"),),
)  # fmt: skip
SPACE_TO_DEPTH_2D = OpSpec(
    "xnn.space_to_depth_2d", space_to_depth_2d_shape, generated="SpaceToDepth2dOp",
    doc="[N, H * b, W * b, C] -> [N, H, W, C * b * b], block-major (TensorFlow DCR): input "
    "channel c of block (i, j) becomes output channel (i * b + j) * C + c. "
    "`torch.pixel_unshuffle` is channel-major (CRD).",
    params=(Param("block_size"),),
)  # fmt: skip
STATIC_REDUCE = OpSpec("xnn.static_reduce", static_reduce_shape, _KEEP_DIMS, bf16=Bf16.VIA_FP32,
                       layout_agnostic=True)  # fmt: skip
GLOBAL_AVERAGE_POOLING_2D = OpSpec(
    "xnn.global_average_pooling_2d", global_average_pooling_2d_shape, _KEEP_DIMS, clamped=True,
    bf16=Bf16.VIA_FP32, generated="GlobalAveragePooling2dOp",
    doc="Mean over the two dims before the innermost: [..., H, W, C] -> [..., C], or "
    "[..., 1, 1, C] with XNN_FLAG_KEEP_DIMS.",
)  # fmt: skip
MAX_POOLING_2D = OpSpec("xnn.max_pooling_2d", pooling_2d_shape, _SAME_PADDING, clamped=True,
                        bf16=Bf16.VIA_FP32)  # fmt: skip
AVERAGE_POOLING_2D = OpSpec("xnn.average_pooling_2d", pooling_2d_shape, _SAME_PADDING,
                            clamped=True, bf16=Bf16.VIA_FP32)  # fmt: skip
STATIC_RESIZE_BILINEAR_2D = OpSpec(
    "xnn.static_resize_bilinear_2d", static_resize_bilinear_2d_shape,
    {"XNN_FLAG_TENSORFLOW_LEGACY_MODE": FLAG_TENSORFLOW_LEGACY_MODE,
     "XNN_FLAG_ALIGN_CORNERS": FLAG_ALIGN_CORNERS,
     "XNN_FLAG_TRANSIENT_INDIRECTION_BUFFER": FLAG_TRANSIENT_INDIRECTION_BUFFER},
    bf16=Bf16.VIA_FP32, generated="StaticResizeBilinear2dOp",
    doc="[N, H, W, C] -> [N, new_height, new_width, C]. Half-pixel centers by default; "
    "XNN_FLAG_ALIGN_CORNERS or XNN_FLAG_TENSORFLOW_LEGACY_MODE (asymmetric) select the others.",
    params=(Param("new_height"), Param("new_width")),
)  # fmt: skip


def _when(param: str, value: Any) -> Callable[[EncodeView], bool]:
    return lambda v: v.params[param] == value


def _stock_binary(name: str, operator: BinaryOperator) -> NodeKind:
    """XNNAdd, ...: xnn.binary with a fixed operator. Stock ExecuTorch 1.5.1 defines
    XNNMinimum, XNNMaximum and XNNPReLU without an output range (its define calls take
    none): those kinds are for the op without one (with one it is xnnc's XNNBinary), and
    this runtime defines them without one too, as a `.pte` runs them."""
    if name not in _STOCK_UNCLAMPED:
        return NodeKind(name, BINARY, "xnn_define_binary",
                        (Const(c_value(operator)), Clamp("binary"), Value("input1_id"),
                         Value("input2_id"), OUT, FLAGS),
                        {"input1_id": "input1", "input2_id": "input2"},
                        _when("kind", operator))  # fmt: skip
    unbounded = lambda v: (v.params["kind"] == operator  # noqa: E731
                           and v.params.get("output_min") is None
                           and v.params.get("output_max") is None)  # fmt: skip
    return NodeKind(name, BINARY, "xnn_define_binary",
                    (Const(c_value(operator)), Const(None, POINTER(BinaryParams)),
                     Value("input1_id"), Value("input2_id"), OUT, FLAGS),
                    {"input1_id": "input1", "input2_id": "input2"}, unbounded)  # fmt: skip


def _stock_unary(name: str, operator: UnaryOperator, param: str | None = None) -> NodeKind:
    """XNNSigmoid, ...: xnn.unary with a fixed operator; ELU and LeakyReLU carry a parameter."""
    params = Params((param,)) if param else Const(None, POINTER(UnaryParams))
    fields = {"input_id": "input", **({param: param} if param else {})}
    return NodeKind(name, UNARY, "xnn_define_unary", (Const(c_value(operator)), params, IN, OUT,
                    FLAGS), fields, _when("kind", operator))  # fmt: skip


def _concatenate_n(arity: int) -> NodeKind:
    ids = {f"input{i + 1}_id": (lambda v, i=i: v.ids["inputs"][i]) for i in range(arity)}
    unused = tuple(f"input{i + 1}_id" for i in range(arity, MAX_CONCATENATE_INPUTS))
    return NodeKind(f"XNNConcatenate{arity}", CONCATENATE, "xnn_define_concatenate",
                    (Hook((c_int32, c_size_t, POINTER(_u32)), _concatenate_inputs), OUT, FLAGS),
                    {"axis": _axis, **ids}, lambda v: len(v.ids["inputs"]) == arity,
                    unused_ids=unused)  # fmt: skip


def _axis(v: EncodeView) -> int:
    return v.params["axis"] % len(v.shapes["output"])


def _reduction_axes(v: EncodeView) -> list[int]:
    rank = len(v.shapes["input"])
    return sorted(a % rank for a in v.params["axes"])


_U = UnaryOperator
_STOCK_BINARY = {"XNNAdd": BinaryOperator.ADD, "XNNSubtract": BinaryOperator.SUBTRACT,
                 "XNNMultiply": BinaryOperator.MULTIPLY, "XNNDiv": BinaryOperator.DIVIDE,
                 "XNNMinimum": BinaryOperator.MINIMUM, "XNNMaximum": BinaryOperator.MAXIMUM,
                 "XNNPReLU": BinaryOperator.PRELU}  # fmt: skip
_STOCK_UNCLAMPED = ("XNNMinimum", "XNNMaximum", "XNNPReLU")
_STOCK_UNARY = {"XNNSigmoid": _U.SIGMOID, "XNNFloor": _U.FLOOR, "XNNSquareRoot": _U.SQUARE_ROOT,
                "XNNCeiling": _U.CEILING, "XNNHardswish": _U.HARDSWISH, "XNNNegate": _U.NEGATE,
                "XNNSquare": _U.SQUARE, "XNNAbs": _U.ABS,
                "XNNReciprocalSquareRoot": _U.RECIPROCAL_SQUARE_ROOT, "XNNLog": _U.LOG,
                "XNNGelu": _U.GELU, "XNNTanh": _U.TANH, "XNNExp": _U.EXP, "XNNSin": _U.SINE,
                "XNNCos": _U.COSINE}  # fmt: skip
_POOLING = {name: name for name in ("padding_top", "padding_right", "padding_bottom",
            "padding_left", "pooling_height", "pooling_width", "stride_height", "stride_width",
            "input_id")}  # fmt: skip
_POOLING["input_id"] = "input"
_POOLING_ARGS = (*PADDING, Field("pooling_height"), Field("pooling_width"), Field("stride_height"),
                 Field("stride_width"))  # fmt: skip

KINDS_LIST: tuple[NodeKind, ...] = (
    NodeKind("XNNConv2d", CONVOLUTION_2D, "xnn_define_convolution_2d",
             (*_WINDOW, Field("groups"), Field("group_input_channels", c_size_t),
              Field("group_output_channels", c_size_t), MIN, MAX, *_CONV_IDS),
             {**_CONV_SHARED, **_CONV_OPERANDS, "subsampling_height": "subsampling_height",
              "subsampling_width": "subsampling_width", "groups": "groups",
              "group_input_channels": "group_input_channels",
              "group_output_channels": "group_output_channels"},
             runtime_checks=(_check_conv_weights,), **_CONV_CHECKS),
    # Stored as stock ExecuTorch does: groups = input channels, 1 -> multiplier per group.
    NodeKind("XNNDepthwiseConv2d", DEPTHWISE_CONVOLUTION_2D, "xnn_define_depthwise_convolution_2d",
             (*_WINDOW, Field("group_output_channels"), Field("groups", c_size_t), MIN, MAX,
              *_CONV_IDS),
             {**_CONV_SHARED, **_CONV_OPERANDS, "subsampling_height": "subsampling_height",
              "subsampling_width": "subsampling_width", "groups": "input_channels",
              "group_input_channels": 1, "group_output_channels": "depth_multiplier"},
             runtime_checks=(_check_depthwise_weights,), **_CONV_CHECKS),
    NodeKind("XNNConvTranspose2d", DECONVOLUTION_2D, "xnn_define_deconvolution_2d",
             (*PADDING, Field("adjustment_height"), Field("adjustment_width"),
              *_WINDOW[4:], Field("groups"), Field("group_input_channels", c_size_t),
              Field("group_output_channels", c_size_t), MIN, MAX, *_CONV_IDS),
             {**_CONV_SHARED, **_CONV_OPERANDS, "subsampling_height": "upsampling_height",
              "subsampling_width": "upsampling_width", "adjustment_height": "adjustment_height",
              "adjustment_width": "adjustment_width", "groups": "groups",
              "group_input_channels": "group_input_channels",
              "group_output_channels": "group_output_channels"},
             runtime_checks=(_check_conv_weights,), **_CONV_CHECKS),
    NodeKind("XNNFullyConnected", FULLY_CONNECTED, "xnn_define_fully_connected",
             (MIN, MAX, *_CONV_IDS), _CONV_OPERANDS,
             runtime_checks=(_check_fully_connected_weights,),
             native_bf16=("input1_id", "filter_id"), **_CONV_CHECKS),
    NodeKind("XNNBatchMatrixMultiply", BATCH_MATRIX_MULTIPLY, "xnn_define_batch_matrix_multiply",
             (Value("input1_id"), Value("input2_id"), OUT, FLAGS),
             {"input1_id": "input1", "input2_id": "input2"},
             native_bf16=("input1_id", "input2_id"),
             # A static input2 is packed at creation (`..._const_weights`), never read
             # again; the subgraph's create gives the operator no weights cache (92a7ad50).
             packed_per_node=("input2_id",)),
    *(_stock_binary(name, operator) for name, operator in _STOCK_BINARY.items()),
    NodeKind("XNNBinary", BINARY, "xnn_define_binary",
             (Field("binary_operator", _ENUM), Clamp("binary"), Value("input1_id"),
              Value("input2_id"), OUT, FLAGS),
             {"binary_operator": "kind", "input1_id": "input1", "input2_id": "input2"},
             validate=(_check_binary,),
             runtime_checks=(_integer_operator("binary_operator", BinaryOperator, "input1_id"),)),
    *(_stock_unary(name, operator) for name, operator in _STOCK_UNARY.items()),
    _stock_unary("XNNELU", _U.ELU, "alpha"),
    _stock_unary("XNNLeakyReLU", _U.LEAKY_RELU, "negative_slope"),
    NodeKind("XNNUnary", UNARY, "xnn_define_unary",
             (Field("unary_operator", _ENUM), Params(("param_a", "param_b")), IN, OUT, FLAGS),
             {"unary_operator": "kind", "param_a": "min", "param_b": "max", "input_id": "input"},
             validate=(_check_unary,),
             runtime_checks=(_integer_operator("unary_operator", UnaryOperator, "input_id"),)),
    NodeKind("XNNClamp", CLAMP, "xnn_define_unary",
             (Const(c_value(_U.CLAMP)), Clamp("both"), IN, OUT, FLAGS), {"input_id": "input"}),
    NodeKind("XNNSoftmax", SOFTMAX, "xnn_define_softmax", (IN, OUT, FLAGS), {"input_id": "input"}),
    NodeKind("XNNConvert", CONVERT, "xnn_define_unary",
             (Const(c_value(_U.CONVERT)), Const(None, POINTER(UnaryParams)), IN, OUT, FLAGS),
             {"input_id": "input"}),
    NodeKind("XNNCopy", COPY, "xnn_define_copy", (IN, OUT, FLAGS), {"input_id": "input"}),
    NodeKind("XNNStaticTranspose", STATIC_TRANSPOSE, "xnn_define_static_transpose",
             (Vector("perm"), IN, OUT, FLAGS),
             {"num_dims": lambda v: len(v.params["perm"]), "perm": "perm", "input_id": "input"},
             validate=(_num_dims("perm"),)),
    NodeKind("XNNStaticReshape", STATIC_RESHAPE, "xnn_define_static_reshape",
             (Vector("new_shape"), IN, OUT, FLAGS),
             {"num_dims": lambda v: len(v.params["new_shape"]), "new_shape": "new_shape",
              "input_id": "input"},
             validate=(_num_dims("new_shape"),)),
    NodeKind("XNNStaticBroadcast", STATIC_BROADCAST, "xnn_define_static_broadcast",
             (Vector("new_shape"), IN, OUT, FLAGS), {"new_shape": "new_shape", "input_id": "input"},
             validate=(_check_broadcast_shape,)),
    NodeKind("XNNStaticSlice", STATIC_SLICE, "xnn_define_static_slice_v3",
             (Hook((c_size_t, _I64S, _I64S, _I64S), _slice_bounds), IN, OUT, FLAGS),
             {"num_dims": lambda v: len(v.params["sizes"]), "offsets": "offsets",
              "sizes": _blob_slice_sizes, "input_id": "input"},
             validate=(_num_dims("offsets", "sizes"),), runtime_checks=(_check_nonempty_slices,)),
    NodeKind("XNNStaticSliceV3", STATIC_SLICE, "xnn_define_static_slice_v3",
             (Hook((c_size_t, _I64S, _I64S, _I64S), _v3_slice_bounds), IN, OUT, FLAGS),
             {"begins": lambda v: _v3_bounds(v)[0], "ends": lambda v: _v3_bounds(v)[1],
              "input_id": "input"},
             selects=lambda v: counts_from_the_end(v.shapes["input"], v.params["offsets"],
                                                   v.params["sizes"]),
             validate=(_check_v3_slice,)),
    NodeKind("XNNStaticConstantPad", STATIC_CONSTANT_PAD, "xnn_define_static_constant_pad_v2",
             (Vector("pre_paddings"), Vector("post_paddings", counted=False),
              Field("padding_value", c_float), IN, OUT, FLAGS),
             {"pre_paddings": "pre_paddings", "post_paddings": "post_paddings",
              "padding_value": "padding_value", "input_id": "input"},
             validate=(_check_paddings,)),
    *(_concatenate_n(arity) for arity in range(2, MAX_CONCATENATE_INPUTS + 1)),
    NodeKind("XNNConcatenate", CONCATENATE, "xnn_define_concatenate",
             (Hook((c_int32, c_size_t, POINTER(_u32)), _concatenate_inputs), OUT, FLAGS),
             {"axis": _axis, "input_ids": "inputs"}, validate=(_check_concatenate_axis,)),
    NodeKind("XNNDepthToSpace2d", DEPTH_TO_SPACE_2D, "xnn_define_depth_to_space_2d",
             (Field("block_size"), IN, OUT, FLAGS), {"block_size": "block_size",
             "input_id": "input"}, validate=(_check_block_size,)),
    NodeKind("XNNStaticReduce", STATIC_REDUCE, "xnn_define_static_reduce_v2",
             (Field("reduce_operator", _ENUM), Vector("reduction_axes", int64=True), IN, OUT,
              FLAGS),
             {"reduce_operator": "kind", "reduction_axes": _reduction_axes, "input_id": "input"},
             validate=(_check_reduce,)),
    NodeKind("XNNGlobalAvgPooling2d", GLOBAL_AVERAGE_POOLING_2D, "xnn_define_static_reduce_v2",
             (Hook((_ENUM, c_size_t, _I64S), _mean_of_hw), IN,
              Value("output_id", "clamped_output"), FLAGS),
             {"input_id": "input"}),
    NodeKind("XNNMaxPooling2d", MAX_POOLING_2D, "xnn_define_max_pooling_2d",
             (*_POOLING_ARGS, Field("dilation_height"), Field("dilation_width"), MIN, MAX, IN,
              OUT, FLAGS),
             {**_POOLING, "dilation_height": "dilation_height",
              "dilation_width": "dilation_width"}),
    NodeKind("XNNAvgPooling2d", AVERAGE_POOLING_2D, "xnn_define_average_pooling_2d",
             (*_POOLING_ARGS, MIN, MAX, IN, OUT, FLAGS),
             {**_POOLING, "dilation_height": 1, "dilation_width": 1}),
    NodeKind("XNNStaticResizeBilinear2D", STATIC_RESIZE_BILINEAR_2D,
             "xnn_define_static_resize_bilinear_2d",
             (Field("new_height", c_size_t), Field("new_width", c_size_t), IN, OUT, FLAGS),
             {"new_height": "new_height", "new_width": "new_width", "input_id": "input"}),
    NodeKind("XNNSpaceToDepth2d", SPACE_TO_DEPTH_2D, "xnn_define_space_to_depth_2d",
             (Field("block_size"), IN, OUT, FLAGS), {"block_size": "block_size",
             "input_id": "input"}, validate=(_check_block_size,)),
)  # fmt: skip

KINDS: dict[str, NodeKind] = {kind.name: kind for kind in KINDS_LIST}
OPS: dict[str, OpSpec] = {kind.op.name: kind.op for kind in KINDS_LIST}
KINDS_BY_OP: dict[str, tuple[NodeKind, ...]] = {
    op: tuple(k for k in KINDS_LIST if k.op.name == op) for op in OPS
}


def define_signatures() -> dict[str, list]:
    """xnn_define_* function -> its ctypes argument types after the subgraph."""
    signatures: dict[str, list] = {}
    for kind in KINDS_LIST:
        signature = signatures.setdefault(kind.define, kind.signature())
        if signature != kind.signature():
            raise TypeError(f"{kind.name}: {kind.define} is declared with two signatures")
    return signatures


def ops_with(predicate: Callable[[OpSpec], bool]) -> frozenset[str]:
    """Names of the xnn ops whose spec satisfies `predicate`."""
    return frozenset(name for name, spec in OPS.items() if predicate(spec))


def kinds_with(predicate: Callable[[NodeKind], bool]) -> frozenset[str]:
    """Names of the node kinds satisfying `predicate`."""
    return frozenset(kind.name for kind in KINDS_LIST if predicate(kind))


# --- the recurrent loop ------------------------------------------------------------------------


def lstm_loop_refusal(
    *, arguments: int = 9, keywords: bool = False, f32: bool = True, train: bool = False,
    projected: bool = False, static: bool = True, constant_weights: bool = True,
) -> str | None:  # fmt: skip
    """Why xnnc's recurrent loop (`recurrent.LstmRunner`: an LSTM over any frame count, around
    XNNPACK runtimes) cannot run an `aten.lstm.input` with these properties (None: it can).
    A capability of the runtime that the compile side reads here: the importer asks it of
    the FX node (to keep a static LSTM whole), conversion and the program's planner of the
    IR op, so one list of reasons serves all three."""
    if keywords or arguments != 9:
        return "xnnc's recurrent loop reads aten::lstm.input's 9 positional arguments"
    if not f32:
        return "xnnc's recurrent loop runs fp32 LSTMs"
    if train:
        return "xnnc's recurrent loop runs inference (train=False) only"
    if projected:
        return "proj_size != 0 is not supported by xnnc's recurrent loop"
    if not static:
        return "xnnc's recurrent loop needs a static batch and feature size"
    if not constant_weights:
        return "xnnc's recurrent loop needs the LSTM's weights as constants"
    return None
