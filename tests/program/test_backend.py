"""End to end: eager vs the reference interpreter vs xnnc on the extended runtime vs xnnc's
`.pte` on stock ExecuTorch.

Tolerances. fp32: XNNPACK accumulates convolutions and GEMMs in a different order than
torch and evaluates exp/sigmoid/tanh/ELU/GELU with its own polynomial approximations
(~1e-6 relative), so 1e-4 absolute + relative on values of order 1. fp16: both sides round
every op's result to fp16 (2^-11 ~ 5e-4 relative) but at different points (torch computes
many fp16 CPU ops in fp32 internally, XNNPACK keeps fp16 intermediates), so 2e-2 over a few
ops. Models: 1e-4 (fp32, tens of layers) and 2e-2 (the fp16 body of fp16_convnet).
"""

from __future__ import annotations

import copy
import warnings
import zipfile

import pytest
import torch
import torch.nn as nn
from op_cases import ELEMENTWISE, STRUCTURAL, Fn

import xnnc
from xnnc.errors import InputError, PackedWeightsWarning
from xnnc.examples.models import MODELS
from xnnc.pte import StockRuntime, to_pte
from xnnc.tools import xnn_run

TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float16: dict(atol=2e-2, rtol=2e-2)}

# Cases whose op XNNPACK runs (the rest stay outside, and must still run end to end).
NOT_DELEGATED = {
    "div_floor", "where", "addmm", "slice", "embedding", "pow_tensor", "to_bf16_and_back",
    "round_decimals",
}  # fmt: skip
CASES = {c[0]: c[1:] for c in ELEMENTWISE + STRUCTURAL}


def _module(fn, dtype: torch.dtype) -> nn.Module:
    # A copy: the cases' modules are shared with other tests and `.to` works in place.
    m = copy.deepcopy(fn) if isinstance(fn, nn.Module) else Fn(fn)
    return m.to(dtype).eval()


def _cast(inputs, dtype):
    return tuple(x.to(dtype) if x.is_floating_point() else x for x in inputs)


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _compare(got, want, dtype) -> None:
    for g, w in zip(_as_tuple(got), _as_tuple(want), strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.is_floating_point():
            torch.testing.assert_close(g, w, **TOL[dtype])
        else:
            assert torch.equal(g, w)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_op_on_extended_runtime(name: str, dtype: torch.dtype) -> None:
    fn, inputs, _ = CASES[name]
    if dtype == torch.float16 and name in ("embedding", "to_bf16_and_back", "to_f16"):
        pytest.skip("an integer-input or cast case: its fp16 variant is the same test")
    model = _module(fn, dtype)
    inputs = _cast(inputs, dtype)
    with torch.no_grad():
        want = model(*inputs)
    # fp16="native": XNNPACK's fp16 kernels themselves (fp32 compute: test_fp16_precision.py);
    # bf16="native": each cast as written (bf16 between GEMMs in fp32: test_bf16_precision.py).
    program = xnnc.compile(model, inputs, fp16="native", bf16="native")
    _compare(program(*inputs), want, dtype)  # the reference is checked in test_frontend.py
    if name not in NOT_DELEGATED:
        assert program.num_partitions == 1 and program.ops_outside() == [], program.ops_outside()


STOCK_CASES = ["add", "mul_scalar", "elu", "gelu", "clamp", "hardswish", "softmax", "mean",
               "permute", "cat", "constant_pad", "max_pool", "avg_pool", "upsample_bilinear",
               "pixel_shuffle", "to_f16", "view", "expand", "prelu", "max_pool_ceil",
               "adaptive_avg_pool"]  # fmt: skip


@pytest.mark.parametrize("name", STOCK_CASES)
def test_op_pte_on_stock_runtime(name: str) -> None:
    fn, inputs, _ = CASES[name]
    model = _module(fn, torch.float32)
    with torch.no_grad():
        want = model(*inputs)
    got = StockRuntime(to_pte(model, inputs, target="stock"))(*inputs)
    _compare(got, want, torch.float32)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_on_extended_runtime(zoo, name: str) -> None:
    _, inputs = zoo.example(name)
    want = zoo.eager(name)
    program = zoo.compiled(name)
    dtype = torch.float16 if name == "fp16_convnet" else torch.float32
    if want.dtype == torch.bfloat16:
        torch.testing.assert_close(program(*inputs), want, atol=3e-2, rtol=3e-2)
    else:
        _compare(program(*inputs), want, dtype)
    if name in ("mimi", "resnet", "dac", "hifigan", "mobilenetv2", "mobilenetv3_large",
                "mobilenetv3_small", "transformer_encoder", "audio_norms", "vocos"):  # fmt: skip
        assert program.num_partitions == 1 and program.ops_outside() == []


@pytest.mark.parametrize(
    "name", ["mimi", "resnet", "fp16_convnet", "transformer_encoder", "audio_norms", "vocos"]
)
def test_model_pte_on_stock_runtime(zoo, name: str) -> None:
    _, inputs = zoo.example(name)
    got = StockRuntime(zoo.pte(name))(*inputs)
    want = zoo.eager(name)
    dtype = torch.float16 if name == "fp16_convnet" else torch.float32
    _compare(got[0], want, dtype)


def test_threads_give_the_same_result(zoo) -> None:
    _, inputs = zoo.example("mimi")
    one = zoo.compiled("mimi")(*inputs)
    two = zoo.compiled("mimi", threads=2)(*inputs)
    torch.testing.assert_close(one, two, atol=1e-5, rtol=1e-5)


def test_profile_reports_every_node(zoo) -> None:
    _, inputs = zoo.example("resnet")
    program = xnnc.compile(zoo.exported("resnet"), profile=True)
    program(*inputs)
    rows = program.profile()
    assert rows and all(us >= 0 for _, us in rows)
    assert any("convolution" in name.lower() for name, _ in rows), rows[:5]


def test_whole_subgraph_calls_skip_the_interpreter(zoo) -> None:
    """A function that is one subgraph runs as a plan of one step (its runtime called
    directly), with the interpreter's results."""
    _, inputs = zoo.example("mimi")
    program = xnnc.compile(zoo.exported("mimi"))  # its own: the test changes it
    direct = program(*inputs)
    ((runtime, *_),) = program._plan.steps
    assert runtime is program.runtimes[program.subgraphs[0]]
    assert program._plan.direct[0] is runtime  # called at once, without the slots
    program._plan = "the interpreter, for this test"
    torch.testing.assert_close(direct, program(*inputs), atol=0, rtol=0)
    partial = zoo.compiled("mimi", exclude=("aten.elu",))
    torch.testing.assert_close(partial(*inputs), direct, **TOL[torch.float32])
    assert partial.num_partitions > 1 and len(partial._plan.steps) > 1
    assert partial._plan.direct is None


def test_save_and_load_program(zoo, tmp_path) -> None:
    _, inputs = zoo.example("encodec")
    program = zoo.compiled("encodec")
    path = tmp_path / "encodec.xnnc"
    program.save(str(path))
    loaded = xnnc.load(str(path))
    torch.testing.assert_close(loaded(*inputs), program(*inputs), atol=0, rtol=0)


@pytest.mark.parametrize("name", ["mimi", "bf16_block"])
def test_a_loaded_program_keeps_its_op_locations(zoo, tmp_path, name) -> None:
    """A program file keeps each op's location (the model's layer; fused ones too): the
    loaded program's explain() is the compiled one's, here on an arm64 preset, compiled on
    this host, as a phone would load it."""
    program = zoo.compiled(name, target="extended,arm64")
    path = tmp_path / f"{name}.xnnc"
    program.save(str(path))
    explained = xnnc.load(str(path)).explain()
    assert explained == program.explain()
    assert 'loc("' in explained and "loc(unknown)" not in explained.splitlines()[1]


def test_explain_gives_ops_with_one_decision_one_row(zoo) -> None:
    """Mimi's first upsample is a depthwise transposed convolution: its two phases are two
    depthwise convolutions with the same decision, one row of explain() that says 2 ops (it
    showed the same row twice)."""
    program = zoo.compiled("mimi", target="extended,arm64")
    table = program.explain().splitlines()
    rows = table[1:-1]
    assert len(rows) == len(set(rows))
    assert [r for r in rows if "dwconv1d f32 1x4x64" in r and "  2 ops: 1 thread(s)" in r]
    assert table[-1].endswith(f"decisions: {len(program.decisions())}")


def test_a_program_for_another_architecture_is_saved_without_packed_weights(zoo, tmp_path):
    """XNNPACK's packed weights are this CPU's: an arm64 program compiled here is saved
    without them (on an arm64 CPU they would not fit: a warning, then packing again) and
    packs its weights from the blobs at load, with no warning; one for this CPU keeps them."""
    program = zoo.compiled("mimi", target="extended,arm64")
    path = tmp_path / "mimi.xnnc"
    program.save(str(path))
    assert not [n for n in zipfile.ZipFile(path).namelist() if n.startswith("packed_")]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PackedWeightsWarning)
        loaded = xnnc.load(str(path))
    _, inputs = zoo.example("mimi")
    torch.testing.assert_close(loaded(*inputs), program(*inputs), atol=0, rtol=0)
    zoo.compiled("mimi").save(str(tmp_path / "host.xnnc"))
    assert any(n.startswith("packed_") for n in zipfile.ZipFile(tmp_path / "host.xnnc").namelist())


def test_save_pte(zoo, tmp_path) -> None:
    _, inputs = zoo.example("mimi")
    program = zoo.compiled("mimi", target="stock")
    path = tmp_path / "mimi.pte"
    program.save(str(path))
    got = StockRuntime(path.read_bytes())(*inputs)[0]
    torch.testing.assert_close(got, program(*inputs), **TOL[torch.float32])


def test_save_pte_of_a_tuned_program(tmp_path) -> None:
    """tune=True tunes the program for the extended runtime; its .pte (stock runtime, static
    rules) still saves."""
    model, x = nn.Sequential(nn.Conv1d(4, 8, 3), nn.ReLU()).eval(), torch.randn(1, 4, 16)
    program = xnnc.compile(model, (x,), tune=True, savable=True)
    program.save(str(tmp_path / "m.pte"))
    got = StockRuntime((tmp_path / "m.pte").read_bytes())(x)[0]
    torch.testing.assert_close(got, model(x), **TOL[torch.float32])


def test_save_pte_twice(zoo, tmp_path) -> None:
    """ExecuTorch's lowering takes lifted constants (the attention mask) out of the program
    it lowers: saving lowers a copy, so the Program can save again, with the same bytes."""
    program = xnnc.compile(zoo.exported("bf16_block"), target="stock", savable=True)
    program.save(str(tmp_path / "a.pte"))
    program.save(str(tmp_path / "b.pte"))
    assert (tmp_path / "a.pte").read_bytes() == (tmp_path / "b.pte").read_bytes()


def test_program_checks_inputs() -> None:
    """A wrong input is an InputError (an XnncError) naming it, on every runtime."""
    program = xnnc.compile(nn.Linear(3, 2).eval(), (torch.randn(1, 3),))
    with pytest.raises(InputError, match=r"input 0: expected torch.float32 \[1, 3\], got"):
        program(torch.randn(1, 4))
    with pytest.raises(InputError, match=r"takes 1 inputs, got 2"):
        program(torch.randn(1, 3), torch.randn(1, 3))
    (runtime,) = program.runtimes.values()
    with pytest.raises(
        InputError, match=r"input 0: expected float32 \[1, 3\], got float32 \[2, 3\]"
    ):
        runtime(torch.randn(2, 3))


def test_unknown_target() -> None:
    with pytest.raises(ValueError, match="unknown word 'gpu' in target 'gpu'; valid: stock, exte"):
        xnnc.compile(nn.Linear(3, 2), (torch.randn(1, 3),), target="gpu")


# --- xnn-run -----------------------------------------------------------------------------------


def test_xnn_run_on_mlir_compares_with_reference(zoo, tmp_path, capsys) -> None:
    path = tmp_path / "mimi.mlir"
    path.write_text(xnnc.print_module(zoo.imported("mimi"), weights_inline=True))
    assert xnn_run.main([str(path), "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    error = float(out.split("max |error| vs the reference interpreter: ")[1].split()[0])
    assert error < 1e-4
    assert "partitions: 1, ops outside XNNPACK: 0" in out
    assert "latency:" in out and "per-node profile" in out


@pytest.mark.parametrize("disable", ["", "lstm-loop"])
def test_xnn_run_keeps_a_static_lstm_whole_as_compile_does(tmp_path, capsys, disable) -> None:
    """On a .pt2, xnn-run follows xnnc.compile's lstm-loop rule: the extended runtime runs
    a static LSTM whole on the recurrent loop, `--disable lstm-loop` unrolls it into the
    subgraph; both within fp32 rounding of the reference interpreter (1e-5: a 3-step,
    8-wide LSTM)."""
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 8, 1).eval()
    path = tmp_path / "lstm.pt2"
    torch.export.save(torch.export.export(lstm, (torch.randn(3, 1, 4),)), path)
    argv = [str(path), "--repeat", "1", *(["--disable", disable] if disable else [])]
    assert xnn_run.main(argv) == 0
    out = capsys.readouterr().out
    assert float(out.split("max |error| vs the reference interpreter: ")[1].split()[0]) < 1e-5
    if disable:
        assert "partitions: 1, ops outside XNNPACK: 0" in out
    else:
        assert (
            "partitions: 0, ops outside XNNPACK: 1 ['aten.lstm.input'] (1 on xnnc's "
            "recurrent loop over XNNPACK)"
        ) in out


@pytest.mark.parametrize("fp16", ["auto", "native", "fp32"])
def test_xnn_run_fp16_option(tmp_path, capsys, monkeypatch, fp16: str) -> None:
    """`--fp16` reaches the pipeline ("auto" resolved by the target); fp16 results within
    fp16 tolerance of the reference interpreter (2e-2, as for the fp16 op cases)."""
    from xnnc.pipeline import stages as pipeline

    modes = []
    lower = pipeline.lower

    def recording(module, options=None, **fields):
        modes.append(options.fp16)
        return lower(module, options, **fields)

    monkeypatch.setattr(pipeline, "lower", recording)

    class Scaled(nn.Module):
        def forward(self, x):
            return (x * 0.3 + 0.25).relu()

    x = torch.randn(2, 8, dtype=torch.float16)
    path = tmp_path / "f16.mlir"
    path.write_text(xnnc.print_module(xnnc.import_model(Scaled(), (x,))))
    assert xnn_run.main([str(path), "--repeat", "1", "--fp16", fp16]) == 0
    assert modes == [fp16]
    out = capsys.readouterr().out
    assert float(out.split("max |error| vs the reference interpreter: ")[1].split()[0]) < 2e-2


def test_xnn_run_on_saved_program_and_pte(zoo, tmp_path, capsys) -> None:
    import numpy as np

    _, inputs = zoo.example("resnet")
    zoo.compiled("resnet", target="stock").save(str(tmp_path / "r.xnnc"))
    (tmp_path / "r.pte").write_bytes(zoo.pte("resnet"))  # Program.save(".pte"): test_save_pte
    np.savez(tmp_path / "in.npz", *[x.numpy() for x in inputs])
    assert xnn_run.main([str(tmp_path / "r.xnnc"), "--inputs", str(tmp_path / "in.npz")]) == 0
    assert xnn_run.main([str(tmp_path / "r.pte"), "--inputs", str(tmp_path / "in.npz")]) == 0
    out = capsys.readouterr().out
    assert out.count("latency:") == 2


@pytest.mark.parametrize(
    "args,message",
    [
        (["missing.mlir"], "xnn-run: error: missing.mlir: no such file"),
        (["x.pte"], "xnn-run: error: x.pte: a .pte does not record its input shapes"),
        (["bad.xnnc"], "xnn-run: error: bad.xnnc: not an xnnc program file"),
    ],
)
def test_xnn_run_errors(tmp_path, capsys, monkeypatch, args, message) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.xnnc").write_text("not a zip")
    (tmp_path / "x.pte").write_bytes(b"")  # there: the inputs are what it lacks
    assert xnn_run.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


# --- the ExecuTorch partitioner ----------------------------------------------------------------


def _delegated_ops(partitioner, ep) -> tuple[int, int]:
    """(ops inside delegates, delegate count) after to_edge_transform_and_lower."""
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    lowered = [
        m for m in edge.exported_program().graph_module.modules()
        if isinstance(m, LoweredBackendModule)
    ]  # fmt: skip
    ops = sum(
        1 for m in lowered for n in m.original_module.graph.nodes
        if n.op == "call_function" and "getitem" not in str(n.target)
    )  # fmt: skip
    return ops, len(lowered)


@pytest.mark.parametrize("name", ["mimi", "resnet", "mobilenetv2"])
def test_partitioner_delegates_at_least_as_much_as_stock(zoo, name: str) -> None:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    ours, our_parts = _delegated_ops(xnnc.XnncPartitioner(), zoo.exported(name))
    theirs, their_parts = _delegated_ops(XnnpackPartitioner(), zoo.exported(name))
    assert ours >= theirs, (ours, theirs)
    assert our_parts <= their_parts, (our_parts, their_parts)


def test_partitioner_rejects_unknown_target() -> None:
    with pytest.raises(ValueError, match="unknown word 'x' in target 'x'"):
        xnnc.XnncPartitioner(target="x")


@pytest.mark.parametrize("name", ["bf16_block", "bf16_blocks", "bf16_blocks_decode"])
def test_bf16_models_fully_delegated(zoo, name: str) -> None:
    """bf16 runs in the delegate; mean and softmax in fp32 between converts. 3e-2: bf16's
    8-bit mantissa (2^-8 ~ 4e-3 relative per rounding) over a few roundings."""
    _, inputs = zoo.example(name)
    want = zoo.eager(name)
    program = zoo.compiled(name)
    assert program.ops_outside() == []
    ir = xnnc.print_module(program.module)
    assert "aten.mean" not in ir and "xnn.static_reduce mean" in ir
    assert "tensor<1x8x1xbf16>" not in ir.split("xnn.static_reduce mean")[1].split("\n")[0]
    torch.testing.assert_close(program(*inputs), want, atol=3e-2, rtol=3e-2)


@pytest.mark.parametrize("name", ["bf16_block", "bf16_blocks", "bf16_blocks_decode"])
def test_bf16_models_on_stock_executorch(zoo, name: str) -> None:
    """For `stock` too, bf16 runs in one delegate (GEMMs bf16 x bf16 -> fp32, convolutions,
    reductions and softmax in fp32 between converts) that stock ExecuTorch 1.5.1 runs.
    Tolerance as for the extended runtime above."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    _, inputs = zoo.example(name)
    edge = to_edge_transform_and_lower(
        zoo.exported(name), partitioner=[xnnc.XnncPartitioner("stock")]
    )
    calls = [n for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    assert [str(n.target) for n in calls if "getitem" not in str(n.target)] == [
        "executorch_call_delegate"
    ]
    (got,) = StockRuntime(edge.to_executorch().buffer)(*inputs)
    torch.testing.assert_close(got, zoo.eager(name), atol=3e-2, rtol=3e-2)


def test_fold_batch_norm_math() -> None:
    """conv(w', b') == batch_norm(conv(w, b)) in fp32 (1e-5: a handful of roundings)."""
    from xnnc.transforms.fold_batch_norm import fold_into_conv

    conv = nn.Conv2d(3, 4, 3, bias=True)
    bn = nn.BatchNorm2d(4).eval()
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.data.uniform_(0.5, 2)
    bn.bias.data.uniform_(-1, 1)
    w, b = fold_into_conv(conv.weight.detach(), conv.bias.detach(), bn.running_mean,
                          bn.running_var, bn.weight.detach(), bn.bias.detach(), bn.eps)  # fmt: skip
    x = torch.randn(1, 3, 8, 8)
    with torch.no_grad():
        torch.testing.assert_close(torch.conv2d(x, w, b), bn(conv(x)), atol=1e-5, rtol=1e-5)


def test_batch_norm_folded_in_resnet(zoo) -> None:
    _, inputs = zoo.example("resnet")
    program = zoo.compiled("resnet")
    ir = xnnc.print_module(program.module)
    assert "xnn.binary multiply" not in ir  # no standalone per-channel affine left
    # xnn-fold-channel-scale would fold the unfolded batch norm's scale into the conv too.
    unfolded = zoo.compiled("resnet", disable=("fold-batch-norm", "xnn-fold-channel-scale"))
    assert "xnn.binary multiply" in xnnc.print_module(unfolded.module)
    torch.testing.assert_close(program(*inputs), unfolded(*inputs), atol=1e-4, rtol=1e-4)
