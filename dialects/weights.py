"""Weights carried by reference: `#xnnc.weight<"name">`.

A weight attribute holds a `Blob`, an identity-hashed holder of a buffer (a numpy array
that may share memory with a torch parameter, or raw bytes parsed from text). Printing,
parsing, cloning, CSE and canonicalization therefore cost O(#ops), not O(#parameters).

Text forms, both of which parse back:

    #xnnc.weight<"decoder.0.weight">                  elided (the default)
    #xnnc.weight<"decoder.0.weight", "0x0000803F...">  inline little-endian bytes

An elided weight resolves against the `BlobStore` active while parsing (`using_blobs`);
without one it parses to a blob with no data, which is enough for every IR
transformation and is reported only when something needs the bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from xdsl.ir import Data, Dialect
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from xnnc.dialects.types import DimsAttr, SymbolsAttr


class Blob:
    """A named buffer. Equality is identity, so an attribute never compares its bytes."""

    __slots__ = ("name", "data")

    def __init__(self, name: str, data: Any = None):
        self.name = name
        # Anything exposing the buffer protocol (numpy array, bytes), or None when elided.
        self.data = data

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    @property
    def has_data(self) -> bool:
        return self.data is not None

    def raw(self) -> memoryview:
        """The bytes, without a copy. Raises if the weight was parsed elided."""
        if self.data is None:
            raise ValueError(
                f"weight '{self.name}' has no data: it was printed elided; "
                "print with --print-weights or load the weights with --weights FILE"
            )
        return memoryview(self.data).cast("B")

    @property
    def nbytes(self) -> int:
        return 0 if self.data is None else memoryview(self.data).nbytes

    def __repr__(self) -> str:
        return f"Blob({self.name!r}, {self.nbytes} bytes)"


class BlobStore(dict[str, Blob]):
    """The weights of one compilation, by name."""

    def add(self, name: str, data: Any) -> Blob:
        blob = Blob(name, data)
        self[name] = blob
        return blob


_active_store: ContextVar[BlobStore | None] = ContextVar("xnnc_blob_store", default=None)
_print_inline: ContextVar[bool] = ContextVar("xnnc_print_weights_inline", default=False)


@contextmanager
def using_blobs(store: BlobStore) -> Iterator[BlobStore]:
    """Resolve elided weights against `store` while parsing."""
    token = _active_store.set(store)
    try:
        yield store
    finally:
        _active_store.reset(token)


@contextmanager
def printing_weights_inline(inline: bool = True) -> Iterator[None]:
    """Print weights with their bytes (self-contained text) instead of elided."""
    token = _print_inline.set(inline)
    try:
        yield
    finally:
        _print_inline.reset(token)


@irdl_attr_definition
class WeightAttr(Data[Blob]):
    """A tensor's contents, by reference. The tensor type lives on the op that uses it."""

    name = "xnnc.weight"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Blob:
        with parser.in_angle_brackets():
            name = parser.parse_str_literal(" for a weight name")
            store = _active_store.get()
            if parser.parse_optional_punctuation(","):
                pos = parser.pos
                text = parser.parse_str_literal(" for the weight's bytes as a hex string")
                if not text.startswith("0x") or len(text) % 2:
                    parser.raise_error("weight bytes must be a hex string '0x...'", pos)
                try:
                    data = bytes.fromhex(text[2:])
                except ValueError:
                    parser.raise_error(f"weight '{name}' has malformed hex bytes", pos)
                blob = Blob(name, data)
                if store is not None:
                    store[name] = blob
                return blob
            if store is not None and name in store:
                return store[name]
            blob = Blob(name)
            if store is not None:
                store[name] = blob
            return blob

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.data.name)
            if _print_inline.get() and self.data.has_data:
                printer.print_string(', "0x' + self.data.raw().hex().upper() + '"')


Xnnc = Dialect("xnnc", [], [WeightAttr, DimsAttr, SymbolsAttr])
