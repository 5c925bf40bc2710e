"""bf16 GEMMs on XNNPACK's native bf16 x bf16 -> fp32 kernel (runtime/bf16_gemm.py), chosen by
the target (`Target.bf16_gemm`): the emitted form, the split runtime, its profile, its
fallback and its numerics.

Tolerances: the native kernel and the fp32 path multiply the same bf16 values exactly in
fp32 and accumulate in fp32 in different orders, so their fp32 outputs agree to a few fp32
ulps of the sum of |products| (rtol 1e-5, atol 1e-5 for K <= 64 and O(1) data); a bf16
output can then round the other way by one bf16 ulp (rtol 2**-7). Whole bf16 models against
torch eager: 3e-2 as in test_backend.py (bf16's 8-bit mantissa, 2**-8 relative per
rounding, over a few roundings; eager rounds at other places).
"""

from __future__ import annotations

import math

import pytest
import torch
from threads import run_threads

import xnnc
from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.backend_xnnpack.runtime import SplitRuntime, XnnpackError, XnnRuntime, open_runtime
from xnnc.backend_xnnpack.runtime import bf16_gemm as G
from xnnc.backend_xnnpack.serialize import GraphBuilder
from xnnc.target import Target

FP32_TOL = dict(rtol=1e-5, atol=1e-5)
BF16_TOL = dict(rtol=2**-7, atol=1e-5)
MODEL_TOL = dict(rtol=3e-2, atol=3e-2)
HOST_HAS_BF16_GEMM = Target.host().bf16_gemm
needs_bf16_gemm = pytest.mark.skipif(
    not HOST_HAS_BF16_GEMM, reason="XNNPACK's bf16 GEMM needs an AVX512-BF16 CPU"
)
NATIVE_FC = G.FULLY_CONNECTED_NAME
NATIVE_BMM = G.BATCH_MATRIX_MULTIPLY_NAME


def bf16(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.bfloat16)


def gemm_blob(transposed: bool = False, clamp: tuple[float, float] | None = None) -> tuple:
    """x [2,3,8] bf16 -> FC(w, fp32 bias, clamp) -> fp32 f -> convert -> bf16 h -> BMM(h, y)
    -> fp32 z; outputs h (read by a later step too) and z. Returns (blob, w, bias)."""
    torch.manual_seed(0)
    w, bias = bf16(torch.randn(6, 8)), torch.randn(6)
    stored = w.T.contiguous() if transposed else w
    g = GraphBuilder()
    g.value("x", "bf16", [2, 3, 8], external="input")
    g.value("y", "bf16", [2, 6, 5], external="input")
    g.value("w", "bf16", list(stored.shape), data=memoryview(stored.view(torch.int16).numpy()))
    g.value("b", "fp32", [6], data=memoryview(bias.numpy()))
    g.value("f", "fp32", [2, 3, 6])
    g.value("h", "bf16", [2, 3, 6], external="output")
    g.value("z", "fp32", [2, 3, 5], external="output")
    flags = nodes.FLAG_TRANSPOSE_WEIGHTS if transposed else 0
    fc = g.node("XNNFullyConnected", input1_id=g.id("x"), filter_id=g.id("w"),
                bias_id=g.id("b"), output_id=g.id("f"), flags=flags)  # fmt: skip
    g.add_node(fc, "fc", clamp or (-math.inf, math.inf))
    g.add_node(g.node("XNNConvert", input_id=g.id("f"), output_id=g.id("h")), "cvt",
               (-math.inf, math.inf))  # fmt: skip
    bmm = g.node("XNNBatchMatrixMultiply", input1_id=g.id("h"), input2_id=g.id("y"),
                 output_id=g.id("z"))  # fmt: skip
    g.add_node(bmm, "bmm", (-math.inf, math.inf))
    return g.finish(["h", "z"]), w, bias


def reference(x, y, w, bias, clamp=None):
    f = x.float() @ w.float().T + bias
    if clamp is not None:
        f = f.clamp(*clamp)
    h = bf16(f)
    return h, h.float() @ y.float()


def inputs():
    torch.manual_seed(1)
    return bf16(torch.randn(2, 3, 8)), bf16(torch.randn(2, 6, 5))


# --- which nodes ------------------------------------------------------------------------------


def test_native_gemms_are_the_bf16_x_bf16_to_fp32_nodes():
    blob, _, _ = gemm_blob()
    assert G.native_gemms(read_blob(blob)) == [0, 2]  # FC, BMM; not the convert


def test_a_bf16_output_gemm_is_not_native():
    """bf16 -> bf16 (legalization disabled) stays in the subgraph: its bf16 output is not the
    operator's fp32 one."""
    g = GraphBuilder()
    g.value("x", "bf16", [3, 8], external="input")
    g.value("w", "bf16", [6, 8], data=memoryview(bf16(torch.ones(6, 8)).view(torch.int16).numpy()))
    g.value("f", "bf16", [3, 6], external="output")
    fc = g.node("XNNFullyConnected", input1_id=g.id("x"), filter_id=g.id("w"),
                bias_id=g.NO_VALUE, output_id=g.id("f"))  # fmt: skip
    g.add_node(fc, "fc", (-math.inf, math.inf))
    assert G.native_gemms(read_blob(g.finish(["f"]))) == []


# --- the split runtime ------------------------------------------------------------------------


@needs_bf16_gemm
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("transposed", [False, True], ids=["oi", "io"])
def test_split_runtime_matches_the_fp32_subgraph(threads, transposed):
    clamp = (-0.5, 0.75)
    blob, w, bias = gemm_blob(transposed, clamp)
    x, y = inputs()
    with open_runtime(blob, threads=threads) as rt, XnnRuntime(blob) as whole:
        assert isinstance(rt, SplitRuntime)
        h, z = rt.run(x, y)
        h2, z2 = rt.run(x.clone(), y.clone())  # new pointers: set up again
        want_h, want_z = whole.run(x, y)
    ref_h, ref_z = reference(x, y, w, bias, clamp)
    for got_h, got_z in ((h, z), (h2, z2)):
        torch.testing.assert_close(got_h, want_h, **BF16_TOL)
        torch.testing.assert_close(got_h, ref_h, **BF16_TOL)
        torch.testing.assert_close(got_z, ref_z.float(), **FP32_TOL)
    torch.testing.assert_close(want_z, ref_z, **FP32_TOL)


@needs_bf16_gemm
def test_split_runtime_is_safe_from_many_threads():
    """8 threads x 50 calls on different inputs: each result bit-identical to the same
    input's single-threaded result (the GEMM operators keep set-up pointers between runs)."""

    blob, _, _ = gemm_blob()
    generator = torch.Generator().manual_seed(2)
    cases = [(bf16(torch.randn(2, 3, 8, generator=generator)),
              bf16(torch.randn(2, 6, 5, generator=generator))) for _ in range(400)]  # fmt: skip
    with open_runtime(blob, threads=2) as rt:
        assert isinstance(rt, SplitRuntime)
        want = [rt.run(x, y) for x, y in cases]
        got: list = [None] * len(cases)

        def work(k: int) -> None:
            for i in range(k, len(cases), 8):
                got[i] = rt.run(*cases[i])

        run_threads(work)
    wrong = [i for i, (g, w) in enumerate(zip(got, want))
             if not all(torch.equal(a, b) for a, b in zip(g, w))]  # fmt: skip
    assert wrong == []


@needs_bf16_gemm
def test_split_runtime_profile_names_xnnpack_bf16_operators():
    blob, _, _ = gemm_blob()
    rt = open_runtime(blob, profile=True)
    with pytest.raises(RuntimeError, match="call run\\(\\) first"):
        rt.profile()
    rt.run(*inputs())
    names = [name for name, _ in rt.profile()]
    assert names == [NATIVE_FC, "Convert (NC)", NATIVE_BMM]
    assert all(us > 0 for name, us in rt.profile() if name in (NATIVE_FC, NATIVE_BMM))
    whole = XnnRuntime(blob, profile=True)
    whole.run(*inputs())
    assert "Fully Connected (NC, F32) GEMM" in [name for name, _ in whole.profile()]


def test_unsupported_hardware_falls_back_to_one_subgraph(monkeypatch):
    """Where XNNPACK has no bf16 GEMM kernel, creating the operator fails with
    xnn_status_unsupported_hardware: the blob loads whole, XNNPACK computes in fp32."""
    real = G._fn

    def no_kernel(name):
        if name.startswith("xnn_create_"):
            return lambda *args: G.STATUS_UNSUPPORTED_HARDWARE
        return real(name)

    monkeypatch.setattr(G, "_fn", no_kernel)
    blob, w, bias = gemm_blob()
    x, y = inputs()
    rt = open_runtime(blob, profile=True)
    assert isinstance(rt, XnnRuntime)
    h, z = rt.run(x, y)
    ref_h, ref_z = reference(x, y, w, bias)
    torch.testing.assert_close(h, ref_h, **BF16_TOL)
    torch.testing.assert_close(z, ref_z, **FP32_TOL)
    assert NATIVE_FC not in [name for name, _ in rt.profile()]


def test_other_operator_errors_name_the_node(monkeypatch):
    real = G._fn
    invalid_parameter = 2
    monkeypatch.setattr(
        G, "_fn", lambda name: (lambda *a: invalid_parameter) if "create" in name else real(name)
    )
    blob, _, _ = gemm_blob()
    with pytest.raises(XnnpackError, match=r"^node 0 \(XNNFullyConnected\): "
                       r"xnn_create_fully_connected_nc_bf16_f32 failed with "
                       r"xnn_status_invalid_parameter$"):  # fmt: skip
        open_runtime(blob)


@needs_bf16_gemm
def test_split_runtime_checks_its_inputs():
    blob, _, _ = gemm_blob()
    rt = open_runtime(blob)
    x, y = inputs()
    with pytest.raises(ValueError, match=r"^input 1: expected bfloat16 \[2, 6, 5\], got float32"):
        rt.run(x, y.float())
    with pytest.raises(ValueError, match="^expected 2 inputs, got 1$"):
        rt.run(x)
    rt.close()
    with pytest.raises(RuntimeError, match="closed"):
        rt.run(x, y)


# --- compiled models --------------------------------------------------------------------------


@needs_bf16_gemm
@pytest.mark.parametrize("name", ["bf16_blocks", "bf16_block"])
def test_bf16_models_run_xnnpack_bf16_gemm(zoo, name):
    """On a bf16-GEMM target every FC/BMM runs as XNNPACK's BF16 operator (its static rule:
    on a host of that class a tuned compile may time the small test layers faster in fp32);
    numerics against bf16 eager (MODEL_TOL)."""
    _, example = zoo.example(name)
    program = zoo.compiled(name, profile=True, target="extended,x86-64-avx512bf16", tune=False)
    torch.testing.assert_close(program(*example), zoo.eager(name), **MODEL_TOL)
    names = [name.split(": ", 1)[1] for name, _ in program.profile()]
    assert NATIVE_FC in names
    assert not [n for n in names if "(NC, F32) GEMM" in n]
    if name == "bf16_block":  # attention: QK^T and PV
        assert NATIVE_BMM in names


@needs_bf16_gemm
def test_sapphire_rapids_targets_go_native_for_one_row_only(zoo):
    """The static bf16-GEMM rule (cost.rules.bf16_gemm): with AVX512-FP16 (or AMX) the bf16
    GEMM wins only at M = 1, so prefill keeps the fp32 form and decode runs XNNPACK's bf16
    operator."""
    target = "extended,x86-64-avx512fp16"
    forms = {}
    for name in ("bf16_blocks", "bf16_blocks_decode"):
        _, example = zoo.example(name)
        program = zoo.compiled(name, profile=True, target=target)
        torch.testing.assert_close(program(*example), zoo.eager(name), **MODEL_TOL)
        names = [n for n, _ in program.profile()]
        forms[name] = (
            any(NATIVE_FC in n for n in names),
            any("(NC, F32) GEMM" in n for n in names),
        )
    assert forms == {"bf16_blocks": (False, True), "bf16_blocks_decode": (True, False)}


@pytest.mark.parametrize("target", ["extended,x86-64-avx512", "extended,x86-64-avx2"])
def test_targets_without_bf16_gemm_keep_the_fp32_form(zoo, target):
    _, example = zoo.example("bf16_blocks")
    program = zoo.compiled("bf16_blocks", profile=True, target=target)
    ir = xnnc.print_module(program.module)
    assert "xnn.fully_connected" in ir
    assert not [
        line for line in ir.splitlines() if "xnn.fully_connected" in line and "xbf16" in line
    ]
    assert all(isinstance(rt, XnnRuntime) for rt in program.runtimes.values())
    torch.testing.assert_close(program(*example), zoo.eager("bf16_blocks"), **MODEL_TOL)
    names = [name for name, _ in program.profile()]
    assert any("Fully Connected (NC, F32) GEMM" in n for n in names)
    assert not any("BF16" in n for n in names)


def test_stock_executorch_runs_the_fp32_form(zoo):
    """`stock` on a CPU without bf16 GEMM: stock ExecuTorch 1.5.1 runs the fp32 form."""
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    _, example = zoo.example("bf16_blocks")
    partitioner = xnnc.XnncPartitioner("stock,x86-64-avx2")
    edge = to_edge_transform_and_lower(zoo.exported("bf16_blocks"), partitioner=[partitioner])
    (got,) = StockRuntime(edge.to_executorch().buffer)(*example)
    torch.testing.assert_close(got, zoo.eager("bf16_blocks"), **MODEL_TOL)
