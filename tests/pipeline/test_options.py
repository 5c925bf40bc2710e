"""CompileOptions: one value through every entry point, checked before any work starts.

- a bad option fails at once (before torch.export) with one line listing the valid values;
- `compile(..., disable=..., exclude=...).save("m.pte")` and `XnncPartitioner(options)` make
  the same delegate as `compile` itself;
- `xnn-opt -p xnnc-pipeline{...}` runs what `compile` runs, from the module's target.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.dialects import xnn
from xnnc.errors import OptionError
from xnnc.pipeline.options import CompileOptions
from xnnc.pipeline.registry import parse_pipeline
from xnnc.pipeline.stages import default_passes, lower
from xnnc.pte.backend import inlined_blob
from xnnc.pte.verify import xnnpack_blobs


class _NeverExported:
    """A model whose export would fail: options must be rejected before that."""

    def __getattr__(self, name: str):
        raise AssertionError("the model was touched before the options were checked")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"exclude": ("aten.convolutoin",)}, "exclude: unknown op 'aten.convolutoin'; valid: "),
        ({"disable": ("xnn-polyfase",)}, "disable: unknown pass or pattern 'xnn-polyfase'; valid"),
        ({"fp16": "half"}, "fp16: unknown mode 'half'; valid: auto, native, fp32"),
        ({"threads": 0}, "threads"),
        ({"threads": "2"}, "threads: expected a positive int, got '2'"),
        ({"target": 3}, "target: expected a Target or a target string, got 3"),
    ],
)
def test_a_bad_option_fails_before_any_work(fields: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(")) as info:
        xnnc.compile(_NeverExported(), (), **fields)
    assert "\n" not in str(info.value)
    with pytest.raises(OptionError, match=message.replace("(", r"\(")):
        xnnc.XnncPartitioner(**fields)


@pytest.mark.parametrize("budget", [-1, "1s", True, math.nan])
def test_a_bad_tuning_budget_fails_before_any_work(budget) -> None:
    with pytest.raises(OptionError) as info:
        xnnc.compile(_NeverExported(), (), tune_budget_ms=budget)
    assert str(info.value) == (
        f"tune_budget_ms: expected a number of ms >= 0 (or None), got {budget!r}"
    )


def test_unknown_names_list_the_valid_ones() -> None:
    with pytest.raises(OptionError) as info:
        CompileOptions(disable=("xnn-polyfase",))
    valid = str(info.value).split("valid: ")[1].split(", ")
    assert {"xnn-polyphase", "xnn-conv-as-gemm", "canonicalize", "FoldPadIntoConv"} <= set(valid)
    with pytest.raises(OptionError) as info:
        CompileOptions(exclude=("aten.eluu",))
    assert "aten.elu" in str(info.value).split("valid: ")[1].split(", ")


def test_a_needed_legalization_cannot_be_disabled() -> None:
    with pytest.raises(OptionError, match="xnn-legalize-casts cannot be disabled for the stock"):
        CompileOptions(target="stock", disable=("xnn-legalize-casts",))
    with pytest.raises(OptionError, match="xnn-legalize-stock cannot be disabled"):
        CompileOptions(target="stock", disable=("xnn-legalize-stock",))
    assert CompileOptions(target="extended", disable=("xnn-legalize-casts",))


def test_a_plain_string_holds_names_separated_by_commas() -> None:
    assert CompileOptions(exclude="aten.linear").exclude == ("aten.linear",)
    assert CompileOptions(disable="xnn-polyphase").disable == ("xnn-polyphase",)
    both = ("xnn-polyphase", "xnn-layout")
    assert CompileOptions(disable="xnn-polyphase, xnn-layout").disable == both
    # In a pass pipeline, quoted or not (one place splits: passes.parse_pipeline).
    for spec in ('"xnn-polyphase,xnn-layout"', "xnn-polyphase,xnn-layout"):
        (canonicalize,) = parse_pipeline(f"canonicalize{{disabled-patterns={spec}}}").passes
        assert canonicalize.disabled_patterns == both


def test_a_target_string_without_threads_keeps_the_thread_count() -> None:
    """XnncPartitioner(CompileOptions(threads=2), target="stock") keeps 2 threads; a target
    that names its thread count, or a threads field, replaces it."""
    two = CompileOptions(threads=2)
    assert CompileOptions.of(two, target="stock").target.threads == 2
    assert CompileOptions.of(two, target="stock").target.runtime == "stock"
    assert CompileOptions.of(two, target="stock,threads=3").target.threads == 3
    assert CompileOptions.of(two, target="stock", threads=4).target.threads == 4
    assert CompileOptions.of(None, target="stock").target.threads == 1


def test_options_round_trip_through_compile_specs() -> None:
    options = CompileOptions(
        target="stock,x86-64-avx2,threads=2", fp16="fp32", exclude="aten.elu", disable="xnn-layout"
    )
    assert CompileOptions.from_spec(options.to_spec()) == options
    for budget in (None, 0.0, 250.0, math.inf):
        options = CompileOptions(tune_budget_ms=budget)
        assert CompileOptions.from_spec(options.to_spec()) == options
    with pytest.raises(OptionError, match="^tune_budget_ms: expected a number of ms, got 'soon'$"):
        CompileOptions.from_spec({"tune_budget_ms": "soon"})


def test_disable_removes_a_set_from_canonicalize_and_a_pass_from_the_pipeline() -> None:
    passes = default_passes(disable=("xnn-polyphase", "xnn-conv-as-gemm"))
    names = [p.name for p in passes]
    assert "xnn-conv-as-gemm" not in names
    canonicalize = [p for p in passes if p.name == "canonicalize"]
    assert canonicalize and all(p.disabled_patterns == ("xnn-polyphase",) for p in canonicalize)


class _Decoder(nn.Module):
    """A transposed conv (polyphase), an elu (excluded below) and a conv."""

    def __init__(self) -> None:
        super().__init__()
        self.up = nn.ConvTranspose1d(8, 8, 4, stride=2, padding=1)
        self.conv = nn.Conv1d(8, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(torch.tanh(self.up(x)))


def _kinds(blob: bytes) -> tuple[str, ...]:
    return read_blob(blob).node_kinds


@pytest.fixture(scope="module")
def decoder() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    return _Decoder().eval(), (torch.randn(1, 8, 16),)


OPTIONS = dict(target="stock", disable=("xnn-polyphase",), exclude=("aten.tanh",), fp16="fp32")


def test_save_pte_keeps_the_options(decoder, tmp_path) -> None:
    """The .pte written by Program.save holds the very blobs compile made."""
    model, inputs = decoder
    program = xnnc.compile(model, inputs, **OPTIONS, savable=True)
    assert program.num_partitions == 2 and program.ops_outside() == ["aten.tanh"]
    assert "XNNConvTranspose2d" in _kinds(program.blobs[0])  # polyphase stayed off
    path = tmp_path / "m.pte"
    program.save(str(path))
    blobs = xnnpack_blobs(path.read_bytes(), "m.pte")
    assert sorted(blobs) == sorted(program.blobs)
    default = xnnc.compile(model, inputs, target="stock", savable=True)
    assert default.num_partitions == 1 and default.blobs[0] not in blobs


def test_partitioner_with_options_makes_the_same_delegates(decoder) -> None:
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    model, inputs = decoder
    program = xnnc.compile(model, inputs, **OPTIONS, savable=True)
    partitioner = xnnc.XnncPartitioner(CompileOptions(**OPTIONS))
    edge = to_edge_transform_and_lower(
        torch.export.export(model, inputs), partitioner=[partitioner]
    )
    gm = edge.exported_program().graph_module
    lowered = [m for m in gm.modules() if isinstance(m, LoweredBackendModule)]
    assert sorted(inlined_blob(m) for m in lowered) == sorted(program.blobs)


def test_xnn_opt_pipeline_reproduces_compile(decoder, tmp_path) -> None:
    """The target travels in the IR: xnn-opt on the imported module with the same options
    prints the module compile lowered."""
    model, inputs = decoder
    options = CompileOptions(target="stock,x86-64-avx2", fp16="fp32", disable="xnn-layout")
    imported = xnnc.import_model(model, inputs)
    path = tmp_path / "m.mlir"
    path.write_text(xnnc.print_module(imported, weights_inline=True))
    want = xnnc.print_module(lower(imported, options), weights_inline=True)
    spec = 'xnnc-pipeline{target="stock,x86-64-avx2" fp16=fp32 disable="xnn-layout"}'
    got = subprocess.run(
        [sys.executable, "-m", "xnnc.tools.xnn_opt", str(path), "-p", spec, "--print-weights"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert got.strip() == want.strip()
    assert "xnn.target = #xnn.target<" in got


def test_program_target_comes_from_the_module(decoder) -> None:
    model, inputs = decoder
    program = xnnc.compile(model, inputs, target="stock,threads=2", savable=True)
    assert program.target.runtime == "stock" and program.threads == 2
    assert xnn.target_of(program.module) == program.target
    rebuilt = xnnc.Program(program.module)
    assert rebuilt.options.target == program.target
