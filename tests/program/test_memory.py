"""Memory close to the weights: what a Program, a runtime and a blob hold (structural facts;
the RSS figures are in benchmarks/memory_bench.py).

Tolerances: linear layers compare at 1e-5 of the output's scale (XNNPACK's GEMMs sum in
another order than torch, ~1e-6 relative); the LSTM at 1e-4 of the scale, as in
test_encodec.py (each step's rounding feeds the next over T steps and two layers).
"""

from __future__ import annotations

import hashlib
import io
import struct

import pytest
import torch
import torch.nn as nn

import xnnc
from xnnc.backend_xnnpack.blob import _HEADER, read_blob
from xnnc.backend_xnnpack.serialize import GraphBuilder
from xnnc.dialects import xnn
from xnnc.dialects.weights import WeightAttr
from xnnc.errors import XnncError
from xnnc.translate.xnnpack import serialize_subgraph_named


def _close(got: torch.Tensor, want: torch.Tensor, tol: float) -> None:
    torch.testing.assert_close(got, want, atol=tol * want.abs().max().item(), rtol=0)


@pytest.fixture(scope="module")
def mlp() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 96), nn.ReLU(), nn.Linear(96, 32)).eval()
    return model, (torch.randn(8, 64),)  # 8 rows: the least the tuner times fc-or-bmm at


def _subgraph_weights(program: xnnc.Program) -> list[WeightAttr]:
    return [
        op.value
        for sub in program.subgraphs
        for op in sub.body.block.ops
        if isinstance(op, xnn.ConstantOp) and isinstance(op.value, WeightAttr)
    ]


# --- what a Program keeps --------------------------------------------------------------------


@pytest.mark.parametrize("form", ["fc", "bmm"])
def test_compiled_program_keeps_weights_only_in_xnnpack(mlp, form, tmp_path, monkeypatch):
    """Every weight is released once XNNPACK has packed it, in either form of a linear
    layer: XNNPACK packs a batch matmul's static input2 into the operator at creation (it
    kept the constant beside that copy)."""
    from xnnc.tuning import tuner

    model, inputs = mlp
    times = {"fc": 1.0, "bmm": 1.0, form: 0.5}
    monkeypatch.setattr(tuner, "time_on_xnnpack", lambda forms, threads: times)
    program = xnnc.compile(model, inputs, tune=True, tuning_db=str(tmp_path / "db.json"))
    kinds = {op.name for op in program.module.walk()}
    assert ("xnn.batch_matrix_multiply" in kinds) == (form == "bmm")
    assert program._exported is None and program._blobs is None
    weights = _subgraph_weights(program)
    assert weights and not any(w.data.has_data for w in weights)
    weight_bytes = sum(p.numel() * 4 for p in model.parameters())
    for rt in program.runtimes.values():
        assert rt._blob is None  # the blob is gone once XNNPACK has packed it
        assert rt._packed and not rt._packed & rt._constants.buffers.keys()
        # Filters and biases packed, then released; the bmm form's adds read the biases.
        kept = sum(b.nbytes for b in rt._constants.buffers.values())
        assert kept == 0 if form == "fc" else kept < 0.05 * weight_bytes
    with torch.no_grad():
        _close(program(*inputs), model(*inputs), 1e-5)


def test_saving_without_savable_says_how(mlp, tmp_path) -> None:
    program = xnnc.compile(*mlp)
    for path in ("m.xnnc", "m.pte"):
        with pytest.raises(XnncError, match=r"compiled without savable=True.*savable=True"):
            program.save(str(tmp_path / path))
    with pytest.raises(XnncError, match=r"^Program.blobs: compiled without savable=True"):
        program.blobs  # noqa: B018


def test_savable_program_saves_and_loads(mlp, tmp_path) -> None:
    model, inputs = mlp
    program = xnnc.compile(model, inputs, savable=True)
    assert program._exported is not None and program._blobs is None  # blobs: made on save
    path = tmp_path / "m.xnnc"
    program.save(str(path))
    loaded = xnnc.load(str(path))
    assert torch.equal(loaded(*inputs), program(*inputs))
    with pytest.raises(XnncError, match="loaded without savable=True"):
        loaded.save(str(tmp_path / "again.xnnc"))
    kept = xnnc.load(str(path), savable=True)
    assert kept.blobs == program.blobs
    kept.save(str(tmp_path / "again.xnnc"))
    assert torch.equal(xnnc.load(str(tmp_path / "again.xnnc"))(*inputs), program(*inputs))


def test_named_serialization_points_at_the_model_weights(mlp) -> None:
    """The in-process blob carries no weight bytes: its named data are views of the
    parameters themselves."""
    model, inputs = mlp
    program = xnnc.compile(model, inputs, savable=True)
    blob, named = serialize_subgraph_named(program.subgraphs[0])
    assert struct.unpack_from("<Q", blob, 22)[0] == 0  # an empty constant region
    addresses = {v.__array_interface__["data"][0] for v in map(_array, named.values())}
    params = {p.data_ptr() for p in model.parameters()}
    assert params <= addresses
    assert len(blob) < 4096 < sum(p.numel() * 4 for p in model.parameters())


def test_write_pte_streams_the_same_pte(mlp, tmp_path) -> None:
    from xnnc.pte import StockRuntime, to_pte, write_pte

    model, inputs = mlp
    path = tmp_path / "m.pte"
    write_pte(str(path), model, inputs)
    assert path.read_bytes() == to_pte(model, inputs)
    with torch.no_grad():
        _close(StockRuntime(path.read_bytes())(*inputs)[0], model(*inputs), 1e-5)


def test_pte_lowering_shares_the_weights_and_keeps_no_blob(mlp, tmp_path, monkeypatch) -> None:
    """ExecuTorch copies each delegated piece for preprocess: xnnc's pieces share the
    weights' storage (a deep copy put a second copy of every weight beside the blob), and
    once the .pte is written no lowered module survives (torch's fake-tensor dispatch cache
    and ExecuTorch's `is_same_node` cache kept them, and their blobs, for good)."""
    import gc
    import weakref

    from executorch.exir.lowered_backend_module import LoweredBackendModule

    from xnnc.pte import write_pte
    from xnnc.pte.backend import XnncBackend

    model, inputs = mlp
    seen: list[int] = []
    preprocess = XnncBackend.preprocess

    def recording(edge_program, compile_specs):
        seen.extend(t.data_ptr() for t in edge_program.state_dict.values())
        return preprocess(edge_program, compile_specs)

    lowered: list[weakref.ref] = []
    init = LoweredBackendModule.__init__

    def tracking(self, *args, **kwargs):
        init(self, *args, **kwargs)
        lowered.append(weakref.ref(self))

    monkeypatch.setattr(XnncBackend, "preprocess", staticmethod(recording))
    monkeypatch.setattr(LoweredBackendModule, "__init__", tracking)
    write_pte(str(tmp_path / "m.pte"), model, inputs)
    assert seen and set(seen) <= {p.data_ptr() for p in model.parameters()}
    gc.collect()
    assert lowered and all(ref() is None for ref in lowered)


def _trace_map() -> dict:
    from torch.fx.experimental import proxy_tensor

    return proxy_tensor._FAKE_TENSOR_ID_TO_PROXY_MAP_FOR_EXPORT


def test_compile_keeps_no_decomposed_graph(mlp, monkeypatch) -> None:
    """torch's last trace left its graph in a module global (non-strict export's leak
    check): after compile, the decomposed program's graph is gone (it held EnCodec's
    unrolled LSTM, 0.35x its weights)."""
    import gc
    import weakref

    from xnnc.frontend import fx_importer

    graphs: list[weakref.ref] = []
    decompose = fx_importer.decompose

    def recording(ep, *args):
        out = decompose(ep, *args)
        graphs.append(weakref.ref(out.graph))
        return out

    monkeypatch.setattr(fx_importer, "decompose", recording)
    program = xnnc.compile(*mlp)
    gc.collect()
    assert graphs and all(ref() is None for ref in graphs)
    assert _trace_map() == {}
    del program


def test_pte_export_keeps_no_edge_graph(mlp, tmp_path) -> None:
    from xnnc.pte import write_pte

    write_pte(str(tmp_path / "m.pte"), *mlp)
    assert _trace_map() == {}  # held to_edge's last decomposed graph


def _array(view: memoryview):
    import numpy as np

    return np.frombuffer(view, dtype=np.uint8)


# --- constants shared at serialization -------------------------------------------------------


def test_same_constant_is_one_value_and_one_buffer() -> None:
    import numpy as np

    w = np.arange(128, dtype=np.float32)  # above the 256 bytes compared by value
    g = GraphBuilder()
    g.value("x", "fp32", [128], external="input")
    first = g.value("w1", "fp32", [128], data=memoryview(w))
    again = g.value("w2", "fp32", [128], data=memoryview(w))  # the same memory
    reshaped = g.value("w3", "fp32", [8, 16], data=memoryview(w))  # another type
    copy = g.value("w4", "fp32", [128], data=memoryview(w.copy()))  # equal bytes elsewhere
    assert first == again and len({first, reshaped, copy}) == 3
    assert g.id("w2") == first
    for key, vid in (("y1", "w1"), ("y2", "w4")):
        g.value(key, "fp32", [128], external="output")
        g.add_node(g.node("XNNAdd", input1_id=g.id("x"), input2_id=g.id(vid), output_id=g.id(key),
                          flags=0), key, (-np.inf, np.inf))  # fmt: skip
    blob = read_blob(g.finish(["y1", "y2"]))
    assert blob.tensors[reshaped].constantBufferIdx == blob.tensors[first].constantBufferIdx
    assert blob.tensors[copy].constantBufferIdx != blob.tensors[first].constantBufferIdx
    assert _HEADER.unpack_from(g.finish(["y1", "y2"]))[6] == 2 * 512  # two 512-byte buffers


class LSTM(nn.Module):
    def __init__(self, channels: int, layers: int = 2):
        super().__init__()
        self.lstm = nn.LSTM(channels, channels, layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lstm(x)[0]


@pytest.mark.parametrize("steps", [50, 100])
def test_unrolled_lstm_serializes_its_weights_once(steps: int) -> None:
    """torch.export unrolls nn.LSTM into one fully-connected node per step and layer on the
    same recurrent weight: the blob holds it once (it held a copy per step: 25.3 MiB for
    0.88 MiB of weights at 50 steps). At 256 channels the weights are 4 MiB and the graph's
    own description (~1700 nodes at 100 steps, 0.34 MiB) stays under the 1.2x."""
    torch.manual_seed(0)
    model, x = LSTM(256).eval(), torch.randn(steps, 1, 256)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    program = xnnc.compile(model, (x,), savable=True, disable="lstm-loop")
    assert program.num_partitions == 1 and program.ops_outside() == []
    (blob,) = program.blobs
    constants = _HEADER.unpack_from(blob)[6]
    assert constants <= 1.01 * weights + 64 * 1024  # the weights, plus h0/c0-folded terms
    assert len(blob) <= 1.2 * weights
    with torch.no_grad():
        _close(program(x), model(x), 1e-4)


class _CellLoop(nn.Module):
    """An `nn.LSTMCell` stepped in Python over [T, B, C]: its steps are ops of the IR."""

    def __init__(self, width: int):
        super().__init__()
        self.width, self.cell = width, nn.LSTMCell(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = c = torch.zeros(x.shape[1], self.width)
        outs = []
        for t in range(x.shape[0]):
            h, c = self.cell(x[t], (h, c))
            outs.append(h)
        return torch.stack(outs)


def test_a_filter_read_by_many_nodes_stays_fully_connected(tmp_path, monkeypatch) -> None:
    """A batch matmul's constant is packed per node (XNNPACK gives the operator no weights
    cache): a weight an LSTM cell's unrolled steps share stays one fully-connected filter,
    packed once, even where the tuner times the batch matmul faster. Tolerance as above."""
    from xnnc.cost.decision import decisions
    from xnnc.tuning import tuner

    torch.manual_seed(0)
    # a batch of 8: each step's 8 rows are what the tuner times (rules.STREAMING_ROWS)
    model, x = _CellLoop(32).eval(), torch.randn(6, 8, 32)
    monkeypatch.setattr(tuner, "time_on_xnnpack", lambda forms, threads: {"fc": 1.0, "bmm": 0.5})
    program = xnnc.compile(model, (x,), tune=True, tuning_db=str(tmp_path / "db.json"))
    made = [(op.name, d) for op, d in decisions(program.module) if d.form == "fc-or-bmm"]
    # The hoisted input projection (one node) is the tuner's; the 5 recurrent steps (step 0
    # reads the folded zero h0) share W_hh and keep the fully-connected form.
    assert [(name, d.choice, d.source) for name, d in made] == [
        ("xnn.binary", "bmm", "tuned"), *[("xnn.fully_connected", "fc", "rule")] * 5
    ]  # fmt: skip
    assert all("read by 5 nodes" in d.why for _, d in made[1:])
    with torch.no_grad():
        _close(program(x), model(x), 1e-4)


# --- packed once ------------------------------------------------------------------------------


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def test_a_weight_read_by_many_nodes_is_packed_once() -> None:
    """50 fully-connected nodes chained on one 4 MiB filter value: the runtime's weights
    cache (`PackedWeights`) packs it once (without it the runtime held 50 packed copies,
    200 MiB). The margin is wide, 12 MiB against 200, so RSS is a reliable witness.
    Tolerance: 50 fp32 GEMMs in a row, each summing in another order than torch: 1e-4 of
    the scale."""
    import numpy as np

    from xnnc.backend_xnnpack.runtime import XnnRuntime

    width, steps = 1024, 50
    torch.manual_seed(0)
    w = torch.randn(width, width) / width**0.5
    g = GraphBuilder()
    g.value("x0", "fp32", [1, width], external="input")
    for i in range(steps):
        g.value(("w", i), "fp32", [width, width], data=memoryview(w.numpy()))
        y = f"x{i + 1}"
        g.value(y, "fp32", [1, width], external="output" if i == steps - 1 else None)
        node = g.node("XNNFullyConnected", input1_id=g.id(f"x{i}"), filter_id=g.id(("w", i)),
                      bias_id=GraphBuilder.NO_VALUE, output_id=g.id(y), flags=0)  # fmt: skip
        g.add_node(node, y, (-np.inf, np.inf))
    blob = g.finish([f"x{steps}"])
    assert len(blob) < 1.1 * w.numel() * 4
    before = _rss_mib()
    rt = XnnRuntime(blob)
    assert _rss_mib() - before < 12
    x = torch.randn(1, width)
    want = x
    for _ in range(steps):
        want = want @ w.T
    _close(rt(x)[0], want, 1e-4)


# --- staged packing: unpacked and packed weights never all coexist ----------------------------


@pytest.fixture(scope="module")
def convnet() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """Convolutions with batch norm (folded, then permuted), a depthwise one, a linear head."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 16, 3, groups=16), nn.Conv2d(16, 32, 1), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 6 * 6, 10),
    ).eval()  # fmt: skip
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    return model, (torch.randn(2, 3, 8, 8),)


def test_staged_runtime_packs_and_releases_every_weight(convnet) -> None:
    """consume=True: each staged weight is released once its nodes are packed, and the
    final runtime finds all of them packed (no miss), with the same results bit for bit
    as a runtime built in one go from the same blob."""
    from xnnc.backend_xnnpack.runtime import XnnRuntime

    model, inputs = convnet
    program = xnnc.compile(model, inputs, savable=True)
    (sub,) = program.subgraphs
    blob, named = serialize_subgraph_named(sub)
    whole = XnnRuntime(blob, dict(named))
    staged = XnnRuntime(blob, named, consume=True)
    assert not named  # handed over
    assert len(staged._released) == len(staged._staged) * 2  # each node's filter and bias
    assert not staged._weights.misses and staged._weights.finalized
    assert torch.equal(staged(*inputs)[0], whole(*inputs)[0])


def test_a_built_runtime_calls_no_python_per_set_up(convnet, saved_convnet) -> None:
    """XNNPACK asks the weights cache whether it is finalized at every set-up of an operator
    with packed weights; once a runtime is built (packed here or mapped from a file) that is
    XNNPACK's own C function, so a call enters no Python callback of the cache (each would
    take the GIL back from the calling thread). The first call reshapes XNNPACK, which asks
    the cache for its entries' addresses (Python), as building the runtime did before."""
    import ctypes
    import sys

    from xnnc.backend_xnnpack.runtime import capi, packed_weights

    model, inputs = convnet
    path, want = saved_convnet
    c_function = ctypes.cast(capi.library().xnn.xnn_internal_weights_cache_is_finalized,
                             ctypes.c_void_p).value  # fmt: skip
    entered = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == packed_weights.__file__:
            entered.append(frame.f_code.co_name)

    for program in (xnnc.compile(model, inputs), xnnc.load(path)):
        (rt,) = program.runtimes.values()
        provider = rt._weights._provider
        assert ctypes.cast(provider.is_finalized, ctypes.c_void_p).value == c_function
        program(*inputs)
        sys.setprofile(profile)
        try:
            got = program(*inputs)
        finally:
            sys.setprofile(None)
        assert entered == []
        torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_a_weight_missing_from_the_staged_packing_is_an_error(convnet, monkeypatch) -> None:
    """If the final runtime did not find a released weight packed (it would pack zeros),
    building fails naming the constant instead of returning wrong results."""
    from xnnc.backend_xnnpack.runtime import XnnRuntime

    model, inputs = convnet
    (sub,) = xnnc.compile(model, inputs, savable=True).subgraphs
    blob, named = serialize_subgraph_named(sub)
    monkeypatch.setattr(XnnRuntime, "_pack_nodes", lambda self, indices: None)
    with pytest.raises(ValueError, match=r"constant \d+: XNNPACK did not find the weights"):
        XnnRuntime(blob, named, consume=True)


def test_loaded_blobs_are_views_of_the_file(convnet, tmp_path) -> None:
    """load maps the program file: the blobs XNNPACK packs from are file-backed pages the
    runtime hands back, not a copy in memory; results as before saving."""
    import mmap

    from xnnc.program.file import _ZipBlobs

    model, inputs = convnet
    path = str(tmp_path / "m.xnnc")
    program = xnnc.compile(model, inputs, savable=True)
    program.save(path)
    import zipfile

    with zipfile.ZipFile(path) as z:
        blobs = _ZipBlobs(z, 1, path)
        assert isinstance(blobs[0].obj, mmap.mmap)
        assert bytes(blobs[0]) == z.read("subgraph_0.xnn")
    loaded = xnnc.load(path)
    assert torch.equal(loaded(*inputs), program(*inputs))


class _Outside(nn.Module):
    """A weight an op outside XNNPACK reads (the multiply, excluded), after a conv layer."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.scale = nn.Parameter(torch.rand(8, 6, 6) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x) * self.scale


def test_outside_weights_are_mapped_from_the_file(tmp_path) -> None:
    """`weights.npz` (the weights of ops outside the subgraphs, such as a looped LSTM's) is
    stored so that load maps it: each array is a view of the mapped file, 64-byte aligned,
    not read at load; `np.load` reads the same arrays; results as before saving."""
    import mmap
    import zipfile

    import numpy as np

    from xnnc.program.file import _mapped_weights

    torch.manual_seed(0)
    model, x = _Outside().eval(), torch.randn(1, 3, 8, 8)
    program = xnnc.compile(model, (x,), savable=True, exclude="aten.mul")
    assert program.ops_outside() == ["aten.mul"]
    path = str(tmp_path / "m.xnnc")
    program.save(path)
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        arrays = _mapped_weights(z, mapping, str(path))
        with np.load(io.BytesIO(z.read("weights.npz"))) as plain:
            assert set(plain.files) == set(arrays) and arrays
            for name, array in arrays.items():
                assert np.array_equal(array, plain[name])
                assert array.ctypes.data % 64 == 0
                assert _mapped_from_file(_Entries([array]))
    loaded = xnnc.load(path)
    assert torch.equal(loaded(x), program(x))


def test_outside_weights_of_an_older_layout_are_read(tmp_path) -> None:
    """A `weights.npz` written by `np.savez` (files saved before the aligned layout): its
    arrays are read, equal to what `np.load` reads."""
    import mmap
    import zipfile

    import numpy as np

    from xnnc.program.file import _mapped_weights

    weights = {"a": np.arange(100, dtype=np.uint8), "b": np.arange(7, dtype=np.uint8)}
    buf = io.BytesIO()
    np.savez(buf, **weights)
    path = tmp_path / "old.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("format", "x")  # shifts weights.npz off 64-byte alignment
        z.writestr("weights.npz", buf.getvalue())
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        arrays = _mapped_weights(z, mapping, str(path))
    assert set(arrays) == {"a", "b"}
    assert all(np.array_equal(arrays[k], weights[k]) for k in weights)


def test_a_malformed_array_in_weights_npz_is_one_line(convnet, saved_convnet, tmp_path) -> None:
    """A `weights.npz` whose CRCs hold but whose array header is not a `.npy` one: load fails
    with one XnncError naming the file and the member, before any XNNPACK call."""
    import zipfile

    from xnnc.errors import XnncError

    path, _ = saved_convnet
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as npz:
        npz.writestr("w.npy", b"\x93NUMPY\x01\x00\xff\xff" + bytes(64))
    out = str(tmp_path / "bad.xnnc")
    _rewrite(path, out, "weights.npz", buf.getvalue())
    with pytest.raises(XnncError) as e:
        xnnc.load(out)
    assert str(e.value).startswith(f"{out}: damaged program file: weights.npz (")
    assert "\n" not in str(e.value)


class _Entries:
    """`_mapped_from_file`'s argument: an object with the arrays as `_entries`."""

    def __init__(self, entries: list) -> None:
        self._entries = entries


def test_lowering_leaves_no_weight_in_garbage(convnet) -> None:
    """Ops erased by partitioning and conversion live on in reference cycles until the
    garbage collector runs; they must not keep weights xnnc made (a folded filter beside its
    permuted copy doubled ResNet-18's compile peak)."""
    import gc

    from xnnc.dialects.weights import Blob
    from xnnc.frontend.fx_importer import export_program, import_model
    from xnnc.pipeline.stages import lower

    model, inputs = convnet
    module = import_model(export_program(model, inputs))
    gc.collect()
    # Blobs alive now are not this lowering's: one an earlier test left in a cache may become
    # garbage while `lower` runs (under xdist the worker ran other tests before this one).
    before = {id(o) for o in gc.get_objects() if isinstance(o, Blob)}
    gc.disable()
    try:
        lower(module)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
    finally:
        gc.set_debug(0)
        gc.enable()
    model_data = {t.data_ptr() for t in [*model.parameters(), *model.buffers()]}
    held = [
        o.name
        for o in gc.garbage
        if isinstance(o, Blob)
        and id(o) not in before
        and o.has_data
        and o.data.ctypes.data not in model_data
    ]  # the model's own tensors cost nothing
    gc.garbage.clear()
    assert held == []


def test_mapped_copy_is_the_tensor_in_pages_of_its_own() -> None:
    from xnnc.ir.constants import MAPPED_BYTES, mapped_copy

    big = torch.randn(64, 3, 3, MAPPED_BYTES // (4 * 64 * 9) + 1).permute(0, 3, 1, 2)
    copy = mapped_copy(big)
    assert copy.is_contiguous() and torch.equal(copy, big)
    with open("/proc/self/maps") as f:
        starts = {int(line.split("-")[0], 16) for line in f}
    assert copy.data_ptr() in starts  # a mapping of its own, unmapped when freed
    small = torch.randn(4, 4).T
    assert torch.equal(mapped_copy(small), small)


# --- packed weights saved with the program ---------------------------------------------------


@pytest.fixture(scope="module")
def saved_convnet(convnet, tmp_path_factory) -> tuple[str, torch.Tensor]:
    """The convnet saved with its packed weights, and the compiled program's output."""
    model, inputs = convnet
    program = xnnc.compile(model, inputs, savable=True)
    path = str(tmp_path_factory.mktemp("packed") / "m.xnnc")
    program.save(path)
    return path, program(*inputs)


def _rewrite(path: str, out: str, member: str, data: bytes) -> None:
    """A copy of the program file `path` with `member`'s data replaced (CRCs kept valid)."""
    import zipfile

    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, data if info.filename == member else src.read(info))


def test_loaded_program_maps_its_saved_packed_weights(convnet, saved_convnet) -> None:
    """load packs nothing: every weight XNNPACK packs comes from the file's packed weights
    (views of a mapping of it, 64-byte aligned), none is read from the blob; the outputs are
    the compiled program's bit for bit."""
    import warnings

    path, want = saved_convnet
    model, inputs = convnet
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = xnnc.load(path)
    (rt,) = loaded.runtimes.values()
    assert rt._released and set(rt._released) == rt._packed_constants
    assert _mapped_from_file(rt._weights)
    assert all(entry.ctypes.data % 64 == 0 for entry in rt._weights._entries)
    assert torch.equal(loaded(*inputs), want)
    with warnings.catch_warnings():  # the packed layout does not depend on the thread count
        warnings.simplefilter("error")
        threaded = xnnc.load(path, threads=2)
    (rt,) = threaded.runtimes.values()
    assert _mapped_from_file(rt._weights)
    assert torch.equal(threaded(*inputs), want)


def _mapped_from_file(weights) -> bool:
    """Whether every packed weight is a view of a mapped file (else: packed here)."""
    import mmap

    import numpy as np

    def root(entry: np.ndarray):
        while isinstance(entry, np.ndarray) and entry.base is not None:
            entry = entry.base
        return memoryview(entry).obj if isinstance(entry, memoryview) else entry

    return all(isinstance(root(entry), mmap.mmap) for entry in weights._entries)


def test_packed_weights_of_another_cpu_are_packed_again(convnet, saved_convnet, monkeypatch):
    """Packed for another CPU or XNNPACK build: one PackedWeightsWarning, then the weights
    are packed from the blob (outputs as compiled)."""
    from xnnc.backend_xnnpack.runtime import packed_weights
    from xnnc.errors import PackedWeightsWarning

    path, want = saved_convnet
    model, inputs = convnet
    other = {**packed_weights.signature(), "cpu": "aarch64:0123456789abcdef"}
    monkeypatch.setattr(packed_weights, "signature", lambda: other)
    with pytest.warns(PackedWeightsWarning, match=r"^xnnc.load: .*another CPU or XNNPACK") as w:
        loaded = xnnc.load(path)
    assert len(w) == 1
    (rt,) = loaded.runtimes.values()
    assert rt._weights._entries and not _mapped_from_file(rt._weights)  # packed from the blob
    assert torch.equal(loaded(*inputs), want)


def _index(path: str) -> dict:
    import json
    import zipfile

    with zipfile.ZipFile(path) as z:
        return json.loads(z.read("packed_0.json"))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda index: "{not json", r"subgraph 0: .*"),
        (lambda index: {**index, "entries": [[1, 2]]}, r"damaged index"),
        (lambda index: {**index, "entries": [[0, 0, 1, None, 2**40, 64]]}, r"outside the data"),
        # Valid entries under keys XNNPACK does not look up: found missing while building.
        (
            lambda index: {**index, "entries": [[r[0] ^ 1, *r[1:]] for r in index["entries"]]},
            r"constant \d+: not found in the saved packed weights",
        ),
    ],
)
def test_damaged_packed_weights_are_packed_again(
    convnet, saved_convnet, tmp_path, damage, message
) -> None:
    """A damaged or foreign index never crashes: one warning naming the subgraph, then the
    weights are packed from the blob, outputs as compiled."""
    import json

    from xnnc.errors import PackedWeightsWarning

    path, want = saved_convnet
    model, inputs = convnet
    index = damage(_index(path))
    data = index if isinstance(index, str) else json.dumps(index)
    out = str(tmp_path / "damaged.xnnc")
    _rewrite(path, out, "packed_0.json", data.encode())
    with pytest.warns(PackedWeightsWarning, match=message) as w:
        loaded = xnnc.load(out)
    assert len(w) == 1
    (rt,) = loaded.runtimes.values()
    assert not _mapped_from_file(rt._weights)
    assert torch.equal(loaded(*inputs), want)


def test_corrupt_packed_weight_bytes_fail_the_crc_check(saved_convnet, tmp_path) -> None:
    import zipfile

    path, _ = saved_convnet
    data = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("packed_0.bin")
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 5] ^= 0xFF
    out = tmp_path / "corrupt.xnnc"
    out.write_bytes(bytes(data))
    with pytest.raises(XnncError, match=r"damaged program file: packed_0.bin fails its CRC"):
        xnnc.load(str(out))


def test_hashed_subgraph_is_the_serialized_blob_with_named_constants(convnet) -> None:
    """`serialize_subgraph_hashed` (preprocess's path to the .pte) names each constant by
    the SHA-256 of its bytes, gives each name's bytes once, is `serialize_subgraph`'s blob
    once they are put back, and leaves no weight in the subgraph's IR."""
    from xnnc.backend_xnnpack.blob import inline_constants
    from xnnc.translate.xnnpack import serialize_subgraph, serialize_subgraph_hashed

    model, inputs = convnet
    (sub,) = xnnc.compile(model, inputs, savable=True).subgraphs
    want = serialize_subgraph(sub, "stock")
    blob, named = serialize_subgraph_hashed(sub, "stock")
    assert named and all(hashlib.sha256(v).hexdigest() == k for k, v in named.items())
    keys = [e.namedKey for e in read_blob(blob, named).graph.constantData[1:]]
    assert keys and {k.decode() for k in keys} == set(named)
    assert inline_constants(blob, named) == want
    weights = [
        op.value for op in sub.body.block.ops
        if isinstance(op, xnn.ConstantOp) and isinstance(op.value, WeightAttr)
    ]  # fmt: skip
    assert weights and not any(w.data.has_data for w in weights)


def test_saving_over_a_loaded_program_keeps_it_running(convnet, saved_convnet, tmp_path):
    """A loaded program maps its file's packed weights: saving to that path writes a new
    file instead of truncating the mapped one (which would crash the loaded program)."""
    import os
    import shutil

    path, want = saved_convnet
    model, inputs = convnet
    mine = str(tmp_path / "m.xnnc")
    shutil.copy(path, mine)
    loaded = xnnc.load(mine)
    xnnc.compile(nn.Sequential(nn.Linear(3, 2)).eval(), (torch.randn(1, 3),), savable=True).save(
        mine
    )
    assert torch.equal(loaded(*inputs), want)
    assert os.stat(mine).st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    import os

    umask = os.umask(0)
    os.umask(umask)
    return umask


def _torch_caches() -> tuple[set, set]:
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx import graph_module

    return set(graph_module._loader.eval_cache), set(FakeTensorMode.cache)


@pytest.mark.parametrize("call", ["compile", "to_pte", "write_pte"])
def test_torch_caches_keep_nothing_of_the_call(mlp, tmp_path, call) -> None:
    """torch keeps the source of every FX module it generates and every fake-tensor dispatch
    result, for good: what a call added (EnCodec's `.pte` export: 4.6 and 1.3 MiB) is gone
    when it returns, and what was there before stays."""
    from xnnc.pte import to_pte, write_pte

    model, inputs = mlp
    torch.export.export(model, inputs)  # entries of the caller's own
    before = _torch_caches()
    assert all(before)
    if call == "compile":
        result = xnnc.compile(model, inputs)
    elif call == "to_pte":
        result = to_pte(model, inputs)
    else:
        result = write_pte(str(tmp_path / "m.pte"), model, inputs)
    assert _torch_caches() == before
    del result


def test_the_workspace_waits_for_the_first_call(convnet, saved_convnet, monkeypatch) -> None:
    """XNNPACK takes a runtime's activation workspace at its reshape: compile and load do
    not reshape (a program only saved never takes it), the first call reshapes each runtime
    once at the declared dims (not counted in `reshapes`), and later calls not again."""
    from xnnc.backend_xnnpack.runtime import capi

    model, inputs = convnet
    path, want = saved_convnet
    lib = capi.library()
    reshape, calls = lib.reshape_runtime, []

    def counted(runtime):
        calls.append(runtime)
        return reshape(runtime)

    monkeypatch.setattr(lib, "reshape_runtime", counted)
    for program in (xnnc.compile(model, inputs), xnnc.load(path)):
        calls.clear()
        (rt,) = program.runtimes.values()
        assert calls == [] and rt._shapes is None
        torch.testing.assert_close(program(*inputs), want, rtol=0, atol=0)
        assert calls == [rt._runtime] and rt.reshapes == 0
        program(*inputs)
        program(inputs[0].clone())
        assert len(calls) == 1
