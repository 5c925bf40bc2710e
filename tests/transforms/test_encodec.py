"""The EnCodec-style decoder in one XNNPACK partition: reflect padding as slices and a
concatenate, the LSTM's time loop (select, unsqueeze, cat, sigmoid/tanh gates) in the
delegate, and `xnn-hoist-input-projection` for cells unrolled by hand.

Tolerances: reflect padding, select and the hoist's slices only move data, so they are
exact. Whole models compare in fp32 at 1e-4 of the output's scale (max |eager|): XNNPACK
sums GEMMs and convolutions in another order than torch and evaluates sigmoid/tanh/ELU with
its own approximations (~1e-6 relative each), and the LSTM feeds each step's rounding into
the next over T steps and two layers; the observed error is ~1e-6 of the scale.
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

import xnnc
from xnnc.backend_xnnpack.blob import read_blob
from xnnc.conversion.aten_to_xnn import reflect_pieces
from xnnc.conversion.partition import PartitionPass
from xnnc.dialects import aten, xnn
from xnnc.examples.models import MODELS
from xnnc.frontend.fx_importer import import_model
from xnnc.pipeline.stages import default_passes
from xnnc.pte import StockRuntime, to_pte
from xnnc.transforms.hoist_input_projection import covers
from xnnc.translate import xnnpack as translate_xnnpack

TARGETS = ["extended", "stock"]
HOIST = "xnn-hoist-input-projection"
# Tensor factories the fold-constants pass turns into constants (the LSTM's h0/c0); without
# it they stay outside as operand-free sources, which never split a partition.
CREATION_OPS = {"aten.full", "aten.zeros", "aten.zeros_like", "aten.full_like"}


def _close(got: torch.Tensor, want: torch.Tensor, tol: float = 1e-4) -> None:
    scale = want.abs().max().item()
    torch.testing.assert_close(got, want, atol=tol * scale, rtol=0)


def _ops(program) -> Counter[str]:
    return Counter(op.name for op in program.module.walk() if op.name.startswith("xnn."))


# --- reflect padding -------------------------------------------------------------------------


@pytest.mark.parametrize(("length", "left", "right"), [(5, 1, 1), (5, 4, 0), (2, 1, 1), (7, 6, 6)])
def test_reflect_pieces_rebuild_the_pad(length: int, left: int, right: int) -> None:
    x = torch.arange(float(length)).reshape(1, 1, length)
    pieces = [x[..., s : s + n] for s, n in reflect_pieces(length, left, right)]
    assert torch.equal(torch.cat(pieces, -1), F.pad(x, (left, right), mode="reflect"))


class ReflectPad(nn.Module):
    def __init__(self, pad: tuple[int, ...]):
        super().__init__()
        self.pad = pad

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, self.pad, mode="reflect")


# pad = length - 1 is the widest PyTorch accepts; 6 a side needs two concatenates a side.
REFLECT_1D = [(1, 1), (3, 3), (2, 0), (0, 4), (6, 6)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pad", REFLECT_1D, ids=lambda p: f"{p[0]}_{p[1]}")
def test_reflection_pad1d_is_exact(pad: tuple[int, int], target: str) -> None:
    x = torch.randn(1, 3, 7)
    program = xnnc.compile(ReflectPad(pad), (x,), target=target)
    assert program.num_partitions == 1 and program.ops_outside() == []
    assert torch.equal(program(x), F.pad(x, pad, mode="reflect"))


@pytest.mark.parametrize("target", TARGETS)
def test_reflection_pad2d_is_exact(target: str) -> None:
    x = torch.randn(1, 2, 4, 5)
    pad = (4, 1, 3, 2)  # left = W - 1, top = H - 1
    program = xnnc.compile(ReflectPad(pad), (x,), target=target)
    assert program.num_partitions == 1 and program.ops_outside() == []
    assert torch.equal(program(x), F.pad(x, pad, mode="reflect"))


def test_reflection_pad_before_conv_has_no_transpose_between() -> None:
    """The pad runs channels-last like the conv, so conversion's transposes cancel."""
    torch.manual_seed(0)
    layers = (nn.Conv1d(3, 4, 3), nn.ELU(), ReflectPad((3, 3)), nn.Conv1d(4, 4, 7))
    model = nn.Sequential(*layers).eval()
    x = torch.randn(1, 3, 9)
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,))
    _close(program(x), want)
    assert _ops(program)["xnn.static_transpose"] <= 2  # the subgraph's input and output


def test_reflection_pad_pte_on_stock_runtime() -> None:
    """Stock ExecuTorch 1.5.1 runs the slices and its Concatenate2..5 nodes."""
    x = torch.randn(1, 3, 7)
    (got,) = StockRuntime(to_pte(ReflectPad((6, 6)), (x,), target="stock"))(x)
    assert torch.equal(got, F.pad(x, (6, 6), mode="reflect"))


# --- the LSTM and the input projection -------------------------------------------------------


class CellLoop(nn.Module):
    """A 2-layer LSTM run as nn.LSTMCell steps in a Python loop, time-major [T, B, C]."""

    def __init__(self, channels: int = 16, layers: int = 2):
        super().__init__()
        self.cells = nn.ModuleList(nn.LSTMCell(channels, channels) for _ in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for cell in self.cells:
            h = torch.zeros(x.shape[1], cell.hidden_size)
            c = torch.zeros(x.shape[1], cell.hidden_size)
            steps = []
            for t in range(x.shape[0]):
                h, c = cell(x[t], (h, c))
                steps.append(h)
            x = torch.stack(steps)
        return x


def test_covers() -> None:
    assert covers([(2, 1), (0, 2)], 3)
    assert covers([(0, 2), (1, 2)], 3)
    assert not covers([(0, 1), (2, 1)], 3)
    assert not covers([(1, 2)], 3)


@pytest.mark.parametrize("target", TARGETS)
def test_hoisted_input_projection(target: str) -> None:
    """T steps x 2 layers: T input projections per layer become one; the recurrent ones
    stay (the first step's folds away with h0 = 0)."""
    torch.manual_seed(0)
    steps = 6
    model, x = CellLoop().eval(), torch.randn(steps, 1, 16)
    with torch.no_grad():
        want = model(x)
    # The static rules: a tuned choice may make a layer a batch matmul instead (fc-or-bmm).
    with_ = xnnc.compile(model, (x,), target=target, tune=False)
    without = xnnc.compile(model, (x,), target=target, disable=(HOIST,), tune=False)
    for program in (with_, without):
        assert program.num_partitions == 1 and program.ops_outside() == []
        _close(program(x), want)
    recurrent = 2 * (steps - 1)
    assert _ops(without)["xnn.fully_connected"] == 2 * steps + recurrent
    assert _ops(with_)["xnn.fully_connected"] == 2 + recurrent


def test_nn_lstm_is_already_projected_once(zoo) -> None:
    """torch.export decomposes nn.LSTM with one input projection over the whole sequence per
    layer: the pass finds nothing to hoist in EnCodec's SLSTM."""
    with_ = zoo.compiled("encodec", tune=False, disable=UNROLLED)
    without = zoo.compiled("encodec", disable=(HOIST, *UNROLLED), tune=False)
    assert _ops(with_) == _ops(without)


class Recurrent(nn.Module):
    """An nn.LSTM / nn.GRU / nn.RNN's output sequence."""

    def __init__(self, rnn: nn.Module):
        super().__init__()
        self.rnn = rnn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rnn(x)[0]


# (module, input shape): batch > 1, batch-first, a projected LSTM, no biases, 3 layers with
# hidden != input channels, and the other recurrent kinds torch.export unrolls the same way.
RECURRENT = {
    "lstm_batch2": (lambda: nn.LSTM(8, 12, 2), (5, 2, 8)),
    "lstm_batch_first": (lambda: nn.LSTM(8, 12, 1, batch_first=True), (2, 5, 8)),
    "lstm_proj": (lambda: nn.LSTM(8, 12, 1, proj_size=4), (5, 1, 8)),
    "lstm_no_bias": (lambda: nn.LSTM(8, 12, 1, bias=False), (5, 1, 8)),
    "lstm_3_layers": (lambda: nn.LSTM(6, 10, 3), (4, 1, 6)),
    "gru": (lambda: nn.GRU(8, 12, 2), (5, 1, 8)),
    "rnn_tanh": (lambda: nn.RNN(8, 12, 1), (5, 1, 8)),
}


# The LSTMs xnnc's recurrent loop runs (not proj_size), which the extended runtime's rule
# keeps whole by default; `UNROLLED` disables the rule.
LOOPED = {"lstm_batch2", "lstm_batch_first", "lstm_no_bias", "lstm_3_layers"}
UNROLLED = ("lstm-loop",)


@pytest.mark.parametrize("name", list(RECURRENT))
def test_recurrent_layers_in_one_partition(name: str) -> None:
    """Unrolled, every step in one subgraph, against eager at the module docstring's 1e-4 of
    scale."""
    torch.manual_seed(0)
    make, shape = RECURRENT[name]
    model, x = Recurrent(make()).eval(), torch.randn(shape)
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,), disable=UNROLLED)
    assert program.num_partitions == 1
    assert set(program.ops_outside()) <= CREATION_OPS, program.ops_outside()
    _close(program(x), want)


@pytest.mark.parametrize("name", list(RECURRENT))
def test_recurrent_layers_by_default(name: str) -> None:
    """By default on the extended runtime an LSTM the loop runs is kept whole for it (its
    reason says so); the others unroll into one subgraph as above. Same tolerance."""
    from xnnc.program.lstm_loop import ON_XNNPACK

    torch.manual_seed(0)
    make, shape = RECURRENT[name]
    model, x = Recurrent(make()).eval(), torch.randn(shape)
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,))
    outside = [o for o in program.outside() if o.op not in CREATION_OPS]
    if name in LOOPED:
        assert [(o.op, o.reason) for o in outside] == [("aten.lstm.input", ON_XNNPACK)]
    else:
        assert program.num_partitions == 1 and outside == []
    _close(program(x), want)


class ScaledLstm(nn.Module):
    """`aten.lstm.input` on a computed W_ih (a scaled parameter): not a constant when
    exported, so the importer cannot hand it to the loop, which reads its weights packed."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(8, 12, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w_ih, w_hh, b_ih, b_hh = self.lstm._flat_weights
        zeros = x.new_zeros(1, x.shape[1], 12)
        out, _, _ = torch.ops.aten.lstm.input(
            x, [zeros, zeros], [w_ih * 0.5, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, False
        )
        return out


def test_an_lstm_the_loop_cannot_run_is_unrolled() -> None:
    """The importer keeps a static LSTM whole only where the loop will run it (the reasons of
    `backend_xnnpack.nodes.lstm_loop_refusal`, read from the exported graph); a computed weight
    unrolls it into XNNPACK instead of leaving it to torch. Tolerance as above."""
    torch.manual_seed(0)
    model, x = ScaledLstm().eval(), torch.randn(5, 1, 8)
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,))
    assert program.num_partitions == 1
    assert set(program.ops_outside()) <= CREATION_OPS, program.ops_outside()
    _close(program(x), want)


def test_lstm_step_is_one_fully_connected_for_all_gates() -> None:
    """Unrolled, the LSTM is one `xnn.lstm` in the IR; its blob has per layer one input
    projection over all steps, then one recurrent fully-connected node per step computing
    the four gates at once (none for the first step, from h0 = 0), each reading the layer's
    one recurrent weight (one constant, not a copy per step)."""
    torch.manual_seed(0)
    steps, layers = 6, 2
    model, x = Recurrent(nn.LSTM(16, 16, layers)).eval(), torch.randn(steps, 1, 16)
    program = xnnc.compile(model, (x,), savable=True, tune=False, disable=UNROLLED)
    (lstm,) = [op for op in program.module.walk() if isinstance(op, xnn.LstmOp)]
    assert not list(lstm.state)  # zeros: left out
    (sub,) = [op for op in program.module.walk() if isinstance(op, xnn.SubgraphOp)]
    blob = read_blob(translate_xnnpack.serialize_subgraph(sub, "extended"))
    nodes = zip(blob.graph.xnodes, blob.node_kinds, strict=True)
    fcs = [node.xnodeUnion for node, kind in nodes if kind == "XNNFullyConnected"]
    assert len(fcs) == layers + layers * (steps - 1)
    reads = Counter(fc.filterId for fc in fcs)
    assert sorted(reads.values()) == [1] * layers + [steps - 1] * layers
    assert all(blob.tensors[fc.outputId].dims[-1] == 4 * 16 for fc in fcs)
    with torch.no_grad():
        want = model(x)
    _close(program(x), want)


class _WithState(nn.Module):
    """An nn.LSTM called with the state it is given: (output, h_n, c_n)."""

    def __init__(self, lstm: nn.LSTM):
        super().__init__()
        self.lstm = lstm

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x, (h0, c0))
        return y, h, c


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "lstm", [nn.LSTM(6, 8, 2), nn.LSTM(6, 8, 2, bidirectional=True, batch_first=True),
             nn.LSTM(6, 8, 3, bidirectional=True)],
    ids=["2_layers", "bidirectional_batch_first", "6_cells"],  # 6: h_n joins as a tree
)  # fmt: skip
def test_xnn_lstm_reads_a_given_state(target: str, lstm: nn.LSTM) -> None:
    """h0 and c0 as inputs: `xnn.lstm` keeps them as its state operands (each cell's slice of
    them starts its steps), and the output and both final states match eager."""
    torch.manual_seed(0)
    model = _WithState(lstm).eval()
    dirs = 2 if lstm.bidirectional else 1
    x = torch.randn(3, 5, 6) if lstm.batch_first else torch.randn(5, 3, 6)  # B 3, T 5
    cells = lstm.num_layers * dirs
    h0, c0 = torch.randn(cells, 3, 8), torch.randn(cells, 3, 8)
    program = xnnc.compile(model, (x, h0, c0), target=target, disable=UNROLLED)
    (op,) = [o for o in program.module.walk() if isinstance(o, xnn.LstmOp)]
    assert len(op.state) == 2 and program.num_partitions == 1
    with torch.no_grad():
        want = model(x, h0, c0)
    for got, expected in zip(program(x, h0, c0), want, strict=True):
        _close(got, expected)


def test_bidirectional_lstm_matches_eager() -> None:
    """Unrolled, both directions are one `xnn.lstm` in the subgraph (the reverse one's
    steps run backwards: no flip); on the loop, one op outside; both as eager."""
    torch.manual_seed(0)
    model, x = Recurrent(nn.LSTM(8, 12, 2, bidirectional=True)).eval(), torch.randn(5, 1, 8)
    with torch.no_grad():
        want = model(x)
    program = xnnc.compile(model, (x,), disable=UNROLLED)
    assert set(program.ops_outside()) <= CREATION_OPS
    _close(program(x), want)
    looped = xnnc.compile(model, (x,))  # both directions on the recurrent loop
    assert set(looped.ops_outside()) <= CREATION_OPS | {"aten.lstm.input"}
    _close(looped(x), want)


# --- the whole decoder -----------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_small_encodec_is_one_partition(zoo, target: str) -> None:
    """Unrolled (`disable=("lstm-loop",)`): the whole decoder in one subgraph."""
    _, inputs = zoo.example("encodec")
    want = zoo.eager("encodec")
    program = zoo.compiled("encodec", target=target, disable=UNROLLED)
    assert program.num_partitions == 1
    assert set(program.ops_outside()) <= CREATION_OPS, program.ops_outside()
    _close(program(*inputs), want)


@pytest.fixture(scope="module")
def full_encodec() -> ModuleOp:
    """The full-size decoder, imported once for both targets."""
    return import_model(*MODELS["encodec"]())


@pytest.mark.parametrize("target", TARGETS)
def test_full_encodec_partitions(full_encodec: ModuleOp, target: str) -> None:
    """The full-size decoder up to partitioning (conversion of the same ops is checked on
    the small one above): one subgraph, only tensor factories possibly outside."""
    module = full_encodec.clone()
    passes = default_passes(target=target)
    upto = next(i for i, p in enumerate(passes) if isinstance(p, PartitionPass))
    PassPipeline(tuple(passes[: upto + 1])).apply(xnnc.make_context(), module)
    func = next(op for op in module.ops)
    subgraphs = [op for op in func.walk() if isinstance(op, xnn.SubgraphOp)]
    outside = [
        op.target.data if isinstance(op, aten.GenericOp) else op.name
        for op in func.body.block.ops
        if isinstance(op, (aten.GenericOp, *aten.ATEN_OPS)) and not isinstance(op, aten.ConstantOp)
    ]
    assert len(subgraphs) == 1
    assert set(outside) <= CREATION_OPS, outside
