"""`xnn-run`: run a model file on XNNPACK and compare it against the reference.

    xnn-run model.mlir                  # `aten` IR: compiled, run, checked vs the interpreter
    xnn-run model.xnnc --inputs in.npz  # a saved program (xnnc.Program.save)
    xnn-run model.pte --threads 2       # a .pte on stock ExecuTorch (no reference to compare)

Inputs are random (seeded) unless `--inputs` names an .npz whose arrays are the inputs in
order (`arr_0`, `arr_1`, ... as `np.savez` writes them). Prints the max error against the
reference, the median latency, and the per-node profile. Errors are one line, exit 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch


class RunError(Exception):
    """An error for the user: one line, exit 1."""


def _random_inputs(func: Any, seed: int) -> list[torch.Tensor]:
    from xnnc.frontend.schema import TORCH_DTYPES

    gen = torch.Generator().manual_seed(seed)
    inputs = []
    for t in func.function_type.inputs.data:
        dtype = TORCH_DTYPES[t.element_type]
        shape = tuple(t.get_shape())
        if dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=gen).to(dtype))
        elif dtype == torch.bool:
            inputs.append(torch.randint(0, 2, shape, generator=gen).bool())
        else:
            inputs.append(torch.randint(0, 10, shape, generator=gen).to(dtype))
    return inputs


def _position(key: str) -> int:
    """np.savez names positional arrays arr_0, arr_1, ...: order by that number."""
    tail = key.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _npz_inputs(path: str) -> list[torch.Tensor]:
    try:
        with np.load(path) as data:
            keys = sorted(
                data.files, key=lambda k: int(k.split("_")[-1]) if k[-1:].isdigit() else 0
            )
            return [torch.from_numpy(np.array(data[k])) for k in keys]
    except FileNotFoundError:
        raise RunError(f"{path}: no such file") from None
    except (OSError, ValueError) as e:
        raise RunError(f"{path}: not an .npz of inputs ({e})") from None


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


def run(args: argparse.Namespace) -> int:
    import xnnc
    from xnnc.dialects import xnn
    from xnnc.driver import Program, load
    from xnnc.options import CompileOptions

    path = args.file
    reference = None
    options = CompileOptions(
        target=args.target,
        fp16=args.fp16,
        exclude=args.exclude,
        disable=args.disable,
        threads=args.threads,
    )
    if path.endswith(".pte"):
        from xnnc.pte import StockRuntime

        if not args.inputs:
            raise RunError(f"{path}: a .pte does not record its input shapes; pass --inputs")
        try:
            with open(path, "rb") as f:
                runtime = StockRuntime(f.read(), threads=args.threads)
        except FileNotFoundError:
            raise RunError(f"{path}: no such file") from None
        except RuntimeError as e:
            raise RunError(f"{path}: ExecuTorch cannot load it ({e})") from None
        inputs = _npz_inputs(args.inputs)
        program: Any = runtime
        profile: list = []
    else:
        if path.endswith(".mlir"):
            try:
                with open(path) as f:
                    module = xnnc.parse_module(f.read())
            except FileNotFoundError:
                raise RunError(f"{path}: no such file") from None
            lowered = any(isinstance(op, xnn.SubgraphOp) for op in module.walk())
            if not lowered:
                from xnnc.pipeline import lower

                reference = module.clone()
                lower(module, options)
            program = Program(module, threads=args.threads, profile=True)
        else:
            program = load(path, threads=args.threads, profile=True)
        func = program._func
        inputs = _npz_inputs(args.inputs) if args.inputs else _random_inputs(func, args.seed)
        profile = None
    outputs = _as_tuple(program(*inputs))
    print(f"{path}: {len(outputs)} output(s): " + ", ".join(
        f"{list(o.shape)} {str(o.dtype).removeprefix('torch.')}" for o in outputs))  # fmt: skip
    if reference is not None:
        want = xnnc.run_reference(reference, inputs)
        print(f"max |error| vs the reference interpreter: {_max_error(outputs, want):.3g}")
    if isinstance(program, Program):
        print(f"partitions: {program.num_partitions}, ops outside XNNPACK: "
              f"{len(program.ops_outside())} {sorted(set(program.ops_outside()))}")  # fmt: skip
    seconds = _time(program, inputs, args.repeat)
    print(f"latency: {seconds * 1e3:.3f} ms (median of {args.repeat}, {args.threads} thread(s))")
    if profile is None:
        rows = sorted(program.profile(), key=lambda r: -r[1])
        total = sum(us for _, us in rows) or 1.0
        print("per-node profile (last call):")
        for name, us in rows[: args.top]:
            print(f"  {us:10.1f} us  {100 * us / total:5.1f}%  {name}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xnn-run", description=__doc__.splitlines()[0])
    parser.add_argument("file", help=".mlir (aten or lowered), saved program, or .pte")
    parser.add_argument("--inputs", help=".npz of the inputs, in order")
    parser.add_argument("--target", default="extended",
                        help="for aten IR: a target string, e.g. stock, extended,x86-64-avx2 "
                        "(xnnc.target)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=1)
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
    parser.add_argument("--repeat", type=int, default=20, help="timed runs (median)")
    parser.add_argument("--top", type=int, default=15, help="profile rows to print")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except RunError as e:
        print(f"xnn-run: error: {e}", file=sys.stderr)
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the user gets one line, never a traceback
        from xdsl.utils.exceptions import ParseError

        if isinstance(e, ParseError):
            loc = e.span.get_location()
            print(f"{loc}: error: {e.msg.splitlines()[0]}", file=sys.stderr)
        else:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            where = "" if msg.startswith(args.file) else f"{args.file}: "
            print(f"xnn-run: error: {where}{msg}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
