"""Small models quantized with PT2E the way ExecuTorch's XNNPACK flow does it: the float
model exported, annotated by `XNNPACKQuantizer`, calibrated, converted (torchao's
`prepare_pt2e`/`convert_pt2e`), exported again.

    program, inputs = quantized_program("conv_net")      # an ExportedProgram of the int8 model

`conv_net` is the net of issue 14 (conv 3->32, strided conv 32->64, depthwise, 1x1,
linear); `conv1d_residual` adds a conv1d, a residual add, max pooling and a concatenate;
`resnet` / `mobilenetv2` (and their `_small` forms) are `examples.models`' ResNet-18 and
MobileNetV2 (batch norms folded into the convs by `prepare_pt2e`).
`migan_*` and `mimi*` are the MI-GAN-style net (fp32) and the Mimi-style decoder of
`examples/models.py` (issue 14's qs8 targets, with transposed convs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.export import ExportedProgram

from xnnc.examples.models import make_mobilenetv2, make_resnet


class SmallConvNet(nn.Module):
    """conv 3->32, strided conv 32->64, depthwise 3x3, 1x1 conv, mean, linear 64->10."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.dw = nn.Conv2d(64, 64, 3, padding=1, groups=64)
        self.pw = nn.Conv2d(64, 64, 1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = torch.relu(self.dw(x))
        x = self.pw(x)
        return self.fc(x.mean((2, 3)))


class Conv1dResidual(nn.Module):
    """conv1d + hardtanh, a residual add, max pooling, a concatenate with a 1x1 branch."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv1d(8, 16, 3, padding=1)
        self.b = nn.Conv1d(16, 16, 3, padding=1)
        self.c = nn.Conv1d(16, 16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.hardtanh(self.a(x))
        y = y + self.b(y)
        y = nn.functional.max_pool1d(y, 2)
        return torch.cat([y, torch.relu(self.c(y))], dim=1)


def _migan_style(small: bool) -> Callable[[], nn.Module]:
    """The MI-GAN-style encoder-decoder of examples/models.py in fp32 (PT2E quantizes fp32)."""
    from xnnc.examples.models import make_fp16_convnet

    return lambda: make_fp16_convnet(small, torch.float32)[0]


def _mimi_style(small: bool) -> Callable[[], nn.Module]:
    """The Mimi-style decoder of examples/models.py (no LSTM: Mimi's decoder has none)."""
    from xnnc.examples.models import make_mimi_decoder

    return lambda: make_mimi_decoder(small)[0]


Example = tuple[nn.Module, tuple[torch.Tensor, ...]]


def _seeded(make: Callable[[], nn.Module], shape: tuple[int, ...]) -> Callable[[], Example]:
    def example() -> Example:
        torch.manual_seed(0)
        return make().eval(), (torch.randn(shape),)

    return example


MODELS: dict[str, Callable[[], Example]] = {
    "conv_net": _seeded(SmallConvNet, (1, 3, 16, 16)),
    "conv_net_224": _seeded(SmallConvNet, (1, 3, 224, 224)),
    "conv1d_residual": _seeded(Conv1dResidual, (1, 8, 64)),
    "resnet": lambda: make_resnet(),
    "resnet_small": lambda: make_resnet(small=True),
    "mobilenetv2": lambda: make_mobilenetv2(),
    "mobilenetv2_small": lambda: make_mobilenetv2(small=True),
    "migan_32": _seeded(_migan_style(True), (1, 4, 32, 32)),
    "migan_256": _seeded(_migan_style(False), (1, 4, 256, 256)),
    "mimi_small": _seeded(_mimi_style(True), (1, 64, 4)),
    "mimi": _seeded(_mimi_style(False), (1, 512, 13)),
}


def float_model(name: str) -> Example:
    """(seeded eval-mode float model, example inputs)."""
    return MODELS[name]()


def quantize(
    model: nn.Module,
    inputs: tuple[torch.Tensor, ...],
    calibration: int = 8,
    *,
    dynamic: bool = False,
    dynamic_shapes: Any = None,
) -> ExportedProgram:
    """`model` quantized with XNNPACKQuantizer's symmetric per-channel config (`dynamic`:
    its dynamic int8 config), calibrated on `inputs` and `calibration` random inputs like
    them, as an ExportedProgram. `dynamic_shapes` (torch.export's) goes to both exports: the
    converted model keeps those dims symbolic (a stream's time axis)."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic)
    graph = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes).module()
    prepared = prepare_pt2e(graph, XNNPACKQuantizer().set_global(config))
    generator = torch.Generator().manual_seed(1)
    for _ in range(calibration):
        prepared(*(torch.randn(x.shape, generator=generator) for x in inputs))
    prepared(*inputs)
    return torch.export.export(convert_pt2e(prepared), inputs, dynamic_shapes=dynamic_shapes)


def quantized_program(name: str) -> tuple[ExportedProgram, tuple[torch.Tensor, ...]]:
    """(the PT2E int8 program of model `name`, example inputs)."""
    model, inputs = float_model(name)
    return quantize(model, inputs), inputs


def output_scale(program: ExportedProgram) -> float:
    """The scale of the program's one output's last dequantize (its quantization step)."""
    (out,) = program.graph.output_node().args[0]
    assert "dequantize_per_tensor" in str(out.target), f"the output is {out.target}"
    return float(out.args[1])
