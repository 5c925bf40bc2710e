"""`make bench`: the model zoo, side by side in one run, against stock ExecuTorch.

    python -m xnnc.benchmarks.zoo [--models mimi,encodec] [--threads 1,2] [--runs 10]
                                  [--systems eager,stock,xnnc-pte,xnnc,ort] [--small]
                                  [--policies] [--results benchmarks/RESULTS.md]

Systems, per model (`examples/models.py`, random weights, full size unless --small):
- `eager`: torch eager, `torch.set_num_threads(n)`;
- `stock`: stock ExecuTorch 1.5.1, `to_edge_transform_and_lower(XnnpackPartitioner())`
  (`enable_bf16=True` for bf16 models) on its pybindings;
- `xnnc-pte`: xnnc's `.pte` (`xnnc.pte.to_pte`: `XnncPartitioner`, an LSTM as calls of
  one step delegate, identical delegates shared) on the same stock runtime;
- `xnnc`: xnnc on its extended runtime (`xnnc.compile(..., target="extended")`);
- `ort`: ONNX Runtime (CPU provider, `torch.onnx.export(dynamo=True)`), when installed
  (`pip install -e '.[bench]'`, which `make bench` does).
The ExecuTorch pool is resized with `_unsafe_reset_threadpool` before loading at each thread
count; xnnc builds one runtime per thread count from the same blobs.

Method: every system runs twice to warm up; then --runs rounds, each timing one block per
system in a new random order (seeded by the round). A block is one call for models slower
than 50 ms, else as many calls as fill ~50 ms, each timed (wall clock). Before each block
the harness waits (up to --max-wait s) until other processes use less than --quiet cores,
then runs the system untimed for ~0.1 s (at least one call: after the wait's sleep the
cores and thread pools are cold, steady state is what is compared), and records the
others' load during the block (system-wide busy time from /proc/stat minus this
process's own). Latency is the median of all samples, with p25 and p75.

Columns: latency and its ratio against stock ExecuTorch (> 1: faster than stock), compile
time (model -> runnable program, warm: `torch.export` is paid once untimed first) and its
ratio against stock lowering, max |error| against eager, delegate partitions and ops left
outside, and the model's FLOPs (`torch.utils.flop_counter` on eager: convolutions and
GEMMs) as achieved GFLOP/s and as a fraction of the GEMM peak measured in the same run: a
large fully-connected layer on xnnc's runtime in the model's dtype at the same thread count
(fp16 on XNNPACK's fp16 kernels, bf16 as XNNPACK runs it), the better of a measurement
before and one after the models. The limit is FLOPs / peak. Beside it, the model's weights
and the time to read them once at the weight-read rate measured in the same run (a one-row
fully-connected layer over 64 MiB): weights larger than the L3 are streamed from memory on
every call, and XNNPACK's GEMM with few rows does not hide that read behind its arithmetic
(a [27, 1024] x [1024, 4096] layer takes about the sum of the two), so a model whose
weights take a large share of its limit to read cannot reach the limit.
The per-node profile (xnnc, 1 thread, 5 calls after a first) lists each model's top XNNPACK
operator kinds.
The header names the CPU model and the ISA features xnnc's target reads on it.

--policies adds, per model, xnnc under each fixed policy (`POLICIES`: every rewrite on,
conv-as-gemm and depthwise-rows forced past their target rules; each cost-guided rewrite
off; bf16 GEMMs in fp32; every fp16 layer native or in fp32; the other layers decided as by
default, from the same tuning database) to the same interleaved rounds, and a table of the
default beside them with
the ratio of the default to the best fixed policy (issue 10 wants <= 1.03); a row over
1.03 is measured again as a pair, the default and that policy alone with twice the rounds,
and that ratio is given beside it ("A/B"). Every program is
compiled for the thread count it runs at (the choices depend on it). A policy that leaves
the model's program unchanged (the same nodes) is listed as "= default" and not run again.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import random
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import torch

import xnnc
from xnnc.benchmarks.memory_bench import weight_bytes
from xnnc.examples.models import MODELS
from xnnc.pipeline.options import CompileOptions
from xnnc.program import Program
from xnnc.target import FEATURES, Target

ZOO = (
    "mimi", "encodec", "dac", "hifigan", "fp16_convnet", "bf16_blocks", "bf16_blocks_decode",
    "resnet", "mobilenetv2", "mobilenetv3_large", "mobilenetv3_small", "transformer_encoder",
    "audio_norms", "vocos",
)  # fmt: skip
SYSTEMS = ("eager", "stock", "xnnc-pte", "xnnc", "ort")
BLOCK_SECONDS = 0.05
# Untimed calls before each block: after the quiet wait's 0.2 s of sleep a call runs up to
# 1.5x slower (the cores' clocks and the thread pool's workers wake up; bf16_blocks on a Zen 4
# VM: 17 ms first, 14 second, 12.2 steady), and a 2-thread call more so.
WARM_SECONDS = 0.1


# ---- load from other processes -------------------------------------------------------------


def _busy_jiffies() -> tuple[int, int]:
    """(all CPUs' busy jiffies, this process's own) since boot."""
    with open("/proc/stat") as f:
        cpu = [int(v) for v in f.readline().split()[1:]]
    busy = sum(cpu) - cpu[3] - cpu[4]  # minus idle and iowait
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return busy, int(fields[11]) + int(fields[12])  # utime + stime of every thread


class LoadMeter:
    """Cores kept busy by other processes over an interval (0 where /proc is missing)."""

    def __init__(self) -> None:
        self.available = os.path.exists("/proc/stat")
        self.hz = os.sysconf("SC_CLK_TCK") if self.available else 100

    @contextlib.contextmanager
    def measure(self) -> Iterator[list[float]]:
        out: list[float] = []
        if not self.available:
            yield out
            out.append(0.0)
            return
        busy0, own0 = _busy_jiffies()
        start = time.perf_counter()
        yield out
        busy1, own1 = _busy_jiffies()
        elapsed = max(time.perf_counter() - start, 1e-3)
        out.append(max(0.0, (busy1 - busy0) - (own1 - own0)) / self.hz / elapsed)

    def wait_for_quiet(self, cores: float, max_wait: float) -> float:
        """Sleep in 0.2 s windows until others use < `cores`; returns the last reading."""
        deadline = time.perf_counter() + max_wait
        while True:
            with self.measure() as load:
                time.sleep(0.2)
            if load[0] < cores or time.perf_counter() >= deadline:
                return load[0]


# ---- the systems ---------------------------------------------------------------------------


@dataclass
class System:
    name: str
    compile_s: float | None = None
    partitions: int | None = None
    outside: int | None = None
    error: str | None = None  # why it could not run
    make: Callable[[int], Callable[[], Any]] | None = None  # threads -> a call
    profiled: Program | None = None  # xnnc only: a 1-thread runtime with the profile on


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def _edge_counts(edge: Any) -> tuple[int, int]:
    """(delegate calls, other compute ops) of an ExecuTorch edge program."""
    from executorch.exir.delegate import executorch_call_delegate

    delegates = outside = 0
    for node in edge.exported_program().graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is executorch_call_delegate:
            delegates += 1
        elif "getitem" not in str(node.target) and "alloc" not in str(node.target):
            outside += 1
    return delegates, outside


def _executorch(name: str, model: torch.nn.Module, inputs: tuple, partitioner: Any) -> System:
    from executorch.exir import to_edge_transform_and_lower

    from xnnc.pte import StockRuntime

    def lower() -> tuple[bytes, Any]:
        ep = torch.export.export(model, inputs, strict=False)
        edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
        buffer = edge.to_executorch().buffer
        StockRuntime(buffer)
        return buffer, edge

    (buffer, edge), seconds = _timed(lower)
    return _on_stock(name, buffer, inputs, seconds, _edge_counts(edge))


def _on_stock(
    name: str, buffer: bytes, inputs: tuple, seconds: float, counts: tuple[int, int]
) -> System:
    """The `.pte` `buffer` as a system on stock ExecuTorch's runtime; `counts`: its
    (partitions, ops outside)."""
    from executorch.extension.pybindings import portable_lib

    from xnnc.pte import StockRuntime

    def make(threads: int) -> Callable[[], Any]:
        portable_lib._unsafe_reset_threadpool(threads)
        runtime = StockRuntime(buffer)
        return lambda: runtime(*inputs)[0]

    return System(name, seconds, *counts, make=make)


def _stock(model: torch.nn.Module, inputs: tuple) -> System:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    bf16 = any(p.dtype == torch.bfloat16 for p in model.parameters())
    partitioner = XnnpackPartitioner(enable_bf16=True) if bf16 else XnnpackPartitioner()
    return _executorch("stock", model, inputs, partitioner)


def _xnnc_pte(model: torch.nn.Module, inputs: tuple) -> System:
    from xnnc.pte import StockRuntime, to_pte
    from xnnc.pte.verify import instruction_counts

    def lower() -> bytes:
        buffer = to_pte(model, inputs)
        StockRuntime(buffer)
        return buffer

    buffer, seconds = _timed(lower)
    delegates, kernels, _ = instruction_counts(buffer, "xnnc-pte")  # kernels: ops outside
    return _on_stock("xnnc-pte", buffer, inputs, seconds, (delegates, kernels))


def _xnnc(model: torch.nn.Module, inputs: tuple) -> System:
    program, seconds = _timed(lambda: xnnc.compile(model, inputs, target="extended", savable=True))
    system = System("xnnc", seconds, program.num_partitions, len(program.ops_outside()))

    programs = {program.threads: program}

    def make(threads: int) -> Callable[[], Any]:
        # Compiled for the thread count (the cost model's choices depend on it), once: a
        # second measurement (the A/B of --policies) runs the same program.
        if threads not in programs:
            programs[threads] = xnnc.compile(model, inputs, target="extended", threads=threads)
        p = programs[threads]
        return lambda: p(*inputs)

    system.make = make
    system.profiled = Program(program.module, program.options, threads=1, profile=True)
    return system


# ---- fixed policies (--policies) -----------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """A fixed choice for every layer, against which xnnc's default (the target's rules) is
    measured: issue 10 wants the default within 3% of the best of them."""

    name: str
    disable: tuple[str, ...] = ()
    force: bool = False  # xnn-conv-as-gemm and xnn-depthwise-rows {ignore-target=true}
    bf16_gemm: bool | None = None  # None: the target's rule; True / False: always / never
    bf16_only: bool = False  # a choice only bf16 models have
    fp16: str = "auto"  # "native" / "fp32": every fp16 layer so
    bf16: str = "fp32"  # "native": each bf16 result rounded as eager does

    def target(self, host: Target) -> Target:
        """The host with the features that make the static bf16-GEMM rule
        (`cost.rules.bf16_gemm`) give this policy's answer
        (no other rule reads them: conv-as-gemm reads AVX2/AVX-512F, fp16 is arm64's)."""
        if self.bf16_gemm is None:
            return host
        if not self.bf16_gemm:
            return host.replace(features=host.features - {"avx512bf16"})
        return host.replace(features=host.features - {"amx", "avx512fp16"} | {"avx512bf16"})


POLICIES = (
    Policy("all rewrites on", force=True, bf16_gemm=True),
    Policy("no conv-as-gemm", disable=("xnn-conv-as-gemm",)),
    Policy("no depthwise-rows", disable=("xnn-depthwise-rows",)),
    Policy("no polyphase", disable=("xnn-polyphase",)),
    Policy("no upsample-nearest", disable=("xnn-upsample-nearest",)),
    Policy("no hoist-input-projection", disable=("xnn-hoist-input-projection",)),
    Policy("bf16 GEMM in fp32", bf16_gemm=False, bf16_only=True),
    Policy("bf16 rounded as eager", bf16="native", bf16_only=True),
    Policy("fp16 native", fp16="native"),
    Policy("fp16 in fp32", fp16="fp32"),
)


def _policy_module(aten_module: Any, policy: Policy, options: CompileOptions) -> Any:
    """`aten_module` lowered under `policy`: the default pipeline, its options changed."""
    from xdsl.passes import PassPipeline

    from xnnc.dialects.xnn import set_target
    from xnnc.pipeline.stages import default_passes
    from xnnc.transforms.conv_as_gemm import ConvAsGemmPass
    from xnnc.transforms.depthwise_rows import DepthwiseRowsPass

    module = aten_module.clone()
    set_target(module, options.target)
    passes = default_passes(options)
    if policy.force:
        forced = (ConvAsGemmPass, DepthwiseRowsPass)
        passes = [type(p)(ignore_target=True) if isinstance(p, forced) else p
                  for p in passes]  # fmt: skip
    PassPipeline(tuple(passes)).apply(xnnc.make_context(), module)
    return module


def _nodes(module: Any) -> list[str]:
    """The program's nodes with their result types: equal lists, the same program."""
    return [f"{op.name} {[str(r.type) for r in op.results]}" for op in module.walk()
            if op.name.startswith("xnn.") and op.name != "xnn.constant"]  # fmt: skip


def policy_systems(model: torch.nn.Module, inputs: tuple, default: System) -> list[System]:
    """One system per policy that changes xnnc's program for this model (the others are
    listed as "= default" and not run again)."""
    from xnnc.frontend.fx_importer import import_model

    bf16 = any(p.dtype == torch.bfloat16 for p in model.parameters())
    fp16 = any(p.dtype == torch.float16 for p in model.parameters())
    host = Target.host()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aten_module, import_s = _timed(lambda: import_model(model, inputs))
    same = _nodes(default.profiled.module) if default.profiled else []
    systems = []
    for policy in POLICIES:
        name = f"xnnc[{policy.name}]"
        if (policy.bf16_only and not bf16) or (policy.fp16 != "auto" and not fp16):
            continue
        if policy.bf16_gemm and not host.has("avx512bf16"):
            policy = Policy(policy.name, policy.disable, policy.force)
        options = CompileOptions(target=policy.target(host), disable=policy.disable,
                                 fp16=policy.fp16, bf16=policy.bf16)  # fmt: skip
        try:
            module, seconds = _timed(partial(_policy_module, aten_module, policy, options))
        except Exception as e:
            systems.append(System(name, error=_first_line(e)))
            continue
        if _nodes(module) == same:
            systems.append(System(name, error="= default"))
            continue
        subgraphs = sum(op.name == "xnn.subgraph" for op in module.walk())
        make = _program_maker(aten_module, policy, options, inputs)
        systems.append(System(name, import_s + seconds, subgraphs, make=make))
    return systems


def _program_maker(aten_module: Any, policy: Policy, options: CompileOptions,
                   inputs: tuple) -> Callable:  # fmt: skip
    programs: dict[int, Program] = {}

    def make(threads: int) -> Callable[[], Any]:
        # Lowered for the thread count (the static rules read it), once, as `_xnnc`'s.
        if threads not in programs:
            at = options.replace(target=options.target.replace(threads=threads))
            programs[threads] = Program(_policy_module(aten_module, policy, at), at,
                                        threads=threads)  # fmt: skip
        program = programs[threads]
        return lambda: program(*inputs)

    return make


def _eager(model: torch.nn.Module, inputs: tuple) -> System:
    def call() -> Any:
        with torch.no_grad():
            return model(*inputs)

    return System("eager", 0.0, make=lambda threads: call)


def ort_session(proto: bytes, threads: int) -> Any:
    """An ONNX Runtime CPU session at `threads` intra-op threads whose workers stop spinning
    when `run` returns (`session.force_spinning_stop`). ORT's default keeps them spinning for
    about 60 ms after each call (measured: a core's CPU time), which takes a core from
    whatever runs next: interleaved with a default session, xnnc's EnCodec LSTM at 2 threads
    ran 18.6 ms against 12.3 alone (AMD EPYC Zen 3, 2 cores); with the flag, as alone, and
    ORT's own time 1-8% above the default's in two runs (it still spins inside its calls)."""
    import onnxruntime as ort  # the `bench` extra

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.add_session_config_entry("session.force_spinning_stop", "1")
    return ort.InferenceSession(proto, options, providers=["CPUExecutionProvider"])


def _ort(model: torch.nn.Module, inputs: tuple) -> System:
    def export() -> bytes:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            onnx_program = torch.onnx.export(model, inputs, dynamo=True, verbose=False)
        return onnx_program.model_proto.SerializeToString()

    def session(threads: int, proto: bytes) -> Any:
        return ort_session(proto, threads)

    def build() -> bytes:
        proto = export()
        session(1, proto)
        return proto

    proto, seconds = _timed(build)

    def make(threads: int) -> Callable[[], Any]:
        s = session(threads, proto)
        feeds = {i.name: x.numpy() for i, x in zip(s.get_inputs(), inputs)}
        return lambda: torch.from_numpy(s.run(None, feeds)[0])

    return System("ort", seconds, 1, 0, make=make)


BUILDERS = {"eager": _eager, "stock": _stock, "xnnc-pte": _xnnc_pte, "xnnc": _xnnc, "ort": _ort}


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:160]


def build(name: str, model: torch.nn.Module, inputs: tuple) -> System:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return BUILDERS[name](model, inputs)
    except Exception as e:  # a system that cannot take this model is a table entry
        return System(name, error=_first_line(e))


# ---- measurement ---------------------------------------------------------------------------


@dataclass
class Cell:
    samples: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    error: float | None = None

    def quantile(self, q: float) -> float:
        s = sorted(self.samples)
        return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def measure(systems: list[System], threads: int, runs: int, expected: torch.Tensor,
            meter: LoadMeter, quiet: float, max_wait: float) -> dict[str, Cell]:  # fmt: skip
    calls: dict[str, Callable[[], Any]] = {}
    cells: dict[str, Cell] = {}
    # Eager, and the ops xnnc leaves to torch, run on torch's pool: n threads like the rest.
    torch.set_num_threads(threads)
    for s in systems:
        if s.error is not None:
            continue
        try:
            calls[s.name] = s.make(threads)
            out = calls[s.name]()
            calls[s.name]()
        except Exception as e:
            s.error = _first_line(e)
            calls.pop(s.name, None)
            continue
        cells[s.name] = Cell(error=(out.float() - expected.float()).abs().max().item())
    per_block, warm = {}, {}
    for name, call in calls.items():
        _, seconds = _timed(call)
        per_block[name] = max(1, int(BLOCK_SECONDS / max(seconds, 1e-6)))
        warm[name] = max(1, int(WARM_SECONDS / max(seconds, 1e-6)))
    names = list(calls)
    for r in range(runs):
        # A new order each round: a system that always ran after the same neighbour would
        # inherit its caches and thread pool's state in every sample.
        for name in random.Random(r).sample(names, len(names)):
            meter.wait_for_quiet(quiet, max_wait)
            for _ in range(warm[name]):
                calls[name]()
            cell = cells[name]
            with meter.measure() as load:
                for _ in range(per_block[name]):
                    cell.samples.append(_timed(calls[name])[1])
            cell.loads.append(load[0])
    torch.set_num_threads(1)
    return cells


def _fully_connected_s(size: int, batch: int, dtype: torch.dtype, threads: int) -> float:
    """The fastest of 8 calls of a [batch, size] x [size, size] fully-connected layer on
    xnnc's runtime, seconds (fp16 on XNNPACK's fp16 kernels)."""
    layer = torch.nn.Linear(size, size, bias=False).to(dtype).eval()
    x = torch.randn(batch, size, dtype=dtype)
    options = {"fp16": "native"} if dtype == torch.float16 else {}
    program = xnnc.compile(layer, (x,), threads=threads, **options)
    program(x)
    return min(_timed(lambda: program(x))[1] for _ in range(8))


def gemm_peak(dtype: torch.dtype, threads: int, size: int = 1024, batch: int = 512) -> float:
    """GFLOP/s of a [batch, size] x [size, size] fully-connected layer on xnnc's runtime."""
    return 2 * batch * size * size / _fully_connected_s(size, batch, dtype, threads) / 1e9


def weight_read_rate(threads: int, size: int = 4096) -> float:
    """GB/s at which XNNPACK streams weights: a one-row fully-connected layer over [size,
    size] fp32 weights (64 MiB, past any L3 here), a matrix-vector product bound by the read."""
    return size * size * 4 / _fully_connected_s(size, 1, torch.float32, threads) / 1e9


READ = "read"  # the key of the weight-read rate among the peaks, (READ, threads)


def measure_peaks(threads: list[int]) -> dict[tuple[str, int], float]:
    dtypes = (("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16))
    gemm_peak(torch.float32, 1)  # warm-up: the first compile and run pay one-time costs
    peaks = {(d, t): gemm_peak(dt, t) for d, dt in dtypes for t in threads}
    return peaks | {(READ, t): weight_read_rate(t) for t in threads}


def _peaks_text(peaks: dict[tuple[str, int], float]) -> str:
    return ", ".join(f"{d} {t}t {v:.0f}" for (d, t), v in peaks.items() if d != READ)


def _reads_text(peaks: dict[tuple[str, int], float]) -> str:
    return ", ".join(f"{t}t {v:.1f}" for (d, t), v in peaks.items() if d == READ)


def model_flops(model: torch.nn.Module, inputs: tuple) -> float:
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(*inputs)
    return float(counter.get_total_flops())


def profile_kinds(
    program: Program, inputs: tuple, top: int = 5, calls: int = 5
) -> list[tuple[str, float]]:
    """The top operator kinds over `calls` calls after a first one: (kind, share of the
    profiled time). The first call of a program pays page faults on its buffers (the bf16
    stack's converts were 5% of a first call, 1% of later ones)."""
    program(*inputs)
    totals: Counter[str] = Counter()
    for _ in range(calls):
        program(*inputs)
        for name, us in program.profile():
            totals[name.split(": ", 1)[1]] += us
    whole = sum(totals.values()) or 1.0
    return [(kind, us / whole) for kind, us in totals.most_common(top)]


# ---- the report ----------------------------------------------------------------------------


@dataclass
class ModelResult:
    name: str
    dtype: str
    gflop: float
    weights: float  # MiB
    systems: dict[str, System]
    cells: dict[int, dict[str, Cell]]  # threads -> system -> cell
    profile: list[tuple[str, float]]
    # threads -> default / best policy measured again as a pair (--policies, rows over SLOWER)
    again: dict[int, float] = field(default_factory=dict)


def _small_ms(ms: float) -> str:
    """One decimal, or two significant digits below 0.1 ms (a small model's weight read)."""
    return f"{ms:.1f}" if ms >= 0.1 else f"{ms:.2g}"


def _ms(cell: Cell | None) -> str:
    return "n/a" if cell is None else f"{cell.quantile(0.5) * 1e3:.1f}"


def _ratio(base: Cell | None, cell: Cell | None) -> str:
    if base is None or cell is None:
        return "n/a"
    return f"{base.quantile(0.5) / cell.quantile(0.5):.2f}x"


def _fmt_s(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds:.1f}"


def detail_table(results: list[ModelResult], peaks: dict[tuple[str, int], float]) -> str:
    head = (
        "| model | threads | system | p50 ms | p25-p75 ms | vs stock | compile s | "
        "compile vs stock | max err | partitions | outside | GFLOP/s | of peak | load |"
    )
    lines = [head, "|" + "---|" * 14]
    for r in results:
        for threads, cells in r.cells.items():
            stock = cells.get("stock")
            for name, s in r.systems.items():
                cell = cells.get(name)
                if cell is None:
                    lines.append(f"| {r.name} | {threads} | {name} | {s.error or 'n/a'} |"
                                 + " |" * 10)  # fmt: skip
                    continue
                p50 = cell.quantile(0.5)
                rate = r.gflop / p50
                peak = peaks.get((r.dtype, threads))
                stock_compile = r.systems["stock"].compile_s if "stock" in r.systems else None
                compile_ratio = (
                    f"{stock_compile / s.compile_s:.1f}x"
                    if stock_compile and s.compile_s and name != "stock" else ""
                )  # fmt: skip
                lines.append(
                    f"| {r.name} | {threads} | {name} | {p50 * 1e3:.2f} | "
                    f"{cell.quantile(0.25) * 1e3:.2f}-{cell.quantile(0.75) * 1e3:.2f} | "
                    f"{_ratio(stock, cell)} | {_fmt_s(s.compile_s) if name != 'eager' else ''} | "
                    f"{compile_ratio} | {cell.error:.2g} | "
                    f"{'' if s.partitions is None else s.partitions} | "
                    f"{'' if s.outside is None else s.outside} | {rate:.1f} | "
                    f"{'' if not peak else f'{rate / peak:.0%}'} | "
                    f"{statistics.median(cell.loads):.2f} |"
                )
    return "\n".join(lines)


def summary_table(results: list[ModelResult], peaks: dict[tuple[str, int], float]) -> str:
    head = ("| model | GFLOP | limit ms | weights MiB, read ms | eager | stock ET | ORT | "
            "xnnc .pte | xnnc | xnnc vs stock | xnnc vs ORT | of peak | "
            "2 threads: xnnc, vs stock, vs 1 thread | partitions stock / xnnc | "
            "compile stock / xnnc s |")  # fmt: skip
    lines = [head, "|" + "---|" * 15]
    for r in results:
        one, two = r.cells.get(1, {}), r.cells.get(2, {})
        x1, x2 = one.get("xnnc"), two.get("xnnc")
        peak, rate = peaks.get((r.dtype, 1)), peaks.get((READ, 1))
        limit = f"{r.gflop / peak * 1e3:.1f}" if peak else "n/a"
        read_ms = r.weights * 2**20 / rate / 1e6 if rate else None
        read = f"{r.weights:.1f}, " + ("n/a" if read_ms is None else _small_ms(read_ms))
        of_peak = f"{r.gflop / x1.quantile(0.5) / peak:.0%}" if x1 and peak else "n/a"
        scaling = f"{x1.quantile(0.5) / x2.quantile(0.5):.2f}x" if x1 and x2 else "n/a"
        st, xs = r.systems.get("stock"), r.systems.get("xnnc")

        def count(system: System | None) -> str:
            return "n/a" if system is None or system.partitions is None else str(system.partitions)

        parts = f"{count(st)} / {count(xs)}"
        if xs and xs.outside:
            parts += f" (+{xs.outside} outside)"
        comp = (f"{_fmt_s(st.compile_s if st else None)} / {_fmt_s(xs.compile_s if xs else None)}"
                if st and xs else "n/a")  # fmt: skip
        if st and xs and st.compile_s and xs.compile_s:
            comp += f" ({st.compile_s / xs.compile_s:.1f}x)"
        lines.append(
            f"| {r.name} ({r.dtype}) | {r.gflop:.2f} | {limit} | {read} | "
            f"{_ms(one.get('eager'))} | {_ms(one.get('stock'))} | {_ms(one.get('ort'))} | "
            f"{_ms(one.get('xnnc-pte'))} | "
            f"{_ms(x1)} | {_ratio(one.get('stock'), x1)} | {_ratio(one.get('ort'), x1)} | "
            f"{of_peak} | {_ms(x2)}, {_ratio(two.get('stock'), x2)}, {scaling} | {parts} | "
            f"{comp} |"
        )
    return "\n".join(lines)


def profile_table(results: list[ModelResult]) -> str:
    lines = ["| model | top XNNPACK operator kinds (share of the profiled time, 1 thread, "
             "5 calls after a first) |", "|---|---|"]  # fmt: skip
    for r in results:
        kinds = ", ".join(f"{kind} {share:.0%}" for kind, share in r.profile)
        lines.append(f"| {r.name} | {kinds or 'n/a'} |")
    return "\n".join(lines)


SLOWER = 1.03  # issue 10: the default at most 3% slower than the best fixed policy


def best_policy(cells: dict[str, Cell]) -> tuple[str | None, float]:
    """The fastest fixed policy measured (its system name) and the default's p50 over its
    (> 1: the default is slower); (None, 1.0) when no policy ran or the default is best."""
    names = [n for n in (f"xnnc[{p.name}]" for p in POLICIES) if n in cells]
    default = cells.get("xnnc")
    if default is None or not names:
        return None, 1.0
    best = min(names, key=lambda n: cells[n].quantile(0.5))
    ratio = default.quantile(0.5) / cells[best].quantile(0.5)
    return (best, ratio) if ratio > 1.0 else (None, 1.0)


def policy_table(results: list[ModelResult]) -> str:
    """Per model and thread count: xnnc's default beside each fixed policy, and the ratio
    of the default to the best of them (> 1: the default is slower; a row over 3% also
    gives the ratio of the two measured again as a pair, "A/B")."""
    names = [f"xnnc[{p.name}]" for p in POLICIES]
    head = ("| model | threads | default | " + " | ".join(n[5:-1] for n in names)
            + " | best fixed | default / best |")  # fmt: skip
    lines = [head, "|" + "---|" * (len(names) + 5)]
    for r in results:
        for threads, cells in r.cells.items():
            default = cells.get("xnnc")
            row = []
            for n in names:
                cell, system = cells.get(n), r.systems.get(n)
                if cell is not None:
                    row.append(f"{cell.quantile(0.5) * 1e3:.3g}")
                else:
                    row.append(system.error if system and system.error else "-")
            best, ratio = best_policy(cells)
            if default is None:
                verdict, best_name = "n/a", "n/a"
            elif best is None:
                verdict, best_name = "1.00 (default best)", "default"
            else:
                verdict = f"{ratio:.2f}" + (" **> 3% slower**" if ratio > SLOWER else "")
                if threads in r.again:
                    verdict += f"; A/B {r.again[threads]:.2f}"
                best_name = best[5:-1]
            ms = f"{default.quantile(0.5) * 1e3:.3g}" if default else "n/a"
            lines.append(f"| {r.name} | {threads} | {ms} | {' | '.join(row)} | "
                         f"{best_name} | {verdict} |")  # fmt: skip
    return "\n".join(lines)


def cpu_header(threads: list[int]) -> str:
    """The CPU model, the ISA features xnnc's target sees on it, and the thread counts."""
    target = Target.host()
    features = [f for f in FEATURES[target.arch] if target.has(f)]
    model = next(iter(machine().split(" (")), "")
    return (f"CPU: {model}, {target.arch} with {' '.join(features) or 'no listed feature'}, "
            f"{os.cpu_count()} cores; threads {', '.join(map(str, threads))}")  # fmt: skip


def machine() -> str:
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
        isa = [f for f in ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16")
               if f in flags]  # fmt: skip
        model += f" ({', '.join(isa)})"
    return f"{model}, {os.cpu_count()} cores, torch {torch.__version__}"


def _dtype(model: torch.nn.Module) -> str:
    dtypes = Counter(str(p.dtype).removeprefix("torch.") for p in model.parameters())
    name = dtypes.most_common(1)[0][0] if dtypes else "float32"
    return {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}.get(name, name)


def run_model(name: str, args: argparse.Namespace, meter: LoadMeter) -> ModelResult:
    model, inputs = MODELS[name](small=args.small)
    with torch.no_grad():
        expected = model(*inputs)
    # The weights, MiB: what each call reads at least once (shared tensors once).
    gflop, weights = model_flops(model, inputs) / 1e9, weight_bytes(model) / 2**20
    # Warm: torch.export's one-time setup is paid here, by nobody's compile time.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.export(model, inputs, strict=False)
    systems = {s: build(s, model, inputs) for s in args.systems}
    if args.policies and "xnnc" in systems and systems["xnnc"].error is None:
        systems.update((s.name, s) for s in policy_systems(model, inputs, systems["xnnc"]))
    for s in systems.values():
        where = f"{s.compile_s:.1f} s" if s.compile_s is not None else s.error
        print(f"  {name}: {s.name} built ({where})", flush=True)
    cells = {}
    for threads in args.threads:
        cells[threads] = measure(list(systems.values()), threads, args.runs, expected, meter,
                                 args.quiet, args.max_wait)  # fmt: skip
    again = {}
    for threads, measured in cells.items():
        # A default over 3% slower than a policy among ~10 systems is measured again beside
        # that policy alone, twice the rounds: an A/B that tells a real loss from a slow
        # stretch of the machine (both numbers are reported).
        best, ratio = best_policy(measured)
        if best is not None and ratio > SLOWER:
            pair = measure([systems["xnnc"], systems[best]], threads, 2 * args.runs, expected,
                           meter, args.quiet, args.max_wait)  # fmt: skip
            if "xnnc" in pair and best in pair and pair[best].samples:
                again[threads] = pair["xnnc"].quantile(0.5) / pair[best].quantile(0.5)
    xs = systems.get("xnnc")
    profile = profile_kinds(xs.profiled, inputs) if xs and xs.profiled else []
    for s in systems.values():  # the programs their makers keep: the next model needs the memory
        s.make = s.profiled = None
    return ModelResult(name, _dtype(model), gflop, weights, systems, cells, profile, again)


def add_results(path: str, title: str, report: str) -> None:
    """`report` as a new section of the results file at `path`, newest first: right after its
    index, which gains a line for it; every earlier section is kept as it is."""
    anchor = "".join(c for c in title.lower().replace(" ", "-") if c.isalnum() or c in "-_")
    section = f"## {title}\n\n*Written by `python -m xnnc.benchmarks.zoo`.*\n\n{report}\n\n"
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = "# Benchmark results\n\n"
    head, found, rest = text.partition("## Index\n\n")
    if not found:  # no index yet: one before the first section
        head, sep, rest = text.partition("\n## ")
        head, rest = head.rstrip("\n") + "\n\n", sep.lstrip("\n") + rest
    entries, sep, older = rest.partition("\n## ")
    entries = f"- [{title}](#{anchor})\n" + entries.strip("\n")
    with open(path, "w") as f:
        f.write(f"{head}## Index\n\n{entries.rstrip()}\n\n{section}{sep.lstrip(chr(10))}{older}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(ZOO))
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--small", action="store_true", help="the reduced-size models")
    parser.add_argument("--quiet", type=float, default=0.3, help="cores others may use")
    parser.add_argument("--max-wait", type=float, default=20.0, help="s to wait for quiet")
    parser.add_argument("--policies", action="store_true",
                        help="also run xnnc under each fixed rewrite policy")  # fmt: skip
    parser.add_argument(
        "--results", default=None, help="also add the full report to this file, newest first"
    )
    args = parser.parse_args(argv)
    args.systems = [s for s in args.systems.split(",") if s]
    args.threads = [int(t) for t in args.threads.split(",")]
    unknown = [m for m in args.models.split(",") if m not in MODELS]
    unknown += [s for s in args.systems if s not in SYSTEMS]
    if unknown:
        print(f"zoo: error: unknown model or system: {', '.join(unknown)}", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    torch.set_num_threads(1)
    meter = LoadMeter()
    stamp = f"{time.strftime('%Y-%m-%d')}, {machine()}"
    print(f"model zoo, {stamp}; {args.runs} rounds, threads {args.threads}", flush=True)
    print(cpu_header(args.threads), flush=True)
    peaks = measure_peaks(args.threads)
    print(f"GEMM peak before the models: {_peaks_text(peaks)}", flush=True)
    results = []
    for name in args.models.split(","):
        results.append(run_model(name, args, meter))
        print(summary_table(results[-1:], peaks).splitlines()[-1], flush=True)
        if args.policies:
            print("\n".join(policy_table(results[-1:]).splitlines()[2:]), flush=True)
    # The peak is the best the machine gave: measured again after the models, the larger kept.
    after = measure_peaks(args.threads)
    peaks = {key: max(v, after[key]) for key, v in peaks.items()}
    peak_line = (
        "GEMM peak (GFLOP/s, xnnc runtime, [512,1024]x[1024,1024], the better of before and "
        f"after the models): {_peaks_text(peaks)}; weight-read rate (GB/s, a one-row "
        f"fully-connected layer over 64 MiB of fp32 weights, the better of the two): "
        f"{_reads_text(peaks)}"
    )
    loads = [x for r in results for c in r.cells.values() for cell in c.values()
             for x in cell.loads]  # fmt: skip
    load_line = (f"load from other processes during the blocks: median "
                 f"{statistics.median(loads) if loads else 0:.2f} cores, max "
                 f"{max(loads) if loads else 0:.2f}")  # fmt: skip
    summary = "\n\n".join([
        f"Measured {stamp}; 1 thread unless noted; median of >= {args.runs} interleaved "
        f"blocks, milliseconds. {peak_line}. {load_line}.",
        cpu_header(args.threads),
        summary_table(results, peaks),
        profile_table(results),
    ])  # fmt: skip
    if args.policies:
        summary += "\n\nxnnc's default against fixed policies (p50 ms):\n\n" + policy_table(results)
    report = summary + "\n\n" + detail_table(results, peaks)
    print("\n" + report)
    if args.results:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        title = f"Model zoo: {when}, {machine().split(' (')[0]}"
        add_results(args.results, title, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
