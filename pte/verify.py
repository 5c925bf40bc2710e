"""Checks a `.pte` before ExecuTorch's pybindings see it: they abort or crash the process on
malformed input (a file identifier that is not UTF-8 kills it in the logger), so the loader
must be handed only files whose structure holds.

    check_pte(data, "m.pte")    # PteError with one line naming the file, or None

Checked: the `ET12` file identifier at bytes 4..8, the extended header (`eh00`) against the
file's size, the whole program flatbuffer decoded (every read bounds-checked), every segment
and inline delegate reference in range, and every `XnnpackBackend` delegate's blob validated
as the extended runtime validates it (`read_blob`, named constants looked up).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from xnnc.backend_xnnpack.blob import inline_constants, read_blob
from xnnc.errors import XnncError
from xnnc.pte.schema import program_generated as pfb

FILE_IDENTIFIER = b"ET12"  # ExecuTorch 1.5.1's program schema
EXTENDED_MAGIC = b"eh00"
STOCK_BACKEND_ID = "XnnpackBackend"  # the delegate id stock ExecuTorch registers
_EXTENDED = struct.Struct("<4sIQQ")  # magic, header length, program size, segment base
_EXTENDED_MIN_LENGTH = 24
_INLINE, _SEGMENT = pfb.DataLocation.INLINE, pfb.DataLocation.SEGMENT


class PteError(XnncError):
    """A `.pte` ExecuTorch would abort or fail on, with the reason."""


@dataclass(frozen=True)
class PteInput:
    """A tensor input of a `.pte` method as the file declares it: `sizes` are exact when
    STATIC, each dim's upper bound when DYNAMIC_BOUND (the file says neither which dims
    vary nor their minimum), the planned sizes when DYNAMIC_UNBOUND."""

    sizes: tuple[int, ...]
    scalar_type: int  # ExecuTorch's ScalarType
    dynamism: int  # TensorShapeDynamism


def check_pte(data: bytes | memoryview, name: str) -> None:
    """Raise PteError (`name: not a valid .pte: ...`) unless `data` is structurally sound."""
    checked_inputs(data, name, None)


def checked_inputs(
    data: bytes | memoryview, name: str, method: str | None = "forward"
) -> list[PteInput | None]:
    """`check_pte`, then the inputs of `method` as declared (None for a non-tensor input;
    [] for no `method`)."""
    try:
        program = _check(memoryview(data).cast("B"))
    except ValueError as e:
        raise PteError(f"{name}: not a valid .pte: {e}") from None
    plans = [p for p in program.executionPlan or [] if _text(p.name) == method]
    if not plans:
        return []
    values = plans[0].values or []
    inputs: list[PteInput | None] = []
    for i in [] if plans[0].inputs is None else [int(i) for i in plans[0].inputs]:
        value = values[i] if 0 <= i < len(values) else None
        if value is None or value.valType != pfb.KernelTypes.Tensor:
            inputs.append(None)
            continue
        t = value.val
        sizes = () if t.sizes is None else tuple(int(n) for n in t.sizes)  # numpy, if found
        inputs.append(PteInput(sizes, t.scalarType, t.shapeDynamism))
    return inputs


def xnnpack_blobs(data: bytes | memoryview, name: str) -> list[bytes]:
    """Each `XnnpackBackend` delegate's blob of the `.pte` (checked first, as `check_pte`),
    in plan order, with the named constants it reads put back in its own region
    (`inline_constants`): the form `xnnc.compile` serializes a blob in."""
    found: list[tuple[memoryview, dict[str, memoryview]]] = []
    try:
        _check(memoryview(data).cast("B"), found)
    except ValueError as e:
        raise PteError(f"{name}: not a valid .pte: {e}") from None
    return [inline_constants(blob, named) for blob, named in found]


def instruction_counts(
    data: bytes | memoryview, name: str, method: str = "forward"
) -> tuple[int, int, int]:
    """(delegate entries, kernel calls, delegate calls) of `method` of the `.pte` (checked
    first, as `check_pte`)."""
    plan = _plan(data, name, method)
    kinds = [ins.instrArgsType for chain in plan.chains or [] for ins in chain.instructions or []]
    kind = pfb.InstructionArguments
    return len(plan.delegates or []), kinds.count(kind.KernelCall), kinds.count(kind.DelegateCall)


def delegate_calls(
    data: bytes | memoryview, name: str, method: str = "forward"
) -> tuple[int, list[int]]:
    """(delegate entries, the entry each delegate call names, in order) of `method` of the
    `.pte` (checked first, as `check_pte`)."""
    plan = _plan(data, name, method)
    calls = [
        ins.instrArgs.delegateIndex
        for chain in plan.chains or []
        for ins in chain.instructions or []
        if ins.instrArgsType == pfb.InstructionArguments.DelegateCall
    ]
    return len(plan.delegates or []), calls


def _plan(data: bytes | memoryview, name: str, method: str) -> Any:
    """The execution plan of `method` of the checked `.pte`."""
    try:
        program = _check(memoryview(data).cast("B"))
    except ValueError as e:
        raise PteError(f"{name}: not a valid .pte: {e}") from None
    (plan,) = [p for p in program.executionPlan or [] if _text(p.name) == method]
    return plan


def _check(buf: memoryview, found: list | None = None) -> Any:
    """The decoded program; its XnnpackBackend blobs with the named data go to `found`."""
    if len(buf) < 8:
        raise ValueError(f"{len(buf)} bytes is too short for a file identifier")
    if bytes(buf[4:8]) != FILE_IDENTIFIER:
        got = bytes(buf[4:8])
        raise ValueError(f"file identifier {got!r} at bytes 4..8, expected {FILE_IDENTIFIER!r}")
    program_size, segment_base = _extended_header(buf)
    program = _decode(buf[:program_size])
    segments = _segments(buf, program, segment_base)
    named = {}
    for i, entry in enumerate(program.namedData or []):
        if not 0 <= entry.segmentIndex < len(segments):
            raise ValueError(
                f"named_data {i} names segment {entry.segmentIndex} of {len(segments)}"
            )
        named[_text(entry.key)] = segments[entry.segmentIndex]
    inline = [
        memoryview(d.data if d.data is not None else b"") for d in program.backendDelegateData or []
    ]
    for plan in program.executionPlan or []:
        for j, delegate in enumerate(plan.delegates or []):
            where = f"method {_text(plan.name)!r} delegate {j}"
            blob = _delegate_data(delegate.processed, inline, segments, where)
            if _text(delegate.id) == STOCK_BACKEND_ID:
                try:
                    read_blob(blob, named)
                except ValueError as e:
                    raise ValueError(f"{where} (XnnpackBackend): {e}") from None
                if found is not None:
                    found.append((blob, named))
    return program


def _extended_header(buf: memoryview) -> tuple[int, int]:
    """(program flatbuffer size, segment base offset) from the `eh00` header, if any."""
    if len(buf) < 8 + _EXTENDED.size or bytes(buf[8:12]) != EXTENDED_MAGIC:
        return len(buf), len(buf)
    _, length, program_size, segment_base = _EXTENDED.unpack_from(buf, 8)
    if length < _EXTENDED_MIN_LENGTH:
        raise ValueError(f"extended header length {length} < {_EXTENDED_MIN_LENGTH}")
    if not 8 + length <= program_size <= len(buf):
        raise ValueError(f"program size {program_size} outside the {len(buf)}-byte file")
    if segment_base and not program_size <= segment_base <= len(buf):
        raise ValueError(f"segment base offset {segment_base} outside the {len(buf)}-byte file")
    return program_size, segment_base or len(buf)


def _decode(flatbuffer: memoryview) -> Any:
    """The whole Program object tree; any failure means a corrupt flatbuffer (the Python
    flatbuffers runtime has no verifier, but each of its reads is bounds-checked)."""
    size = len(flatbuffer)
    try:
        root = pfb.Program.GetRootAs(flatbuffer, 0)
        for field in ("ExecutionPlan", "ConstantBuffer", "BackendDelegateData", "Segments",
                      "MutableDataSegments", "NamedData"):  # fmt: skip
            count = getattr(root, field + "Length")()
            if 4 * count > size:
                raise ValueError(f"{field} claims {count} entries")
        return pfb.ProgramT.InitFromObj(root)
    except Exception as e:  # noqa: BLE001 - every failure here means a corrupt buffer
        detail = (str(e).splitlines() or [""])[0]
        raise ValueError(
            f"corrupt {size}-byte program flatbuffer ({type(e).__name__}: {detail})"
        ) from None


def _segments(buf: memoryview, program: Any, base: int) -> list[memoryview]:
    found = []
    for i, seg in enumerate(program.segments or []):
        start, end = base + seg.offset, base + seg.offset + seg.size
        if end > len(buf):
            raise ValueError(f"segment {i} [{start}, {end}) outside the {len(buf)}-byte file")
        found.append(buf[start:end])
    return found


def _delegate_data(ref: Any, inline: list, segments: list, where: str) -> memoryview:
    if ref is None:
        raise ValueError(f"{where}: no processed data")
    table = {_INLINE: inline, _SEGMENT: segments}.get(ref.location)
    if table is None:
        raise ValueError(f"{where}: unknown data location {ref.location}")
    if not 0 <= ref.index < len(table):
        kind = "inline data" if ref.location == _INLINE else "segment"
        raise ValueError(f"{where}: {kind} index {ref.index} of {len(table)}")
    return table[ref.index]


def _text(raw: Any) -> str:
    """A flatbuffer string field as text (object API strings are bytes)."""
    if raw is None:
        return ""
    try:
        return raw.decode() if isinstance(raw, bytes) else str(raw)
    except UnicodeDecodeError:
        raise ValueError(f"string {bytes(raw[:16])!r} is not UTF-8") from None
