"""The `xnn` dialect from Python: every op parses, prints and round-trips between custom and
generic form, and every verifier message fires.

The IR cases are the lit tests' (`lit_tests/dialects/xnn_ops.mlir`, `xnn_verify.mlir`), so
both suites exercise the same cases; here they run without `xnn-opt`.
"""

import re
from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, FloatAttr, ModuleOp, TensorType, f32
from xdsl.dialects.func import Func, FuncOp, ReturnOp
from xdsl.ir import Block
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xnnc.dialects.aten import Aten
from xnnc.dialects.weights import BlobStore, WeightAttr, Xnnc, using_blobs
from xnnc.dialects.xnn import (
    FLAG_KEEP_DIMS,
    XNN_NODE_OPS,
    BinaryOp,
    BinaryOperator,
    ConstantOp,
    Convolution2dOp,
    OutputOp,
    ReduceOperator,
    StaticReduceOp,
    SubgraphOp,
    UnaryOperator,
    Xnn,
    c_value,
)

LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "dialects"


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Xnnc, Aten, Xnn):
        ctx.load_dialect(dialect)
    return ctx


def _parse(text: str) -> ModuleOp:
    return Parser(_context(), text).parse_module()


def _print(module: ModuleOp, generic: bool = False) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def _cases(name: str) -> list:
    """Each `// -----` split of a lit test, named after its function."""
    cases = []
    for chunk in (LIT / name).read_text().split("\n// -----\n"):
        func = re.search(r"func\.func @(\w+)", chunk)
        cases.append(pytest.param(chunk, id=func.group(1) if func else "module"))
    return cases


def test_every_op_has_a_round_trip_case():
    text = (LIT / "xnn_ops.mlir").read_text()
    missing = [op.name for op in Xnn.operations if not re.search(rf"{op.name}\b", text)]
    assert missing == []


@pytest.mark.parametrize("case", _cases("xnn_ops.mlir"))
def test_round_trip(case: str):
    module = _parse(case)
    module.verify()
    custom = _print(module)
    generic = _print(module, generic=True)
    assert _print(_parse(custom)) == custom
    from_generic = _parse(generic)
    from_generic.verify()
    assert _print(from_generic) == custom
    assert _print(from_generic, generic=True) == generic


@pytest.mark.parametrize("case", _cases("xnn_verify.mlir"))
def test_verifier_message(case: str):
    op_name, message = re.search(r"// CHECK: .*error: '([\w.]+)' op (.*)$", case, re.M).groups()
    module = _parse(case)
    with pytest.raises(VerifyException, match=re.escape(message)):
        # Outside in, one op at a time, as xnn-opt reports the first failure.
        for op in module.walk():
            failing = op
            op.verify(verify_nested_ops=False)
    assert failing.name == op_name


def test_enum_values_follow_xnnpack_header():
    # include/xnnpack.h at XNNPACK 92a7ad50.
    assert (len(UnaryOperator), len(BinaryOperator), len(ReduceOperator)) == (26, 18, 6)
    assert c_value(UnaryOperator.ABS) == 0
    assert c_value(UnaryOperator.APPROXGELU) == 1
    assert c_value(UnaryOperator.CONVERT) == 5
    assert c_value(UnaryOperator.SIGN) == 25
    assert c_value(BinaryOperator.PRELU) == 8
    assert c_value(BinaryOperator.SHIFT_RIGHT_ARITHMETIC) == 17
    assert c_value(ReduceOperator.MEAN) == 2


def test_build_subgraph_from_python():
    x_type, y_type = TensorType(f32, [1, 8, 8, 3]), TensorType(f32, [1, 8, 8, 8])
    func = FuncOp("f", ((x_type,), (y_type,)))
    func_block = func.body.block
    graph = SubgraphOp([func_block.args[0]], [y_type])
    body = graph.body.block
    weight_type = TensorType(f32, [8, 3, 3, 3])
    weight = ConstantOp(WeightAttr(BlobStore().add("w", bytes(8 * 27 * 4))), weight_type)
    conv = Convolution2dOp.make(
        body.args[0],
        weight.output,
        None,
        result_type=y_type,
        padding_top=1,
        padding_right=1,
        padding_bottom=1,
        padding_left=1,
        kernel_height=3,
        kernel_width=3,
        group_input_channels=3,
        group_output_channels=8,
        output_min=0.0,
    )
    body.add_ops([weight, conv, OutputOp(conv.output)])
    func_block.add_ops([graph, ReturnOp(graph.outputs[0])])
    module = ModuleOp([func])
    module.verify()
    assert body.args[0].type == x_type
    assert conv.output_range() == (0.0, float("inf"))
    text = _print(module)
    assert 'xnn.constant #xnnc.weight<"w"> : tensor<8x3x3x3xf32>' in text
    assert "padding_top = 1 : i64" in text


def test_make_converts_python_values():
    a = Block(arg_types=[TensorType(f32, [2, 3, 4])]).args[0]
    reduce = StaticReduceOp.make(
        a,
        result_type=TensorType(f32, [2, 1, 1]),
        kind=ReduceOperator.MEAN,
        axes=[1, -1],
        flags=FLAG_KEEP_DIMS,
    )
    reduce.verify()
    assert reduce.has_flag(FLAG_KEEP_DIMS)
    binary = BinaryOp.make(
        a, a, result_type=a.type, kind=BinaryOperator.ADD, output_max=FloatAttr(6.0, f32)
    )
    binary.verify()
    assert binary.output_range() == (float("-inf"), 6.0)
    with pytest.raises(VerifyException, match=r"output shape \[2, 3, 4\] should be \[2, 1, 1\]"):
        StaticReduceOp.make(
            a, result_type=a.type, kind=ReduceOperator.SUM, axes=[1, 2], flags=FLAG_KEEP_DIMS
        ).verify()


def test_weights_resolve_against_the_active_store():
    store = BlobStore()
    blob = store.add("w", b"\0" * 8)
    with using_blobs(store):
        module = _parse(
            "func.func @f() -> tensor<2xf32> {\n"
            '  %w = xnn.constant #xnnc.weight<"w"> : tensor<2xf32>\n'
            "  func.return %w : tensor<2xf32>\n}"
        )
    module.verify()
    (constant,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert constant.value.data is blob


def test_node_ops_are_registered():
    assert set(XNN_NODE_OPS) < set(Xnn.operations)
