"""Dynamic shapes (docs/dynamic-shapes.md): symbolic sizes in the IR, their import, and
programs compiled once that run at any size in range on the extended runtime.

Tolerance: fp32 throughout, atol 1e-5 against eager. The models sum at most 40 products of
O(1) values per output; XNNPACK and ATen differ only in summation order and FMA use
(observed max error 3.6e-7), so 1e-5 is ~30x the observed error and still fails on any
wrong tap, offset or shape."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import xnnc
from xnnc.backend_xnnpack.dims import DimError, DimExpr, NotAffine, bind_dims
from xnnc.backend_xnnpack.runtime.runtime import SHAPES_KEPT
from xnnc.dialects import xnn
from xnnc.errors import InputError, ModelImportError, XnncError

ATOL = 1e-5
SIZES = (1, 7, 13, 40, 64)
T = DimExpr.symbol("T")


# --- DimExpr -------------------------------------------------------------------------------


def test_dim_expr_arithmetic_prints_and_parses_back() -> None:
    cases = {2 * T + 1: "2*T + 1", T - 1: "T - 1", 3 - T: "-T + 3", (4 * T + 6) // 2: "2*T + 3"}
    for expr, text in cases.items():
        assert str(expr) == text
        assert DimExpr.parse(text) == expr
    assert T - T == 0 and isinstance(T - T, int)
    assert DimExpr.parse("T + U - 4") == T + DimExpr.symbol("U") - 4


def test_dim_expr_rejects_what_is_not_affine() -> None:
    with pytest.raises(NotAffine, match=r"\(T\) \* \(T\) is not affine"):
        T * T
    with pytest.raises(NotAffine, match=r"\(T - 1\) // 2 is not affine"):
        (T - 1) // 2
    with pytest.raises(ValueError, match="'2T' is not an affine dim expression"):
        DimExpr.parse("2T")


def test_dim_expr_bounds_and_comparisons() -> None:
    assert (2 * T + 1).bounds({"T": (1, 32)}) == (3, 65)
    assert (10 - T).bounds({"T": (1, 8)}) == (2, 9)
    assert not T < 1 and T + 2 > 2 and min(1, T) == 1  # true for every size >= 1
    with pytest.raises(NotAffine, match="whether T < 3 depends on the size"):
        _ = T < 3


def test_bind_dims_names_input_dim_value_and_range() -> None:
    specs, ranges, names = [[1, 4, T], [1, 4, 2 * T + 1]], {"T": (1, 32)}, ["'x'", "'y'"]
    assert bind_dims(specs, ranges, [(1, 4, 13), (1, 4, 27)], names) == {"T": 13}
    bad = {
        ((1, 4, 33), (1, 4, 67)): "input 'x' dim 2 is 33; allowed: T in [1, 32]",
        ((1, 4, 13), (1, 4, 28)): "input 'y' dim 2 is 28; allowed: 2*T + 1 = 27 with T = 13 "
        "(from 'x' dim 2)",
        ((1, 5, 13), (1, 4, 27)): "input 'x' dim 1 is 5; allowed: 4",
        ((1, 4, 13), (1, 4)): "input 'y' has 2 dims; expected 3",
    }
    for shapes, message in bad.items():
        with pytest.raises(DimError) as e:
            bind_dims(specs, ranges, shapes, names)
        assert str(e.value) == message


# --- models --------------------------------------------------------------------------------


class AudioConv(torch.nn.Module):
    """Conv1d layers that keep the frame count, a skip, and a concatenate on channels."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv1d(4, 16, 3, padding=1)
        self.c2 = torch.nn.Conv1d(16, 16, 5, padding=2)
        self.skip = torch.nn.Conv1d(4, 16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.c1(x))
        y = torch.tanh(self.c2(y)) + self.skip(x)
        return torch.cat([y, x], dim=1)


class Mlp(torch.nn.Module):
    """Linear layers over a sequence, with a residual."""

    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2(torch.nn.functional.gelu(self.l1(x))) + x


class Upsampler(torch.nn.Module):
    """A strided transposed conv: frames -> stride * (frames - 1) + kernel - 2 * padding."""

    def __init__(self, padding: int = 0, kernel: int = 4, stride: int = 2) -> None:
        super().__init__()
        self.up = torch.nn.ConvTranspose1d(8, 4, kernel, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.up(x))


class TwoRates(torch.nn.Module):
    """Inputs of T and 2*T + 1 frames (a derived dim)."""

    def __init__(self) -> None:
        super().__init__()
        self.down = torch.nn.Conv1d(4, 4, 2)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, x], dim=2) + self.down(y)


def _frames() -> Dim:
    return Dim("T", min=1, max=64)


@pytest.fixture(scope="module")
def audio() -> tuple[torch.nn.Module, xnnc.Program]:
    torch.manual_seed(0)
    model = AudioConv().eval()
    dims = {"x": {2: _frames()}}
    return model, xnnc.compile(model, (torch.randn(1, 4, 13),), dynamic_shapes=dims)


@pytest.fixture(scope="module")
def mlp() -> tuple[torch.nn.Module, xnnc.Program]:
    torch.manual_seed(1)
    model = Mlp().eval()
    dims = {"x": {1: _frames()}}
    return model, xnnc.compile(model, (torch.randn(1, 13, 16),), dynamic_shapes=dims)


def test_audio_imports_with_symbolic_frames(audio) -> None:
    _, program = audio
    text = xnnc.print_module(program.module)
    assert "xnnc.symbols = #xnnc.symbols<T = [1, 64]>" in text
    assert '%x: tensor<1x4x?xf32, #xnnc.dims<"T">>' in text
    assert program.num_partitions == 1 and program.ops_outside() == []


@pytest.mark.parametrize("which", ["audio", "mlp"])
def test_numerics_at_every_size_compiled_once(which, audio, mlp) -> None:
    model, program = {"audio": audio, "mlp": mlp}[which]
    axis = 2 if which == "audio" else 1
    for size in SIZES:
        shape = [1, 4, size] if which == "audio" else [1, size, 16]
        x = torch.randn(*shape)
        y = program(x)
        assert y.shape[axis] == size
        torch.testing.assert_close(y, model(x), atol=ATOL, rtol=0)


def test_a_new_size_reshapes_once(mlp) -> None:
    model, program = mlp
    runtime = program.runtimes[program.subgraphs[0]]
    sizes = [5, 5, 9, 9, 9, 5, 64, 64]
    counts = []
    for size in sizes:
        program(torch.randn(1, size, 16))
        counts.append(runtime.reshapes)
    steps = [b - a for a, b in zip(counts, counts[1:])]
    assert steps == [0, 1, 0, 0, 1, 1, 0]


def test_alternating_sizes_reuse_what_each_reshape_computed(mlp) -> None:
    """A runtime keeps the output shapes, templates and copy buffers of its SHAPES_KEPT most
    recent input shapes: a size called again reuses them (XNNPACK alone reshapes), an
    evicted one computes them again, and each output is the model's at its own size."""
    model, program = mlp
    runtime = program.runtimes[program.subgraphs[0]]
    xs = {n: torch.randn(1, n, 16) for n in (3, 5, 7, 9, 11)}
    runtime(xs[3])
    io3 = runtime._io
    assert io3 is not None  # inputs and outputs this small are copied through buffers
    runtime(xs[5])
    runtime(xs[3])
    assert runtime._io is io3
    for n in (5, 7, 9, 11, 3, 11):
        (y,) = runtime(xs[n])
        assert y.shape == (1, n, 16)
        torch.testing.assert_close(y, model(xs[n]), atol=ATOL, rtol=0)
    assert [shapes[0][1] for shapes in runtime._by_shapes] == [7, 9, 3, 11]
    assert len(runtime._by_shapes) == SHAPES_KEPT
    runtime(xs[3])
    assert runtime._io is not io3  # evicted by 11 in the loop, then computed again


def test_out_of_range_input_is_one_line(audio) -> None:
    _, program = audio
    for size, message in ((65, "input 'x' dim 2 is 65; allowed: T in [1, 64]"),
                          (0, "input 'x' dim 2 is 0; allowed: T in [1, 64]")):  # fmt: skip
        with pytest.raises(XnncError) as e:
            program(torch.randn(1, 4, size))
        assert str(e.value) == message
    with pytest.raises(XnncError, match=r"^input 'x' dim 1 is 5; allowed: 4$"):
        program(torch.randn(1, 5, 8))


def test_the_runtime_checks_its_inputs_itself(audio) -> None:
    _, program = audio
    runtime = program.runtimes[program.subgraphs[0]]
    with pytest.raises(InputError, match=r"^input 0 dim 2 is 70; allowed: T in \[1, 64\]$"):
        runtime(torch.randn(1, 4, 70))
    assert runtime(torch.randn(1, 4, 3))[0].shape == (1, 20, 3)


def test_inputs_after_a_good_call_are_checked_and_reshaped_as_the_first(mlp) -> None:
    """A call at the shapes last accepted skips the range check and the reshape; a new size
    after it is checked and reshaped, and a bad input after it gets the first call's error,
    from the runtime and from the program."""
    model, program = mlp
    runtime = program.runtimes[program.subgraphs[0]]
    x5, x9 = torch.randn(1, 5, 16), torch.randn(1, 9, 16)
    runtime(x5)
    reshapes = runtime.reshapes
    runtime(x5)
    assert runtime.reshapes == reshapes
    (y9,) = runtime(x9)
    assert runtime.reshapes == reshapes + 1 and y9.shape == (1, 9, 16)
    torch.testing.assert_close(y9, model(x9), atol=ATOL, rtol=0)
    with pytest.raises(InputError, match=r"^input 0 dim 1 is 70; allowed: T in \[1, 64\]$"):
        runtime(torch.randn(1, 70, 16))
    with pytest.raises(ValueError, match=r"^input 0: expected float32 \[1, 64, 16\], got "
                       r"float64 \[1, 9, 16\]$"):  # fmt: skip
        runtime(x9.double())
    with pytest.raises(ValueError, match=r"^input 0: expected float32 \[1, 64, 16\], got "
                       r"float32 \[1, 9, 16\] on meta$"):  # fmt: skip
        runtime(x9.to("meta"))
    with pytest.raises(XnncError, match=r"^input 'x' dim 1 is 65; allowed: T in \[1, 64\]$"):
        program(torch.randn(1, 65, 16))
    strided = torch.randn(1, 16, 5).transpose(1, 2)  # a non-contiguous view at a known size
    torch.testing.assert_close(program(strided), model(strided), atol=ATOL, rtol=0)
    assert runtime.reshapes == reshapes + 2


def test_derived_dims_run_and_are_checked() -> None:
    torch.manual_seed(2)
    model = TwoRates().eval()
    t = Dim("T", min=1, max=32)
    program = xnnc.compile(model, (torch.randn(1, 4, 13), torch.randn(1, 4, 27)),
                           dynamic_shapes={"x": {2: t}, "y": {2: 2 * t + 1}})  # fmt: skip
    assert 'tensor<1x4x?xf32, #xnnc.dims<"2*T + 1">>' in xnnc.print_module(program.module)
    for size in (1, 7, 32):
        x, y = torch.randn(1, 4, size), torch.randn(1, 4, 2 * size + 1)
        torch.testing.assert_close(program(x, y), model(x, y), atol=ATOL, rtol=0)
    with pytest.raises(XnncError) as e:
        program(torch.randn(1, 4, 13), torch.randn(1, 4, 28))
    assert str(e.value) == (
        "input 'y' dim 2 is 28; allowed: 2*T + 1 = 27 with T = 13 (from 'x' dim 2)"
    )


@pytest.mark.parametrize("target", ["stock", "extended"])
@pytest.mark.parametrize(
    "kernel, stride, padding, stock_form",
    [(4, 2, 0, "polyphase"), (4, 2, 1, "per-phase"), (16, 8, 4, "per-phase"),
     (6, 3, 1, "deconvolution")],
)  # fmt: skip
def test_polyphase_where_its_form_follows_the_size(
    kernel, stride, padding, stock_form, target
) -> None:
    """Padding 0: the phases cover the output exactly (no slice), so the single convolution
    runs at every size. k = 2s with padding s/2 (DAC, HiFi-GAN) crops each end: its slice
    ends a fixed distance before the symbolic end, which the extended runtime's from-end
    slice writes (the single convolution) and the stock slice cannot: on stock, one
    convolution per run of output phases computes exactly its outputs. k6 s3 p1 gives
    3*T + 1 outputs, phases of unequal length: on stock neither form follows the size, and
    the deconvolution stays, saying why; the extended runtime crops the single
    convolution's 3*T + 3 outputs from the end."""
    torch.manual_seed(3)
    model = Upsampler(padding, kernel, stride).eval()
    program = xnnc.compile(model, (torch.randn(1, 8, 13),), tune=False, target=target,
                           dynamic_shapes={"x": {2: _frames()}})  # fmt: skip
    text = xnnc.print_module(program.module)
    form = stock_form if target == "stock" else "polyphase"
    assert program.num_partitions == 1 and program.ops_outside() == []
    if form == "deconvolution":
        assert "xnn.deconvolution_2d" in text
        assert '"xnn-polyphase" = "symbolic size T: the phases\' crop ends before' in text
        assert "per-phase convolutions need output phases of one length" in text
    else:
        assert "xnn.deconvolution_2d" not in text
        assert ("xnn.static_slice" in text) == (form == "polyphase" and padding > 0)
        choices = [d.choice for d in program.decisions() if d.form == "polyphase"]
        assert choices == [form]  # on the convolution over the phases, or per-phase's concat
    for size in SIZES:
        x = torch.randn(1, 8, size)
        y = program(x)
        assert y.shape == (1, 4, stride * (size - 1) + kernel - 2 * padding)
        torch.testing.assert_close(y, model(x), atol=ATOL, rtol=0)


def test_a_pt2_with_symbolic_sizes_compiles(tmp_path) -> None:
    torch.manual_seed(4)
    model = Mlp().eval()
    ep = torch.export.export(model, (torch.randn(1, 5, 16),),
                             dynamic_shapes={"x": {1: _frames()}}, strict=False)  # fmt: skip
    path = tmp_path / "mlp.pt2"
    torch.export.save(ep, path)
    program = xnnc.compile(str(path))
    for size in (2, 50):
        x = torch.randn(1, size, 16)
        torch.testing.assert_close(program(x), model(x), atol=ATOL, rtol=0)


def test_import_errors_are_one_line() -> None:
    unbounded = {"x": {1: Dim("S", min=2)}}
    with pytest.raises(ModelImportError, match=r"^node x: size s\d+ has no upper bound; give it"):
        xnnc.compile(Mlp().eval(), (torch.randn(1, 5, 16),), dynamic_shapes=unbounded)
    strided, frames = torch.nn.Conv1d(4, 4, 3, stride=2).eval(), Dim("T", min=8, max=64)
    with pytest.raises(ModelImportError, match=r"^node convolution: size .* is not affine"):
        xnnc.compile(strided, (torch.randn(1, 4, 13),), dynamic_shapes={"input": {2: frames}})


def test_stock_pte_runs_on_stock_executorch_over_the_range(audio, tmp_path, capsys) -> None:
    """The blob declares upper-bound dims and reshapes with an inferred 0, as stock
    ExecuTorch's own delegate does; its runtime reshapes from the input's shape.
    `StockRuntime` checks each input against what the `.pte` declares first: stock checks
    only that a bounded input's element count fits (a [1, 5, 13] input would pass)."""
    import numpy as np
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pipeline.options import CompileOptions
    from xnnc.pte import PteInputError, StockRuntime, XnncPartitioner, to_pte
    from xnnc.tools import xnn_run

    model, _ = audio
    ep = torch.export.export(model, (torch.randn(1, 4, 13),),
                             dynamic_shapes={"x": {2: _frames()}}, strict=False)  # fmt: skip
    stock = CompileOptions.of(None, target="stock")
    edge = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner(stock)])
    calls = [n for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    assert ["executorch_call_delegate" in str(n.target) for n in calls] == [True, False]  # getitem
    pte = to_pte(ep)
    run = StockRuntime(pte)
    for size in (1, 13, 40, 64):
        x = torch.randn(1, 4, size)
        (y,) = run(x)
        torch.testing.assert_close(y, model(x), atol=ATOL, rtol=0)
    for bad, message in [
        (torch.randn(1, 4, 65), "input 0 dim 2 is 65; allowed: at most 64 (the .pte's bound)"),
        (torch.randn(1, 5, 13), "input 0 dim 1 is 5; allowed: at most 4 (the .pte's bound)"),
        (torch.randn(4, 13), "input 0 has 2 dims; the .pte takes 3 (sizes [1, 4, 64])"),
        (torch.randn(1, 4, 13, dtype=torch.float64),
         "input 0 is torch.float64; the .pte takes torch.float32"),
    ]:  # fmt: skip
        with pytest.raises(PteInputError) as e:
            run(bad)
        assert str(e.value) == message
    with pytest.raises(PteInputError, match=r"^the .pte's forward takes 1 input\(s\); got 2$"):
        run(torch.randn(1, 4, 13), torch.randn(1, 4, 13))
    path = tmp_path / "audio.pte"
    path.write_bytes(pte)
    np.savez(tmp_path / "in.npz", x=np.random.randn(1, 4, 65).astype(np.float32))
    assert xnn_run.main([str(path), "--inputs", str(tmp_path / "in.npz")]) == 1
    err = capsys.readouterr().err.splitlines()  # after ExecuTorch's loader logs
    assert [line for line in err if line.startswith("xnn-run")] == [
        f"xnn-run: error: {path}: input 0 dim 2 is 65; allowed: at most 64 (the .pte's bound)"
    ]


class NormsOverFrames(torch.nn.Module):
    """PReLU (a slope per channel, one shared slope), LayerNorm over the features, and an
    attention-style `_safe_softmax` over T keys with fully masked rows, over T frames."""

    def __init__(self) -> None:
        super().__init__()
        self.per_channel = torch.nn.PReLU(8, init=0.1)
        self.shared = torch.nn.PReLU(init=0.3)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.norm((self.per_channel(x) + self.shared(x)).transpose(1, 2))
        scores = y @ y.transpose(1, 2) + mask
        return y, torch.ops.aten._safe_softmax(scores, -1)


STOCK_SAFE_SOFTMAX = (
    "_safe_softmax over T values in T rows: stock ExecuTorch has no reduce node, and its "
    "pooled per-row mean would need two symbolic dims"
)


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_prelu_layer_norm_and_safe_softmax_follow_the_size(target: str) -> None:
    """Lowered size-generic (they stayed outside on symbolic sizes): PReLU channels-last
    (the shared slope too, whose innermost dim T has no fixed slope count), LayerNorm over
    static features, and `_safe_softmax`, whose fully-masked-row test takes the share of
    finite values instead of a count against the row length T (on stock, T keys in T rows
    stay outside: the per-row mean has no stock form there)."""
    torch.manual_seed(8)
    model = NormsOverFrames().eval()
    frames = _frames()
    dims = {"x": {2: frames}, "mask": {0: frames, 1: frames}}
    x, mask = torch.randn(1, 8, 13), torch.zeros(13, 13)
    program = xnnc.compile(model, (x, mask), target=target, dynamic_shapes=dims, tune=False)
    reasons = [(o.op, o.reason) for o in program.outside()]
    assert reasons == ([] if target == "extended" else [("aten._safe_softmax", STOCK_SAFE_SOFTMAX)])
    for size in (1, 13, 64):
        x, mask = torch.randn(1, 8, size), torch.randn(size, size)
        mask[mask > 0.5] = -torch.inf
        mask[size // 2] = -torch.inf  # a fully masked row: 0, not NaN
        got, want = program(x, mask), model(x, mask)
        assert not got[1].isnan().any()
        torch.testing.assert_close(got, want, atol=ATOL, rtol=0)


class GatherRows(torch.nn.Module):
    """Rows gathered by a constant index (a decomposed replicate pad of H) over T frames."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("rows", torch.tensor([0, 0, 1, 2, 3, 3, 3]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[:, :, self.rows] * 2.0


@pytest.mark.parametrize("target", ["extended", "stock"])
def test_a_constant_index_of_a_static_dim_is_slices_at_any_size(target: str) -> None:
    """index-as-slices keeps the frames' T in its slices' types (it built a static type
    from the symbolic shape and failed to verify); the slices keep T whole."""
    torch.manual_seed(9)
    model = GatherRows().eval()
    dims = {"x": {3: _frames()}}
    program = xnnc.compile(model, (torch.randn(1, 2, 4, 13),), target=target,
                           dynamic_shapes=dims, tune=False)  # fmt: skip
    assert program.outside() == []
    for size in (1, 13, 64):
        x = torch.randn(1, 2, 4, size)
        torch.testing.assert_close(program(x), model(x), atol=ATOL, rtol=0)


class StockReductions(torch.nn.Module):
    """Over T frames: an expand of a static dim (a broadcast), a mean over the trailing T
    (global average pooling on stock), a sum over T (no stock form at a symbolic size)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        grown = x[:, :1, :].expand(2, 4, x.shape[2]) * 2.0
        return grown, torch.tanh(x).mean(dim=2, keepdim=True), (x * 3.0).sum(dim=2)


def test_stock_reductions_and_broadcasts_of_a_symbolic_size() -> None:
    """xnn-legalize-stock on symbolic sizes: the broadcast's zeros take 1 on T (they crashed
    building a [2, T, 8] constant), the mean pools T with one channel, and the sum over T,
    which no stock node computes at a symbolic size, stays outside with the reason (it
    crashed building its [1, T] filter). Both the program and the stock `.pte` run."""
    from xnnc.pte import StockRuntime, to_pte

    model = StockReductions().eval()
    dims = {"x": {2: _frames()}}
    x = torch.randn(1, 8, 13)
    program = xnnc.compile(model, (x,), target="stock", dynamic_shapes=dims, tune=False)
    (outside,) = program.outside()
    assert outside.op == "aten.sum" and outside.reason == (
        "a sum over the symbolic dim T: stock ExecuTorch has no reduce node, and its "
        "fully-connected and max-pooling forms have a fixed size"
    )
    ep = torch.export.export(model, (x,), dynamic_shapes=dims, strict=False)
    run = StockRuntime(to_pte(ep))
    # The sum adds up to 64 terms in another order than eager (on a copy XNNPACK wrote):
    # relative error up to 64 * 2^-24 ~ 4e-6 of its magnitude (~30), past ATOL alone.
    for size in (1, 13, 64):
        x = torch.randn(1, 8, size)
        for got in (program(x), run(x)):
            torch.testing.assert_close(tuple(got), model(x), atol=ATOL, rtol=4e-6)


class WideConv(torch.nn.Module):
    """A conv over 1024 channels. Torch's conv fake kernel selects a backend
    (`_select_conv_backend`: MKLDNN when `N*C*H*W > 20480`) and guards `1024*T <= 20480`
    at the example's 13 frames: recorded, the guard narrows T to at most 20."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv1d(1024, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def test_a_delegate_fake_run_keeps_the_range_and_a_narrowed_plan_is_one_line() -> None:
    """ExecuTorch's unmodified `to_executorch` fake-runs each delegate's original graph; for
    xnnc's delegates that run records no guard, so memory planning keeps the export's bound
    and the user's `XnncPartitioner` flow runs to 64 frames. Stock `XnnpackPartitioner`'s
    delegate still narrows T to 20 (ExecuTorch's own flow): `check_planned_bounds`, which
    `to_pte` runs on its program, says so in one line."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime, XnncPartitioner
    from xnnc.pte.export import check_planned_bounds

    torch.manual_seed(8)
    model, dims = WideConv().eval(), {"x": {2: _frames()}}
    ep = torch.export.export(model, (torch.randn(1, 1024, 13),), dynamic_shapes=dims)
    ranges = dict(ep.range_constraints)
    program = to_edge_transform_and_lower(ep, partitioner=[XnncPartitioner("stock")])
    program = program.to_executorch()
    check_planned_bounds(program.exported_program(), ranges)
    run = StockRuntime(program.buffer)
    for size in (1, 21, 64):
        x = torch.randn(1, 1024, size)
        # 3072 products per output (1e-4: the sums' fp32 rounding, summed in another order)
        torch.testing.assert_close(run(x)[0], model(x), atol=1e-4, rtol=1e-4)
    ep = torch.export.export(model, (torch.randn(1, 1024, 13),), dynamic_shapes=dims)
    ranges = dict(ep.range_constraints)
    stock = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    with pytest.raises(XnncError, match=(
        r"^to_pte: ExecuTorch planned input 'x' dim 2 for at most 20 but the export allows "
        r"64 \(its memory planning read a narrowed range\)$"
    )):  # fmt: skip
        check_planned_bounds(stock.exported_program(), ranges)


def test_xnn_run_takes_any_size_in_range(audio, tmp_path, capsys) -> None:
    import numpy as np

    from xnnc.tools import xnn_run

    model, _ = audio
    program = xnnc.compile(model, (torch.randn(1, 4, 13),), savable=True,
                           dynamic_shapes={"x": {2: _frames()}})  # fmt: skip
    program.save(str(tmp_path / "audio.xnnc"))
    for size, code in ((7, 0), (65, 1)):
        np.savez(tmp_path / "in.npz", x=np.random.randn(1, 4, size).astype(np.float32))
        assert (
            xnn_run.main([str(tmp_path / "audio.xnnc"), "--inputs", str(tmp_path / "in.npz")])
            == code
        )
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"xnn-run: error: {tmp_path / 'audio.xnnc'}: input 'x' dim 2 is 65; allowed: T in [1, 64]"
    ]


def test_xnnpack_facts_the_runtime_relies_on(mlp) -> None:
    """XNNPACK 92a7ad50 (the wheel's): after `xnn_reshape_runtime` an invoke without a new
    `xnn_setup_runtime_v2` fails (so `_reshape` forgets the pointers), and nothing bounds a
    reshape by the declared dims (so the runtime checks the ranges itself)."""
    from xnnc.backend_xnnpack.runtime import capi

    _, program = mlp
    runtime = program.runtimes[program.subgraphs[0]]
    runtime(torch.randn(1, 5, 16))
    lib, handle = runtime._lib, runtime._runtime
    assert lib.reshape_external_value(handle, 0, 3, capi.sizes([1, 9, 16])) == 0
    assert lib.reshape_runtime(handle) == 0
    assert capi.STATUS_NAMES[lib.invoke_runtime(handle)] == "xnn_status_invalid_state"
    assert lib.reshape_external_value(handle, 0, 3, capi.sizes([1, 200, 16])) == 0
    assert lib.reshape_runtime(handle) == 0  # 200 > the declared 64: accepted
    runtime._shapes = None  # the runtime's shapes no longer describe XNNPACK's
    x = torch.randn(1, 9, 16)
    torch.testing.assert_close(runtime(x)[0], program(x), atol=ATOL, rtol=0)


class Pooled(torch.nn.Module):
    """A linear layer, then reductions over the sequence: XNNPACK's reduce computes its
    count at reshape time."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.proj(x))
        return y.mean(dim=1) + x.sum(dim=1)[:, :8] + x.amax(dim=1)[:, 8:]


class LogProbs(torch.nn.Module):
    """log_softmax over the sequence (not lowered size-generic yet)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x * 2.0, dim=1)


def test_reductions_over_a_symbolic_dim_run_in_xnnpack() -> None:
    torch.manual_seed(5)
    model = Pooled().eval()
    program = xnnc.compile(model, (torch.randn(1, 5, 16),), dynamic_shapes={"x": {1: _frames()}})
    assert program.outside() == [] and program.num_partitions == 1
    for size in SIZES:
        x = torch.randn(1, size, 16)
        torch.testing.assert_close(program(x), model(x), atol=ATOL, rtol=0)


def test_ops_not_size_generic_stay_outside_and_say_why() -> None:
    model = LogProbs().eval()
    program = xnnc.compile(model, (torch.randn(1, 5, 16),), dynamic_shapes={"x": {1: _frames()}})
    (outside,) = program.outside()
    assert outside.op == "aten._log_softmax" and outside.reason == (
        'symbolic shape tensor<1x?x16xf32, #xnnc.dims<"T">>: aten._log_softmax is not lowered '
        "size-generic yet"
    )
    for size in (1, 40):
        x = torch.randn(1, size, 16)
        torch.testing.assert_close(program(x), model(x), atol=ATOL, rtol=0)


class CellLoop(torch.nn.Module):
    """An RNN cell unrolled over 3 steps of a [T, B, C] input, the batch B symbolic."""

    def __init__(self) -> None:
        super().__init__()
        self.ih = torch.nn.Linear(4, 8)
        self.hh = torch.nn.Linear(8, 8, bias=False)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        outs = []
        for t in range(x.shape[0]):
            h = torch.tanh(self.ih(x[t]) + self.hh(h))
            outs.append(h)
        return torch.stack(outs)


def test_a_symbolic_batch_keeps_the_hoisted_input_projection() -> None:
    """`x[t]` of a static step t selects in XNNPACK with B symbolic, and
    xnn-hoist-input-projection projects all steps at once: the slices keep B whole (size 0,
    "to the end"), so the hoisted form follows the size."""
    torch.manual_seed(6)
    model = CellLoop().eval()
    batch = Dim("B", min=1, max=16)
    x, h = torch.randn(3, 2, 4), torch.randn(2, 8)
    program = xnnc.compile(model, (x, h), dynamic_shapes=({1: batch}, {0: batch}), tune=False)
    assert program.outside() == [] and program.num_partitions == 1
    fcs = [op for op in program.module.walk() if isinstance(op, xnn.FullyConnectedOp)]
    assert [str(op.input.type) for op in fcs].count('tensor<3x?x4xf32, #xnnc.dims<"B">>') == 1
    assert len(fcs) == 4  # the hoisted projection and the 3 recurrent ones
    for b in (1, 5, 16):
        x, h = torch.randn(3, b, 4), torch.randn(b, 8)
        torch.testing.assert_close(program(x, h), model(x, h), atol=ATOL, rtol=0)


# --- the zoo's audio decoders ------------------------------------------------------------------
# Small variants (examples/models.py), compiled once for 1..64 frames. Tolerance: the zoo's
# static one (test_rewrites_small, test_constant_fold: fp32 atol = rtol = 1e-4); observed max
# error 8e-6 (DAC) over outputs of magnitude ~1, from summation order in ~25 stacked convs.
DECODER_TOL = dict(atol=1e-4, rtol=1e-4)
DECODERS = ("mimi", "dac", "hifigan")


def _decoder(name: str) -> tuple[torch.nn.Module, torch.Tensor, dict]:
    from xnnc.examples.models import MODELS

    model, (x,) = MODELS[name](small=True)
    arg = "latent" if name == "mimi" else "x"
    return model, x, {arg: {2: _frames()}}


@pytest.fixture(scope="module")
def decoders() -> dict[str, tuple[torch.nn.Module, xnnc.Program]]:
    compiled = {}
    for name in DECODERS:
        model, x, dims = _decoder(name)
        compiled[name] = model, xnnc.compile(model, (x,), dynamic_shapes=dims, tune=False)
    return compiled


@pytest.mark.parametrize("name", DECODERS)
def test_decoder_compiles_once_and_matches_eager_at_every_size(name, decoders) -> None:
    model, program = decoders[name]
    assert program.num_partitions == 1 and program.ops_outside() == []
    channels = {"mimi": 64, "dac": 64, "hifigan": 80}[name]
    rate = {"mimi": 1920, "dac": 512, "hifigan": 256}[name]
    for size in SIZES:
        x = torch.randn(1, channels, size)
        y = program(x)
        assert y.shape == (1, 1, rate * size)
        with torch.no_grad():
            torch.testing.assert_close(y, model(x), **DECODER_TOL)


@pytest.mark.parametrize("name", DECODERS)
def test_decoder_forms_at_symbolic_sizes(name, decoders) -> None:
    """No deconvolution left: Mimi's causal trims fold into the deconvolutions' padding and
    every upsampler runs as one convolution over its phases; DAC's and HiFi-GAN's symmetric
    crops (s/2 at each end) end a fixed distance before the symbolic end, which the
    extended runtime's from-end slice writes: one convolution and a crop each. Without
    conv-as-gemm, whose taps (on AVX2 hosts, its static rule) bring pads and slices of their
    own (its symbolic forms: test_conv_as_gemm.py)."""
    model, x, dims = _decoder(name)
    program = xnnc.compile(model, (x,), dynamic_shapes=dims, tune=False,
                           disable=("xnn-conv-as-gemm",))  # fmt: skip
    text = xnnc.print_module(program.module)
    assert "xnn.deconvolution_2d" not in text and "xnn.declined" not in text
    choices = [d.choice for d in program.decisions() if d.form == "polyphase"]
    if name == "mimi":
        assert "xnn.static_constant_pad" not in text  # folded into the convs
        assert "xnn.static_slice" not in text
    # Mimi: its frame-rate upsample too (depthwise), beside the decoder's four
    assert choices == ["polyphase"] * (5 if name == "mimi" else 4)
    if name != "mimi":
        crops = [op for op in program.module.walk() if op.name == "xnn.static_slice"]
        assert len(crops) == 4 and all(
            min(op.properties["sizes"].get_values()) <= 0 for op in crops
        )  # each ends before the symbolic end


@pytest.mark.parametrize("name", ["dac", "hifigan"])
def test_decoder_forms_on_stock_at_symbolic_sizes(name) -> None:
    """The stock slice node takes absolute offsets only: DAC's and HiFi-GAN's four dense
    upsamplers run as per-phase convolutions there, which the decisions say, and match
    eager."""
    model, x, dims = _decoder(name)
    program = xnnc.compile(model, (x,), dynamic_shapes=dims, tune=False, target="stock")
    text = xnnc.print_module(program.module)
    assert "xnn.deconvolution_2d" not in text and "xnn.static_slice" not in text
    choices = [d.choice for d in program.decisions() if d.form == "polyphase"]
    assert choices == ["per-phase"] * 4
    assert all("symbolic size T: the single convolution's crop would end" in d.why
               for d in program.decisions() if d.form == "polyphase")  # fmt: skip
    for size in (1, 13, 64):
        x = torch.randn(1, x.shape[1], size)
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), **DECODER_TOL)


def test_a_static_decoder_keeps_the_single_convolution_and_its_crop() -> None:
    """The per-phase form is for symbolic sizes: a static DAC compile (static rules) keeps
    one convolution over all phases per upsampler, cropped by a slice."""
    model, x, _ = _decoder("dac")
    program = xnnc.compile(model, (x,), tune=False)
    choices = [d.choice for d in program.decisions() if d.form == "polyphase"]
    assert choices == ["polyphase"] * 4
    assert xnnc.print_module(program.module).count("xnn.static_slice") >= 4


def test_decoder_out_of_range_is_one_line(decoders) -> None:
    _, program = decoders["mimi"]
    with pytest.raises(XnncError) as e:
        program(torch.randn(1, 64, 65))
    assert str(e.value) == "input 'latent' dim 2 is 65; allowed: T in [1, 64]"


@pytest.mark.parametrize("name", DECODERS)
def test_decoder_pte_runs_on_stock_executorch_over_its_whole_range(name, tmp_path) -> None:
    """Fully delegated, at 1..64 frames: the delegate's fake run in `to_executorch` no
    longer narrows T (Mimi small was planned for 20 frames), so memory planning sizes the
    input for 64 (docs/dynamic-shapes.md, "Stock `.pte` over the whole range"). DAC goes
    through `write_pte` (`Program.save("m.pte")`'s path), the others through `to_pte`."""
    from xnnc.pte import PteInputError, StockRuntime, to_pte, write_pte

    model, x, dims = _decoder(name)
    if name == "dac":
        write_pte(str(tmp_path / "dac.pte"), model, (x,), dynamic_shapes=dims, tune=False)
        run = StockRuntime((tmp_path / "dac.pte").read_bytes())
    else:
        run = StockRuntime(to_pte(model, (x,), dynamic_shapes=dims, tune=False))
    channels = x.shape[1]
    for size in (1, 13, 40, 64):
        latent = torch.randn(1, channels, size)
        (y,) = run(latent)
        with torch.no_grad():
            torch.testing.assert_close(y, model(latent), **DECODER_TOL)
    with pytest.raises(PteInputError, match=r"^input 0 dim 2 is 65; allowed: at most 64 "):
        run(torch.randn(1, channels, 65))


class Trims(torch.nn.Module):
    """A slice of the frames from `start` to `end` after a convolution."""

    def __init__(self, start: int, end: int | None) -> None:
        super().__init__()
        self.conv, self.start, self.end = torch.nn.Conv1d(4, 4, 3, padding=1), start, end

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        return torch.tanh(y[..., self.start : self.end])


def test_a_slice_to_the_end_of_a_symbolic_dim_follows_the_size() -> None:
    """XNNPACK 92a7ad50 (src/subgraph/static-slice.c) clamps a slice's end to the dim at each
    reshape, so `x[..., 2:]` is offset 2, size UINT32_MAX - 2 in the stock table and runs at
    every size, on the extended runtime and on stock ExecuTorch."""
    from xnnc.pte import StockRuntime, to_pte

    torch.manual_seed(6)
    # min 4: torch.export refuses a range where the sliced length could be 1 (0/1 specialization)
    model, dims = Trims(2, None).eval(), {"x": {2: Dim("T", min=4, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, 4, 13),), dynamic_shapes=dims)
    assert program.num_partitions == 1 and program.ops_outside() == []
    assert re.search(
        r"xnn.static_slice .*sizes = array<i64: 1, 1, 0, 4>", xnnc.print_module(program.module)
    )
    stock = StockRuntime(to_pte(model, (torch.randn(1, 4, 13),), dynamic_shapes=dims))
    for size in (4, 13, 64):
        x = torch.randn(1, 4, size)
        torch.testing.assert_close(program(x), model(x), atol=ATOL, rtol=0)
        torch.testing.assert_close(stock(x)[0], model(x), atol=ATOL, rtol=0)


@pytest.mark.parametrize(
    ("start", "end", "slice_", "reason"),
    [
        (2, -1, "offsets = array<i64: 0, 0, 2, 0>, sizes = array<i64: 1, 1, -1, 4>",
         "a slice ending 1 before the end of the symbolic dim T: XNNPACK's stock slice node "
         "takes absolute sizes (only a transposed convolution's trim folds)"),
        (-3, None, "offsets = array<i64: 0, 0, -3, 0>, sizes = array<i64: 1, 1, 3, 4>",
         "a slice starting 3 before the end of the symbolic dim T: XNNPACK's stock slice node "
         "takes absolute offsets"),
        (-3, -1, "offsets = array<i64: 0, 0, -3, 0>, sizes = array<i64: 1, 1, 2, 4>",
         "a slice ending 1 before the end of the symbolic dim T: XNNPACK's stock slice node "
         "takes absolute sizes (only a transposed convolution's trim folds)"),
    ],
)  # fmt: skip
def test_a_slice_counted_from_a_symbolic_end_runs_on_the_extended_runtime(
    start, end, slice_, reason
) -> None:
    """The extended runtime's XNNStaticSliceV3 takes XNNPACK v3's begins/ends counted from
    the end, resolved at each reshape; stock's XNNStaticSlice (unsigned) cannot: there the
    slice stays outside and says why."""
    torch.manual_seed(7)
    model, dims = Trims(start, end).eval(), {"x": {2: Dim("T", min=5, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, 4, 13),), dynamic_shapes=dims)
    assert program.num_partitions == 1 and program.ops_outside() == []
    assert slice_ in xnnc.print_module(program.module)
    stock = xnnc.compile(model, (torch.randn(1, 4, 13),), dynamic_shapes=dims, target="stock")
    (outside,) = stock.outside()
    assert outside.op == "aten.slice" and outside.reason == reason
    for size in (5, 13, 40, 64):
        x = torch.randn(1, 4, size)
        torch.testing.assert_close(program(x), model(x), atol=ATOL, rtol=0)
        torch.testing.assert_close(stock(x), model(x), atol=ATOL, rtol=0)


# --- reflect and replicate pads of a symbolic dim -------------------------------------------

FROM_THE_END = re.compile(r"xnn.static_slice [^\n]*offsets = array<i64: [^>]*-\d")


class Padded(torch.nn.Module):
    """A pad alone, then a scale (so the pad's result is not the program's input)."""

    def __init__(self, pad: torch.nn.Module) -> None:
        super().__init__()
        self.pad = pad

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pad(x * 2.0)


PADS = {
    "reflect1d-3-3": (torch.nn.ReflectionPad1d((3, 3)), 1),
    "reflect1d-2-0": (torch.nn.ReflectionPad1d((2, 0)), 1),
    "reflect1d-0-2": (torch.nn.ReflectionPad1d((0, 2)), 1),
    "replicate1d-1-3": (torch.nn.ReplicationPad1d((1, 3)), 1),
    "replicate1d-0-4": (torch.nn.ReplicationPad1d((0, 4)), 1),
    "reflect2d": (torch.nn.ReflectionPad2d((1, 2, 3, 0)), 2),
    "replicate2d": (torch.nn.ReplicationPad2d((2, 1, 0, 3)), 2),
}
SIZES_2D = ((4, 4), (7, 13), (32, 5), (19, 32))


@pytest.mark.parametrize("name", PADS)
def test_reflect_and_replicate_pads_of_a_symbolic_dim_run_in_xnnpack(name: str) -> None:
    """Exact: a pad copies values (slices and a concatenate), so any wrong element differs.
    2-D pads have symbolic height and width."""
    pad, spatial = PADS[name]
    model = Padded(pad).eval()
    torch.manual_seed(8)
    if spatial == 1:
        dims = {"x": {2: Dim("T", min=4, max=64)}}
        example, sizes = torch.randn(1, 3, 13), [(n,) for n in (4, 7, 13, 40, 64)]
    else:
        dims = {"x": {2: Dim("H", min=4, max=32), 3: Dim("W", min=4, max=32)}}
        example, sizes = torch.randn(1, 3, 9, 11), SIZES_2D
    program = xnnc.compile(model, (example,), dynamic_shapes=dims)
    assert program.num_partitions == 1 and program.ops_outside() == []
    text = xnnc.print_module(program.module)
    assert "xnn.concatenate" in text
    # A right (far-end) pad reads pieces counted from the end; a left-only pad needs none.
    assert bool(FROM_THE_END.search(text)) == any(pad.padding[1::2])
    for size in sizes:
        x = torch.randn(1, 3, *size)
        torch.testing.assert_close(program(x), model(x), atol=0, rtol=0)


def test_a_pad_of_a_symbolic_dim_stays_outside_on_the_stock_target() -> None:
    model = Padded(torch.nn.ReflectionPad1d((3, 3))).eval()
    dims = {"x": {2: Dim("T", min=4, max=64)}}
    program = xnnc.compile(model, (torch.randn(1, 3, 13),), dynamic_shapes=dims, target="stock")
    (outside,) = program.outside()
    assert outside.op == "aten.reflection_pad1d" and outside.reason == (
        "a pad of the symbolic dim T: its pieces at the end start a fixed distance before it, "
        "which XNNPACK's stock slice node (absolute offsets) cannot write; the extended "
        "runtime's can"
    )
    x = torch.randn(1, 3, 40)
    torch.testing.assert_close(program(x), model(x), atol=0, rtol=0)


# --- LLaMA-style bf16 block, dynamic sequence length ----------------------------------------

needs_native_bf16_gemm = pytest.mark.skipif(
    not xnnc.Target.host().bf16_gemm, reason="XNNPACK's bf16 GEMM needs an AVX512-BF16 CPU"
)


@pytest.fixture(scope="module")
def llama():
    """The small bf16 block with a 1024-row causal mask (its context), compiled for S in
    1..512, the issue's range (torch.export allows S below the mask's rows: slicing
    mask[:S] guards S != 1024)."""
    from xnnc.examples.models import TransformerBlockBF16, randomize_norms

    torch.manual_seed(0)
    model = TransformerBlockBF16(64, 4, 192, seq_len=1024)
    randomize_norms(model)
    model.eval()
    dims = {"x": {1: Dim("S", min=1, max=512)}}
    x = torch.randn(1, 7, 64, dtype=torch.bfloat16)
    return model, xnnc.compile(model, (x,), dynamic_shapes=dims, profile=True)


def test_llama_block_compiles_once_and_matches_bf16_eager(llama) -> None:
    """Tolerance 3e-2 as the static bf16 block's (test_backend): bf16's 8-bit mantissa over
    a few roundings."""
    model, program = llama
    assert program.num_partitions == 1
    # The mask slice mask[:S, :S] has no XNNPACK form (its size comes from another input);
    # it stays outside, computed from the constant once per size.
    assert [o.op for o in program.outside()] == ["aten.slice", "aten.slice"]
    for size in (1, 7, 64, 512, 1):
        x = torch.randn(1, size, 64, dtype=torch.bfloat16)
        y = program(x)
        # One step, the subgraph; the mask slices cached per size (the last 4 kept).
        assert len(program._plan.steps) == 1 and len(program._plan.cached_ops) == 2
        assert len(program._plan.cache) <= program._plan.KEPT
        assert y.shape == (1, size, 64)
        torch.testing.assert_close(y, model(x), atol=3e-2, rtol=3e-2)


def test_llama_block_ir_is_size_generic(llama) -> None:
    _, program = llama
    text = xnnc.print_module(program.module)
    # torch.matmul's view -> bmm -> view is one N-D batch matmul: no reshape of [4, S, S].
    assert "aten.bmm" not in text and text.count("xnn.batch_matrix_multiply") == 2
    assert 'tensor<1x4x?x?xf32, #xnnc.dims<"S", "S">>' in text  # softmax over the keys
    reshapes = [line for line in text.splitlines() if "xnn.static_reshape" in line]
    assert reshapes and all("new_shape = array<i64: 1, 0," in line for line in reshapes)


@needs_native_bf16_gemm
def test_llama_decode_runs_native_bf16_gemms_at_every_size(llama) -> None:
    """bf16 GEMMs with a symbolic M take the smallest size's form (decode, M = 1: native by
    the static rule on an AVX512-BF16 CPU; the tuner may pick fp32 per layer, so the static
    rules here), recorded with why; the split runtime reshapes its operators per size."""
    model, _ = llama
    x7, dims = torch.randn(1, 7, 64, dtype=torch.bfloat16), {"x": {1: Dim("S", min=1, max=512)}}
    program = xnnc.compile(model, (x7,), tune=False, dynamic_shapes=dims, profile=True)
    assert len(program.decisions()) == 9  # 7 linear layers, 2 attention matmuls
    for d in program.decisions():
        assert d.choice == "native"
        assert d.why.startswith("symbolic size S: the form at the smallest size (S = 1): ")
    for size in (1, 9):
        x = torch.randn(1, size, 64, dtype=torch.bfloat16)
        torch.testing.assert_close(program(x), model(x), atol=3e-2, rtol=3e-2)
        names = {n.split(": ", 1)[1] for n, _ in program.profile()}
        assert {"Fully Connected (NC, BF16, F32) GEMM",
                "Batch Matrix Multiply (NC, BF16_F32) GEMM"} <= names  # fmt: skip


def test_llama_out_of_range_is_one_line(llama) -> None:
    _, program = llama
    with pytest.raises(XnncError) as e:
        program(torch.randn(1, 513, 64, dtype=torch.bfloat16))
    assert str(e.value) == "input 'x' dim 1 is 513; allowed: S in [1, 512]"


# --- conv nets with derived H and W ------------------------------------------------------------

CONV_TOL = dict(atol=1e-4, rtol=1e-4)  # the static compiles' (test_models_import)
IMAGE_SIZES = ((64, 64), (64, 128), (256, 192))


def test_strided_sizes_simplify_exactly_when_divisible() -> None:
    """A stride-2 conv (k 7, pad 3) on H = 32*h: (32*h - 1)//2 + 1 is 16*h for every h;
    on H = 3*h it depends on h's parity, which no affine expression says."""
    from xnnc.backend_xnnpack.shapes import conv_output_size

    h = DimExpr.symbol("h")
    assert conv_output_size(32 * h, 7, 2, 6, 1) == 16 * h
    assert conv_output_size(16 * h, 3, 2, 2, 1) == 8 * h
    with pytest.raises(NotAffine, match=r"^\(3\*h - 1\) // 2 is not affine"):
        conv_output_size(3 * h, 7, 2, 6, 1)


@pytest.fixture(scope="module", params=["resnet", "mobilenetv2"])
def convnet(request):
    """ResNet-18 and MobileNetV2 (small), H = 32*h and W = 32*w: export raises h and w to
    >= 2 (at 1 the last stage would be 1x1, which it specializes)."""
    from xnnc.examples import models

    model, (x,) = getattr(models, f"make_{request.param}")(small=True)
    h, w = Dim("h", min=1, max=8), Dim("w", min=1, max=8)
    dims = {"x": {2: 32 * h, 3: 32 * w}}
    return model, xnnc.compile(model, (x,), dynamic_shapes=dims, savable=True)


def test_conv_net_compiles_once_for_derived_sizes(convnet) -> None:
    model, program = convnet
    text = xnnc.print_module(program.module)
    assert "xnnc.symbols = #xnnc.symbols<h = [2, 8], w = [2, 8]>" in text
    assert 'tensor<1x3x?x?xf32, #xnnc.dims<"32*h", "32*w">>' in text
    assert program.num_partitions == 1 and program.outside() == []
    for height, width in IMAGE_SIZES:
        x = torch.randn(1, 3, height, width)
        torch.testing.assert_close(program(x), model(x), **CONV_TOL)


def test_conv_net_size_the_constraints_forbid_is_one_line(convnet, tmp_path, capsys) -> None:
    import numpy as np

    from xnnc.tools import xnn_run

    _, program = convnet
    message = "input 'x' dim 2 is 80; allowed: 32*h for h in [2, 8]"
    with pytest.raises(XnncError) as e:
        program(torch.randn(1, 3, 80, 64))
    assert str(e.value) == message
    with pytest.raises(XnncError, match=r"^input 'x' dim 3 is 288; allowed: 32\*w for w in "):
        program(torch.randn(1, 3, 64, 288))
    path = tmp_path / "net.xnnc"
    program.save(str(path))
    np.savez(tmp_path / "in.npz", x=np.random.randn(1, 3, 80, 64).astype(np.float32))
    assert xnn_run.main([str(path), "--inputs", str(tmp_path / "in.npz")]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"xnn-run: error: {path}: {message}"]


def test_xnn_run_without_inputs_takes_the_upper_bounds(convnet, tmp_path, capsys) -> None:
    """Random inputs for a dynamic program: every size symbol at its upper bound (h = w = 8,
    so x is 1x3x256x256), as `xnn-run --help` says."""
    from xnnc.tools import xnn_run

    _, program = convnet
    path = tmp_path / "net.xnnc"
    program.save(str(path))
    assert xnn_run.main([str(path), "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{path}: random inputs at the size symbols' upper bounds: h = 8, w = 8" in out
    want = program(torch.randn(1, 3, 256, 256))
    assert f"{path}: 1 output(s): {list(want.shape)} float32" in out
