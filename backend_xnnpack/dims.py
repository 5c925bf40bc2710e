"""Symbolic sizes: affine expressions in named symbols, and checking concrete shapes.

    T = DimExpr.symbol("T");  2*T + 1  ->  DimExpr(1, (("T", 2),))  prints "2*T + 1"

torch.export's derived dims are affine in the root symbols, so affine is enough here; an
expression outside the class (a product of symbols, an inexact floor division) raises
`NotAffine`, so that shape code written for ints fails loudly instead of guessing. Pure
Python: the runtime checks inputs with `bind_dims` without xDSL.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Ranges = Mapping[str, tuple[int, int]]


class NotAffine(TypeError):
    """A shape computation the affine class cannot express."""


class DimError(ValueError):
    """A concrete shape outside what the symbolic dims allow."""


@dataclass(frozen=True, repr=False)
class DimExpr:
    """`const + sum(coeff * symbol)`, terms sorted by symbol, no zero coefficients."""

    const: int = 0
    terms: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def symbol(name: str) -> DimExpr:
        return DimExpr(0, ((name, 1),))

    @staticmethod
    def _make(const: int, coeffs: Mapping[str, int]) -> int | DimExpr:
        terms = tuple(sorted((s, c) for s, c in coeffs.items() if c))
        return DimExpr(const, terms) if terms else const

    def __add__(self, other: int | DimExpr) -> int | DimExpr:
        if isinstance(other, DimExpr):
            coeffs = dict(self.terms)
            for s, c in other.terms:
                coeffs[s] = coeffs.get(s, 0) + c
            return DimExpr._make(self.const + other.const, coeffs)
        if isinstance(other, int):
            return DimExpr._make(self.const + other, dict(self.terms))
        return NotImplemented

    __radd__ = __add__

    def __neg__(self) -> int | DimExpr:
        return self * -1

    def __sub__(self, other: int | DimExpr) -> int | DimExpr:
        return self + (-other)

    def __rsub__(self, other: int) -> int | DimExpr:
        return (-self) + other

    def __mul__(self, k: int | DimExpr) -> int | DimExpr:
        if isinstance(k, DimExpr):
            raise NotAffine(f"({self}) * ({k}) is not affine in the symbols")
        if not isinstance(k, int):
            return NotImplemented
        return DimExpr._make(self.const * k, {s: c * k for s, c in self.terms})

    __rmul__ = __mul__

    def __floordiv__(self, k: int) -> int | DimExpr:
        """Exact when k divides every coefficient: (k*a*T + b) // k = a*T + b // k."""
        if not isinstance(k, int) or k <= 0 or any(c % k for _, c in self.terms):
            raise NotAffine(f"({self}) // {k} is not affine in the symbols")
        return DimExpr._make(self.const // k, {s: c // k for s, c in self.terms})

    # Comparisons hold for every value of the symbols (each at least 1); one that depends on
    # the values raises NotAffine, so that a shape rule cannot silently pick a branch.
    def _compare(self, other: int | DimExpr, op: str) -> bool:
        diff = self - other
        if isinstance(diff, int):
            return _OPS[op](diff, 0)
        positive = [c for _, c in diff.terms if c > 0]
        lo = diff.const + sum(positive) if len(positive) == len(diff.terms) else None
        hi = diff.const + sum(c for _, c in diff.terms) if not positive else None
        if lo is not None and _OPS[op](lo, 0) == _OPS[op](lo + 10**18, 0):
            return _OPS[op](lo, 0)
        if hi is not None and _OPS[op](hi, 0) == _OPS[op](hi - 10**18, 0):
            return _OPS[op](hi, 0)
        raise NotAffine(f"whether {self} {op} {other} depends on the size")

    def __lt__(self, other: int | DimExpr) -> bool:
        return self._compare(other, "<")

    def __le__(self, other: int | DimExpr) -> bool:
        return self._compare(other, "<=")

    def __gt__(self, other: int | DimExpr) -> bool:
        return self._compare(other, ">")

    def __ge__(self, other: int | DimExpr) -> bool:
        return self._compare(other, ">=")

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.terms)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return self.const + sum(c * env[s] for s, c in self.terms)

    def bounds(self, ranges: Ranges) -> tuple[int, int]:
        """(min, max) over the symbols' ranges: affine, so each term's extremes suffice."""
        lo = hi = self.const
        for s, c in self.terms:
            a, b = c * ranges[s][0], c * ranges[s][1]
            lo, hi = lo + min(a, b), hi + max(a, b)
        return lo, hi

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        text = ""
        for s, c in self.terms:
            term = s if abs(c) == 1 else f"{abs(c)}*{s}"
            text += (" - " if c < 0 else " + ") + term if text else ("-" if c < 0 else "") + term
        if self.const:
            text += f" - {-self.const}" if self.const < 0 else f" + {self.const}"
        return text

    @staticmethod
    def parse(text: str) -> int | DimExpr:
        """The printed form back: `2*T + 1`, `-T + 3`, `T - 1`, `4`; ValueError otherwise."""
        source = text
        text = text.replace(" ", "")
        if not _EXPR.fullmatch(text):
            raise ValueError(f"'{source}' is not an affine dim expression such as 2*T + 1")
        const, coeffs = 0, {}
        for sign, k, sym in _TERM.findall(text):
            if not (k or sym):
                continue  # findall's empty match at the end
            c = (-1 if sign == "-" else 1) * (int(k) if k else 1)
            if sym:
                coeffs[sym] = coeffs.get(sym, 0) + c
            else:
                const += c
        return DimExpr._make(const, coeffs)


_SYM = r"[A-Za-z_][A-Za-z0-9_]*"
_ONE = rf"(?:\d+\*{_SYM}|\d+|{_SYM})"
_EXPR = re.compile(rf"[-+]?{_ONE}(?:[-+]{_ONE})*")
_TERM = re.compile(rf"([-+]?)(?:(\d+)\*?)?({_SYM})?")


_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def is_symbolic(shape: Sequence[int | DimExpr]) -> bool:
    return any(isinstance(d, DimExpr) for d in shape)


def upper_bound(shape: Sequence[int | DimExpr], ranges: Ranges) -> tuple[int, ...]:
    """Each dim at its largest: the dims a blob declares (as stock ExecuTorch's)."""
    return tuple(d.bounds(ranges)[1] if isinstance(d, DimExpr) else d for d in shape)


def allowed(expr: DimExpr, ranges: Ranges) -> str:
    """`T in [1, 64]`, or `2*T + 1 for T in [1, 32]`: what an input dim may be."""
    where = ", ".join(f"{s} in [{ranges[s][0]}, {ranges[s][1]}]" for s in expr.symbols)
    return where if expr == DimExpr.symbol(expr.symbols[0]) else f"{expr} for {where}"


def bind_dims(
    specs: Sequence[Sequence[int | DimExpr]],
    ranges: Ranges,
    shapes: Sequence[Sequence[int]],
    names: Sequence[str],
) -> dict[str, int]:
    """The symbols' values from concrete input `shapes`, each input checked against its
    dims `specs` (rank, static dims, ranges, derived dims); DimError names the first input
    and dim that does not fit."""
    env: dict[str, int] = {}
    source: dict[str, str] = {}
    for spec, shape, name in zip(specs, shapes, names):
        if len(shape) != len(spec):
            raise DimError(f"input {name} has {len(shape)} dims; expected {len(spec)}")
        for d, (want, got) in enumerate(zip(spec, shape)):
            if not isinstance(want, DimExpr) or len(want.terms) != 1:
                continue
            sym, coeff = want.terms[0]
            # // and %, not divmod: under torch.export `got` is a SymInt (a streaming step)
            value, rem = (got - want.const) // coeff, (got - want.const) % coeff
            if sym in env or rem:
                continue  # checked below against the bound value
            lo, hi = ranges[sym]
            if not lo <= value <= hi:
                raise DimError(f"input {name} dim {d} is {got}; allowed: {allowed(want, ranges)}")
            env[sym], source[sym] = value, f"{name} dim {d}"
    for spec, shape, name in zip(specs, shapes, names):
        for d, (want, got) in enumerate(zip(spec, shape)):
            _check_dim(want, got, f"input {name} dim {d}", env, source, ranges)
    return env


def _check_dim(
    want: int | DimExpr, got: int, where: str, env: dict, source: dict, ranges: Ranges
) -> None:
    if not isinstance(want, DimExpr):
        if got != want:
            raise DimError(f"{where} is {got}; allowed: {want}")
        return
    unbound = [s for s in want.symbols if s not in env]
    if unbound:
        raise DimError(f"{where} is {got}; allowed: {allowed(want, ranges)}")
    expected = want.evaluate(env)
    if got != expected:
        bound = ", ".join(f"{s} = {env[s]} (from {source[s]})" for s in want.symbols)
        raise DimError(f"{where} is {got}; allowed: {want} = {expected} with {bound}")
