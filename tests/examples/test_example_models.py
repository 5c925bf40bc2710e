"""The example model zoo runs eagerly with its documented shapes (import: test_models_import)."""

import pytest
import torch

from xnnc.examples.models import MODELS, make_mimi_decoder

# Documented output shapes of the small (small=True) variants.
SMALL_OUTPUT_SHAPES = {
    "mimi": (1, 1, 7680),
    "resnet": (1, 10),
    "bf16_block": (1, 8, 64),
    "bf16_blocks": (1, 64, 128),
    "bf16_blocks_decode": (1, 1, 128),
    "fp16_convnet": (1, 3, 32, 32),
    "encodec": (1, 1, 3200),
    "dac": (1, 1, 3072),
    "hifigan": (1, 1, 2048),
    "mobilenetv2": (1, 10),
    "mobilenetv3_large": (1, 10),
    "mobilenetv3_small": (1, 10),
    "transformer_encoder": (1, 16, 64),
    "audio_norms": (1, 32, 256),
    "vocos": (1, 1280),
}


def test_every_model_has_a_documented_shape() -> None:
    assert set(MODELS) == set(SMALL_OUTPUT_SHAPES)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_small_model_eager(zoo, name: str) -> None:
    model, _ = zoo.example(name)
    assert not model.training
    expected = zoo.eager(name)
    assert tuple(expected.shape) == SMALL_OUTPUT_SHAPES[name]
    assert torch.isfinite(expected.float()).all()
    assert expected.float().std() > 1e-3


def test_factories_are_deterministic() -> None:
    (m1, (x1,)), (m2, (x2,)) = make_mimi_decoder(small=True), make_mimi_decoder(small=True)
    torch.testing.assert_close(x1, x2, rtol=0, atol=0)
    for p1, p2 in zip(m1.parameters(), m2.parameters(), strict=True):
        torch.testing.assert_close(p1, p2, rtol=0, atol=0)


def test_full_size_mimi_shape() -> None:
    model, (latent,) = make_mimi_decoder()
    assert latent.shape == (1, 512, 13)
    with torch.no_grad():
        audio = model(latent)
    # 13 frames -> 26 after the causal x2 upsample -> 26 * 960 samples at 24 kHz.
    assert audio.shape == (1, 1, 24960)
    assert torch.isfinite(audio).all()
