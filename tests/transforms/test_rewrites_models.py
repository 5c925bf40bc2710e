"""The rewrites end to end on the example models: what issue 4 promises of the final IR,
and numerics against eager with every rewrite on (tolerances as in test_backend.py: fp32
1e-4, fp16 2e-2, bf16 3e-2)."""

from __future__ import annotations

import pytest
import torch

from xnnc.dialects import xnn

TOL = {torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 3e-2}


def _compile(zoo, name: str, **fields):
    _, inputs = zoo.example(name)
    want = zoo.eager(name)
    program = zoo.compiled(name, **fields)
    got = program(*inputs)
    # fp16_convnet computes in fp16 but returns fp32: its tolerance is fp16's.
    tol = TOL[torch.float16] if name == "fp16_convnet" else TOL[want.dtype]
    torch.testing.assert_close(got, want, atol=tol, rtol=tol)
    return program


def _ops(program, cls) -> list:
    return [op for op in program.module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize("name", ["mimi", "dac", "hifigan", "encodec"])
def test_audio_decoders_have_no_deconvolution(zoo, name: str) -> None:
    """By the static rules (the tuner may time XNNPACK's deconvolution faster on a small
    layer of this CPU, and then keeps it)."""
    program = _compile(zoo, name, tune=False)
    assert _ops(program, xnn.Deconvolution2dOp) == []


@pytest.mark.parametrize("name", ["mimi", "fp16_convnet"])
def test_no_pad_before_a_conv_left_standalone(zoo, name: str) -> None:
    program = _compile(zoo, name)
    convs = (xnn.Convolution2dOp, xnn.DepthwiseConvolution2dOp)
    for pad in _ops(program, xnn.StaticConstantPadOp):
        users = [u.operation for u in pad.output.uses]
        assert not any(isinstance(u, convs) for u in users), pad


def test_fp16_network_has_no_cast_outside_the_delegate(zoo) -> None:
    program = _compile(zoo, "fp16_convnet")
    assert program.num_partitions == 1
    assert program.ops_outside() == []


@pytest.mark.parametrize("name", ["bf16_blocks", "bf16_blocks_decode"])
def test_bf16_blocks_have_no_mean_outside(zoo, name: str) -> None:
    program = _compile(zoo, name)
    assert program.ops_outside() == []


@pytest.mark.parametrize("name", ["resnet", "mobilenetv2", "fp16_convnet"])
def test_conv_networks_keep_two_transposes_per_subgraph(zoo, name: str) -> None:
    program = _compile(zoo, name)
    for sub in program.subgraphs:
        count = sum(isinstance(op, xnn.StaticTransposeOp) for op in sub.walk())
        assert count <= 2, f"{count} transposes in a subgraph of {name}"
