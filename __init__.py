"""xnnc: an MLIR-style compiler from PyTorch (torch.export) to XNNPACK, built on xDSL.

module = xnnc.import_model(model, example_inputs)   # builtin.module of `aten` ops
outputs = xnnc.run_reference(module, inputs)         # the torch-backed oracle
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from xnnc.dialects.weights import BlobStore

__all__ = [
    "__version__",
    "compile",
    "load",
    "Program",
    "Streaming",
    "StreamingProgram",
    "StreamingPte",
    "XnncPartitioner",
    "CompileOptions",
    "Target",
    "XnncError",
    "get_all_dialects",
    "get_all_passes",
    "import_model",
    "run_reference",
    "parse_module",
    "print_module",
    "weights_of",
]

# Heavy entry points (executorch, the runtime) load on first use, keeping `import xnnc` light.
_LAZY = {
    "compile": "xnnc.driver",
    "load": "xnnc.driver",
    "Program": "xnnc.program",
    "Streaming": "xnnc.program.stream",
    "StreamingProgram": "xnnc.program.stream",
    "StreamingPte": "xnnc.program.stream",
    "XnncPartitioner": "xnnc.pte",
    "CompileOptions": "xnnc.pipeline.options",
    "Target": "xnnc.target",
    "XnncError": "xnnc.errors",
    "get_all_dialects": "xnnc.dialects",
    "get_all_passes": "xnnc.pipeline.registry",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'xnnc' has no attribute '{name}'")


def import_model(model: Any, example_inputs: Any = None) -> ModuleOp:
    """An `aten` module from an nn.Module with example inputs, an ExportedProgram or a .pt2."""
    from xnnc.frontend.fx_importer import import_model as _import

    return _import(model, example_inputs)


def run_reference(module: ModuleOp, inputs: Any, func: str = "forward") -> tuple:
    """Run an `aten` module on torch; returns a tuple of torch tensors."""
    from xnnc.interpreter.aten import run_reference as _run

    return _run(module, inputs, func)


def make_context():
    """An xDSL context with xnnc's dialects (builtin, func, aten, xnn, xnnc)."""
    from xdsl.context import Context

    from xnnc.dialects import get_all_dialects

    ctx = Context()
    for name, loader in get_all_dialects().items():
        ctx.register_dialect(name, loader)
    return ctx


def parse_module(text: str, weights: BlobStore | None = None) -> ModuleOp:
    """Parse IR text; elided weights resolve against `weights`."""
    from xdsl.parser import Parser

    from xnnc.dialects.weights import BlobStore, using_blobs

    with using_blobs(weights if weights is not None else BlobStore()):
        return Parser(make_context(), text).parse_module()


def print_module(module: ModuleOp, weights_inline: bool = False, locations: bool = False) -> str:
    """IR text; weights elided by name unless `weights_inline`; each op's location
    (`loc(...)`, which `parse_module` reads back) with `locations`."""
    import io

    from xdsl.printer import Printer

    from xnnc.dialects.weights import printing_weights_inline

    with printing_weights_inline(weights_inline):
        if not locations:
            return str(module)
        text = io.StringIO()
        Printer(stream=text, print_debuginfo=True).print_op(module)
        return text.getvalue()


def weights_of(module: ModuleOp) -> BlobStore:
    """The weights a module references, by name (pass to `parse_module` after printing)."""
    from xnnc.dialects.weights import BlobStore, WeightAttr

    store = BlobStore()
    for op in module.walk():
        value = op.properties.get("value")
        if isinstance(value, WeightAttr):
            store[value.data.name] = value.data
    return store
