"""The driver: `compile`, `load` and `Program`, above every stage of the compiler.

    program = xnnc.compile(model, inputs, target="extended", threads=2)
    outputs = program(*inputs)
    program.profile()            # per-node XNNPACK timings of the last call
    program.save("m.xnnc")       # our program file (IR + blobs); "m.pte" for ExecuTorch

A model goes frontend -> pipeline (conversion, transforms, legalization) -> backend once,
under one `CompileOptions` checked before any work starts. A Program runs the top-level
function: each `xnn.subgraph` on the extended runtime, every op outside XNNPACK on torch
(the reference implementations), so a partially delegated model still runs end to end.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.func import FuncFunctions

import xnnc
from xnnc.dialects import aten, xnn
from xnnc.dialects.weights import BlobStore, WeightAttr
from xnnc.dialects.xnn import serialize_subgraph, target_of
from xnnc.errors import XnncError
from xnnc.interpreter.aten import AtenFunctions, check_inputs
from xnnc.options import CompileOptions
from xnnc.target import Target

PROGRAM_FORMAT = "xnnc-program-1"


@register_impls
class SubgraphFunctions(InterpreterFunctions):
    """`xnn.subgraph` runs its blob on the extended runtime."""

    def __init__(self, runtimes: dict[xnn.SubgraphOp, Any]):
        self.runtimes = runtimes

    @impl(xnn.SubgraphOp)
    def run_subgraph(self, interpreter: Interpreter, op: xnn.SubgraphOp, args: tuple) -> tuple:
        return tuple(self.runtimes[op](*args))


class Program:
    """A lowered module with one extended-runtime instance per subgraph."""

    def __init__(
        self,
        module: ModuleOp,
        options: CompileOptions | None = None,
        *,
        threads: int | None = None,
        profile: bool = False,
        blobs: Sequence[bytes] | None = None,
        exported: Any = None,
    ):
        """`module` is lowered; `options` are those it was compiled with (by default its
        `#xnn.target` and nothing else); `threads` overrides the target's thread count for
        running; `blobs` are the subgraphs' serialized blobs when already known."""
        from xnnc.backend_xnnpack.runtime import open_runtime

        self.module = module
        self.options = options or CompileOptions(target=target_of(module))
        self.threads = self.options.target.threads if threads is None else threads
        self._exported = exported
        self.subgraphs = [op for op in module.walk() if isinstance(op, xnn.SubgraphOp)]
        runtime = self.options.target.runtime
        self.blobs = list(blobs) if blobs is not None else [
            serialize_subgraph(sub, runtime) for sub in self.subgraphs
        ]  # fmt: skip
        self.runtimes = {
            sub: open_runtime(blob, threads=self.threads, profile=profile)
            for sub, blob in zip(self.subgraphs, self.blobs, strict=True)
        }
        self._func = next(op for op in module.ops if isinstance(op, FuncOp))
        self._interpreter = Interpreter(module)
        self._interpreter.register_implementations(FuncFunctions())
        self._interpreter.register_implementations(AtenFunctions())
        self._interpreter.register_implementations(SubgraphFunctions(self.runtimes))
        self._direct = self._whole_subgraph()

    @property
    def target(self) -> Target:
        return self.options.target

    def _whole_subgraph(self) -> Any:
        """The runtime, when the function is one subgraph taking the arguments in order and
        returning its results: calls then skip the interpreter."""
        block = self._func.body.block
        ops = [op for op in block.ops if not isinstance(op, aten.ConstantOp)]
        if len(ops) != 2 or not isinstance(ops[0], xnn.SubgraphOp):
            return None
        sub, ret = ops
        if list(sub.inputs) != list(block.args) or list(ret.operands) != list(sub.outputs):
            return None
        return self.runtimes[sub]

    @property
    def num_partitions(self) -> int:
        return len(self.subgraphs)

    def ops_outside(self) -> list[str]:
        """The ops of the top-level function left to torch."""
        return [
            op.target.data if isinstance(op, aten.GenericOp) else op.name
            for op in self._func.body.block.ops
            if not isinstance(op, (xnn.SubgraphOp, aten.ConstantOp))
            and op is not self._func.body.block.last_op
        ]

    def __call__(self, *inputs: Any) -> Any:
        tensors = check_inputs(self._func, inputs)
        with torch.no_grad():
            if self._direct is not None:
                outputs = tuple(self._direct(*tensors))
            else:
                outputs = tuple(self._interpreter.call_op(self._func.sym_name.data, tensors))
        return outputs[0] if len(outputs) == 1 else outputs

    def profile(self) -> list[tuple[str, float]]:
        """(subgraph:node, microseconds) for every XNNPACK operator of the last call."""
        rows = []
        for i, sub in enumerate(self.subgraphs):
            for name, us in self.runtimes[sub].profile():
                rows.append((f"subgraph {i}: {name}", us))
        return rows

    def save(self, path: str) -> None:
        """`.pte` (ExecuTorch, through XnncPartitioner with this program's options, for the
        stock runtime) or our program file (anything else)."""
        if str(path).endswith(".pte"):
            if self._exported is None:
                raise XnncError("saving a .pte needs the program compiled from a model")
            from xnnc.pte.export import to_pte

            with open(path, "wb") as f:
                f.write(to_pte(self._exported, options=self.options))
            return
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            z.writestr("format", PROGRAM_FORMAT + "\n" + str(self.target))
            z.writestr("program.mlir", xnnc.print_module(self.module))
            buf = io.BytesIO()
            np.savez(buf, **_outside_weights(self._func))
            z.writestr("weights.npz", buf.getvalue())
            for i, blob in enumerate(self.blobs):
                z.writestr(f"subgraph_{i}.xnn", blob)


def _outside_weights(func: FuncOp) -> dict[str, np.ndarray]:
    """The data of the weights used outside subgraphs (those inside live in the blobs)."""
    weights = {}
    for op in func.body.block.ops:
        if isinstance(op, aten.ConstantOp) and isinstance(op.value, WeightAttr):
            blob = op.value.data
            weights[blob.name] = np.frombuffer(blob.raw(), dtype=np.uint8)
    return weights


def load(path: str, threads: int | None = None, profile: bool = False) -> Program:
    """A program saved by `Program.save` (not a .pte: run those with ExecuTorch)."""
    try:
        z = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as e:
        raise XnncError(f"{path}: not an xnnc program file ({e})") from None
    with z:
        names = set(z.namelist())
        if "format" not in names or not z.read("format").decode().startswith(PROGRAM_FORMAT):
            raise XnncError(f"{path}: not an xnnc program file (no '{PROGRAM_FORMAT}' marker)")
        target = z.read("format").decode().splitlines()[1]
        store = BlobStore()
        with np.load(io.BytesIO(z.read("weights.npz"))) as data:
            for name in data.files:
                store.add(name, data[name])
        module = xnnc.parse_module(z.read("program.mlir").decode(), store)
        count = sum(1 for op in module.walk() if isinstance(op, xnn.SubgraphOp))
        blobs = []
        for i in range(count):
            if f"subgraph_{i}.xnn" not in names:
                raise XnncError(f"{path}: subgraph_{i}.xnn is missing")
            blobs.append(z.read(f"subgraph_{i}.xnn"))
    options = CompileOptions(target=target)
    return Program(module, options, threads=threads, profile=profile, blobs=blobs)


def compile(
    model: Any,
    example_inputs: Sequence[Any] | None = None,
    options: CompileOptions | None = None,
    *,
    target: Target | str | None = None,
    threads: int | None = None,
    profile: bool = False,
    exclude: Sequence[str] | str | None = None,
    disable: Sequence[str] | str | None = None,
    fp16: str | None = None,
) -> Program:
    """nn.Module + inputs, ExportedProgram or .pt2 (inputs may be left out: then
    `compile(ep, options)`) -> a runnable Program.

    `options` (a CompileOptions), or its fields as keywords, which override it: target
    (a Target or a string such as "stock", "extended,x86-64-avx2,threads=2"), threads,
    exclude (aten op names kept out of XNNPACK), disable (passes or rewrite sets, e.g.
    "xnn-polyphase"), fp16 ("auto", "native" or "fp32"). Checked before any work starts."""
    from xnnc.frontend.fx_importer import export_program, import_model
    from xnnc.pipeline import lower

    if isinstance(example_inputs, CompileOptions) and options is None:
        options, example_inputs = example_inputs, None  # compile(exported_program, options)
    options = CompileOptions.of(
        options, target=target, threads=threads, exclude=exclude, disable=disable, fp16=fp16
    )
    ep = export_program(model, example_inputs)
    module = lower(import_model(ep), options)
    return Program(module, options, profile=profile, exported=ep)
