"""`xnn-opt`: xDSL's opt driver with the xnnc dialects, passes and frontends.

    xnn-opt model.mlir -p canonicalize,cse
    xnn-opt model.pt2 --print-weights > model.mlir      # a .pt2 imports into `aten`

Every error is one line (`file:line:col: error: ...` for IR) and exit code 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from xnnc.dialects import get_all_dialects
from xnnc.dialects.weights import BlobStore, printing_weights_inline, using_blobs
from xnnc.errors import OptionError
from xnnc.passes import get_all_passes, load_pass


class ToolError(Exception):
    """An error for the user: printed as one line, exit code 1."""


def register_dialects(ctx: Context) -> None:
    for name, loader in get_all_dialects().items():
        ctx.register_dialect(name, loader)


PASSES = get_all_passes()


class _LocatingParser(Parser):
    """Remembers where each op starts, so verifier errors can say file:line:col."""

    def __init__(self, *args: Any, line_offset: int = 0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.op_starts: dict[Operation, int] = {}
        self.line_offset = line_offset

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # A custom syntax that builds an invalid op: report it where the op starts.
            raise ParseError(span, str(e).splitlines()[0]) from None
        self.op_starts[op] = span.start
        return op

    def location_of(self, op: Operation) -> str | None:
        if op not in self.op_starts:
            return None
        text = self.lexer.input.content
        start = self.op_starts[op]
        line = text.count("\n", 0, start) + 1 + self.line_offset
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        return f"{self.lexer.input.name}:{line}:{col}"


def verify_with_locations(module: ModuleOp, where: Any) -> None:
    """Verify op by op; the first failure becomes `loc: error: 'op' op message`."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            loc = where(op) if where else None
            raise VerifyException(f"{loc or describe(op)}: error: '{op.name}' op {e}") from None


def describe(op: Operation) -> str:
    """An op's location for a message: its loc(...) if it has one, else its name."""
    from xdsl.dialects.builtin import UnknownLoc

    if isinstance(op.location, UnknownLoc):
        return op.name
    return str(op.location)


@dataclass(frozen=True)
class XnnpackTarget(Target):
    """`-t xnnpack -o file.xnn`: the module's one `xnn.subgraph` as an ExecuTorch XNNPACK
    delegate blob, for the runtime of the module's `#xnn.target` or `{target=stock|extended}`."""

    name = "xnnpack"
    target: str = ""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        raise ToolError("-t xnnpack writes a binary blob: give a file with -o")

    def emit_bytes(self, module: ModuleOp) -> bytes:
        from xnnc.backend_xnnpack.serialize import SerializeError
        from xnnc.dialects.xnn import SubgraphOp, serialize_subgraph, target_of

        subs = [op for op in module.walk() if isinstance(op, SubgraphOp)]
        if len(subs) != 1:
            raise ToolError(
                f"-t xnnpack writes one blob, but the module has {len(subs)} xnn.subgraph ops "
                "(run -p xnn-partition,convert-aten-to-xnn first, or split the input)"
            )
        runtime = self.target or target_of(module).runtime
        try:
            return serialize_subgraph(subs[0], runtime)
        except (SerializeError, ValueError) as e:
            raise ToolError(str(e).splitlines()[0]) from None


class XnnOptMain(xDSLOptMain):
    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_passes(self) -> None:
        for name in PASSES:
            self.register_pass(name, PASSES[name])

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets = {
            "mlir": self.available_targets["mlir"],
            "xnnpack": lambda: XnnpackTarget,
        }

    def _binary_target(self) -> XnnpackTarget | None:
        spec = parse_spec(self.args.target)
        return XnnpackTarget.from_spec(spec) if spec.name == "xnnpack" else None

    def prepare_output(self) -> IO[str]:
        if self._binary_target() is not None:
            if not self.args.output_file:
                raise ToolError("-t xnnpack writes a binary blob: give a file with -o")
            return sys.stdout
        return super().prepare_output()

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-weights",
            action="store_true",
            help="print weights inline as hex instead of elided by name",
        )
        arg_parser.add_argument(
            "--weights",
            metavar="FILE",
            help="a .npz file holding the data of weights printed elided, by name",
        )

    def register_all_frontends(self) -> None:
        self.available_frontends["mlir"] = self._parse_mlir
        self.available_frontends["pt2"] = self._import_pt2

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self._line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def _weights(self) -> BlobStore:
        store = BlobStore()
        if self.args.weights:
            import numpy as np

            try:
                with np.load(self.args.weights) as data:
                    for name in data.files:
                        store.add(name, np.ascontiguousarray(data[name]))
            except FileNotFoundError:
                raise ToolError(f"{self.args.weights}: no such file") from None
            except (OSError, ValueError) as e:
                raise ToolError(
                    f"{self.args.weights}: not a .npz archive of weights ({e})"
                ) from None
        return store

    def _parse_mlir(self, io: IO[bytes]) -> ModuleOp:
        parser = _LocatingParser(
            self.ctx,
            io.read().decode(),
            self.get_input_name(),
            line_offset=getattr(self, "_line_offset", 0),
        )
        with using_blobs(self._weights()):
            module = parser.parse_module(not self.args.no_implicit_module)
        if not self.args.disable_verify:
            verify_with_locations(module, parser.location_of)
        return module

    def _import_pt2(self, io: IO[bytes]) -> ModuleOp:
        from xnnc.frontend.fx_importer import import_model
        from xnnc.frontend.schema import ModelImportError

        name = self.get_input_name()
        try:
            return import_model(io if name == "<stdin>" else name)
        except ModelImportError as e:
            raise ToolError(str(e)) from None

    def output_resulting_program(self, prog: ModuleOp) -> str:
        target = self._binary_target()
        if target is not None:
            with open(self.args.output_file, "wb") as f:
                f.write(target.emit_bytes(prog))
            return ""
        with printing_weights_inline(self.args.print_weights):
            return super().output_resulting_program(prog)

    def apply_passes(self, prog: ModuleOp) -> None:
        try:
            super().apply_passes(prog)
        except VerifyException as e:
            # The driver verifies after each pass; name the op that broke.
            try:
                verify_with_locations(prog, None)
            except VerifyException as located:
                raise located from None
            raise e


def _pass_error(message: str) -> str:
    if "Unrecognized pass" in message or "Unknown pass" in message:
        return f"{message.strip()}; available passes: {', '.join(sorted(PASSES))}"
    named = [n for n in PASSES if n in message or any(n in a for a in sys.argv[1:])]
    for name in named:
        if name in message or "argument" in message:
            fields = [f.name.replace("_", "-") for f in dataclasses.fields(load_pass(name))]
            return f"{message.strip()}; options of {name}: {', '.join(fields) or 'none'}"
    return message.strip()


def _one_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else text


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the driver and turn every failure into one line on stderr."""
    try:
        XnnOptMain(args=argv).run()
    except ParseError as e:
        loc = e.span.get_location()
        print(f"{loc}: error: {_one_line(e.msg)}", file=sys.stderr)
        return 1
    except (VerifyException, DiagnosticException) as e:
        print(_one_line(str(e)), file=sys.stderr)
        return 1
    except (ToolError, OptionError) as e:
        print(f"xnn-opt: error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"xnn-opt: error: {_pass_error(_one_line(str(e)))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`xnn-opt ... | head`): not an error of ours.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except FileNotFoundError as e:
        print(f"xnn-opt: error: {e.filename}: no such file", file=sys.stderr)
        return 1
    except ArgSpecParseError as e:
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        where = lines[1] if len(lines) > 2 else "pass-pipeline"
        print(f"xnn-opt: error: {where}: {lines[-1]} in '{lines[2] if len(lines) > 2 else ''}' "
              "(quote option values with '.' or spaces: exclude=\"aten.elu\")",
              file=sys.stderr)  # fmt: skip
        return 1
    except BaseException as e:  # noqa: BLE001 - the user never sees a traceback
        if isinstance(e, SystemExit):
            raise
        if isinstance(e, KeyboardInterrupt):
            return 130
        print(f"xnn-opt: error: {type(e).__name__}: {_one_line(str(e))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
