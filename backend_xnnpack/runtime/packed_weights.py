"""Packed weights owned by xnnc: an XNNPACK weights cache (`xnn_weights_cache_provider`).

XNNPACK packs an operator's weights when the runtime is created and, given a weights cache,
looks them up first by (seed, kernel pointer, bias pointer, packing fingerprint). This cache
keys them by what the pointers *name* instead (`name(address, key)`: a value id), so that a
runtime can be created in stages: small throwaway runtimes pack a few nodes' weights each,
the unpacked weights are released after each, and the final runtime, created with the same
cache, finds every packed weight without reading its source (`misses` says if one was not).
Each packed weight is its own allocation: no growing buffer, so no reallocation peak.
"""

from __future__ import annotations

import ctypes
from collections.abc import Hashable
from ctypes import CFUNCTYPE, POINTER, Structure, c_bool, c_size_t, c_uint32, c_void_p
from typing import Any

import numpy as np

NOT_FOUND = 2**64 - 1  # SIZE_MAX: XNN_CACHE_NOT_FOUND
_ALIGNMENT = 64  # >= XNN_ALLOCATION_ALIGNMENT on every target


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
        self._index: dict[tuple, int] = {}
        self._reserved: dict[int, np.ndarray] = {}  # address -> space not yet inserted
        self._names: dict[int, Hashable] = {}  # source address -> what it holds
        self._expect: set[Hashable] = set()  # names whose packed form must be found
        self.misses: list[Hashable] = []
        self.finalized = False
        # The callbacks must outlive every runtime created with this cache.
        self._callbacks = (
            _LOOK_UP(self._look_up),
            _RESERVE(self._reserve),
            _INSERT(self._insert),
            _FINALIZED(lambda _: self.finalized),
            _TO_ADDRESS(lambda _, offset: self._entries[offset].ctypes.data),
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
        if offset == NOT_FOUND and key[2] in self._expect:
            self.misses.append(key[2])
        return offset

    def _reserve(self, _: int, size: int) -> int:
        space = _aligned(size)
        self._reserved[space.ctypes.data] = space
        return space.ctypes.data

    def _insert(self, _: int, key_pointer: Any, address: int, size: int) -> int:
        key = self._key(key_pointer.contents)
        space = self._reserved.pop(address, None)
        if key in self._index:
            return self._index[key]
        if space is None:  # not space of ours: keep a copy
            space = _aligned(size)
            ctypes.memmove(space.ctypes.data, address, size)
        self._entries.append(space)
        self._index[key] = len(self._entries) - 1
        return len(self._entries) - 1


def _aligned(size: int) -> np.ndarray:
    space = np.empty(size + _ALIGNMENT, dtype=np.uint8)
    start = -space.ctypes.data % _ALIGNMENT
    return space[start : start + size]
