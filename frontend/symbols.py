"""torch.export's symbolic sizes as `DimExpr`s over named symbols with ranges.

Root symbols are the `Symbol` keys of `ep.range_constraints`; each takes the name of the
`torch.export.Dim` it came from where torch kept it (`T`), else `s0, s1, ...` in order of
first use. Derived dims (`2*s53 + 1`) are expressions in the roots, as torch records them.
"""

from __future__ import annotations

from typing import Any

import sympy
import torch
from torch.export import ExportedProgram
from torch.utils._sympy.functions import FloorDiv

from xnnc.backend_xnnpack.dims import DimExpr, NotAffine
from xnnc.errors import ModelImportError


class SymbolTable:
    """The program's root size symbols: their names and inclusive ranges."""

    def __init__(self, ep: ExportedProgram):
        self.ep = ep
        self.names: dict[sympy.Symbol, str] = {}
        self.ranges: dict[str, tuple[int, int]] = {}

    def dim(self, d: torch.SymInt, where: str) -> int | DimExpr:
        """A symbolic size as a `DimExpr` (or an int when it folds)."""
        try:
            return self._convert(d.node.expr, d, where)
        except NotAffine as e:
            raise ModelImportError(
                f"node {where}: size {d.node.expr} is not affine in the size symbols ({e}); "
                "xnnc's dynamic shapes support sums of integer multiples of symbols"
            ) from None

    def _convert(self, expr: Any, d: torch.SymInt, where: str) -> int | DimExpr:
        if isinstance(expr, sympy.Integer):
            return int(expr)
        if isinstance(expr, sympy.Symbol):
            return DimExpr.symbol(self._name(expr, d, where))
        if isinstance(expr, sympy.Add):
            total: int | DimExpr = 0
            for arg in expr.args:
                total = total + self._convert(arg, d, where)
            return total
        if isinstance(expr, sympy.Mul):
            factors = [self._convert(arg, d, where) for arg in expr.args]
            product: int | DimExpr = 1
            for f in factors:
                product = f * product if isinstance(f, DimExpr) else product * f
            return product
        if isinstance(expr, FloorDiv) and isinstance(expr.args[1], sympy.Integer):
            return self._convert(expr.args[0], d, where) // int(expr.args[1])
        raise NotAffine(f"{type(expr).__name__} is not supported")

    def _name(self, sym: sympy.Symbol, d: torch.SymInt, where: str) -> str:
        if sym in self.names:
            return self.names[sym]
        bounds = self.ep.range_constraints.get(sym)
        if bounds is None or not isinstance(bounds.upper, (int, sympy.Integer)):
            raise ModelImportError(
                f"node {where}: size {sym} has no upper bound; give it one with "
                "torch.export.Dim(..., max=N): the compiled program is planned for the largest"
            )
        name = _debug_name(sym, d)
        if name is None or name in self.ranges:
            name = f"s{len(self.names)}"
        self.names[sym] = name
        self.ranges[name] = (max(1, int(bounds.lower)), int(bounds.upper))
        return name


def _debug_name(sym: sympy.Symbol, d: torch.SymInt) -> str | None:
    """The `torch.export.Dim` name torch recorded for `sym`, if it is an identifier."""
    env = d.node.shape_env
    sources = getattr(env, "var_to_sources", {}).get(sym) or ()
    names = getattr(env, "source_name_to_debug_name", {})
    for source in sources:
        key = source.name() if callable(source.name) else source.name
        name = names.get(key)
        if name is not None and name.isidentifier():
            return name
        # The root of derived dims (`32*h`) is sourced from the `Dim` itself.
        if type(source).__name__ == "ConstantSource" and key.isidentifier():
            return key
    return None
