"""`xnn-opt`: xDSL's opt driver with the xnnc dialects, passes and frontends.

    xnn-opt model.mlir -p canonicalize,cse
    xnn-opt model.pt2 --print-weights > model.mlir      # a .pt2 imports into `aten`
    cat model.pt2 | xnn-opt -f pt2                       # `-` or no file: stdin

Every error is one line (`file:line:col: error: ...` for IR) and exit code 1. A bug of
xnnc's own is one line too (`internal error`); XNNC_TRACEBACK=1 prints its traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
import time
import traceback
import types
import warnings
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from xnnc import make_context
from xnnc.dialects import get_all_dialects, locations
from xnnc.dialects.weights import BlobStore, printing_weights_inline, using_blobs
from xnnc.errors import LocatedError, XnncError
from xnnc.pipeline.registry import get_all_passes, parse_pipeline
from xnnc.quiet import quiet_warnings


class ToolError(Exception):
    """An error for the user: printed as one line, exit code 1."""


def register_dialects(ctx: Context) -> None:
    for name, loader in get_all_dialects().items():
        ctx.register_dialect(name, loader)


PASSES = get_all_passes()
STDIN = "<stdin>"
# The most elements a `dense<...>` literal may have: big tensors are weights by reference.
MAX_DENSE_ELEMENTS = 1 << 24
MAX_INTEGER_WIDTH = (1 << 24) - 1


class _Lexer(MLIRLexer):
    # xDSL 0.74's pattern nests `+` in `*`: an unterminated string literal backtracked
    # exponentially (minutes for 40 characters; found by the fuzzer). Possessive, it fails
    # in linear time and matches the same strings.
    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


class _LocatingParser(Parser):
    """Remembers where each op starts, so verifier errors can say file:line:col."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(_Lexer(Input(text, name)))
        self.op_starts: dict[Operation, int] = {}
        self.line_offset = line_offset

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        # Like mlir-opt, an input holding no operation (empty, or only comments) is an
        # empty module.
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        return super().parse_module(allow_implicit_module)

    def _parse_optional_integer_or_float_type(self) -> Any:
        token = self._current_token
        type = super()._parse_optional_integer_or_float_type()
        width = getattr(getattr(type, "width", None), "data", 0)
        if width > MAX_INTEGER_WIDTH:
            # MLIR's limit; xDSL would compute 2**width-sized bounds for each value.
            self.raise_error(
                f"integer type of {width} bits: at most {MAX_INTEGER_WIDTH}", token.span
            )
        return type

    def _parse_dense_literal_type(self) -> Any:
        start = self._current_token.span.start
        type = super()._parse_dense_literal_type()
        count = math.prod(type.get_shape())
        if count > MAX_DENSE_ELEMENTS:
            # xDSL materialises every element of a splat as a Python object.
            self.raise_error(
                f"dense<...> of {count} elements is more than xnnc parses inline "
                f"({MAX_DENSE_ELEMENTS}): carry big tensors as #xnnc.weight",
                start,
                self._current_token.span.start,
            )
        return type

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # A custom syntax that builds an invalid op: report it where the op starts.
            raise ParseError(span, str(e).splitlines()[0]) from None
        except (ValueError, OverflowError) as e:
            # xDSL builds some attributes as it parses them and checks their values there
            # (`dense<300> : tensor<i8>`, `1e400 : f16`).
            message = one_line(str(e)) or type(e).__name__
            if isinstance(e, OverflowError):
                message = f"a value out of range for its type ({message})"
            raise ParseError(span, message) from None
        self.op_starts[op] = span.start
        if isinstance(op.location, UnknownLoc):
            # Like mlir-opt: an op without loc(...) is where it was read, so that errors
            # from the passes that run on it (a decision, a lowering) name file:line:col.
            name, line, col = self._position(span.start)
            op.location = FileLineColLoc(StringAttr(name), IntAttr(line), IntAttr(col))
        return op

    def _position(self, start: int) -> tuple[str, int, int]:
        text = self.lexer.input.content
        line = text.count("\n", 0, start) + 1 + self.line_offset
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        return self.lexer.input.name, line, col

    def location_of(self, op: Operation) -> str | None:
        if op not in self.op_starts:
            return None
        return "{}:{}:{}".format(*self._position(self.op_starts[op]))


def parse_ir(
    data: bytes,
    name: str,
    weights: BlobStore | None = None,
    *,
    ctx: Context | None = None,
    line_offset: int = 0,
    implicit_module: bool = True,
    verify: bool = True,
) -> ModuleOp:
    """IR text from file `name` -> a verified module. ParseError/VerifyException say
    `name:line:col`; ToolError for bytes that are not UTF-8 text."""
    try:
        text = data.decode()
    except UnicodeDecodeError as e:
        hint = " (a .pt2? pass -f pt2)" if data.startswith(b"PK") else ""
        raise ToolError(
            f"{name}: not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start}{hint}"
        ) from None
    parser = _LocatingParser(ctx or make_context(), text, name, line_offset=line_offset)
    with using_blobs(weights if weights is not None else BlobStore()):
        module = parser.parse_module(implicit_module)
    if verify:
        verify_with_locations(module, parser.location_of)
    return module


def verify_with_locations(module: ModuleOp, where: Any) -> None:
    """Verify op by op; the first failure becomes `loc: error: 'op' op message`."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            loc = where(op) if where else None
            raise VerifyException(
                f"{loc or locations.where(op)}: error: '{op.name}' op {one_line(str(e))}"
            ) from None


def load_weights(path: str | None) -> BlobStore:
    """The arrays of an .npz file as weights by name (`--weights`); empty without a file."""
    store = BlobStore()
    if path:
        import numpy as np

        for name, array in read_npz(path, "weights").items():
            store.add(name, np.ascontiguousarray(array))
    return store


def read_npz(path: str, what: str) -> dict[str, Any]:
    """The arrays of an .npz file by name; ToolError naming the file if it is not one."""
    import numpy as np

    if not os.path.exists(path):
        raise ToolError(f"{path}: no such file")
    if not zipfile.is_zipfile(path):
        raise ToolError(f"{path}: not an .npz of {what} (not a zip archive)")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise ToolError(f"{path}: not an .npz of {what} ({one_line(str(e))})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ToolError(f"{path}: not an .npz of {what} (a single .npy array)")
    try:
        with data:
            return {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ToolError(f"{path}: not an .npz of {what} ({one_line(str(e))})") from None


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
        from xnnc.dialects.xnn import SubgraphOp, target_of
        from xnnc.translate.xnnpack import serialize_subgraph

        subs = [op for op in module.walk() if isinstance(op, SubgraphOp)]
        if len(subs) != 1:
            raise ToolError(
                f"-t xnnpack writes one blob, but the module has {len(subs)} xnn.subgraph ops "
                "(run -p xnn-partition,convert-aten-to-xnn first, or split the input)"
            )
        runtime = self.target or target_of(module).runtime
        try:
            return serialize_subgraph(subs[0], runtime)
        except LocatedError:
            raise  # about one op: `main` prints it at the op's file:line:col
        except (SerializeError, ValueError) as e:
            raise ToolError(str(e).splitlines()[0]) from None


class XnnOptMain(xDSLOptMain):
    current_pass: str | None = None

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

    def setup_pipeline(self) -> None:
        """Our pipeline parser (options checked, named in kebab-case); after each pass the
        module is verified, and a failure names the pass and the op."""
        start = time.perf_counter()

        def between(previous: ModulePass | None, module: ModuleOp, following: Any) -> None:
            nonlocal start
            if self.args.time_passes and previous is not None:
                print(f"Pass {previous.name} took {time.perf_counter() - start} seconds")
            if previous is not None and not self.args.disable_verify:
                try:
                    verify_with_locations(module, None)
                except VerifyException as e:
                    raise VerifyException(f"{e} (IR after pass {previous.name})") from None
            if previous and following and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            self.current_pass = following.name if following is not None else None
            start = time.perf_counter()

        self.pipeline = parse_pipeline(self.args.passes, between)

    def _binary_target(self) -> XnnpackTarget | None:
        spec = parse_spec(self.args.target)
        return XnnpackTarget.from_spec(spec) if spec.name == "xnnpack" else None

    def prepare_output(self) -> IO[str]:
        if self._binary_target() is not None:
            if not self.args.output_file:
                raise ToolError("-t xnnpack writes a binary blob: give a file with -o")
            return sys.stdout
        try:
            return super().prepare_output()
        except OSError as e:
            raise ToolError(f"{self.args.output_file}: cannot write it ({e.strerror})") from None

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "xnn-opt"
        arg_parser.error = types.MethodType(one_line_usage_error, arg_parser)  # type: ignore
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
        arg_parser.add_argument(
            "--loop-lstms",
            action="store_true",
            help="a .pt2's static LSTMs import as aten::lstm.input, for the recurrent loop "
            "(as xnnc.compile keeps them on the extended runtime); without it each is one "
            "xnnc::lstm, lowered to xnn.lstm",
        )

    def register_all_frontends(self) -> None:
        self.available_frontends["mlir"] = self._parse_mlir
        self.available_frontends["pt2"] = self._import_pt2

    def get_input_name(self) -> str:
        return STDIN if self.args.input_file in (None, "-") else self.args.input_file

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input file, or stdin for `-` or none; its kind from -f or the extension."""
        path = self.args.input_file
        kind = self.args.frontend
        if path in (None, "-"):
            return sys.stdin.buffer, kind or "mlir"
        kind = kind or os.path.splitext(path)[1].removeprefix(".")
        if kind not in self.available_frontends:
            raise ToolError(
                f"{path}: unknown input kind '{kind}'; name it with -f "
                + " or -f ".join(self.available_frontends)
            )
        try:
            return open(path, "rb"), kind  # noqa: SIM115 - the driver closes it
        except FileNotFoundError:
            raise ToolError(f"{path}: no such file") from None
        except OSError as e:
            raise ToolError(f"{path}: cannot read it ({e.strerror})") from None

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self._line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def _parse_mlir(self, io: IO[bytes]) -> ModuleOp:
        return parse_ir(
            io.read(),
            self.get_input_name(),
            load_weights(self.args.weights),
            ctx=self.ctx,
            line_offset=getattr(self, "_line_offset", 0),
            implicit_module=not self.args.no_implicit_module,
            verify=not self.args.disable_verify,
        )

    def _import_pt2(self, io: IO[bytes]) -> ModuleOp:
        name, loop = self.get_input_name(), self.args.loop_lstms
        if name != STDIN:
            return import_pt2_file(name, name, loop)
        # torch.export.load takes a path: stdin (a pipe) goes through a temporary file.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "stdin.pt2")
            with open(path, "wb") as f:
                f.write(io.read())
            return import_pt2_file(path, name, loop)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        target = self._binary_target()
        if target is not None:
            blob = target.emit_bytes(prog)
            try:
                with open(self.args.output_file, "wb") as f:
                    f.write(blob)
            except OSError as e:
                raise ToolError(
                    f"{self.args.output_file}: cannot write it ({e.strerror})"
                ) from None
            return ""
        with printing_weights_inline(self.args.print_weights):
            return super().output_resulting_program(prog)


def one_line_usage_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """argparse's `error`, without the usage block: one line, exit code 2."""
    parser.exit(2, f"{parser.prog}: error: {message}\n")


def import_pt2_file(path: str, name: str, loop_lstms: bool = False) -> ModuleOp:
    """Import the .pt2 at `path`; errors name the input as `name`. `loop_lstms`: keep its
    static LSTMs whole when the recurrent loop can run them all (`import_model`'s)."""
    from xnnc.frontend.fx_importer import import_model

    try:
        with warnings.catch_warnings():
            # torch's unpickling warns about its own deprecations: not the user's concern.
            warnings.simplefilter("ignore", FutureWarning)
            return import_model(path, loop_lstms=loop_lstms)
    except XnncError as e:
        message = one_line(str(e)).replace(path, name)
        raise ToolError(message if message.startswith(name) else f"{name}: {message}") from None


def one_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else text.strip()


def error_line(e: Exception) -> str:
    """`file:line:col: error: ...` for an error about an op read from a file, as for a
    parse or verifier error; `xnn-opt: error: ...` for everything else."""
    if isinstance(e, LocatedError) and locations.is_file_line_col(e.where):
        return f"{e.where}: error: {one_line(e.problem)}"
    return f"xnn-opt: error: {one_line(str(e))}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the driver and turn every failure into one line on stderr."""
    tool: XnnOptMain | None = None
    quiet_warnings()
    try:
        tool = XnnOptMain(args=argv)
        tool.run()
    except ParseError as e:
        loc = e.span.get_location()
        print(f"{loc}: error: {one_line(e.msg)}", file=sys.stderr)
        return 1
    except (VerifyException, DiagnosticException) as e:
        print(one_line(str(e)), file=sys.stderr)
        return 1
    except (ToolError, XnncError) as e:
        print(error_line(e), file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`xnn-opt ... | head`): not an error of ours.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - the user never sees a traceback
        where = f" in pass {tool.current_pass}" if tool and tool.current_pass else ""
        print(f"xnn-opt: internal error{where}: {type(e).__name__}: {one_line(str(e))}",
              file=sys.stderr)  # fmt: skip
        if os.environ.get("XNNC_TRACEBACK"):
            traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
