"""What the arm64 suite runs: each case is a model exported on x86, its inputs (one set, or
three sizes of a symbolic one) and its eager outputs computed on x86, the reference.

Kinds, and what each is checked against (tests/arm64/test_arm64.py states the tolerances):
- fp32: the zoo's small models (`xnnc.examples.models`), fp32 through XNNPACK's fp32 kernels.
- fp16: the MI-GAN-style fp16 net with fp16="auto" and "native" (reference: fp16 eager).
- bf16: the bf16 LLaMA blocks (reference: bf16 eager).
- qs8: PT2E static int8 models (reference: the PT2E model).
- qd8: dynamically quantized linears, qc8w (pt2e, 8da8w) and qb4w (8da4w) weights
  (reference: the torchao / PT2E quantized model).
- dynamic: one program for a symbolic size, run at three sizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn as nn

KINDS = ("fp32", "fp16", "bf16", "qs8", "qd8", "dynamic")
TARGETS = ("arm64", "arm64-fp16-dotprod")
RUNTIMES = ("extended", "stock")
FP32_ZOO = (
    "mimi", "resnet", "encodec", "dac", "hifigan", "mobilenetv2", "mobilenetv3_large",
    "mobilenetv3_small", "transformer_encoder", "audio_norms", "vocos",
)  # fmt: skip
BF16_ZOO = ("bf16_block", "bf16_blocks", "bf16_blocks_decode")
QS8 = ("conv_net", "conv1d_residual", "resnet_small", "mobilenetv2_small", "mimi_small")
QD8 = tuple((model, flow) for model in ("mlp", "block") for flow in ("pt2e", "8da8w", "8da4w"))
# The CI smoke part (`make test-arm64-smoke`): one fp32 model, the fp16 net natively, one
# qs8 model.
SMOKE = ("fp32-resnet", "fp16-fp16_convnet-native", "qs8-conv_net")


@dataclass
class Case:
    """A model to run on arm64: `name` is file-safe; `options` go to `xnnc.compile`/`to_pte`
    besides the target; `inputs` is a list of input tuples (three sizes for a dynamic case)."""

    name: str
    kind: str
    exported: Any  # ExportedProgram
    inputs: list[tuple[torch.Tensor, ...]]
    eager: list[list[torch.Tensor]]
    options: dict = field(default_factory=dict)
    dynamic_shapes: Any = None
    step: float = 0.0  # qs8: the output's quantization step
    precision: torch.dtype | None = None  # the compute dtype, when not the outputs'


def ulp(value: float, dtype: torch.dtype) -> float:
    """The spacing of `dtype` at `value` (> 0)."""
    mantissa = {torch.float32: 23, torch.float16: 10, torch.bfloat16: 7}[dtype]
    return 2.0 ** (math.floor(math.log2(value)) - mantissa)


def _eager(model: Callable, inputs: list[tuple]) -> list[list[torch.Tensor]]:
    with torch.no_grad():
        outputs = [model(*x) for x in inputs]
    return [list(o) if isinstance(o, (tuple, list)) else [o] for o in outputs]


def zoo_case(kind: str, name: str, **options: Any) -> Case:
    from xnnc.examples.models import MODELS
    from xnnc.frontend.fx_importer import export_program

    model, inputs = MODELS[name](small=True)
    suffix = f"-{options['fp16']}" if "fp16" in options else ""
    precision = torch.float16 if kind == "fp16" else None  # fp32 I/O around fp16 layers
    return Case(f"{kind}-{name}{suffix}", kind, export_program(model, inputs), [inputs],
                _eager(model, [inputs]), options, precision=precision)  # fmt: skip


def qs8_case(name: str) -> Case:
    from xnnc.examples.quantized_models import output_scale, quantized_program

    ep, inputs = quantized_program(name)
    return Case(f"qs8-{name}", "qs8", ep, [inputs], _eager(ep.module(), [inputs]),
                step=output_scale(ep))  # fmt: skip


def qd8_case(model_name: str, flow: str) -> Case:
    from xnnc.examples.dynamic_quant_models import MODELS, quantize

    model, x = MODELS[model_name](small=True)
    quantized = quantize(model, flow, x)
    ep = torch.export.export(quantized, (x,))
    return Case(f"qd8-{model_name}-{flow}", "qd8", ep, [(x,)], _eager(quantized, [(x,)]))


class Frames(nn.Module):
    """A causal-free 1-D conv stack over a symbolic frame count: dilated conv, ELU, residual,
    a linear over channels."""

    def __init__(self) -> None:
        super().__init__()
        self.wide = nn.Conv1d(8, 32, 3, padding=1)
        self.dilated = nn.Conv1d(32, 32, 3, dilation=2, padding=2)
        self.fc = nn.Linear(32, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.elu(self.wide(x))
        return self.fc((nn.functional.elu(self.dilated(h)) + h).transpose(1, 2))


def dynamic_case() -> Case:
    torch.manual_seed(0)
    model = Frames().eval()
    frames = torch.export.Dim("T", min=4, max=128)
    dims = ({2: frames},)
    inputs = [(torch.randn(1, 8, t),) for t in (4, 37, 128)]
    ep = torch.export.export(model, inputs[1], dynamic_shapes=dims)
    return Case("dynamic-frames", "dynamic", ep, inputs, _eager(model, inputs),
                dynamic_shapes=dims)  # fmt: skip


def _makers() -> dict[str, Callable[[], Case]]:
    makers: dict[str, Callable[[], Case]] = {}
    for n in FP32_ZOO:
        makers[f"fp32-{n}"] = lambda n=n: zoo_case("fp32", n)
    for mode in ("auto", "native"):
        makers[f"fp16-fp16_convnet-{mode}"] = lambda m=mode: zoo_case(
            "fp16", "fp16_convnet", fp16=m
        )
    for n in BF16_ZOO:
        makers[f"bf16-{n}"] = lambda n=n: zoo_case("bf16", n)
    for n in QS8:
        makers[f"qs8-{n}"] = lambda n=n: qs8_case(n)
    for m, f in QD8:
        makers[f"qd8-{m}-{f}"] = lambda m=m, f=f: qd8_case(m, f)
    makers["dynamic-frames"] = dynamic_case
    return makers


def case_names(smoke: bool) -> list[str]:
    """The cases' names, or the CI smoke part's."""
    return [name for name in _makers() if not smoke or name in SMOKE]


def make_case(name: str) -> Case:
    return _makers()[name]()
