"""fp16 precision (`xnnc.compile(..., fp16="auto" | "native" | "fp32")`, `xnn-fp16-precision`):
what "auto" resolves to, the option's errors, the IR each mode gives, and numerics of both
targets (extended runtime, stock .pte) against torch eager of the fp16 model and of its fp32
twin (the same weights in fp32, its `.half()` casts made no-ops).

Tolerances, relative to the largest output magnitude:
- fp32 mode vs the fp32 model: both compute in fp32 from the same weights (fp16 weights are
  exact in fp32), differing only in summation order and fused epilogues, ~1e-7 per layer
  (measured 2e-7 on the MI-GAN-style net): 1e-4.
- any mode vs the fp16 model, and native vs the fp32 model: fp16 has an 11-bit significand
  (unit roundoff u = 2^-11 ~ 4.9e-4). Eager fp16 rounds every layer's output to fp16, the native
  kernels round at other points (XNNPACK accumulates in fp32 and fuses bias/activations), fp32
  mode rounds only at the boundary; each of the ~25 layers in depth of the small net adds up to
  ~1 u, which accumulates like a random walk (~5 u = 2.5e-3) and at worst linearly (~25 u =
  1.2e-2): 1e-2. Measured: 1.3e-3 (native vs fp16 eager), 8e-4 (fp32 mode vs fp16 eager).
"""

from __future__ import annotations

import copy
import platform

import pytest
import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

import xnnc
from xnnc.backend_xnnpack.runtime import capi
from xnnc.cost import rules
from xnnc.cost.decision import decisions
from xnnc.dialects import xnn
from xnnc.errors import OptionError
from xnnc.legalize.fp16_precision import Fp16PrecisionPass
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.stages import default_passes
from xnnc.pte import StockRuntime, XnncPartitioner
from xnnc.target import Target

FP32_RTOL = 1e-4
FP16_RTOL = 1e-2
MOVING = ("xnn.convert", "xnn.static_transpose", "xnn.static_reshape")  # no arithmetic


class _Fp32Casts(TorchFunctionMode):
    """Runs a model's `.half()` casts as `.float()`: its fp32 twin's forward."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.half:
            return args[0].float()
        return func(*args, **(kwargs or {}))


def fp32_twin(model: nn.Module, inputs: tuple) -> tuple[tuple, tuple]:
    """(the model's outputs computed in fp32 from the same weights, the model's output dtypes)."""
    with torch.no_grad():
        want = _as_tuple(model(*inputs))
        with _Fp32Casts():
            got = _as_tuple(copy.deepcopy(model).float()(*(x.float() for x in inputs)))
    return tuple(g.float() for g in got), tuple(w.dtype for w in want)


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _rel_err(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()


def _check(got, model: nn.Module, inputs: tuple, mode: str) -> None:
    """Outputs keep the model's dtypes; fp32 mode is the fp32 model's numbers, every mode is
    within fp16 tolerance of the fp16 model."""
    got = _as_tuple(got)
    with torch.no_grad():
        eager = _as_tuple(model(*inputs))
    twin, dtypes = fp32_twin(model, inputs)
    assert [g.dtype for g in got] == list(dtypes)
    for g, e, t in zip(got, eager, twin, strict=True):
        assert _rel_err(g, e) < FP16_RTOL
        if mode == "fp32" and g.dtype == torch.float32:
            assert _rel_err(g, t) < FP32_RTOL
        elif mode == "fp32":  # rounded to fp16 once, at the output
            assert _rel_err(g, t.half()) < 2**-11
        else:
            assert _rel_err(g, t) < FP16_RTOL


def _element_types(program) -> dict[str, set[str]]:
    """op name -> the element types of its results, inside subgraphs."""
    types: dict[str, set[str]] = {}
    for op in program.module.walk():
        if op.name.startswith("xnn.") and not isinstance(op, xnn.SubgraphOp) and op.results:
            types.setdefault(op.name, set()).add(str(op.results[0].type.element_type))
    return types


# --- "auto" and the option's values ----------------------------------------------------------


def test_auto_follows_the_target() -> None:
    """ "auto" is "native" where the target has fp16 arithmetic; the host target agrees with
    XNNPACK's own check on this machine."""
    native = capi.f16_native_supported()
    assert isinstance(native, bool)
    if platform.machine() in ("x86_64", "AMD64"):
        assert not native  # XNNPACK 92a7ad50 has no x86 fp16 path, even with avx512fp16
    assert (rules.fp16_native(Target.host()).choice == "native") == native
    expected = "native" if native else "fp32"
    assert CompileOptions(fp16="auto").resolved_fp16() == expected
    assert XnncPartitioner(fp16="auto").options.resolved_fp16() == expected
    model, inputs = nn.Linear(4, 4).half(), (torch.randn(2, 4).half(),)
    assert xnnc.compile(model, inputs).options.resolved_fp16() == expected


@pytest.mark.parametrize(
    ("target", "mode"),
    [("x86-64-avx2", "fp32"), ("x86-64-avx512fp16", "fp32"), ("arm64-fp16-dotprod", "native"),
     ("arm64", "fp32")],
)  # fmt: skip
def test_auto_on_target_presets(target: str, mode: str) -> None:
    assert CompileOptions(target=target, fp16="auto").resolved_fp16() == mode
    assert CompileOptions(target=target, fp16="native").resolved_fp16() == "native"


def test_bad_option_values() -> None:
    model, inputs = nn.Linear(4, 4), (torch.randn(2, 4),)
    with pytest.raises(OptionError, match="fp16: unknown mode 'fp8'; valid: auto, native, fp32"):
        xnnc.compile(model, inputs, fp16="fp8")
    with pytest.raises(OptionError, match="valid: auto, native, fp32"):
        XnncPartitioner(fp16="half")
    with pytest.raises(OptionError, match="unknown mode 'bf16'; expected one of auto, native"):
        Fp16PrecisionPass(mode="bf16")


def test_pipeline_order() -> None:
    """After conversion, before the rewrites (type legalization)."""
    names = [p.name for p in default_passes(fp16="fp32", tune=False)]
    i = names.index("xnn-fp16-precision")
    assert names[i - 1] == "convert-aten-to-xnn" and names[i + 1] == "xnn-legalize-casts"
    tuned = [p.name for p in default_passes(fp16="fp32", tune="auto")]  # host: xnn-tune first
    assert tuned[i : i + 3] == ["xnn-fp16-precision", "xnn-tune", "xnn-legalize-casts"]


# --- small models ----------------------------------------------------------------------------


class ConvBlock(nn.Module):
    """fp16 in, fp16 out: conv, leaky relu, a residual add and a sigmoid."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.act = nn.LeakyReLU(0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.act(self.conv(x)) + x)


class Casts(nn.Module):
    """fp32 in; an fp16 section between casts the user wrote; one fp32 and one fp16 output."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(3, 8, 1)
        self.b = nn.Conv2d(8, 8, 3, padding=1).half()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.b(self.a(x).half())
        return torch.tanh(h).float() * 2, h * 0.5


SMALL = {
    "conv_block_fp16_io": (lambda: ConvBlock().half(), lambda: torch.randn(1, 4, 8, 8).half()),
    "user_casts": (Casts, lambda: torch.randn(1, 3, 8, 8)),
}


@pytest.mark.parametrize("mode", ["native", "fp32"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_model(name: str, mode: str) -> None:
    torch.manual_seed(0)
    make_model, make_input = SMALL[name]
    model, inputs = make_model().eval(), (make_input(),)
    program = xnnc.compile(model, inputs, fp16=mode)
    assert program.num_partitions == 1 and program.ops_outside() == []
    _check(program(*inputs), model, inputs, mode)
    types = _element_types(program)
    converts = [op for op in program.module.walk() if isinstance(op, xnn.ConvertOp)]
    if mode == "native":
        assert "f16" in types["xnn.convolution_2d"]
        return
    # Every node computes in fp32; fp16 is left to the boundary: the fp16 input's convert, the
    # fp16 output's, and the layout pass's NHWC -> NCHW transpose after it.
    computing = {op: t for op, t in types.items() if op not in MOVING}
    assert all(t == {"f32"} for t in computing.values()), types
    assert len(converts) == 1 + (name == "conv_block_fp16_io")


def test_passthrough_fp16_input_stays_fp16() -> None:
    class Both(nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return x * 3, y + 1

    inputs = (torch.randn(8).half(), torch.randn(8))
    program = xnnc.compile(Both(), inputs, fp16="fp32")
    got = program(*inputs)
    assert got[0].dtype == torch.float16 and got[1].dtype == torch.float32
    torch.testing.assert_close(got[0], (inputs[0].float() * 3).half())


class Frames(nn.Module):
    """An fp16 Conv1d -> ReLU -> Linear over a frame count: the dynamic-shapes case."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)
        self.fc = nn.Linear(8, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.conv(x)).transpose(1, 2))


@pytest.mark.parametrize(("target", "mode"), [("x86-64-avx512fp16", "fp32"), ("host", None)])
def test_auto_on_a_symbolic_size_decides_the_region_by_the_rule(target: str, mode) -> None:
    """The fp16 rule reads the target only: a region of symbolic sizes is decided as a whole,
    as a static one (it was "native" per layer, with converts between the layers)."""
    torch.manual_seed(0)
    model = Frames().half().eval()
    frames = torch.export.Dim("T", min=4, max=64)
    x = torch.randn(1, 4, 16).half()
    mode = mode or rules.fp16_native(Target.host()).choice
    program = xnnc.compile(
        model, (x,), target=f"extended,{target}", tune=False, dynamic_shapes=({2: frames},)
    )
    found = [d for _, d in decisions(program.module) if d.form == "fp16-compute"]
    assert len(found) == 2
    assert all(d.choice == mode and d.layer.startswith("fp16 region of 2 layers") for d in found)
    converts = [op for op in program.module.walk() if isinstance(op, xnn.ConvertOp)]
    assert len(converts) == (2 if mode == "fp32" else 0)  # the subgraph's boundary only
    for t in (4, 13, 64):
        inputs = (torch.randn(1, 4, t).half(),)
        _check(program(*inputs), model, inputs, mode)


# --- the MI-GAN-style fp16 net, both targets -------------------------------------------------


@pytest.mark.parametrize("mode", ["native", "fp32"])
def test_convnet_extended(zoo, mode: str) -> None:
    model, inputs = zoo.example("fp16_convnet")
    program = zoo.compiled("fp16_convnet", fp16=mode)
    assert program.num_partitions == 1 and program.ops_outside() == []
    _check(program(*inputs), model, inputs, mode)
    types = _element_types(program)
    # xnn-polyphase still turns the depthwise deconvolutions into convs + depth-to-space.
    assert "xnn.deconvolution_2d" not in types and "xnn.depth_to_space_2d" in types
    if mode == "fp32":
        assert all(t == {"f32"} for t in types.values()), types
    else:
        assert types["xnn.depthwise_convolution_2d"] == {"f16"}


@pytest.mark.parametrize("mode", ["native", "fp32"])
def test_convnet_stock_pte(zoo, mode: str) -> None:
    model, inputs = zoo.example("fp16_convnet")
    got = StockRuntime(zoo.pte("fp16_convnet", fp16=mode))(*inputs)
    _check(got[0], model, inputs, mode)
