"""The `.xnnc` program file: a zip of the IR, the weights used outside the subgraphs, the
blobs and XNNPACK's packed weights, laid out so that loading maps them in place.

    format          "xnnc-program-1" and the target
    program.mlir    the lowered module, weights elided by name
    weights.npz     the weights of ops outside subgraphs (each array 64-byte aligned)
    subgraph_i.xnn  the delegate blob of subgraph i (stored, so it maps)
    packed_<name>.bin/.json  XNNPACK's packed weights of subgraph i or a looped LSTM's cell

`write` makes one (`Program.save`), `opened` reads one back (`Program.load`): every member is
checked first, and a damaged or foreign file is an XnncError naming it.
"""

from __future__ import annotations

import io
import json
import math
import mmap
import os
import struct
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import xnnc
from xnnc.backend_xnnpack.runtime.packed_weights import PackedWeights, PackedWeightsError
from xnnc.dialects import xnn
from xnnc.dialects.weights import BlobStore
from xnnc.errors import PackedWeightsWarning, XnncError

PROGRAM_FORMAT = "xnnc-program-1"
_PADDING_ID = 0xD935  # a zip extra field of zeros aligning the data after it (as zipalign)


class Contents(NamedTuple):
    """What a program file holds: the target, the module's text, the weights of ops outside
    subgraphs, the blobs, and the runtimes whose packed weights are saved, by name."""

    target: str
    mlir: str
    weights: dict[str, np.ndarray]
    blobs: Sequence[bytes]
    packed: Mapping[str, Any]


def write(path: str, contents: Contents) -> None:
    """A program file at `path`, replacing any: a program loaded from `path` maps its packed
    weights, and truncating the file under that mapping would crash it, so the new file is
    written beside it and renamed over it."""
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
            z.writestr("format", PROGRAM_FORMAT + "\n" + contents.target)
            z.writestr("program.mlir", contents.mlir)
            _write_weights(z, contents.weights)
            for i, blob in enumerate(contents.blobs):
                z.writestr(f"subgraph_{i}.xnn", blob)
            for name, runtime in contents.packed.items():
                _save_packed(z, name, runtime)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


class Opened(NamedTuple):
    """A program file's contents, as a Program is made from them (`opened`)."""

    module: ModuleOp
    target: str
    blobs: Sequence[Any]
    packed: dict[str, PackedWeights | None]
    unsavable: str | None


@contextmanager
def opened(path: str, savable: bool = False) -> Iterator[Opened]:
    """The contents of the program file at `path`, its blobs views of the open file (copies
    with `savable`, to save again). XnncError naming the file if it is missing, not a
    program file, damaged, or of another format version."""
    check_program_file(path)  # the format marker and members, checked
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        target = z.read("format").decode().splitlines()[1]
        store = BlobStore()
        with open(path, "rb") as f:
            mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        for name, data in _mapped_weights(z, mapping, path).items():
            store.add(name, data)
        module = xnnc.parse_module(z.read("program.mlir").decode(), store)
        count = sum(1 for op in module.walk() if isinstance(op, xnn.SubgraphOp))
        for i in range(count):
            if f"subgraph_{i}.xnn" not in names:
                raise XnncError(f"{path}: subgraph_{i}.xnn is missing")
        blobs: Sequence[Any] = _ZipBlobs(z, count, path)
        if savable:
            blobs = [bytes(b) for b in blobs]
        unsavable = None if savable else (
            "loaded without savable=True: the blobs went to XNNPACK; "
            "load with xnnc.load(..., savable=True) to save"
        )  # fmt: skip
        yield Opened(module, target, blobs, _load_packed(z, path), unsavable)


def _save_packed(z: zipfile.ZipFile, name: str, runtime: Any) -> None:
    """A runtime's packed weights as `packed_<name>.bin` (its data 64-byte aligned in the
    file, so that `load` maps them in place) and their index `packed_<name>.json`; nothing
    when the runtime's packed weights cannot serve another runtime alone. `name`: subgraph
    i's is i, a looped LSTM's cells' `lstm_loop.packed_name`."""
    weights = getattr(runtime, "packed_weights", lambda: None)()
    if weights is None:
        return
    try:
        index = weights.index()
    except PackedWeightsError:
        return
    info = _aligned_member(z, f"packed_{name}.bin")
    with z.open(info, "w", force_zip64=index["size"] > zipfile.ZIP64_LIMIT) as f:
        weights.save(f, index)
    z.writestr(f"packed_{name}.json", json.dumps(index))


def _aligned_member(z: zipfile.ZipFile, name: str) -> zipfile.ZipInfo:
    """A member to write next in `z` whose data will start 64-byte aligned in the archive
    (an extra field of padding, as zipalign does)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    start = z.fp.tell() + 30 + len(name) + 4  # the local header, then the padding's header
    info.extra = struct.pack("<HH", _PADDING_ID, -start % 64) + bytes(-start % 64)
    return info


def _write_weights(z: zipfile.ZipFile, weights: dict[str, np.ndarray]) -> None:
    """`weights.npz` (what `np.load` reads), laid out so that `load` maps it: stored
    uncompressed, its data 64-byte aligned in the program file, and so is each array's
    data in it (a `.npy` header is a multiple of 64 bytes long)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as npz:
        for name, data in weights.items():
            header = io.BytesIO()
            fields = np.lib.format.header_data_from_array_1_0(data)
            np.lib.format.write_array_header_1_0(header, fields)
            size = len(header.getvalue()) + data.nbytes
            info = _aligned_member(npz, f"{name}.npy")
            with npz.open(info, "w", force_zip64=size > zipfile.ZIP64_LIMIT) as f:
                f.write(header.getvalue())
                f.write(memoryview(np.ascontiguousarray(data)).cast("B"))
    info = _aligned_member(z, "weights.npz")
    with z.open(info, "w", force_zip64=buf.tell() > zipfile.ZIP64_LIMIT) as f:
        f.write(buf.getbuffer())


def _mapped_weights(z: zipfile.ZipFile, mapping: mmap.mmap, path: str) -> dict[str, np.ndarray]:
    """The arrays of `weights.npz` in the program file `z` at `path` (mapped as `mapping`):
    views of the mapping where an array's data is stored 64-byte aligned (`_write_weights`),
    so that only the pages a call reads come in; read otherwise (a file of an older layout).
    XnncError naming the file if the archive or an array in it is malformed."""
    info = z.getinfo("weights.npz")
    try:
        if info.compress_type != zipfile.ZIP_STORED:
            with np.load(io.BytesIO(z.read(info))) as data:
                return {name: data[name] for name in data.files}
        view = _member_view(mapping, info)
        arrays = {}
        with zipfile.ZipFile(_ViewFile(view)) as npz:
            for member in npz.infolist():
                array = None
                if member.compress_type == zipfile.ZIP_STORED:
                    array = _npy_view(_member_view(view, member))
                if array is None:
                    array = np.load(io.BytesIO(npz.read(member)))
                arrays[member.filename.removesuffix(".npy")] = array
        return arrays
    except (ValueError, TypeError, EOFError, OSError, zipfile.BadZipFile) as e:
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise XnncError(f"{path}: damaged program file: weights.npz ({why})") from None


def _npy_view(data: memoryview) -> np.ndarray | None:
    """The array a `.npy` file in `data` holds, as a view of it when its data are 64-byte
    aligned in memory; None otherwise."""
    # The magic string, the version and the header's length (2 bytes in 1.0, 4 after):
    # read no more than the header, so the data's pages stay out until a call needs them.
    size = 10 if bytes(data[6:7]) == b"\x01" else 12
    size += int.from_bytes(data[size - (2 if size == 10 else 4) : size], "little")
    f = io.BytesIO(bytes(data[:size]))
    version = np.lib.format.read_magic(f)
    if version not in ((1, 0), (2, 0)):
        return None  # np.load reads the others
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else (
        np.lib.format.read_array_header_2_0)  # fmt: skip
    shape, fortran, dtype = read(f)
    if dtype.hasobject:
        return None
    array = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=f.tell())
    if array.ctypes.data % 64:
        return None
    return array.reshape(shape, order="F" if fortran else "C")


class _ViewFile(io.RawIOBase):
    """A read-only, seekable file over a memoryview (zipfile reads an archive from it)."""

    def __init__(self, view: memoryview):
        self._view, self._at = view, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: len(self._view)}[whence]
        self._at = max(0, base + offset)
        return self._at

    def readinto(self, buffer: Any) -> int:
        chunk = self._view[self._at : self._at + len(buffer)]
        buffer[: len(chunk)] = chunk
        self._at += len(chunk)
        return len(chunk)


def warn_repacking(why: str) -> None:
    warnings.warn(
        f"xnnc.load: the saved packed weights do not fit ({why}); packing the weights again",
        PackedWeightsWarning,
        stacklevel=4,
    )


def check_program_file(path: Any) -> None:
    """Raise XnncError naming `path` unless it is an intact program file of our format."""
    if not isinstance(path, (str, os.PathLike)):
        raise XnncError(f"load: expected a file path, got {type(path).__name__}")
    if not os.path.exists(path):
        raise XnncError(f"{path}: no such file")
    if os.path.isdir(path):
        raise XnncError(f"{path}: is a directory, not an xnnc program file")
    if not zipfile.is_zipfile(path):
        raise XnncError(f"{path}: not an xnnc program file (not a zip archive; truncated?)")
    try:
        with zipfile.ZipFile(path) as z:
            # A truncated file may still hold an archive's end record: that of a member that
            # is itself an archive (weights.npz), with no members or members further on.
            infos = z.infolist()
            if not infos or min(info.header_offset for info in infos) != 0:
                raise XnncError(f"{path}: not an xnnc program file (not a zip archive; truncated?)")
            names = set(z.namelist())
            if "format" not in names:
                raise XnncError(f"{path}: not an xnnc program file (no 'format' member)")
            marker = z.read("format").decode(errors="replace").split("\n", 1)[0]
            if marker != PROGRAM_FORMAT:
                kind = "format version" if marker.startswith("xnnc-program-") else "marker"
                raise XnncError(
                    f"{path}: {kind} '{marker[:40]}', but this xnnc reads '{PROGRAM_FORMAT}'"
                )
            missing = sorted({"program.mlir", "weights.npz"} - names)
            if missing:
                raise XnncError(f"{path}: damaged program file: {', '.join(missing)} missing")
            damaged = z.testzip()
            if damaged is not None:
                raise XnncError(f"{path}: damaged program file: {damaged} fails its CRC check")
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
        raise XnncError(f"{path}: damaged program file ({e})") from None


class _ZipBlobs(Sequence[memoryview]):
    """The blobs of an open program file: views of its mmap (file-backed pages, which the
    runtime returns once it has packed the weights on them) where a blob is stored
    uncompressed, as `Program.save` stores it; read otherwise."""

    def __init__(self, z: zipfile.ZipFile, count: int, path: str):
        self._z, self._count = z, count
        with open(path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> memoryview:  # type: ignore[override]
        if not 0 <= i < self._count:
            raise IndexError(i)
        info = self._z.getinfo(f"subgraph_{i}.xnn")
        if info.compress_type != zipfile.ZIP_STORED:
            return memoryview(self._z.read(info))
        return _member_view(self._map, info)


def _load_packed(z: zipfile.ZipFile, path: str) -> dict[str, PackedWeights | None]:
    """Every saved set of packed weights (`_save_packed`), by name, mapped from the file
    (copy-on-write, so that nothing XNNPACK might write reaches the file); None where they
    do not fit this CPU and XNNPACK build (one warning says so)."""
    names, packed, why = set(z.namelist()), {}, None
    with open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    for member in sorted(names):
        name = member.removeprefix("packed_").removesuffix(".bin")
        if member != f"packed_{name}.bin" or f"packed_{name}.json" not in names:
            continue
        try:
            info = z.getinfo(member)
            if info.compress_type != zipfile.ZIP_STORED:
                raise PackedWeightsError("stored compressed")
            index = json.loads(z.read(f"packed_{name}.json"))
            packed[name] = PackedWeights.mapped(index, _member_view(mapping, info))
        except (PackedWeightsError, ValueError) as e:
            where = f"subgraph {name}" if name.isdigit() else name
            why = why or f"{where}: {e}"
            packed[name] = None
    if why is not None:
        warn_repacking(why)
    return packed


def _member_view(mapping: mmap.mmap, info: zipfile.ZipInfo) -> memoryview:
    """The data of stored member `info` in `mapping` (a map of the whole zip file)."""
    # The data follow the local header (30 bytes, then the name and the extra field).
    name_size, extra_size = struct.unpack_from("<HH", mapping, info.header_offset + 26)
    start = info.header_offset + 30 + name_size + extra_size
    return memoryview(mapping)[start : start + info.file_size]
