"""xnnc's extended runtime (backend_xnnpack/runtime) against torch eager.

Stock ExecuTorch 1.5.1 blobs (lowered with its XnnpackPartitioner) and hand-built blobs for
xnnc's extension node kinds run on `XnnRuntime` and are compared with torch.

Tolerances, per dtype:
- fp32: XNNPACK sums in another order than torch (blocked GEMM, FMA) and uses its own
  polynomial/rational approximations of exp, tanh, gelu, cube root...: a few ulp of the
  result, so rtol = atol = 1e-5 for outputs of magnitude ~1 from sums of <= 100 terms.
- fp16: both XNNPACK and torch compute in fp32 and round once to fp16, but their fp32 sums
  differ in the last bits, so the rounding can differ by one fp16 ulp (2**-10 relative):
  rtol = atol = 2e-3.
- bf16: XNNPACK 92a7ad50 lacks bf16 for many kinds, which the runtime computes in fp32
  between converts (and bf16 elementwise kernels compute in fp32 too); the reference is the
  fp32 computation on the same bf16-rounded data, rounded to bf16, and a last-bit difference
  in fp32 can flip the final rounding by one bf16 ulp (at most 2**-7 relative): rtol = 2**-7.
- int8 (static quantization): XNNPACK requantizes with fixed-point arithmetic where the
  reference rounds in fp32; results may differ by one step of the output scale: atol = 1.01
  output scale.
- Conversions and data movement (convert, transpose, depth-to-space, concatenate, max) are
  exact.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from threads import run_threads

from xnnc.backend_xnnpack import blob as B
from xnnc.backend_xnnpack.runtime import XnnpackError, XnnRuntime, capi
from xnnc.backend_xnnpack.runtime import runtime as R
from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.dialects.xnn import BinaryOperator, ReduceOperator, UnaryOperator, c_value

DT = fb.XNNDatatype
DATATYPES = {
    torch.float32: DT.fp32,
    torch.float16: DT.fp16,
    torch.bfloat16: DT.bf16,
    torch.int32: DT.int32,
}
KIND_NUMBERS = {name: number for number, name in B.NODE_KIND_NAMES.items()}
NO_VALUE = B.INVALID_VALUE_ID
KEEP_DIMS = 0x40

FP32_TOL = dict(rtol=1e-5, atol=1e-5)
FP16_TOL = dict(rtol=2e-3, atol=2e-3)
BF16_TOL = dict(rtol=2**-7, atol=1e-5)


# --- hand-built blobs ----------------------------------------------------------------------------


class Graph:
    """A one-subgraph blob built value by value: external inputs take ids 0..n-1 in the
    order they are declared, outputs follow."""

    def __init__(self) -> None:
        self.tensors: list[fb.XNNTensorValueT] = []
        self.roles: list[str] = []
        self.nodes: list[fb.XNodeT] = []
        self.constants: list[bytes] = []

    def _value(self, dims, dtype, role: str, const: int = 0) -> int:
        t = fb.XNNTensorValueT()
        t.datatype, t.numDims, t.dims = DATATYPES.get(dtype, dtype), len(dims), list(dims)
        t.constantBufferIdx, t.externalId, t.flags = const, NO_VALUE, 0
        t.idOut = len(self.tensors)
        self.tensors.append(t)
        self.roles.append(role)
        return t.idOut

    def input(self, dims, dtype=torch.float32) -> int:
        return self._value(dims, dtype, "input")

    def output(self, dims, dtype=torch.float32) -> int:
        return self._value(dims, dtype, "output")

    def value(self, dims, dtype=torch.float32) -> int:
        return self._value(dims, dtype, "")

    def constant(self, data: torch.Tensor) -> int:
        raw = data.contiguous().view(torch.int16) if data.dtype == torch.bfloat16 else data
        self.constants.append(raw.contiguous().numpy().tobytes())
        return self._value(data.shape, data.dtype, "", const=len(self.constants))

    def node(self, kind: str, clamp: tuple[float, float] | None = None, **fields) -> None:
        number = KIND_NUMBERS[kind]
        table = B.NODE_TABLES[number]()
        for name, value in fields.items():
            assert hasattr(table, name), f"{kind} has no field {name}"
            setattr(table, name, value)
        xnode = fb.XNodeT()
        xnode.xnodeUnionType, xnode.xnodeUnion = number, table
        if clamp is not None:
            xnode.outputMinMax = fb.OutputMinMaxT()
            xnode.outputMinMax.outputMin, xnode.outputMinMax.outputMax = clamp
        self.nodes.append(xnode)

    def blob(self) -> bytes:
        externals = [t for t, r in zip(self.tensors, self.roles) if r == "input"]
        externals += [t for t, r in zip(self.tensors, self.roles) if r == "output"]
        for ext_id, t in enumerate(externals):
            t.externalId = ext_id
            t.flags = B.VALUE_FLAG_EXTERNAL_INPUT if self.roles[t.idOut] == "input" else 2
        values = []
        for t in self.tensors:
            v = fb.XValueT()
            v.xvalueUnionType, v.xvalueUnion = fb.ValueUnion.XNNTensorValue, t
            values.append(v)
        g = fb.XNNGraphT()
        g.version, g.xvalues, g.xnodes, g.numExterns = "test", values, self.nodes, len(externals)
        return B.pack_blob(g, self.constants)

    def run(self, *inputs, **options):
        with XnnRuntime(self.blob(), **options) as rt:
            return rt.run(*inputs)


def unary_graph(kind: str, shape, dtype=torch.float32, **fields) -> Graph:
    g = Graph()
    x, y = g.input(shape, dtype), g.output(shape, dtype)
    g.node(kind, inputId=x, outputId=y, **fields)
    return g


def conv_fields(**fields):
    defaults = dict(
        paddingTop=0,
        paddingRight=0,
        paddingBottom=0,
        paddingLeft=0,
        subsamplingHeight=1,
        subsamplingWidth=1,
        dilationHeight=1,
        dilationWidth=1,
        adjustmentHeight=0,
        adjustmentWidth=0,
        groups=1,
        biasId=NO_VALUE,
        flags=0,
    )
    return defaults | fields


def conv_graph(n=1, c=3, h=8, w=8, oc=8, dtype=torch.float32, **conv) -> tuple[Graph, tuple]:
    """NCHW input -> transpose -> 3x3 conv (padding 1, fused ReLU) -> NHWC output."""
    torch.manual_seed(0)
    weight = torch.randn(oc, c, 3, 3).to(dtype)
    bias = torch.randn(oc).to(dtype)
    g = Graph()
    x = g.input([n, c, h, w], dtype)
    nhwc = g.value([n, h, w, c], dtype)
    filt = g.constant(weight.permute(0, 2, 3, 1))  # OHWI
    b = g.constant(bias)
    y = g.output([n, h, w, oc], dtype)
    g.node("XNNStaticTranspose", numDims=4, perm=[0, 2, 3, 1], inputId=x, outputId=nhwc)
    fields = dict(
        paddingTop=1,
        paddingRight=1,
        paddingBottom=1,
        paddingLeft=1,
        kernelHeight=3,
        kernelWidth=3,
        groupInputChannels=c,
        groupOutputChannels=oc,
        input1Id=nhwc,
        filterId=filt,
        biasId=b,
        outputId=y,
    )
    g.node("XNNConv2d", clamp=(0.0, math.inf), **conv_fields(**(fields | conv)))
    return g, (weight, bias)


def conv_reference(x, weight, bias):
    return F.relu(F.conv2d(x.float(), weight.float(), bias.float(), padding=1)).permute(0, 2, 3, 1)


def bf16(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.bfloat16)


# --- stock ExecuTorch blobs ----------------------------------------------------------------------


class ConvRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class LinearTanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(16, 32)

    def forward(self, x):
        return torch.tanh(self.linear(x))


class DepthwiseAddMaxPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1, groups=8)

    def forward(self, x):
        return F.max_pool2d(self.conv(x) + x, 2)


class PoolHead(nn.Module):
    """conv -> global average pooling -> linear -> softmax."""

    def __init__(self):
        super().__init__()
        self.conv, self.linear = nn.Conv2d(3, 8, 3), nn.Linear(8, 4)

    def forward(self, x):
        return torch.softmax(self.linear(F.adaptive_avg_pool2d(self.conv(x), 1).flatten(1)), -1)


STOCK_MODELS = {
    "conv_relu": (ConvRelu, (1, 3, 16, 16), torch.float32, {"XNNConv2d"}),
    "linear_tanh": (LinearTanh, (4, 16), torch.float32, {"XNNFullyConnected", "XNNTanh"}),
    "depthwise_add_maxpool": (
        DepthwiseAddMaxPool,
        (1, 8, 16, 16),
        torch.float32,
        {"XNNDepthwiseConv2d", "XNNAdd", "XNNMaxPooling2d"},
    ),
    "pool_head": (
        PoolHead,
        (2, 3, 12, 12),
        torch.float32,
        {"XNNGlobalAvgPooling2d", "XNNFullyConnected", "XNNSoftmax"},
    ),
    "conv_relu_fp16": (ConvRelu, (1, 3, 16, 16), torch.float16, {"XNNConv2d"}),
}


def lowered_blobs(model: nn.Module, inputs: tuple) -> list[tuple[bytes, dict[str, bytes]]]:
    """The processed bytes and named data of each XNNPACK delegate stock ExecuTorch makes."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.lowered_backend_module import get_lowered_backend_modules

    edge = to_edge_transform_and_lower(
        torch.export.export(model, inputs), partitioner=[XnnpackPartitioner()]
    )
    found = []
    for lowered in get_lowered_backend_modules(edge.exported_program().graph_module):
        store, named = lowered.named_data_store_output, {}
        if store is not None:
            for key, entry in store.pte_data.items():
                buffer = store.buffers[entry.buffer_index]
                named[key] = buffer if isinstance(buffer, bytes) else buffer.to_bytes()
        found.append((lowered.processed_bytes, named))
    return found


@functools.cache
def stock(name: str):
    factory, shape, dtype, _ = STOCK_MODELS[name]
    torch.manual_seed(0)
    model = factory().to(dtype).eval()
    x = torch.randn(shape).to(dtype)
    (delegate,) = lowered_blobs(model, (x,))
    return model, x, delegate


@pytest.mark.parametrize("name", STOCK_MODELS)
def test_stock_executorch_blob_matches_eager(name):
    model, x, (blob, named) = stock(name)
    kinds = set(B.read_blob(blob, named).node_kinds)
    assert STOCK_MODELS[name][3] <= kinds
    with XnnRuntime(blob, named) as rt:
        (y,) = rt.run(x)  # the delegate's external input is NCHW: the blob transposes
    with torch.no_grad():
        want = model(x)
    assert y.dtype == want.dtype and y.shape == want.shape
    tol = FP16_TOL if x.dtype == torch.float16 else FP32_TOL
    torch.testing.assert_close(y, want, **tol)


def test_stock_static_int8_conv_matches_quantized_reference():
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    model, x = ConvRelu().eval(), torch.randn(1, 3, 16, 16)
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(True))
    prepared = prepare_pt2e(torch.export.export(model, (x,)).module(), quantizer)
    prepared(x)
    quantized = convert_pt2e(prepared)
    (blob, named) = lowered_blobs(quantized, (x,))[0]
    decoded = B.read_blob(blob, named)
    params = {type(p).__name__ for p in decoded.quant_params.values()}
    assert {"PerTensorQuantT", "PerChannelQuantT"} <= params  # qint8 activations, qcint8 filter
    last = decoded.graph.xnodes[-1].xnodeUnion  # the convert of the int8 result to fp32
    scale = decoded.quant_params[last.inputId].scale
    (y,) = XnnRuntime(blob, named).run(x)
    torch.testing.assert_close(y, quantized(x), rtol=0, atol=1.01 * scale)


# --- stock node kinds, hand-built: each define call against torch ---------------------------------


def _positive(shape):
    return torch.rand(shape) + 0.1


STOCK_UNARIES = {
    "XNNSigmoid": (torch.sigmoid, torch.randn),
    "XNNFloor": (torch.floor, torch.randn),
    "XNNSquareRoot": (torch.sqrt, _positive),
    "XNNCeiling": (torch.ceil, torch.randn),
    "XNNHardswish": (F.hardswish, torch.randn),
    "XNNNegate": (torch.neg, torch.randn),
    "XNNSquare": (torch.square, torch.randn),
    "XNNAbs": (torch.abs, torch.randn),
    "XNNReciprocalSquareRoot": (torch.rsqrt, _positive),
    "XNNLog": (torch.log, _positive),
    "XNNGelu": (F.gelu, torch.randn),
    "XNNTanh": (torch.tanh, torch.randn),
    "XNNExp": (torch.exp, torch.randn),
    "XNNSin": (torch.sin, torch.randn),
    "XNNCos": (torch.cos, torch.randn),
    "XNNCopy": (torch.clone, torch.randn),
    "XNNSoftmax": (lambda t: torch.softmax(t, -1), torch.randn),
}


@pytest.mark.parametrize("kind", list(STOCK_UNARIES))
def test_stock_unary_kind(kind):
    reference, make = STOCK_UNARIES[kind]
    data = make((3, 5, 7)) * 2
    (got,) = unary_graph(kind, [3, 5, 7]).run(data)
    torch.testing.assert_close(got, reference(data), **FP32_TOL)


def test_stock_parameterized_unary_kinds():
    data = torch.randn(4, 9)
    for kind, fields, clamp, want in [
        ("XNNLeakyReLU", dict(negativeSlope=0.2), None, F.leaky_relu(data, 0.2)),
        ("XNNELU", dict(alpha=0.7), None, F.elu(data, 0.7)),
        ("XNNClamp", {}, (-0.3, 0.6), data.clamp(-0.3, 0.6)),
    ]:
        g = unary_graph(kind, [4, 9], **fields)
        if clamp is not None:
            g.nodes[0].outputMinMax = fb.OutputMinMaxT()
            g.nodes[0].outputMinMax.outputMin, g.nodes[0].outputMinMax.outputMax = clamp
        (got,) = g.run(data)
        torch.testing.assert_close(got, want, **FP32_TOL)


STOCK_BINARIES = {
    "XNNAdd": torch.add,
    "XNNSubtract": torch.sub,
    "XNNMultiply": torch.mul,
    "XNNDiv": torch.div,
    "XNNMinimum": torch.minimum,
    "XNNMaximum": torch.maximum,
    "XNNPReLU": lambda x, slope: torch.where(x >= 0, x, x * slope),
}


@pytest.mark.parametrize("kind", list(STOCK_BINARIES))
def test_stock_binary_kind(kind):
    g = Graph()
    a, b, y = g.input([2, 3, 4, 5]), g.input([5]), g.output([2, 3, 4, 5])
    g.node(kind, input1Id=a, input2Id=b, outputId=y)
    lhs, rhs = torch.randn(2, 3, 4, 5), torch.rand(5) + 0.5
    (got,) = g.run(lhs, rhs)
    torch.testing.assert_close(got, STOCK_BINARIES[kind](lhs, rhs), **FP32_TOL)


def _nchw(t):
    return t.permute(0, 3, 1, 2)


def _nhwc(t):
    return t.permute(0, 2, 3, 1)


def test_stock_shape_kinds():
    data = torch.randn(2, 3, 4, 5)
    cases = [
        (
            "XNNStaticConstantPad",
            [3, 4, 7, 7],
            dict(prePaddings=[0, 1, 2, 0], postPaddings=[1, 0, 1, 2], paddingValue=0.5),
            F.pad(data, (0, 2, 2, 1, 1, 0, 0, 1), value=0.5),
        ),
        (
            "XNNStaticSlice",
            [2, 2, 1, 3],
            dict(numDims=4, offsets=[0, 1, 2, 1], sizes=[2, 2, 1, 3]),
            data[:, 1:3, 2:3, 1:4],
        ),
        ("XNNStaticReshape", [6, 20], dict(numDims=2, newShape=[6, 20]), data.reshape(6, 20)),
        (
            "XNNStaticTranspose",
            [5, 2, 4, 3],
            dict(numDims=4, perm=[3, 0, 2, 1]),
            data.permute(3, 0, 2, 1),
        ),
    ]
    for kind, out, fields, want in cases:
        g = Graph()
        x, y = g.input([2, 3, 4, 5]), g.output(out)
        g.node(kind, inputId=x, outputId=y, **fields)
        (got,) = g.run(data)
        assert torch.equal(got, want), kind


@pytest.mark.parametrize("align_corners", [False, True])
def test_stock_resize_bilinear(align_corners):
    g = Graph()
    x, y = g.input([1, 4, 5, 3]), g.output([1, 7, 9, 3])
    g.node(
        "XNNStaticResizeBilinear2D",
        newHeight=7,
        newWidth=9,
        inputId=x,
        outputId=y,
        flags=0x8 if align_corners else 0,
    )
    data = torch.randn(1, 4, 5, 3)
    (got,) = g.run(data)
    want = F.interpolate(_nchw(data), (7, 9), mode="bilinear", align_corners=align_corners)
    torch.testing.assert_close(got, _nhwc(want), **FP32_TOL)


def test_stock_average_pooling():
    g = Graph()
    x, y = g.input([2, 6, 8, 3]), g.output([2, 3, 4, 3])
    g.node(
        "XNNAvgPooling2d",
        paddingTop=0,
        paddingRight=0,
        paddingBottom=0,
        paddingLeft=0,
        poolingHeight=2,
        poolingWidth=2,
        strideHeight=2,
        strideWidth=2,
        dilationHeight=1,
        dilationWidth=1,
        inputId=x,
        outputId=y,
    )
    data = torch.randn(2, 6, 8, 3)
    (got,) = g.run(data)
    torch.testing.assert_close(got, _nhwc(F.avg_pool2d(_nchw(data), 2)), **FP32_TOL)


def test_stock_deconvolution():
    torch.manual_seed(0)
    weight, bias = torch.randn(4, 6, 3, 3), torch.randn(6)  # torch: [in, out, kh, kw]
    g = Graph()
    x, y = g.input([1, 5, 5, 4]), g.output([1, 10, 10, 6])
    g.node(
        "XNNConvTranspose2d",
        **conv_fields(
            paddingTop=1,
            paddingRight=1,
            paddingBottom=1,
            paddingLeft=1,
            adjustmentHeight=1,
            adjustmentWidth=1,
            kernelHeight=3,
            kernelWidth=3,
            subsamplingHeight=2,
            subsamplingWidth=2,
            groupInputChannels=4,
            groupOutputChannels=6,
            input1Id=x,
            filterId=g.constant(weight.permute(1, 2, 3, 0)),
            biasId=g.constant(bias),
            outputId=y,
        ),
    )
    data = torch.randn(1, 5, 5, 4)
    (got,) = g.run(data)
    want = F.conv_transpose2d(_nchw(data), weight, bias, stride=2, padding=1, output_padding=1)
    torch.testing.assert_close(got, _nhwc(want), **FP32_TOL)


def test_stock_depthwise_with_multiplier():
    torch.manual_seed(0)
    weight = torch.randn(6, 1, 3, 3)  # 3 channels, multiplier 2
    g = Graph()
    x, y = g.input([1, 6, 6, 3]), g.output([1, 6, 6, 6])
    g.node(
        "XNNDepthwiseConv2d",
        **conv_fields(
            paddingTop=1,
            paddingRight=1,
            paddingBottom=1,
            paddingLeft=1,
            kernelHeight=3,
            kernelWidth=3,
            groups=3,
            groupInputChannels=1,
            groupOutputChannels=2,
            input1Id=x,
            filterId=g.constant(weight.permute(1, 2, 3, 0)),
            outputId=y,
        ),
    )
    data = torch.randn(1, 6, 6, 3)
    (got,) = g.run(data)
    torch.testing.assert_close(
        got, _nhwc(F.conv2d(_nchw(data), weight, padding=1, groups=3)), **FP32_TOL
    )


def test_stock_batch_matrix_multiply():
    g = Graph()
    a, b, y = g.input([2, 3, 4]), g.input([2, 4, 5]), g.output([2, 3, 5])
    g.node("XNNBatchMatrixMultiply", input1Id=a, input2Id=b, outputId=y)
    lhs, rhs = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    (got,) = g.run(lhs, rhs)
    torch.testing.assert_close(got, lhs @ rhs, **FP32_TOL)


# --- xnnc's extension node kinds -----------------------------------------------------------------


def test_depth_to_space_is_block_major():
    n, h, w, b, c = 2, 3, 4, 2, 5
    g = Graph()
    x, y = g.input([n, h, w, b * b * c]), g.output([n, h * b, w * b, c])
    g.node("XNNDepthToSpace2d", blockSize=b, inputId=x, outputId=y)
    data = torch.randn(n, h, w, b * b * c)
    (got,) = g.run(data)
    # DCR: output channel k of block (i, j) is input channel (i * b + j) * C + k.
    want = data.reshape(n, h, w, b, b, c).permute(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c)
    assert torch.equal(got, want)
    crd = F.pixel_shuffle(data.permute(0, 3, 1, 2), b).permute(0, 2, 3, 1)
    assert not torch.equal(got, crd)  # torch.pixel_shuffle is channel-major


REDUCTIONS = {
    ReduceOperator.SUM: lambda t, axes, keep: t.sum(axes, keepdim=keep),
    ReduceOperator.MEAN: lambda t, axes, keep: t.mean(axes, keepdim=keep),
    ReduceOperator.MAX: lambda t, axes, keep: t.amax(axes, keepdim=keep),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("operator", list(REDUCTIONS), ids=str)
@pytest.mark.parametrize("axes,keep", [([1, -1], True), ([0, 2], False)], ids=["keep", "drop"])
def test_static_reduce(operator, dtype, axes, keep):
    shape = [2, 5, 6, 7]
    out = [1 if i in {a % 4 for a in axes} else d for i, d in enumerate(shape)]
    if not keep:
        out = [d for i, d in enumerate(shape) if i not in {a % 4 for a in axes}]
    g = Graph()
    x, y = g.input(shape, dtype), g.output(out, dtype)
    g.node(
        "XNNStaticReduce",
        reduceOperator=c_value(operator),
        reductionAxes=axes,
        inputId=x,
        outputId=y,
        flags=KEEP_DIMS if keep else 0,
    )
    data = torch.randn(shape).to(dtype)
    (got,) = g.run(data)
    want = REDUCTIONS[operator](data.float(), axes, keep).to(dtype)
    assert got.dtype == dtype
    torch.testing.assert_close(got, want, **(FP32_TOL if dtype == torch.float32 else BF16_TOL))


UNARIES = {
    UnaryOperator.APPROXGELU: (lambda t: F.gelu(t, approximate="tanh"), {}),
    UnaryOperator.SIGN: (torch.sign, {}),
    UnaryOperator.CUBE_ROOT: (lambda t: t.sign() * t.abs().pow(1 / 3), {}),
    UnaryOperator.BANKERS_ROUNDING: (torch.round, {}),
    UnaryOperator.CLAMP: (lambda t: t.clamp(-0.5, 0.25), dict(paramA=-0.5, paramB=0.25)),
    UnaryOperator.ELU: (lambda t: F.elu(t, 0.5), dict(paramA=0.5)),
}


@pytest.mark.parametrize("operator", list(UNARIES), ids=str)
def test_unary(operator):
    reference, params = UNARIES[operator]
    g = unary_graph("XNNUnary", [3, 17], unaryOperator=c_value(operator), **params)
    data = torch.randn(3, 17) * 3
    (got,) = g.run(data)
    torch.testing.assert_close(got, reference(data), **FP32_TOL)


BINARIES = {
    BinaryOperator.POW: torch.pow,
    BinaryOperator.SQUARED_DIFFERENCE: lambda a, b: (a - b) ** 2,
    BinaryOperator.COPYSIGN: torch.copysign,
    BinaryOperator.ATAN2: torch.atan2,
}


@pytest.mark.parametrize("operator", list(BINARIES), ids=str)
def test_binary(operator):
    g = Graph()
    a, b, y = g.input([4, 1, 6]), g.input([5, 1]), g.output([4, 5, 6])  # broadcasting
    g.node("XNNBinary", binaryOperator=c_value(operator), input1Id=a, input2Id=b, outputId=y)
    lhs, rhs = torch.rand(4, 1, 6) + 0.5, torch.randn(5, 1)
    (got,) = g.run(lhs, rhs)
    torch.testing.assert_close(got, BINARIES[operator](lhs, rhs), **FP32_TOL)


def test_binary_clamp_comes_from_output_min_max():
    g = Graph()
    a, b, y = g.input([8]), g.input([8]), g.output([8])
    g.node(
        "XNNBinary",
        clamp=(-0.5, 0.5),
        binaryOperator=c_value(BinaryOperator.MULTIPLY),
        input1Id=a,
        input2Id=b,
        outputId=y,
    )
    lhs, rhs = torch.randn(8), torch.randn(8)
    (got,) = g.run(lhs, rhs)
    torch.testing.assert_close(got, (lhs * rhs).clamp(-0.5, 0.5), **FP32_TOL)


def test_concatenate_five_inputs_negative_axis():
    g = Graph()
    widths = [1, 2, 3, 4, 5]
    ins = [g.input([2, w, 3]) for w in widths]
    y = g.output([2, sum(widths), 3])
    g.node("XNNConcatenate", axis=-2, inputIds=ins, outputId=y)
    data = [torch.randn(2, w, 3) for w in widths]
    (got,) = g.run(*data)
    assert torch.equal(got, torch.cat(data, 1))


def test_concatenate_six_inputs_is_rejected_before_xnnpack():
    # xnn_define_concatenate takes at most XNN_MAX_OPERATOR_OBJECTS = 5 inputs.
    g = Graph()
    ins = [g.input([1, 2]) for _ in range(6)]
    g.node("XNNConcatenate", axis=1, inputIds=ins, outputId=g.output([1, 12]))
    with pytest.raises(ValueError, match="6 inputs, expected 1 to 5"):
        g.blob()


def test_stock_concatenate_kinds():
    g = Graph()
    a, b, c = g.input([2, 1]), g.input([2, 2]), g.input([2, 3])
    y = g.output([2, 6])
    g.node(
        "XNNConcatenate3",
        axis=1,
        input1Id=a,
        input2Id=b,
        input3Id=c,
        input4Id=NO_VALUE,
        input5Id=NO_VALUE,
        outputId=y,
    )
    data = [torch.randn(2, k) for k in (1, 2, 3)]
    (got,) = g.run(*data)
    assert torch.equal(got, torch.cat(data, 1))


def test_convert_between_f32_f16_bf16():
    g = Graph()
    x = g.input([64])
    half, brain, back = (
        g.output([64], torch.float16),
        g.output([64], torch.bfloat16),
        g.output([64]),
    )
    g.node("XNNConvert", inputId=x, outputId=half)
    g.node("XNNConvert", inputId=half, outputId=brain)
    g.node("XNNConvert", inputId=brain, outputId=back)
    data = torch.randn(64) * 100
    got_half, got_brain, got_back = g.run(data)
    assert torch.equal(got_half, data.half())
    assert torch.equal(got_brain, data.half().bfloat16())
    assert torch.equal(got_back, data.half().bfloat16().float())


def test_global_average_pooling_applies_its_output_clamp():
    g = Graph()
    x, y = g.input([2, 5, 6, 3]), g.output([2, 1, 1, 3])
    g.node("XNNGlobalAvgPooling2d", clamp=(-0.05, 0.05), inputId=x, outputId=y, flags=KEEP_DIMS)
    data = torch.randn(2, 5, 6, 3)
    (got,) = g.run(data)
    want = data.mean((1, 2), keepdim=True).clamp(-0.05, 0.05)
    torch.testing.assert_close(got, want, **FP32_TOL)


# --- bf16 computed in fp32 -----------------------------------------------------------------------


def test_bf16_conv_runs_in_fp32_between_converts():
    g, (weight, bias) = conv_graph(dtype=torch.bfloat16)
    x = bf16(torch.randn(1, 3, 8, 8))
    (got,) = g.run(x)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got, bf16(conv_reference(x, weight, bias)), **BF16_TOL)


@pytest.mark.parametrize("threads", [1, 2])
def test_bf16_fully_connected_softmax_max_pool(threads):
    torch.manual_seed(0)
    weight, data = bf16(torch.randn(6, 8)), bf16(torch.randn(2, 4, 4, 8))
    g = Graph()
    x = g.input([2, 4, 4, 8], torch.bfloat16)
    pooled = g.output([2, 2, 2, 8], torch.bfloat16)
    logits = g.value([2, 2, 2, 6], torch.bfloat16)
    probs = g.output([2, 2, 2, 6], torch.bfloat16)
    g.node(
        "XNNMaxPooling2d",
        paddingTop=0,
        paddingRight=0,
        paddingBottom=0,
        paddingLeft=0,
        poolingHeight=2,
        poolingWidth=2,
        strideHeight=2,
        strideWidth=2,
        dilationHeight=1,
        dilationWidth=1,
        inputId=x,
        outputId=pooled,
    )
    g.node(
        "XNNFullyConnected",
        input1Id=pooled,
        filterId=g.constant(weight),
        biasId=NO_VALUE,
        outputId=logits,
    )
    g.node("XNNSoftmax", inputId=logits, outputId=probs)
    got_pooled, got_probs = g.run(data, threads=threads)
    want_pooled = F.max_pool2d(data.float().permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)
    assert torch.equal(got_pooled, bf16(want_pooled))
    want_logits = bf16(got_pooled.float() @ weight.float().T)
    torch.testing.assert_close(got_probs, bf16(torch.softmax(want_logits.float(), -1)), **BF16_TOL)


def test_bf16_gemms_take_bf16_operands_for_the_native_kernel(monkeypatch):
    """Fully-connected and batch-matrix-multiply are defined bf16 x bf16 -> fp32 (XNNPACK's
    bf16 GEMM on avx512bf16, its own fp32 fallback elsewhere): no convert of their inputs."""
    torch.manual_seed(0)
    weight, a, b = bf16(torch.randn(6, 8)), bf16(torch.randn(3, 8)), bf16(torch.randn(2, 6, 5))
    g = Graph()
    x, y = g.input([3, 8], torch.bfloat16), g.input([2, 6, 5], torch.bfloat16)
    fc = g.output([3, 6], torch.bfloat16)
    g.node("XNNFullyConnected", input1Id=x, filterId=g.constant(weight), biasId=NO_VALUE,
           outputId=fc)  # fmt: skip
    bmm = g.output([2, 3, 5], torch.bfloat16)
    g.node("XNNBatchMatrixMultiply", input1Id=fc, input2Id=y, outputId=bmm)
    calls = []
    define = R.DefineContext.call

    def recording(x, function, *args):
        calls.append(function)
        define(x, function, *args)

    monkeypatch.setattr(R.DefineContext, "call", recording)
    got_fc, got_bmm = g.run(a, b)
    # Only the outputs are converted (fp32 -> bf16); a bf16 input would need one more each.
    assert calls.count("xnn_define_unary") == 2
    want_fc = bf16(a.float() @ weight.float().T)
    torch.testing.assert_close(got_fc, want_fc, **BF16_TOL)
    torch.testing.assert_close(got_bmm, bf16(want_fc.float() @ b.float()), **BF16_TOL)


@pytest.mark.parametrize("kind", ["XNNStaticReduce", "XNNSoftmax"])
def test_xnnpack_lacks_the_bf16_kinds_the_runtime_legalizes(kind, monkeypatch):
    monkeypatch.setattr(R, "BF16_VIA_FP32", frozenset())
    g = Graph()
    x = g.input([2, 8], torch.bfloat16)
    if kind == "XNNSoftmax":
        g.node(kind, inputId=x, outputId=g.output([2, 8], torch.bfloat16))
    else:
        g.node(
            kind,
            reduceOperator=c_value(ReduceOperator.MEAN),
            reductionAxes=[1],
            inputId=x,
            outputId=g.output([2], torch.bfloat16),
        )
    with pytest.raises(XnnpackError, match=f"node 0 \\({kind}\\).*invalid_parameter"):
        XnnRuntime(g.blob())


# --- threads and profiling -----------------------------------------------------------------------


def test_two_threads_give_the_result_of_one():
    g, _ = conv_graph(n=2, c=16, h=32, w=32, oc=32)
    blob = g.blob()
    x = torch.randn(2, 16, 32, 32)
    (one,) = XnnRuntime(blob, threads=1).run(x)
    (two,) = XnnRuntime(blob, threads=2).run(x)
    assert torch.equal(one, two)


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        XnnRuntime(conv_graph()[0].blob(), threads=0)


def test_profile_times_each_xnnpack_operator():
    g, _ = conv_graph(c=16, h=64, w=64, oc=16)
    rt = XnnRuntime(g.blob(), profile=True)
    with pytest.raises(RuntimeError, match="call run"):
        rt.profile()
    rt.run(torch.randn(1, 16, 64, 64))
    timings = rt.profile()
    # transpose, then the convolution with its ReLU fused: XNNPACK's two operators
    assert [name.split(" ")[0] for name, _ in timings] == ["Transpose", "Convolution"]
    assert all(us > 0 for _, us in timings)


def test_profile_needs_profiling():
    rt = XnnRuntime(conv_graph()[0].blob())
    rt.run(torch.randn(1, 3, 8, 8))
    with pytest.raises(RuntimeError, match="profile=True"):
        rt.profile()


# --- inputs --------------------------------------------------------------------------------------


@pytest.fixture
def two_input_runtime(monkeypatch):
    """a [2, 3] f32 + b [1, 8, 8, 3] f16 -> copies; XNNPACK's setup and invoke must not run."""
    g = Graph()
    a, b = g.input([2, 3]), g.input([1, 8, 8, 3], torch.float16)
    g.node("XNNCopy", inputId=a, outputId=g.output([2, 3]))
    g.node("XNNCopy", inputId=b, outputId=g.output([1, 8, 8, 3], torch.float16))
    rt = XnnRuntime(g.blob())

    def untouchable(*args):
        raise AssertionError("XNNPACK was called")

    monkeypatch.setattr(rt._lib, "setup_runtime_at", untouchable)
    monkeypatch.setattr(rt._lib, "invoke_runtime", untouchable)
    return rt


@pytest.mark.parametrize(
    "inputs,message",
    [
        ((torch.zeros(2, 3),), "expected 2 inputs, got 1"),
        (
            (torch.zeros(2, 3), torch.zeros(1, 8, 8, 3)),
            r"input 1: expected float16 \[1, 8, 8, 3\], got float32 \[1, 8, 8, 3\]",
        ),
        (
            (torch.zeros(3, 2), torch.zeros(1, 8, 8, 3).half()),
            r"input 0: expected float32 \[2, 3\], got float32 \[3, 2\]",
        ),
        (
            (np.zeros((2, 3), np.float64), torch.zeros(1, 8, 8, 3).half()),
            r"input 0: expected float32 \[2, 3\], got float64 \[2, 3\]",
        ),
        (([[0.0] * 3] * 2, torch.zeros(1, 8, 8, 3).half()), "input 0: expected a torch tensor"),
    ],
    ids=["count", "dtype", "shape", "numpy-dtype", "list"],
)
def test_inputs_are_checked_before_xnnpack(two_input_runtime, inputs, message):
    with pytest.raises(ValueError, match=message):
        two_input_runtime.run(*inputs)


def test_numpy_and_non_contiguous_inputs():
    g = Graph()
    a, b = g.input([2, 3]), g.input([3, 2])
    g.node("XNNAdd", input1Id=a, input2Id=a, outputId=g.output([2, 3]))
    g.node("XNNCopy", inputId=b, outputId=g.output([3, 2]))
    rt = XnnRuntime(g.blob())
    lhs = np.arange(6, dtype=np.float32).reshape(2, 3)
    rhs = torch.arange(6.0).reshape(2, 3).T  # a transposed view
    doubled, copied = rt.run(lhs, rhs)
    assert torch.equal(doubled, torch.from_numpy(lhs) * 2)
    assert torch.equal(copied, rhs)
    again, _ = rt.run(lhs * 3, rhs)  # new input pointers are set up again
    assert torch.equal(again, torch.from_numpy(lhs) * 6)


# --- errors --------------------------------------------------------------------------------------


def test_xnnpack_rejection_names_the_node_and_status():
    g, _ = conv_graph(flags=0x100)  # a flag xnn_define_convolution_2d does not accept
    with pytest.raises(XnnpackError) as caught:
        XnnRuntime(g.blob())
    message = str(caught.value)
    assert message == (
        "node 1 (XNNConv2d): xnn_define_convolution_2d failed with xnn_status_invalid_parameter"
    )
    assert isinstance(caught.value, RuntimeError)
    assert caught.value.status_name == "xnn_status_invalid_parameter"


@pytest.fixture
def no_xnnpack(monkeypatch):
    """Blob checks must fail before the runtime touches XNNPACK at all."""

    def untouchable():
        raise AssertionError("XNNPACK was called")

    monkeypatch.setattr(capi, "library", untouchable)


def test_node_kind_without_xnn_op_is_rejected(no_xnnpack):
    g = Graph()
    x = g.input([1, 4, 4, 2])
    g.node(
        "XNNArgMaxPooling2d",
        paddingTop=0,
        paddingRight=0,
        paddingBottom=0,
        paddingLeft=0,
        poolingHeight=2,
        poolingWidth=2,
        inputId=x,
        outputValueId=g.output([1, 2, 2, 2]),
        outputIndexId=g.output([1, 2, 2, 2], torch.int32),
    )
    with pytest.raises(ValueError, match=r"node 0 \(XNNArgMaxPooling2d\): xnnc's runtime does"):
        XnnRuntime(g.blob())


def test_conv_filter_must_match_the_node(no_xnnpack):
    g, _ = conv_graph(groupInputChannels=1)  # the filter is [8, 3, 3, 3]
    with pytest.raises(ValueError, match=r"filter 2 has dims \[8, 3, 3, 3\], the node implies"):
        XnnRuntime(g.blob())


def test_integer_operator_on_floats_is_rejected(no_xnnpack):
    g = Graph()
    a, b = g.input([4]), g.input([4])
    g.node(
        "XNNBinary",
        binaryOperator=c_value(BinaryOperator.BITWISE_AND),
        input1Id=a,
        input2Id=b,
        outputId=g.output([4]),
    )
    with pytest.raises(ValueError, match="bitwise_and takes int32 values, not fp32"):
        XnnRuntime(g.blob())


def test_declared_output_dims_must_match_xnnpack():
    g = Graph()
    x, y = g.input([1, 3, 4, 5]), g.output([1, 3, 5, 4])  # perm says [1, 4, 5, 3]
    g.node("XNNStaticTranspose", numDims=4, perm=[0, 2, 3, 1], inputId=x, outputId=y)
    rt = XnnRuntime(g.blob())  # XNNPACK computes the dims at the first run's reshape
    with pytest.raises(ValueError, match=r"declares dims \[1, 3, 5, 4\] but XNNPACK computes"):
        rt.run(torch.zeros(1, 3, 4, 5))
    with pytest.raises(ValueError, match="declares dims"):  # every run, none invokes
        rt.run(torch.zeros(1, 3, 4, 5))


def test_unused_output_clamp_is_rejected():
    g = unary_graph("XNNSoftmax", [2, 3])
    g.nodes[0].outputMinMax = fb.OutputMinMaxT()
    g.nodes[0].outputMinMax.outputMin, g.nodes[0].outputMinMax.outputMax = 0.0, 1.0
    with pytest.raises(ValueError, match="XNNSoftmax has no output clamp"):
        XnnRuntime(g.blob())


def test_invalid_blob_is_a_value_error(no_xnnpack):
    with pytest.raises(ValueError, match="blob"):
        XnnRuntime(b"\0\0\0\0XH00" + bytes(40))


def test_close():
    rt = XnnRuntime(conv_graph()[0].blob())
    rt.close()
    rt.close()
    with pytest.raises(RuntimeError, match="closed"):
        rt.run(torch.zeros(1, 3, 8, 8))


def test_status_names_follow_the_header():
    assert capi.status_name(2) == "xnn_status_invalid_parameter"
    assert capi.status_name(7) == "xnn_status_reallocation_required"


# --- per-call state: set-up skipped, outputs fresh ---------------------------------------------


def _doubling(monkeypatch, copied_bytes: int):
    """y = a + a on [2, 3] (48 bytes of externals), externals copied through the runtime's
    buffers up to `copied_bytes`; its `xnn_setup_runtime_v2` calls are counted in `setups`,
    and each returns the status that `statuses` pops, if any (else XNNPACK's)."""
    monkeypatch.setattr(R, "COPIED_BYTES", copied_bytes)
    g = Graph()
    a = g.input([2, 3])
    g.node("XNNAdd", input1Id=a, input2Id=a, outputId=g.output([2, 3]))
    rt = XnnRuntime(g.blob())
    rt._shaped(None)  # what a first run does before `_invoke`
    setups, statuses, setup = [], [], rt._lib.setup_runtime_at

    def counted(*args):
        setups.append(args)
        return statuses.pop() if statuses else setup(*args)

    monkeypatch.setattr(rt._lib, "setup_runtime_at", counted)
    return rt, setups, statuses


@pytest.fixture
def in_place(monkeypatch):
    return _doubling(monkeypatch, copied_bytes=0)


@pytest.fixture
def copied(monkeypatch):
    return _doubling(monkeypatch, copied_bytes=48)


def test_invoke_reuses_the_last_set_up_and_reads_the_data_anew(in_place):
    """XNNPACK 92a7ad50's invoke runs on the pointers of the last set-up: a call whose
    tensors are where the last call's were sets nothing up, and still reads their data."""
    rt, setups, _ = in_place
    assert rt._io is None
    x, y = torch.ones(2, 3), torch.empty(2, 3)
    rt._invoke([x], [y])
    rt._invoke([x], [y])
    assert len(setups) == 1 and torch.equal(y, torch.full((2, 3), 2.0))
    x.fill_(5.0)  # in place: the same address
    rt._invoke([x], [y])
    assert len(setups) == 1 and torch.equal(y, torch.full((2, 3), 10.0))
    other = torch.full((2, 3), 7.0)
    rt._invoke([other], [y])
    assert len(setups) == 2 and torch.equal(y, torch.full((2, 3), 14.0))


@pytest.mark.parametrize("mode", ["in_place", "copied"])
def test_a_failed_set_up_is_done_again_on_the_next_call(mode, request):
    rt, setups, statuses = request.getfixturevalue(mode)
    x = torch.ones(2, 3)
    statuses.append(2)
    with pytest.raises(XnnpackError, match="^xnn_setup_runtime_v2 failed with "
                       "xnn_status_invalid_parameter$"):  # fmt: skip
        rt.run(x)
    (y,) = rt.run(x)  # the failed set-up's pointers (the same buffers if copied): again
    assert len(setups) == 2 and torch.equal(y, torch.full((2, 3), 2.0))


def test_small_externals_are_copied_through_buffers_set_up_once(copied):
    """New inputs and kept outputs on every call, as a caller's loop has them: one set-up
    in all, every result of its own call's input, none changed by a later call."""
    rt, setups, _ = copied
    assert rt._io is not None
    results = []
    for k in range(4):
        x = torch.full((2, 3), float(k))
        (y,) = rt.run(x if k != 2 else x.T.contiguous().T)  # a strided input, copied first
        results.append(y)
    assert len(setups) == 1
    for k, y in enumerate(results):
        assert torch.equal(y, torch.full((2, 3), 2.0 * k))
    assert len({y.data_ptr() for y in results}) == 4


@pytest.mark.parametrize("mode", ["in_place", "copied"])
def test_threads_get_their_own_results_in_both_modes(mode, request):
    """Runs from 8 threads at once, each on inputs of its own: every result is twice its
    own input (set-up, copies and invoke of one run never interleave with another's)."""
    rt, _, _ = request.getfixturevalue(mode)
    wrong: list[tuple[int, int]] = []

    def work(t: int) -> None:
        for k in range(200):
            x = torch.full((2, 3), float(1000 * t + k))
            (y,) = rt.run(x)
            if not torch.equal(y, 2 * x):
                wrong.append((t, k))

    run_threads(work)
    assert wrong == []


def test_a_runtime_on_the_size_line_copies_and_one_over_it_runs_in_place(monkeypatch):
    monkeypatch.setattr(R, "COPIED_BYTES", 48)
    g = Graph()
    a = g.input([2, 3])
    g.node("XNNAdd", input1Id=a, input2Id=a, outputId=g.output([2, 3]))
    assert XnnRuntime(g.blob())._io is not None
    monkeypatch.setattr(R, "COPIED_BYTES", 47)
    assert XnnRuntime(g.blob())._io is None


@pytest.mark.parametrize("shape", [[2, 3], [1, 1, 1, 1], [1, 4, 1]])
def test_outputs_are_fresh_and_contiguous_with_the_usual_strides(shape):
    """Outputs are made like a one-element template expanded to their shape: their strides
    are still those of torch.empty (an expanded tensor of size-1 dims counts as dense, its
    zero strides would be copied), and each call's are new."""
    g = Graph()
    a = g.input(shape)
    g.node("XNNAdd", input1Id=a, input2Id=a, outputId=g.output(shape))
    rt = XnnRuntime(g.blob())
    x = torch.randn(shape)
    (first,) = rt.run(x)
    (second,) = rt.run(x + 1)
    assert first.stride() == second.stride() == torch.empty(shape).stride()
    assert first.data_ptr() != second.data_ptr()
    assert torch.equal(first, 2 * x) and torch.equal(second, 2 * (x + 1))
