"""`xnn-run`: run a model file on XNNPACK and compare it against the reference.

    xnn-run model.mlir                  # `aten` IR: compiled, run, checked vs the interpreter
    xnn-run model.mlir --weights w.npz  # the data of weights printed elided, by name
    xnn-run model.pt2                   # torch.export.save: imported, then as .mlir
    xnn-run model.xnnc --inputs in.npz  # a saved program (xnnc.Program.save)
    xnn-run model.pte --threads 2       # a .pte on stock ExecuTorch (no reference to compare)
    xnn-run model.pt2 --streaming frames=1   # as a stream (docs/streaming.md): chunk by chunk
    xnn-run step.pte                    # a streaming program or .pte: streamed frame by frame

Inputs are random (seeded) unless `--inputs` names an .npz whose arrays are the inputs in
order (`arr_0`, `arr_1`, ... as `np.savez` writes them); a symbolic dim of a random input
takes its size with every size symbol at its upper bound. Prints the max error against the
reference, the median latency, and the per-node profile. IR is verified before it is
compiled. Errors are one line (`file:line:col: error: ...` for IR), exit 1; bad flags exit 2.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import traceback
import types
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from xnnc.quiet import native_output_silenced, quiet_warnings
from xnnc.tools.xnn_opt import (
    ToolError,
    import_pt2_file,
    load_weights,
    one_line,
    one_line_usage_error,
    parse_ir,
    read_npz,
)


class RunError(Exception):
    """An error for the user: one line, exit 1."""


def _random_inputs(path: str, func: Any, seed: int) -> list[torch.Tensor]:
    """Seeded random inputs; a symbolic dim takes its value at every size symbol's upper
    bound (the largest size the program was compiled for)."""
    from xdsl.dialects.builtin import TensorType

    from xnnc.ir.dtypes import TORCH_DTYPES

    gen = torch.Generator().manual_seed(seed)
    inputs = []
    for i, t in enumerate(func.function_type.inputs.data):
        if not isinstance(t, TensorType) or t.element_type not in TORCH_DTYPES:
            raise RunError(f"{path}: input {i} of type {t} has no random values: give --inputs")
        dtype = TORCH_DTYPES[t.element_type]
        shape = _largest_shape(path, func, i, t)
        if dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=gen).to(dtype))
        elif dtype == torch.bool:
            inputs.append(torch.randint(0, 2, shape, generator=gen).bool())
        else:
            inputs.append(torch.randint(0, 10, shape, generator=gen).to(dtype))
    if not all(t.has_static_shape() for t in func.function_type.inputs.data):
        from xnnc.dialects.types import symbol_ranges

        sizes = ", ".join(f"{s} = {hi}" for s, (_, hi) in sorted(symbol_ranges(func).items()))
        print(f"{path}: random inputs at the size symbols' upper bounds: {sizes}")
    return inputs


def _largest_shape(path: str, func: Any, i: int, t: Any) -> tuple[int, ...]:
    from xnnc.backend_xnnpack.dims import DimExpr
    from xnnc.dialects.types import dims_of_type, symbol_ranges

    if t.has_static_shape():
        return tuple(t.get_shape())
    dims, ranges = dims_of_type(t), symbol_ranges(func)
    symbols = [s for d in dims if isinstance(d, DimExpr) for s in d.symbols]
    if any(isinstance(d, int) and d < 0 for d in dims) or not set(symbols) <= set(ranges):
        raise RunError(f"{path}: input {i} has a dynamic shape ({t}) with no range: give --inputs")
    largest = {s: high for s, (_, high) in ranges.items()}
    return tuple(d.evaluate(largest) if isinstance(d, DimExpr) else d for d in dims)


def _npz_inputs(path: str) -> list[torch.Tensor]:
    """The arrays of an .npz in argument order: np.savez names them arr_0, arr_1, ..."""
    arrays = read_npz(path, "inputs")

    def position(key: str) -> int:
        tail = key.rsplit("_", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    return [torch.from_numpy(np.array(arrays[k])) for k in sorted(arrays, key=position)]


def _time(fn: Any, inputs: Sequence[torch.Tensor], repeat: int) -> float:
    fn(*inputs)  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _max_error(got: Sequence[torch.Tensor], want: Sequence[torch.Tensor]) -> float:
    return max(
        ((g.float() - w.float()).abs().max().item() if g.numel() else 0.0)
        for g, w in zip(got, want, strict=True)
    )


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _read_module(path: str, weights: str | None, loop_lstms: bool = False) -> Any:
    """`.mlir` or `.pt2` -> a verified `aten` (or lowered) module; `loop_lstms`: a .pt2's
    static LSTMs stay whole for the recurrent loop."""
    if path.endswith(".pt2"):
        return import_pt2_file(path, path, loop_lstms)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise RunError(f"{path}: no such file") from None
    except OSError as e:
        raise RunError(f"{path}: cannot read it ({e.strerror})") from None
    module = parse_ir(data, path, load_weights(weights))
    _check_weights_have_data(module, path)
    return module


def _check_weights_have_data(module: Any, path: str) -> None:
    from xnnc.dialects.weights import WeightAttr

    for op in module.walk():
        for value in op.properties.values():
            if isinstance(value, WeightAttr) and not value.data.has_data:
                raise RunError(
                    f"{path}: weight '{value.data.name}' has no data (printed elided): "
                    "print it with xnn-opt --print-weights, or pass --weights FILE.npz"
                )


def _compiled(path: str, args: argparse.Namespace, options: Any) -> tuple[Any, Any]:
    """(Program, the reference module or None) for IR or a .pt2 (a StreamingProgram when
    `options` stream)."""
    from xdsl.dialects.func import FuncOp

    from xnnc.dialects import xnn
    from xnnc.driver import loops_lstms
    from xnnc.pipeline.stages import lower
    from xnnc.program import Program
    from xnnc.program.stream import StreamingProgram

    # As xnnc.compile: a static LSTM runs on the loop where the target's rule says so.
    module = _read_module(path, args.weights, loops_lstms(options))
    if not any(isinstance(op, FuncOp) for op in module.ops):
        raise RunError(f"{path}: no func.func to run")
    reference = None
    if not any(isinstance(op, xnn.SubgraphOp) for op in module.walk()):
        reference = module.clone()
        lower(module, options)
    elif options.streaming:
        raise RunError(f"{path}: --streaming compiles aten IR; this module is lowered already")
    # The module's `#xnn.target` (set by `lower`, or given with lowered IR) decides the blobs.
    kind = StreamingProgram if options.streaming else Program
    return kind(module, threads=args.threads, profile=not options.streaming), reference


def _check_file(path: str) -> None:
    """The file is there and readable, checked before anything else (options, imports)."""
    if not os.path.exists(path):
        raise RunError(f"{path}: no such file")
    if os.path.isdir(path):
        raise RunError(f"{path}: is a directory, not a program, .pte, .pt2 or .mlir file")
    if not os.access(path, os.R_OK):
        raise RunError(f"{path}: not readable")


def run(args: argparse.Namespace) -> int:
    _check_file(args.file)
    import xnnc
    from xnnc.driver import load
    from xnnc.pipeline.options import CompileOptions, tune_mode
    from xnnc.program import Program
    from xnnc.program.lstm_loop import ON_XNNPACK

    path = args.file
    reference = None
    options = CompileOptions(
        target=args.target,
        fp16=args.fp16,
        bf16=args.bf16,
        exclude=args.exclude,
        disable=args.disable,
        threads=args.threads,
        tune=tune_mode(args.tune, "--tune"),
        tuning_db=args.tuning_db,
        streaming=args.streaming or "",
    )
    if args.streaming and not path.endswith((".mlir", ".pt2")):
        raise RunError(f"{path}: --streaming compiles .mlir or .pt2 files; a saved program "
                       "or .pte streams as it was compiled")  # fmt: skip
    if path.endswith(".pte") and _is_streaming_pte(path):
        from xnnc.program.stream import StreamingPte

        with native_output_silenced():  # ExecuTorch's cpuinfo lines
            steps = StreamingPte(path, threads=args.threads)
        return _run_stream(steps, args, None)
    if path.endswith(".pte"):
        from xnnc.pte import StockRuntime

        if not args.inputs:
            raise RunError(f"{path}: a .pte does not record its input shapes; pass --inputs")
        try:
            with open(path, "rb") as f, native_output_silenced():  # ExecuTorch's cpuinfo lines
                runtime = StockRuntime(f.read(), threads=args.threads, name=path)
        except FileNotFoundError:
            raise RunError(f"{path}: no such file") from None
        except RuntimeError as e:
            raise RunError(f"{path}: ExecuTorch cannot load it ({e})") from None
        inputs = _npz_inputs(args.inputs)
        program: Any = runtime
        profile: list | None = []
    else:
        if path.endswith((".mlir", ".pt2")):
            program, reference = _compiled(path, args, options)
        else:
            program = load(path, threads=args.threads, profile=True)
        if hasattr(program, "open"):  # a stream's step
            return _run_stream(program, args, reference)
        func = program._func
        inputs = _npz_inputs(args.inputs) if args.inputs else _random_inputs(path, func, args.seed)
        profile = None
    outputs = _as_tuple(program(*inputs))
    print(f"{path}: {len(outputs)} output(s): " + ", ".join(
        f"{list(o.shape)} {str(o.dtype).removeprefix('torch.')}" for o in outputs))  # fmt: skip
    if reference is not None:
        want = xnnc.run_reference(reference, inputs, program._func.sym_name.data)
        print(f"max |error| vs the reference interpreter: {_max_error(outputs, want):.3g}")
    if isinstance(program, Program):
        outside = program.outside()
        looped = sum(o.reason == ON_XNNPACK for o in outside)
        on_loop = f" ({looped} on xnnc's recurrent loop over XNNPACK)" if looped else ""
        print(f"partitions: {program.num_partitions}, ops outside XNNPACK: {len(outside)} "
              f"{sorted({o.op for o in outside})}{on_loop}")  # fmt: skip
        if (fallback := program.fallback()) is not None:
            print(fallback)
    seconds = _time(program, inputs, args.repeat)
    print(f"latency: {seconds * 1e3:.3f} ms (median of {args.repeat}, {args.threads} thread(s))")
    if profile is None:
        rows = sorted(program.profile(), key=lambda r: -r[1])
        total = sum(us for _, us in rows) or 1.0
        print("per-node profile (last call):")
        for name, us in rows[: args.top]:
            print(f"  {us:10.1f} us  {100 * us / total:5.1f}%  {name}")
    return 0


def _is_streaming_pte(path: str) -> bool:
    """Whether the `.pte` has a stream's layout method (`xnnc_stream`)."""
    from xnnc.pte.runtime import LAYOUT_METHOD

    with open(path, "rb") as f:
        return LAYOUT_METHOD.encode() in f.read()


def _run_stream(steps: Any, args: argparse.Namespace, reference: Any) -> int:
    """Streams `--frames` chunks (seeded random, or `--inputs`' first input cut into
    chunks) through a new stream of `steps`, then flushes; prints the stream, the joined
    output, the error against the reference interpreter's offline output (for IR) and the
    median latency of a call."""
    import xnnc

    layout = steps.layout
    per_call, axis = layout.frames, layout.axis
    if args.inputs:
        whole = _npz_inputs(args.inputs)
        signal = whole[layout.input]
        calls = signal.shape[axis] // per_call
        if calls == 0 or signal.shape[axis] % per_call:
            raise RunError(f"{args.inputs}: input {layout.input} has {signal.shape[axis]} "
                           f"frames on axis {axis}; give a multiple of {per_call}")  # fmt: skip
    else:
        calls = args.frames
        shape, dtype = layout.inputs[layout.input]
        gen = torch.Generator().manual_seed(args.seed)
        full = [*shape[:axis], per_call * calls, *shape[axis + 1 :]]
        signal = torch.randn(full, generator=gen).to(dtype)
        whole = [signal]
    others = [x for i, x in enumerate(whole) if i != layout.input]
    stream = steps.open()
    chunks, times = [], []
    for n in range(calls):
        chunk = signal.narrow(axis, n * per_call, per_call)
        inputs = [*others[: layout.input], chunk, *others[layout.input :]]
        start = time.perf_counter()
        chunks.append(_as_tuple(stream(*inputs)))
        times.append(time.perf_counter() - start)
    tail = _as_tuple(stream.flush())
    joined = [torch.cat([c[i] for c in chunks] + [tail[i]], layout.axes[i])
              for i in range(len(tail))]  # fmt: skip
    print(f"{args.file}: stream of {per_call} frame(s) per call on axis {axis}, lookahead "
          f"{layout.lookahead} frame(s), state {steps.state_nbytes()} bytes, "
          f"{len(layout.roles)} state(s)")  # fmt: skip
    print(f"{calls} call(s) and a flush: " + ", ".join(
        f"{list(o.shape)} {str(o.dtype).removeprefix('torch.')}" for o in joined))  # fmt: skip
    if reference is not None:
        want = xnnc.run_reference(reference, [*others[: layout.input], signal,
                                              *others[layout.input :]])  # fmt: skip
        errors = []
        for i, (got, ref) in enumerate(zip(joined, want, strict=True)):
            d, ax = layout.delays[i], layout.axes[i]
            got = got.narrow(ax, d, got.shape[ax] - d)
            edge = 2 * d  # a lookahead's edges differ (docs/streaming.md)
            n = min(got.shape[ax], ref.shape[ax]) - 2 * edge
            if n > 0:
                errors.append(_max_error([got.narrow(ax, edge, n)], [ref.narrow(ax, edge, n)]))
        away = " away from the edges" if any(layout.delays) else ""
        print(f"max |error| vs the reference interpreter's offline output{away}: "
              f"{max(errors, default=0.0):.3g}")  # fmt: skip
    median = statistics.median(times)
    print(f"latency: {median * 1e3:.3f} ms per call (median of {calls}, {args.threads} "
          "thread(s))")  # fmt: skip
    return 0


def _at_least(low: int) -> Any:
    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an int, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    return check


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="xnn-run", description=__doc__.splitlines()[0])
    parser.error = types.MethodType(one_line_usage_error, parser)  # type: ignore
    parser.add_argument("file", help=".mlir (aten or lowered), .pt2, saved program, or .pte")
    parser.add_argument("--inputs",
                        help=".npz of the inputs, in order (default: random, seeded; each "
                        "size symbol at its upper bound)")  # fmt: skip
    parser.add_argument("--weights", metavar="FILE",
                        help="for .mlir: a .npz holding the data of weights printed elided, "
                        "by name (as xnn-opt --weights)")  # fmt: skip
    parser.add_argument("--target", default="extended",
                        help="for aten IR: a target string, e.g. stock, extended,x86-64-avx2 "
                        "(xnnc.target)")  # fmt: skip
    parser.add_argument("--threads", type=_at_least(1), default=1)
    parser.add_argument("--tune", default="auto", choices=("auto", "true", "false", "cached"),
                        help="for aten IR: the cost model's source: time each layer's forms "
                        "on this machine (auto: for a host target), or the static rules "
                        "(false); cached: the tuning database only")  # fmt: skip
    parser.add_argument("--tuning-db", metavar="FILE",
                        help="the tuning database (default $XNNC_TUNING_DB, else "
                        "~/.cache/xnnc/tuning.json)")  # fmt: skip
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="OP",
        help="for aten IR: an aten op kept out of XNNPACK (repeatable)",
    )
    parser.add_argument(
        "--disable",
        action="append",
        default=[],
        metavar="PASS",
        help="for aten IR: a pass or rewrite set not to run (repeatable)",
    )
    parser.add_argument("--fp16", default="auto", choices=("auto", "native", "fp32"),
                        help="fp16 compute for aten IR: XNNPACK's fp16 kernels, fp32, or "
                        "fp32 where fp16 arithmetic is not native (auto)")  # fmt: skip
    parser.add_argument("--bf16", default="fp32", choices=("fp32", "native"),
                        help="bf16 compute between GEMMs for aten IR: fp32 (rounded where a bf16 "
                        "GEMM reads it and at the outputs) or native (rounded at each node, as "
                        "eager)")  # fmt: skip
    parser.add_argument(
        "--streaming",
        metavar="OPTIONS",
        help="for aten IR and .pt2: compile as a stream, e.g. 'frames=1 "
        "lookahead=auto' (aten-stream's options; docs/streaming.md)",
    )
    parser.add_argument(
        "--frames",
        type=_at_least(1),
        default=64,
        help="calls a stream runs on random input (default 64)",
    )
    parser.add_argument("--repeat", type=_at_least(1), default=20, help="timed runs (median)")
    parser.add_argument("--top", type=_at_least(0), default=15, help="profile rows to print")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: every failure is one line on stderr."""
    from xdsl.utils.exceptions import ParseError, VerifyException

    from xnnc.errors import XnncError

    args = _arguments().parse_args(argv)
    quiet_warnings()
    try:
        return run(args)
    except (RunError, ToolError) as e:
        print(f"xnn-run: error: {one_line(str(e))}", file=sys.stderr)
    except XnncError as e:
        message = one_line(str(e)) or type(e).__name__
        where = "" if message.startswith(args.file) else f"{args.file}: "
        print(f"xnn-run: error: {where}{message}", file=sys.stderr)
    except ParseError as e:
        print(f"{e.span.get_location()}: error: {one_line(e.msg)}", file=sys.stderr)
    except VerifyException as e:
        print(one_line(str(e)), file=sys.stderr)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - the user gets one line, never a traceback
        print(f"xnn-run: internal error: {args.file}: {type(e).__name__}: {one_line(str(e))}",
              file=sys.stderr)  # fmt: skip
        if os.environ.get("XNNC_TRACEBACK"):
            traceback.print_exc()
    return 1


if __name__ == "__main__":
    sys.exit(main())
