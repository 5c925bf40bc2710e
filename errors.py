"""The exceptions xnnc raises for its users: one base class, `XnncError`, so a caller can
catch everything xnnc reports about its input with one clause.

Every message is one line that names the problem and where it is (the option, the op's
location, the blob's node, the runtime's input). The kinds live with the layer that raises
them: `OptionError` and `LocatedError` (here; the latter for errors about one op, such as
`DecisionError` and `ConversionError`), `ModelImportError` (here: a model the frontend
cannot import), `InputError` (here: a call's input a program, runtime or `.pte` does not
take), `ReferenceRunError` (the reference interpreter), `PartitionError` (conversion),
`ShapeError` and `SerializeError` (backend_xnnpack). XNNPACK's own failures are `XnnpackError`, a
RuntimeError: the runtime validates first, so they are not the user's input.
`TrainingModeWarning`: a module compiled in training mode; `FallbackWarning`: ops a
compile leaves to torch (`FallbackError` under `compile(..., strict=True)`);
`TuningDatabaseWarning`: a tuning database xnnc cannot read or write;
`PackedWeightsWarning`: `load` packs the weights again (the packed weights saved with the
program do not fit).
"""

from __future__ import annotations


class XnncError(ValueError):
    """Something wrong with what the user gave xnnc: a model, an option, IR, a blob."""


class LocatedError(XnncError):
    """An error about one op of the IR: `where` is the op as `dialects.locations.where`
    renders it (`file:line:col` for IR read from a file), `problem` what is wrong there."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


class OptionError(XnncError):
    """A compile option (or pass option) that is unknown or out of range."""


class CpuFeatureError(XnncError):
    """A program needs a CPU feature the machine running it lacks."""


class TrainingModeWarning(UserWarning):
    """`xnnc.compile` was given a module in training mode: dropout and batch-norm behave as in
    training in what it compiles (call `model.eval()` first for inference)."""


class TuningDatabaseWarning(UserWarning):
    """The tuning database could not be read (corrupt, foreign) or written: it is ignored
    (and rewritten), and the compile goes on with fresh measurements or the static rules."""


class PackedWeightsWarning(UserWarning):
    """`xnnc.load` packs the weights again: the packed weights saved in the program file were
    made for another CPU or XNNPACK build, or are damaged."""


class ModelImportError(XnncError):
    """A model or file that xnnc cannot import, with the reason."""


class InputError(XnncError):
    """An input a program does not take (the count, a dtype, a shape, a size out of its
    range), named by its position: raised by a Program, the extended runtime and a `.pte`'s
    runner before anything runs."""


class FallbackWarning(UserWarning):
    """A compile left ops to torch, outside XNNPACK: one line, each op kind with its count
    and reason (`Program.fallback()`)."""


class StreamEdgeWarning(UserWarning):
    """A streaming compile whose stream differs from the offline model over its first
    frames (a reflect or replicate pad of the time axis): one line, naming the first such op
    and where it is, and how many more there are (`StreamingProgram.inexact` lists all)."""


class FallbackError(XnncError):
    """`compile(..., strict=True)` and ops that would run on torch: the same line as
    `FallbackWarning`'s."""


class MissingKernelWarning(UserWarning):
    """`XnncPartitioner` left ops outside the delegates that the installed stock runtime
    has no kernel for: the `.pte` would fail at load (`Program.save` refuses such a file)."""
