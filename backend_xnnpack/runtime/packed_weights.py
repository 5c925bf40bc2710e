"""Packed weights owned by xnnc: an XNNPACK weights cache (`xnn_weights_cache_provider`).

XNNPACK packs an operator's weights when the runtime is created and, given a weights cache,
looks them up first by (seed, kernel pointer, bias pointer, packing fingerprint). This cache
keys them by what the pointers *name* instead (`name(address, key)`: a value id), so that a
runtime can be created in stages: small throwaway runtimes pack a few nodes' weights each,
the unpacked weights are released after each, and the final runtime, created with the same
cache, finds every packed weight without reading its source (`misses` says if one was not).
Each packed weight is its own allocation: no growing buffer, so no reallocation peak.

The same names make the packed weights portable to another process: `save` writes them
(each at a 64-byte aligned offset) with an index, and `PackedWeights.mapped` serves them
from a mapping of that file, so a runtime created with it packs nothing. The packed layout
depends on XNNPACK's packing code and on the microkernels it picks for the CPU, not on the
thread count: the index records `signature()` (XNNPACK's build identifier, a hash of its
packing code, and the CPU's architecture and feature flags), and `mapped` refuses another.
"""

from __future__ import annotations

import ctypes
import hashlib
import platform
from collections.abc import Hashable
from ctypes import CFUNCTYPE, POINTER, Structure, c_bool, c_size_t, c_uint32, c_void_p
from functools import cache
from typing import IO, Any

import numpy as np

from xnnc.backend_xnnpack.runtime import capi

NOT_FOUND = 2**64 - 1  # SIZE_MAX: XNN_CACHE_NOT_FOUND
_ALIGNMENT = 64  # >= XNN_ALLOCATION_ALIGNMENT on every target
FORMAT = "xnnc-packed-weights-1"


class PackedWeightsError(ValueError):
    """Saved packed weights that cannot serve this runtime (another CPU or XNNPACK build,
    a damaged index, or a weight XNNPACK did not find in them)."""


@cache
def signature() -> dict[str, str]:
    """What the packed layout depends on: XNNPACK's build identifier (a hash of its packing
    code) and this CPU (architecture and feature flags, which pick the microkernels)."""
    xnn = capi.library().xnn
    data = xnn.xnn_experimental_get_build_identifier_data
    size = xnn.xnn_experimental_get_build_identifier_size
    data.restype, data.argtypes = ctypes.c_void_p, []
    size.restype, size.argtypes = ctypes.c_size_t, []
    build = ctypes.string_at(data(), size()).hex()
    return {"xnnpack": build, "cpu": f"{platform.machine()}:{_cpu_flags()}"}


@cache
def _finalized_cache() -> tuple[int, int]:
    """(the context of an empty XNNPACK weights cache, hard-finalized; the address of
    `xnn_internal_weights_cache_is_finalized`, which answers true for it). Created once,
    never deleted."""
    xnn = capi.library().xnn
    create, finalize = xnn.xnn_create_weights_cache, xnn.xnn_finalize_weights_cache
    create.restype, create.argtypes = ctypes.c_int, [POINTER(c_void_p)]
    finalize.restype, finalize.argtypes = ctypes.c_int, [c_void_p, ctypes.c_int]
    provider = c_void_p()
    if status := create(ctypes.byref(provider)):
        raise MemoryError(f"xnn_create_weights_cache failed (status {status})")
    if status := finalize(provider, 0):  # xnn_weights_cache_finalization_kind_hard
        raise RuntimeError(f"xnn_finalize_weights_cache failed (status {status})")
    is_finalized = ctypes.cast(xnn.xnn_internal_weights_cache_is_finalized, c_void_p).value
    return Provider.from_address(provider.value).context, is_finalized


def _cpu_flags() -> str:
    """A short hash of the CPU's feature flags (/proc/cpuinfo), empty ones if unreadable."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next((x for x in f if x.split(":")[0].strip() in ("flags", "Features")), "")
    except OSError:
        line = ""
    flags = " ".join(sorted(line.partition(":")[2].split()))
    return hashlib.sha256(flags.encode()).hexdigest()[:16]


class LookUpKey(Structure):
    """struct xnn_weights_cache_look_up_key (XNNPACK 92a7ad50)."""

    _fields_ = [
        ("seed", c_uint32),
        ("kernel", c_void_p),
        ("bias", c_void_p),
        ("fingerprint_id", c_uint32),
    ]


_LOOK_UP = CFUNCTYPE(c_size_t, c_void_p, POINTER(LookUpKey))
_RESERVE = CFUNCTYPE(c_void_p, c_void_p, c_size_t)
_INSERT = CFUNCTYPE(c_size_t, c_void_p, POINTER(LookUpKey), c_void_p, c_size_t)
_FINALIZED = CFUNCTYPE(c_bool, c_void_p)
_TO_ADDRESS = CFUNCTYPE(c_void_p, c_void_p, c_size_t)
_DELETE = CFUNCTYPE(ctypes.c_int, c_void_p)


class Provider(Structure):
    """struct xnn_weights_cache_provider (XNNPACK 92a7ad50); `alias_data` left NULL."""

    _fields_ = [
        ("context", c_void_p),
        ("look_up", _LOOK_UP),
        ("reserve_space", _RESERVE),
        ("look_up_or_insert", _INSERT),
        ("is_finalized", _FINALIZED),
        ("offset_to_addr", _TO_ADDRESS),
        ("delete_cache", _DELETE),
        ("alias_data", c_void_p),
    ]


class PackedWeights:
    """The packed weights of one runtime. Pass `handle` as the `xnn_weights_cache_t`."""

    def __init__(self) -> None:
        self._entries: list[np.ndarray] = []  # an offset is an index here
        # Their addresses: XNNPACK asks for one per operator with packed weights at every
        # reshape (a program called at alternating sizes reshapes at each call), and
        # `ndarray.ctypes.data` builds a ctypes helper object per read.
        self._addresses: list[int] = []
        self._index: dict[tuple, int] = {}
        self._reserved: dict[int, np.ndarray] = {}  # address -> space not yet inserted
        self._names: dict[int, Hashable] = {}  # source address -> what it holds
        self._expect: set[Hashable] = set()  # names whose packed form must be found
        self.misses: list[Hashable] = []
        self.hits: set[Hashable] = set()  # expected names found
        self.finalized = False
        # The callbacks must outlive every runtime created with this cache.
        self._callbacks = (
            _LOOK_UP(self._look_up),
            _RESERVE(self._reserve),
            _INSERT(self._insert),
            _FINALIZED(lambda _: self.finalized),
            _TO_ADDRESS(lambda _, offset: self._addresses[offset]),
            _DELETE(lambda _: 0),
        )
        self._provider = Provider(None, *self._callbacks, None)

    @property
    def handle(self) -> int:
        return ctypes.addressof(self._provider)

    @property
    def nbytes(self) -> int:
        return sum(e.nbytes for e in self._entries)

    def name(self, address: int, name: Hashable, *, expect: bool = False) -> None:
        """`address` holds `name` in the runtime being defined (cleared by `forget`);
        `expect`: its packed form is already here, a look-up that misses it is recorded."""
        self._names[address] = name
        if expect:
            self._expect.add(name)

    def finalize(self) -> None:
        """Packing is over. XNNPACK asks the cache whether it is finalized at every set-up of
        an operator with packed weights (a Python callback each: ~14 per call of a small
        LSTM program); from now on XNNPACK's own C function answers, for a finalized empty
        cache of its own as the context (the Python callbacks ignore the context)."""
        self.finalized = True
        context, is_finalized = _finalized_cache()
        self._provider.context = context
        self._provider.is_finalized = _FINALIZED(is_finalized)

    def forget(self) -> None:
        """Between runtimes: addresses are meaningful for one definition only."""
        self._names.clear()
        self._expect.clear()

    def _key(self, key: LookUpKey) -> tuple:
        kernel = self._names.get(key.kernel, ("address", key.kernel))
        bias = self._names.get(key.bias, ("address", key.bias)) if key.bias else None
        return key.seed, key.fingerprint_id, kernel, bias

    def _look_up(self, _: int, key_pointer: Any) -> int:
        key = self._key(key_pointer.contents)
        offset = self._index.get(key, NOT_FOUND)
        self._found(key, offset != NOT_FOUND)
        return offset

    def _found(self, key: tuple, found: bool) -> None:
        """Records whether the packed weights of a look-up's expected constants were here."""
        expected = [name for name in key[2:] if name in self._expect]
        if found:
            self.hits.update(expected)
        else:
            self.misses.extend(expected)

    def _reserve(self, _: int, size: int) -> int:
        space = _aligned(size)
        self._reserved[space.ctypes.data] = space
        return space.ctypes.data

    def _insert(self, _: int, key_pointer: Any, address: int, size: int) -> int:
        key = self._key(key_pointer.contents)
        space = self._reserved.pop(address, None)
        # Some operators (deconvolution) pack first and look up by inserting: finding the
        # key here is a hit; inserting an expected constant means it was packed from data
        # that was released.
        self._found(key, key in self._index)
        if key in self._index:
            return self._index[key]
        if space is None:  # not space of ours: keep a copy
            space = _aligned(size)
            ctypes.memmove(space.ctypes.data, address, size)
        self._add(space)
        self._index[key] = len(self._entries) - 1
        return len(self._entries) - 1

    def _add(self, entry: np.ndarray) -> None:
        self._entries.append(entry)
        self._addresses.append(entry.ctypes.data)

    # -- in a file --

    def constants(self) -> set[int]:
        """The constant indices (`constant_buffer_idx`) whose packed form is here, as filter
        or bias."""
        return {name[1] for key in self._index for name in key[2:] if _is_constant(name)}

    def index(self) -> dict[str, Any]:
        """Where `save` puts each packed weight (64-byte aligned offsets), with `signature()`;
        PackedWeightsError if one is keyed by an address (not portable)."""
        rows, offset = [], 0
        for (seed, fingerprint, kernel, bias), entry in self._index.items():
            if not _is_constant(kernel) or not (bias is None or _is_constant(bias)):
                raise PackedWeightsError("a packed weight is keyed by an address")
            offset += -offset % _ALIGNMENT
            size = self._entries[entry].nbytes
            bias_idx = None if bias is None else bias[1]
            rows.append([seed, fingerprint, kernel[1], bias_idx, offset, size])
            offset += size
        return {"format": FORMAT, "signature": signature(), "entries": rows, "size": offset}

    def save(self, data: IO[bytes], index: dict[str, Any]) -> None:
        """Writes the packed weights to `data` where `index` (from `index()`) says."""
        position = 0
        for row in index["entries"]:
            data.write(bytes(row[4] - position))
            data.write(self._entries[self._index[_key_of(row)]].data)
            position = row[4] + row[5]

    @classmethod
    def mapped(cls, index: dict[str, Any], data: memoryview) -> PackedWeights:
        """The packed weights `save` wrote, served in place from `data` (a mapping of the
        file: nothing is read until XNNPACK runs). PackedWeightsError if `index` is not of
        this format, CPU or XNNPACK build, or points outside `data`."""
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            raise PackedWeightsError(f"not an index of {FORMAT}")
        if index.get("signature") != signature():
            raise PackedWeightsError("packed for another CPU or XNNPACK build")
        weights, base = cls(), np.frombuffer(data, dtype=np.uint8)
        try:
            for row in index["entries"]:
                seed, fingerprint, kernel, bias, offset, size = (_int(v) for v in row)
                if offset + size > len(base) or (base.ctypes.data + offset) % _ALIGNMENT:
                    raise PackedWeightsError(
                        f"entry at {offset} (+{size}) is outside the data or unaligned"
                    )
                weights._add(base[offset : offset + size])
                weights._index[_key_of((seed, fingerprint, kernel, bias))] = (
                    len(weights._entries) - 1
                )
        except PackedWeightsError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise PackedWeightsError(f"damaged index ({e})") from None
        return weights


def _is_constant(name: Hashable) -> bool:
    return isinstance(name, tuple) and len(name) == 2 and name[0] == "constant"


def _key_of(row: Any) -> tuple:
    seed, fingerprint, kernel, bias = row[:4]
    return seed, fingerprint, ("constant", kernel), None if bias is None else ("constant", bias)


def _int(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise PackedWeightsError(f"damaged index (entry field {value!r})")
    return value


def _aligned(size: int) -> np.ndarray:
    space = np.empty(size + _ALIGNMENT, dtype=np.uint8)
    start = -space.ctypes.data % _ALIGNMENT
    return space[start : start + size]
