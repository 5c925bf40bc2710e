"""The node table (backend_xnnpack/nodes.py) against the schema, the dialect and the runtime
it describes; and the runtime loading blobs without xDSL or the dialects."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from xnnc import parse_module
from xnnc.backend_xnnpack import blob as B
from xnnc.backend_xnnpack import nodes
from xnnc.backend_xnnpack.nodes import KINDS, KINDS_LIST, OPS
from xnnc.backend_xnnpack.schema import xnnc_generated as fb
from xnnc.dialects import xnn
from xnnc.transforms import layout
from xnnc.translate.xnnpack import serialize_subgraph

# Union members the runtime does not define (neither does stock ExecuTorch 1.5.1's for SDPA).
UNDEFINED_KINDS = {"XNNArgMaxPooling2d", "XNNScaledDotProductAttention"}


def test_every_union_member_has_an_entry():
    assert set(KINDS) == set(B.NODE_KIND_NAMES.values()) - UNDEFINED_KINDS


def test_stock_is_the_union_position():
    for kind in KINDS_LIST:
        assert kind.stock == (B.NODE_KIND_NAMES[kind.number] == kind.name and kind.number <= 47)
    assert not KINDS["XNNDepthToSpace2d"].stock and KINDS["XNNCos"].stock


def test_every_xnn_node_op_has_a_spec_and_kinds():
    assert set(OPS) == {op.name for op in xnn.XNN_NODE_OPS}
    for name in OPS:
        fallbacks = [k for k in nodes.KINDS_BY_OP[name] if k.selects is None]
        assert len(fallbacks) == 1, name


@pytest.mark.parametrize("kind", KINDS_LIST, ids=lambda k: k.name)
def test_encoding_names_operands_and_parameters_of_the_op(kind):
    """A hand-written op is checked against its table entry: every field it encodes from."""
    op = xnn.NODE_OPS_BY_NAME[kind.op.name].get_irdl_definition()
    names = {name for name, _ in op.operands} | set(op.properties)
    sources = [s for s in kind.fields.values() if isinstance(s, str)]
    assert [s for s in sources if s not in names] == []
    assert set(kind.op.same_type) <= {name for name, _ in op.operands}


@pytest.mark.parametrize("spec", [s for s in OPS.values() if s.generated], ids=lambda s: s.name)
def test_generated_ops_follow_their_spec(spec):
    op = getattr(xnn, spec.generated)
    assert op is xnn.NODE_OPS_BY_NAME[spec.name] and op.__doc__ == spec.doc
    definition = op.get_irdl_definition()
    assert [name for name, _ in definition.operands] == list(spec.operands)
    assert {p.name for p in spec.params} <= set(definition.properties)
    assert issubclass(op, xnn.ClampedNode) == spec.clamped


@pytest.mark.parametrize("kind", KINDS_LIST, ids=lambda k: k.name)
def test_fields_and_arguments_name_fields_of_the_kind_table(kind):
    table = B.NODE_TABLES[kind.number]()
    named = [*kind.fields, *kind.optional_ids, *kind.unused_ids, *kind.packed, *kind.native_bf16]
    named += [a.name for a in kind.args if hasattr(a, "name")]
    named += [n for a in kind.args if isinstance(a, nodes.Params) for n in a.names]
    missing = [n for n in named if not hasattr(table, nodes.camel(n))]
    assert missing == []


def test_a_define_function_has_one_signature():
    signatures = nodes.define_signatures()
    assert len(signatures["xnn_define_unary"]) == 5
    assert signatures["xnn_define_convolution_2d"].count(nodes.c_size_t) == 2


def test_layout_agnostic_ops_have_a_layout_pattern():
    assert set(layout.AGNOSTIC) <= set(layout.CANONICALIZATION)


def test_bf16_capabilities_agree_between_legalization_and_runtime():
    from xnnc.backend_xnnpack.runtime import runtime
    from xnnc.legalize import casts

    legalized = {op.name for op in (*casts.NO_BF16_KERNEL, *casts.BF16_GEMMS)}
    assert {KINDS[k].op.name for k in runtime.BF16_VIA_FP32} == legalized
    assert set(runtime.NATIVE_BF16_GEMM) == {"XNNFullyConnected", "XNNBatchMatrixMultiply"}


def test_conv_filter_rule_is_shared_by_verifier_and_runtime_check():
    params = dict(kernel_height=3, kernel_width=3, subsampling_height=1, subsampling_width=1,
                  dilation_height=1, dilation_width=1, groups=2, group_input_channels=2,
                  group_output_channels=4, padding_top=0, padding_right=0, padding_bottom=0,
                  padding_left=0, flags=0)  # fmt: skip
    shapes = {"input": (1, 5, 5, 4), "filter": (8, 3, 3, 2), "bias": None}
    assert nodes.convolution_2d_shape(shapes, params).shape == (1, 3, 3, 8)
    assert nodes.conv_filter_dims(2, 2, 4, (3, 3)) == (8, 3, 3, 2)
    with pytest.raises(nodes.ShapeError, match=r"filter shape \[8, 3, 3, 4\] should be"):
        nodes.convolution_2d_shape({**shapes, "filter": (8, 3, 3, 4)}, params)


@pytest.mark.parametrize("limit", ["MAX_TENSOR_DIMS", "MAX_CONCATENATE_INPUTS"])
def test_limits_are_defined_once(limit):
    root = Path(__file__).resolve().parents[2]
    sources = [p for p in root.rglob("*.py") if not p.relative_to(root).parts[0].startswith(".")]
    defined = [
        str(p.relative_to(root))
        for p in sources  # not .venv
        if re.search(rf"^{limit} = ", p.read_text(), re.M)
    ]
    assert defined == ["backend_xnnpack/nodes.py"]


# --- the runtime needs neither xDSL nor the dialects -------------------------------------------

SUBGRAPH = """
func.func @f(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>):
    %w = xnn.constant dense<0.25> : tensor<3x3x3x2xf32>
    %b = xnn.constant dense<0.5> : tensor<3xf32>
    %c = xnn.convolution_2d %a, %w, %b {kernel_height = 3, kernel_width = 3,
           group_input_channels = 2, group_output_channels = 3, output_min = 0.0 : f32}
           : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
    %s = xnn.softmax %c : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
    %y = xnn.binary add %s, %c : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
    xnn.output %y : tensor<1x2x2x3xf32>
  }
  func.return %r : tensor<1x2x2x3xf32>
}
"""

LOAD_AND_RUN = """
import json, sys
import torch
from xnnc.backend_xnnpack.runtime import XnnRuntime
blob = open(sys.argv[1], "rb").read()
with XnnRuntime(blob) as rt:
    (y,) = rt.run(torch.arange(32, dtype=torch.float32).reshape(1, 4, 4, 2) / 32)
loaded = sorted(m for m in sys.modules if m.startswith(("xdsl", "xnnc.dialects")))
print(json.dumps({"y": y.flatten().tolist(), "loaded": loaded}))
"""


def test_runtime_loads_and_runs_a_blob_without_xdsl_or_dialects(tmp_path):
    (sub,) = [op for op in parse_module(SUBGRAPH).walk() if isinstance(op, xnn.SubgraphOp)]
    path = tmp_path / "blob.bin"
    path.write_bytes(serialize_subgraph(sub))
    env_path = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": env_path}
    command = [sys.executable, "-c", LOAD_AND_RUN, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["loaded"] == []
    x = (torch.arange(32, dtype=torch.float32).reshape(1, 4, 4, 2) / 32).permute(0, 3, 1, 2)
    conv = torch.nn.functional.conv2d(x, torch.full((3, 2, 3, 3), 0.25), torch.full((3,), 0.5))
    c = conv.relu().permute(0, 2, 3, 1)
    want = c.softmax(-1) + c
    torch.testing.assert_close(torch.tensor(result["y"]).reshape(1, 2, 2, 3), want)


def test_blob_kinds_of_the_subgraph_come_from_the_table():
    (sub,) = [op for op in parse_module(SUBGRAPH).walk() if isinstance(op, xnn.SubgraphOp)]
    read = B.read_blob(serialize_subgraph(sub))
    assert read.node_kinds == ("XNNConv2d", "XNNSoftmax", "XNNAdd")
    assert isinstance(read.graph.xnodes[0].xnodeUnion, fb.XNNNodeConvT)
