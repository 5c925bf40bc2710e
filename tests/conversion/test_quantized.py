"""Static int8 (PT2E, XNNPACKQuantizer, per-channel weights) end to end: import as quantized
types, the reference bit-exact with the PT2E model, lowering to XNNPACK's qs8 nodes, both
runtimes.

Tolerance. XNNPACK accumulates each conv in int32 with the bias rounded to the accumulator's
grid (input scale x filter scale) and requantizes in fp32; the PT2E model convolves the
dequantized values in fp32 with the float bias. Both round to the output grid, so an output
differs by at most one step where the two land on either side of a rounding boundary:
atol = output scale x 1.01 (the 1% absorbs the fp32 rounding of the step itself). Through a
residual add a one-step difference of a branch can add to one of the sum's own (two steps).
"""

from __future__ import annotations

import operator

import pytest
import torch

import xnnc
from xnnc.dialects.quant import is_quantized
from xnnc.examples.quantized_models import float_model, quantize, quantized_program
from xnnc.frontend.fx_importer import import_model
from xnnc.interpreter.aten import run_reference


def _output_scale(ep: torch.export.ExportedProgram) -> float:
    (out,) = ep.graph.output_node().args[0]
    assert "dequantize_per_tensor" in str(out.target)
    return float(out.args[1])


def _inputs(shape: tuple[int, ...], count: int = 6) -> list[torch.Tensor]:
    """Random inputs at several ranges, some saturating the input's quantization."""
    g = torch.Generator().manual_seed(7)
    return [torch.randn(shape, generator=g) * (0.5 + i / 2) for i in range(count)]


@pytest.fixture(scope="module")
def conv_net():
    ep, inputs = quantized_program("conv_net")
    return ep, inputs, ep.module()


@pytest.fixture(scope="module")
def conv1d_residual():
    ep, inputs = quantized_program("conv1d_residual")
    return ep, inputs, ep.module()


def test_reference_is_bit_exact_with_the_pt2e_model(conv_net):
    ep, inputs, pt2e = conv_net
    module = import_model(ep)
    for x in _inputs(inputs[0].shape, 3):
        (y,) = run_reference(module, (x,))
        torch.testing.assert_close(y, pt2e(x), rtol=0, atol=0)


def test_import_carries_quantized_types(conv_net):
    text = str(import_model(conv_net[0]))
    assert "quantized_decomposed" not in text  # no q/dq left as aten.generic
    assert "aten.quantize %x" in text
    assert "!xnn.quant.uniform<i8<-127:127>:f32:0, {32 x f32" in text  # c1's int8 weight


@pytest.mark.parametrize("name", ["conv_net", "conv1d_residual"])
def test_one_subgraph_nothing_outside(name, request):
    ep, inputs, _ = request.getfixturevalue(name)
    prog = xnnc.compile(ep, inputs)
    assert prog.num_partitions == 1
    assert prog.outside() == []


def test_qs8_nodes_in_the_blob(conv_net):
    from xnnc.backend_xnnpack import blob as B

    ep, inputs, _ = conv_net
    (blob,) = xnnc.compile(ep, inputs, savable=True).blobs
    decoded = B.read_blob(blob)
    kinds = [type(n.xnodeUnion).__name__ for n in decoded.graph.xnodes]
    assert kinds.count("XNNNodeConvT") == 4  # c1, c2, dw, pw: no float conv, no fallback
    params = {type(p).__name__ for p in decoded.quant_params.values()}
    assert params == {"PerTensorQuantT", "PerChannelQuantT"}
    # relu fused into the output range of c1, c2 and dw; pw has none
    fused = [
        n.outputMinMax is not None
        for n in decoded.graph.xnodes
        if "Conv" in type(n.xnodeUnion).__name__
    ]
    assert fused == [True, True, True, False]


def test_extended_runtime_within_one_step(conv_net):
    ep, inputs, pt2e = conv_net
    prog = xnnc.compile(ep, inputs)
    atol = _output_scale(ep) * 1.01
    for x in _inputs(inputs[0].shape):
        torch.testing.assert_close(prog(x), pt2e(x), rtol=0, atol=atol)


def test_saved_program_reloads_with_its_quantized_types(conv_net, tmp_path):
    ep, inputs, _ = conv_net
    prog = xnnc.compile(ep, inputs, savable=True)
    prog.save(str(tmp_path / "q.xnnc"))
    torch.testing.assert_close(
        xnnc.load(str(tmp_path / "q.xnnc"))(*inputs), prog(*inputs), rtol=0, atol=0
    )


def test_stock_executorch_within_one_step(conv_net):
    from xnnc.pte import StockRuntime, to_pte

    ep, inputs, pt2e = conv_net
    runtime = StockRuntime(to_pte(ep))
    atol = _output_scale(ep) * 1.01
    for x in _inputs(inputs[0].shape, 3):
        (y,) = runtime(x)
        torch.testing.assert_close(y, pt2e(x), rtol=0, atol=atol)


@pytest.mark.parametrize("runtime", ["extended", "stock"])
def test_conv1d_residual_pool_cat(conv1d_residual, runtime):
    ep, inputs, pt2e = conv1d_residual
    if runtime == "stock":
        from xnnc.pte import StockRuntime, to_pte

        run = StockRuntime(to_pte(ep))
    else:
        run = xnnc.compile(ep, inputs)
    atol = _output_scale(ep) * 2.01  # see the module docstring: the residual add
    for x in _inputs(inputs[0].shape, 4):
        y = run(x)
        torch.testing.assert_close(y[0] if isinstance(y, tuple) else y, pt2e(x), rtol=0, atol=atol)


def test_asymmetric_per_channel_weight_stays_outside_with_its_reason():
    model, inputs = float_model("conv_net")
    ep = quantize(model, inputs)
    gm = ep.module()
    gm._zero_point_1.fill_(3)  # c2's weight: per-channel zero points no longer 0
    ep = torch.export.export(gm, inputs)
    prog = xnnc.compile(ep, inputs)
    reasons = {o.op: o.reason for o in prog.outside()}
    assert "aten.convolution" in reasons, reasons
    assert reasons["aten.convolution"] == (
        "a dequantized weight the qs8 lowering cannot take: asymmetric per-channel weight "
        "(zero points not all 0): XNNPACK's int8 filters are symmetric"
    )
    atol = _output_scale(ep) * 1.01
    (x,) = inputs
    torch.testing.assert_close(prog(x), gm(x), rtol=0, atol=atol)  # still runs, in part on torch


def _delegates_and_outside(edge) -> tuple[int, list[str]]:
    """(delegate calls, the other ops in graph order) of an edge program."""
    nodes = [n for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    call = torch.ops.higher_order.executorch_call_delegate
    outside = [str(n.target) for n in nodes if n.target not in (call, operator.getitem)]
    return sum(n.target is call for n in nodes), outside


def test_partitioner_keeps_an_asymmetric_per_channel_weight_outside_as_compile_does():
    """ExecuTorch hands `partition` fake state; XnncPartitioner reads the q/dq parameters
    from the real program it is shown first (`ops_to_not_decompose`), so it leaves out the
    conv that `xnnc.compile` leaves out, for the same reason, and ExecuTorch's quantized
    kernels run it between two delegates."""
    import copy

    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    model, inputs = float_model("conv_net")
    gm = quantize(model, inputs).module()
    gm._zero_point_1.fill_(3)
    ep = torch.export.export(gm, inputs)
    compiled_outside = {o.op for o in xnnc.compile(ep, inputs).outside()}
    edge = to_edge_transform_and_lower(
        copy.deepcopy(ep), partitioner=[xnnc.XnncPartitioner(target="stock")]
    )
    delegates, outside = _delegates_and_outside(edge)
    # the conv and its weight's dequantize, between the pieces before and after it
    assert compiled_outside == {"aten.convolution", "aten.dequantize"}
    assert delegates == 2 and len(outside) == 2, outside
    assert "convolution" in outside[1] and "dequantize_per_channel" in outside[0], outside
    (y,) = StockRuntime(edge.to_executorch().buffer)(*inputs)
    torch.testing.assert_close(y, gm(*inputs), rtol=0, atol=_output_scale(ep) * 1.01)


def test_partitioner_shown_only_fake_state_delegates_the_conv_in_fp32():
    """`to_edge(...).to_backend(XnncPartitioner())` never shows the real program: the
    partitioner reads scales of 1 and zero points of 0, so it delegates the conv, and the
    delegate, which has the data, dequantizes that weight at compile time instead. (Plain
    `to_edge` also decomposes the linear into addmm on a permuted dequantized weight, which
    stays outside with its dequantize: that path asks no partitioner what to keep.)"""
    import copy

    from executorch.exir import to_edge

    from xnnc.pte import StockRuntime

    model, inputs = float_model("conv_net")
    gm = quantize(model, inputs).module()
    gm._zero_point_1.fill_(3)
    ep = torch.export.export(gm, inputs)
    edge = to_edge(copy.deepcopy(ep)).to_backend(xnnc.XnncPartitioner(target="stock"))
    _, outside = _delegates_and_outside(edge)
    assert not any("convolution" in op for op in outside), outside
    (y,) = StockRuntime(edge.to_executorch().buffer)(*inputs)
    torch.testing.assert_close(y, gm(*inputs), rtol=0, atol=_output_scale(ep) * 1.01)


class _QuantizedActivation(torch.nn.Module):
    """quantize -> dequantize -> f -> quantize -> dequantize, as PT2E writes an activation
    it quantizes (XNNPACKQuantizer annotates none of these, so the q/dq are explicit)."""

    def __init__(self, f, out: tuple[float, int]):
        super().__init__()
        self.f, self.out = f, out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qd = torch.ops.quantized_decomposed
        q = qd.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)
        y = self.f(qd.dequantize_per_tensor(q, 0.05, 3, -128, 127, torch.int8))
        scale, zp = self.out
        q = qd.quantize_per_tensor(y, scale, zp, -128, 127, torch.int8)
        return qd.dequantize_per_tensor(q, scale, zp, -128, 127, torch.int8)


F = torch.nn.functional
ACTIVATIONS = {
    "sigmoid": (torch.sigmoid, (1 / 256, -128)),
    "tanh": (torch.tanh, (1 / 128, 0)),
    "hardswish": (F.hardswish, (0.03, -100)),
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.1), (0.04, 0)),
    "elu": (F.elu, (0.04, -50)),
    "gelu": (F.gelu, (0.04, -100)),
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_qs8_activation(name):
    """XNNPACK's qs8 unary ops (a lookup table of the 256 inputs) against the q/dq model:
    within one output step (the table rounds the exact function, PT2E the fp32 one)."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed)

    f, (scale, zp) = ACTIVATIONS[name]
    model, x = _QuantizedActivation(f, (scale, zp)), torch.randn(2, 64) * 3
    prog = xnnc.compile(model, (x,))
    assert prog.num_partitions == 1 and prog.outside() == []
    (unary,) = [op for op in prog.module.walk() if op.name == "xnn.unary"]
    assert is_quantized(unary.input.type) and is_quantized(unary.output.type)  # qs8 -> qs8
    torch.testing.assert_close(prog(x), model(x), rtol=0, atol=scale * 1.01)


class _TensorParameters(torch.nn.Module):
    """A sigmoid between q/dq nodes whose scale and zero point are tensors (buffers), the
    `quantize_per_tensor.tensor` overloads: static parameters, not chosen at run time."""

    def __init__(self):
        super().__init__()
        for name, value in (("s_in", 0.05), ("z_in", 3), ("s_out", 1 / 256), ("z_out", -128)):
            self.register_buffer(name, torch.tensor(value))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qd = torch.ops.quantized_decomposed
        q = qd.quantize_per_tensor.tensor(x, self.s_in, self.z_in, -128, 127, torch.int8)
        y = torch.sigmoid(
            qd.dequantize_per_tensor.tensor(q, self.s_in, self.z_in, -128, 127, torch.int8)
        )
        q = qd.quantize_per_tensor.tensor(y, self.s_out, self.z_out, -128, 127, torch.int8)
        return qd.dequantize_per_tensor.tensor(q, self.s_out, self.z_out, -128, 127, torch.int8)


def test_tensor_overload_with_constant_parameters_lowers_to_qs8():
    """Imported as static quantized types, by `xnnc.compile` and by XnncPartitioner (which
    sees the buffers as fake tensors in `partition`): one delegate, the sigmoid on qs8,
    within one output step (XNNPACK's table rounds the exact sigmoid, PT2E the fp32 one)."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed)
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    model, x = _TensorParameters().eval(), torch.randn(2, 64) * 3
    prog = xnnc.compile(model, (x,))
    assert prog.num_partitions == 1 and prog.outside() == []
    (unary,) = [op for op in prog.module.walk() if op.name == "xnn.unary"]
    assert is_quantized(unary.input.type) and is_quantized(unary.output.type)
    torch.testing.assert_close(prog(x), model(x), rtol=0, atol=1.01 / 256)
    ep = torch.export.export(model, (x,))
    edge = to_edge_transform_and_lower(ep, partitioner=[xnnc.XnncPartitioner(target="stock")])
    assert _delegates_and_outside(edge) == (1, [])
    (y,) = StockRuntime(edge.to_executorch().buffer)(x)
    torch.testing.assert_close(y, model(x), rtol=0, atol=1.01 / 256)


class DepthwiseUpsampler(torch.nn.Module):
    """A depthwise transposed conv (XNNPACKQuantizer leaves it float: groups > 1) between
    two quantized convs, over a frame count."""

    def __init__(self) -> None:
        super().__init__()
        self.pre = torch.nn.Conv1d(4, 8, 3, padding=1)
        self.up = torch.nn.ConvTranspose1d(8, 8, 4, stride=2, padding=1, groups=8)
        self.post = torch.nn.Conv1d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.post(self.up(self.pre(x)))


def test_symbolic_frames_quantized_in_one_subgraph_with_int8_copies():
    """A PT2E program with a symbolic frame count imports (quantized types carry their
    `#xnnc.dims`), its quantize/dequantize lower as converts, and xnn-quantize-early moves
    the quantizing converts above the float phases' concatenate (int8 copies), as on static
    sizes. Within one output step of the PT2E model at every size (module docstring)."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from xnnc.dialects import xnn

    torch.manual_seed(0)
    frames = ({2: torch.export.Dim("T", min=2, max=64)},)
    x = torch.randn(1, 4, 16)
    exported = torch.export.export(DepthwiseUpsampler().eval(), (x,), dynamic_shapes=frames)
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(True))
    prepared = prepare_pt2e(exported.module(), quantizer)
    for x in _inputs((1, 4, 16), 8):
        prepared(x)
    pt2e = convert_pt2e(prepared)
    ep = torch.export.export(pt2e, (x,), dynamic_shapes=frames)
    program = xnnc.compile(ep, (x,), tune=False)
    assert program.outside() == [] and program.num_partitions == 1
    (join,) = [op for op in program.module.walk() if isinstance(op, xnn.ConcatenateOp)]
    assert is_quantized(join.output.type) and "?" in str(join.output.type)
    atol = _output_scale(ep) * 1.01
    for size in (2, 9, 64):
        for x in _inputs((1, 4, size), 2):
            torch.testing.assert_close(program(x), pt2e(x), rtol=0, atol=atol)


@pytest.mark.parametrize("per_channel", [True, False])
def test_int32_bias_rounds_as_executorchs_xnnpack_backend(per_channel):
    """The int32 bias equals the one ExecuTorch's XNNPACK backend serializes
    (`QuantParams.from_bias(...).quantize_tensor`), also for biases at half a step, where
    rounding in f64 and in fp32 part: one such channel moved MobileNetV2's output 6 steps."""
    from executorch.backends.xnnpack.operators.quant_params import QuantParams
    from xdsl.dialects.builtin import IntegerType

    from xnnc.conversion.quant_to_xnn import quantized_bias
    from xnnc.dialects.quant import UniformQuantType

    g = torch.Generator().manual_seed(3)
    channels = 4096
    w_scales = (torch.rand(channels if per_channel else 1, generator=g) * 1e-2 + 1e-4).float()
    x_scale = 0.0123456789
    exact = w_scales.double() * x_scale
    steps = torch.randint(-20000, 20000, (channels,), generator=g).double()
    # half of the channels at k + 1/2 steps (the ties f64 and fp32 round apart), half anywhere
    bias = ((steps + 0.5) * exact).float()
    bias[channels // 2 :] = (torch.randn(channels // 2, generator=g) * exact[-1] * 1e4).float()
    filter_q = UniformQuantType(
        IntegerType(8), [float(s) for s in w_scales], [0] * len(w_scales),
        axis=0 if per_channel else -1, storage_range=(-127, 127),
    )  # fmt: skip
    input_q = UniformQuantType(IntegerType(8), [x_scale], [0])
    values, _ = quantized_bias(bias, input_q, filter_q)

    graph = torch.fx.Graph()

    def node(name, value):
        n = graph.placeholder(name)
        n.meta["val"] = value
        return n

    def params(of, scale, zp, per_channel_, dtype=torch.int8):
        return QuantParams(per_channel_, of, scale, zp, 0, dtype, 127, -127, False, False)

    if per_channel:
        w_scale, w_zp = w_scales, torch.zeros(channels, dtype=torch.int64)
    else:
        w_scale, w_zp = float(w_scales[0]), 0
    weight = params(node("w", torch.zeros(channels, 1)), w_scale, w_zp, per_channel)
    x = params(node("x", torch.zeros(1, 1)), x_scale, 0, False)
    stock = QuantParams.from_bias(node("b", bias), weight, x).quantize_tensor(bias)
    assert torch.equal(values, stock.to(torch.int32))
    f64 = torch.round(bias.double() / exact).to(torch.int32)
    assert not torch.equal(values, f64)  # the cases do reach where the two roundings part
