"""`aten-lower-complex`: complex values as pairs of real tensors, and the discrete Fourier
transforms of a fixed length as matrix products with constant bases.

XNNPACK has no complex type. A complex tensor `z` becomes its real and imaginary parts
`(re, im)`, each a real tensor of the same shape, and each op on complex values becomes the
real ops that compute its parts (`(a+ib)(c+id) = (ac-bd) + i(ad+bc)`, `|z| = sqrt(re²+im²)`):

    %s = aten.generic "aten::_fft_r2c"(%x) {args = [#aten.operand<0>, [1], 0, true]}
                                         : (tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>
    %y = aten.abs %s : (tensor<4x9xcomplex<f32>>) -> tensor<4x9xf32>
  ==>
    %re = aten.linear %x, %cos : (tensor<4x16xf32>, tensor<9x16xf32>) -> tensor<4x9xf32>
    %im = aten.linear %x, %sin : (tensor<4x16xf32>, tensor<9x16xf32>) -> tensor<4x9xf32>
    %y  = aten.sqrt (aten.add (aten.mul %re, %re), (aten.mul %im, %im))

The transforms over dims of a static length n, one dim at a time (`_fft_r2c`, `_fft_c2r`,
`_fft_c2c`: what torch.fft's transforms, torch.stft and torch.istft decompose to) are
products with the n-point bases `cos(2π jk/n)` and `±sin(2π jk/n)`, scaled by their
normalization; the one-sided inverse weighs each bin that stands for a conjugate pair
twice. Computed in fp64 from `jk mod n`, rounded once to the element type.

torch.stft's transform of its windowed frames (`unfold`, times the window) is one convolution
of the signal per part, the window times the basis as its kernel (`_framed`).

Ops on complex values that have no rule here (and transforms over a symbolic length) keep
their complex operands and results and stay on torch, with the reason `convertible` gives;
values they produce are split by `aten::real`/`aten::imag` for the ops after them that have
rules. The pass keeps each original complex op until nothing uses it, so a value whose parts
some users read and whose complex form others read is computed both ways: no op loses its
input.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from xnnc.dialects import aten
from xnnc.dialects.types import (
    element_type,
    has_complex,
    is_complex,
    shape_of,
)
from xnnc.ir.aten_builder import AtenBuilder
from xnnc.ir.constants import constant_tensor
from xnnc.ir.schema import from_attr

Pair = tuple[SSAValue, SSAValue | None]  # (re, im); None: an imaginary part of zeros


def dft_basis(n: int, bins: int, inverse: bool, scale: float) -> tuple[torch.Tensor, ...]:
    """(cos, sin) of shape [bins, n]: row k holds `scale * cos(2π jk/n)` and
    `scale * ∓sin(2π jk/n)` over j (minus for the forward transform), in fp64."""
    k = torch.arange(bins, dtype=torch.int64)[:, None]
    j = torch.arange(n, dtype=torch.int64)[None, :]
    angle = (k * j % n).double() * (2 * math.pi / n)
    sign = 1.0 if inverse else -1.0
    return torch.cos(angle) * scale, torch.sin(angle) * (sign * scale)


def norm_scale(normalization: int, n: int) -> float:
    """ATen's `normalization` of the `_fft_*` ops: 0 none, 1 by 1/sqrt(n), 2 by 1/n."""
    return (1.0, 1.0 / math.sqrt(n), 1.0 / n)[normalization]


class _Builder(AtenBuilder):
    """Real ops before the op being lowered; None stands for a part of zeros."""

    def __init__(self, block: Block, at: Operation):
        super().__init__(lambda op: block.insert_op_before(op, at), at)
        self.bypassed: list[Operation] = []  # ops a rule read through: erased if unused

    def mul(self, a: SSAValue, b: SSAValue | float) -> SSAValue:
        return a if b == 1.0 and not isinstance(b, SSAValue) else self.binary(aten.MulOp, a, b)

    def scaled(self, a: SSAValue | None, c: float) -> SSAValue | None:
        """a * c; None (zeros) when a is None or c is 0."""
        return None if a is None or c == 0.0 else self.mul(a, c)

    def add(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        return b if a is None else a if b is None else self.binary(aten.AddOp, a, b)

    def sub(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        if b is None:
            return a
        return self.neg(b) if a is None else self.binary(aten.SubOp, a, b)

    def neg(self, a: SSAValue | None) -> SSAValue | None:
        return None if a is None else self.unary(aten.NegOp, a)

    def zeros_like(self, x: SSAValue) -> SSAValue:
        """Zeros of x's type: x * 0 (a constant cannot take a symbolic shape)."""
        return self.mul(x, 0.0)

    def generic(self, target: str, operands: Sequence[SSAValue], result: TensorType) -> SSAValue:
        """`aten.generic` of an overload whose arguments are `operands` in order."""
        refs = ArrayAttr([aten.OperandRefAttr(i) for i in range(len(operands))])
        new = aten.GenericOp.build(
            operands=[list(operands)],
            properties={"target": StringAttr(target), "args": refs},
            result_types=[[result]],
        )
        return self.insert(new)


def _part_type(value: SSAValue) -> Attribute:
    """A value's element type, a complex one's part type."""
    elem = element_type(value)
    return elem.element_type if isinstance(elem, ComplexType) else elem


def _real_type(value: SSAValue) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType) and isinstance(t.element_type, ComplexType)
    return TensorType(t.element_type.element_type, t.shape, t.encoding)


def _args(op: Operation) -> list[Any]:
    assert isinstance(op, aten.GenericOp)
    return [from_attr(a, list(op.inputs)) for a in op.args.data]


# --- the rules ---------------------------------------------------------------------------
# A rule gets the op, the builder and `parts` (an operand's (re, im); a real operand's
# imaginary part is None), and returns the results' parts (complex results) or values
# (real results), or None when it does not apply.

Parts = Callable[[SSAValue], Pair]
Rule = Callable[[Operation, _Builder, Parts], list[Any] | None]

# Ops that act on the real and imaginary parts alike: layout, selection, linear reductions.
_ALIKE = (
    aten.ViewOp, aten.PermuteOp, aten.SliceOp, aten.SelectOp, aten.UnsqueezeOp,
    aten.SqueezeOp, aten.ExpandOp, aten.CloneOp, aten.CatOp, aten.SumOp, aten.MeanOp,
    aten.ConstantPadNdOp,
)  # fmt: skip
_ALIKE_GENERIC = {
    "aten::flip", "aten::roll", "aten::repeat", "aten::unfold",
    "aten::index_select", "aten::index.Tensor", "aten::squeeze.dims", "aten::lift_fresh_copy",
}  # fmt: skip


def _alike(op: Operation, b: _Builder, parts: Parts) -> list[Any] | None:
    """The same op on each part: only the complex operands change."""
    if isinstance(op, aten.GenericOp):
        if op.target.data not in _ALIKE_GENERIC:
            return None
    elif not isinstance(op, _ALIKE) or (
        isinstance(op, aten.SumOp | aten.MeanOp) and op.dtype is not None
    ):
        return None
    if isinstance(op, aten.ConstantPadNdOp) and op.value is not None and from_attr(op.value):
        return None  # a pad by c pads the real part by c.real, the imaginary by c.imag
    if not all(is_complex(r) for r in op.results):
        return None
    results: list[list[SSAValue]] = []
    for index in (0, 1):
        new_operands = []
        for v in op.operands:
            if is_complex(v):
                pair = parts(v)
                part = pair[index]
                new_operands.append(b.zeros_like(pair[0]) if part is None else part)
            else:
                new_operands.append(v)
        new = type(op).create(
            operands=new_operands,
            result_types=[_real_type(r) for r in op.results],
            properties=dict(op.properties),
            attributes={k: v for k, v in op.attributes.items() if k != "operandSegmentSizes"},
        )
        b.insert(new)
        results.append(list(new.results))
    return [(re, im) for re, im in zip(results[0], results[1], strict=True)]


def _complex_mul(b: _Builder, x: Pair, y: Pair) -> Pair:
    (a, c), (d, e) = x, y  # (a + ic)(d + ie) = (ad - ce) + i(ae + cd)
    re = b.sub(b.mul(a, d), None if c is None or e is None else b.mul(c, e))
    im = b.add(None if e is None else b.mul(a, e), None if c is None else b.mul(c, d))
    assert re is not None
    return re, im


def _scalar(op: aten.AddOp | aten.MulOp | aten.SubOp | aten.DivOp) -> complex | None:
    return None if op.scalar is None else complex(from_attr(op.scalar))


def _elementwise(op: Operation, b: _Builder, parts: Parts) -> list[Any] | None:
    if not isinstance(op, aten.AddOp | aten.SubOp | aten.MulOp | aten.DivOp):
        return None
    x = parts(op.input)
    if isinstance(op, aten.DivOp) and op.rounding_mode is not None:
        return None
    alpha = 1.0
    if isinstance(op, aten.AddOp | aten.SubOp) and op.alpha is not None:
        alpha = complex(from_attr(op.alpha))
        if alpha.imag:
            return None
        alpha = alpha.real
    scalar = _scalar(op)
    if scalar is not None:
        if isinstance(op, aten.MulOp | aten.DivOp):
            s = scalar if isinstance(op, aten.MulOp) else 1 / scalar
            re = b.sub(b.scaled(x[0], s.real), b.scaled(x[1], s.imag))
            im = b.add(b.scaled(x[1], s.real), b.scaled(x[0], s.imag))
            return [(b.zeros_like(x[0]) if re is None else re, im)]
        sign = alpha if isinstance(op, aten.AddOp) else -alpha
        s = scalar * sign
        re = b.binary(aten.AddOp, x[0], s.real) if s.real else x[0]
        if not s.imag:
            return [(re, x[1])]
        im = b.zeros_like(x[0]) if x[1] is None else x[1]
        return [(re, b.binary(aten.AddOp, im, s.imag))]
    assert op.other is not None
    y = parts(op.other)
    if isinstance(op, aten.MulOp):
        return [_complex_mul(b, x, y)]
    if isinstance(op, aten.DivOp):
        if y[1] is None:  # by a real divisor
            return [(b.binary(aten.DivOp, x[0], y[0]),
                     None if x[1] is None else b.binary(aten.DivOp, x[1], y[0]))]  # fmt: skip
        # x / y = x * conj(y) / |y|^2
        den = b.add(b.mul(y[0], y[0]), b.mul(y[1], y[1]))
        assert den is not None
        re, im = _complex_mul(b, x, (y[0], b.neg(y[1])))
        return [(b.binary(aten.DivOp, re, den), None if im is None else
                 b.binary(aten.DivOp, im, den))]  # fmt: skip
    if alpha != 1.0:
        y = (b.mul(y[0], alpha), None if y[1] is None else b.mul(y[1], alpha))
    combine = b.add if isinstance(op, aten.AddOp) else b.sub
    return [(combine(x[0], y[0]), combine(x[1], y[1]))]


def _unary(op: Operation, b: _Builder, parts: Parts) -> list[Any] | None:
    if not op.operands:
        return None
    x = parts(op.operands[0])
    re, im = x
    target = op.target.data if isinstance(op, aten.GenericOp) else None
    if isinstance(op, aten.NegOp):
        return [(b.neg(re), b.neg(im))]
    if target in ("aten::_conj", "aten::conj_physical", "aten::conj"):
        return [(re, b.neg(im))]
    if target in ("aten::resolve_conj", "aten::resolve_neg"):
        return [x]
    if isinstance(op, aten.AbsOp) and not is_complex(op.results[0]):
        if im is None:
            return [b.unary(aten.AbsOp, re)]
        total = b.add(b.mul(re, re), b.mul(im, im))
        assert total is not None
        return [b.unary(aten.SqrtOp, total)]
    if isinstance(op, aten.ExpOp):  # e^re (cos im + i sin im)
        e = b.unary(aten.ExpOp, re)
        if im is None:
            return [(e, None)]
        return [(b.mul(e, b.unary(aten.CosOp, im)), b.mul(e, b.unary(aten.SinOp, im)))]
    if target == "aten::view_as_real":  # the parts stacked on a new last dim
        last = len(shape_of(re))
        imag = b.zeros_like(re) if im is None else im
        return [b.cat([b.unsqueeze(re, last), b.unsqueeze(imag, last)], last)]
    if target == "aten::angle":  # atan2(im, re): no XNNPACK node, a real op on torch
        imag = b.zeros_like(re) if im is None else im
        return [b.generic("aten::atan2", [imag, re], re.type)]
    return None


def _make_complex(op: Operation, b: _Builder, parts: Parts) -> list[Any] | None:
    target = op.target.data if isinstance(op, aten.GenericOp) else None
    if isinstance(op, aten.ToCopyOp | aten.ToDimOrderCopyOp):
        x = parts(op.input)
        if element_type(x[0]) != _part_type(op.result):
            return None
        return [x if is_complex(op.result) else x[0]]
    if target == "aten::complex":
        return [(op.operands[0], op.operands[1])]
    if target == "aten::polar":  # abs (cos angle + i sin angle)
        magnitude, angle = op.operands
        return [(b.mul(magnitude, b.unary(aten.CosOp, angle)),
                 b.mul(magnitude, b.unary(aten.SinOp, angle)))]  # fmt: skip
    if target == "aten::view_as_complex":
        x = op.operands[0]
        last = len(shape_of(x)) - 1
        return [(b.select(x, last, 0), b.select(x, last, 1))]
    return None


def _select_part(op: Operation, b: _Builder, parts: Parts) -> list[Any] | None:
    """`z.real`/`z.imag` as torch decomposes them: select of `view_as_real(z)` on its last
    dim reads one part, with no stack in between."""
    if not isinstance(op, aten.SelectOp):
        return None
    source = op.input.owner
    if not (isinstance(source, aten.GenericOp) and source.target.data == "aten::view_as_real"):
        return None
    rank = len(shape_of(op.input))
    dim, index = op.dim.value.data % rank, op.index.value.data % 2
    if dim != rank - 1:
        return None
    x = parts(source.inputs[0])
    return [x[0] if index == 0 else b.zeros_like(x[0]) if x[1] is None else x[1]]


def _fft(op: Operation, b: _Builder, parts: Parts) -> list[Any] | None:
    """`_fft_r2c(x, dims, norm, onesided)`, `_fft_c2r(z, dims, norm, n)`,
    `_fft_c2c(z, dims, norm, forward)` over static dims: one-dim transforms in turn (a
    one-sided transform's half-spectrum is on the last of `dims`), each a product with the
    DFT bases."""
    target = op.target.data if isinstance(op, aten.GenericOp) else None
    if target not in ("aten::_fft_r2c", "aten::_fft_c2r", "aten::_fft_c2c"):
        return None
    source, dims, normalization, last = _args(op)
    x = parts(source) if is_complex(source) else (source, None)
    rank = len(shape_of(source))
    dims = [d % rank for d in dims]
    sizes = [shape_of(source)[d] for d in dims] + [shape_of(op.results[0])[d] for d in dims]
    if not dims or not all(isinstance(d, int) for d in sizes):
        return None
    if target == "aten::_fft_r2c":
        out_last = shape_of(op.results[0])[dims[-1]]
        y = _framed(b, source, dims[-1], normalization, out_last) or _dft(
            b, x, dims[-1], normalization, inverse=False, bins=out_last
        )
        for d in dims[:-1]:
            y = _dft(b, y, d, normalization, inverse=False)
        return [y]
    if target == "aten::_fft_c2c":
        for d in reversed(dims):
            x = _dft(b, x, d, normalization, inverse=not last)
        return [x]
    for d in dims[:-1]:
        x = _dft(b, x, d, normalization, inverse=True)
    return [_inverse_real(b, x, dims[-1], normalization, n=last)]


def _along(b: _Builder, x: Pair, dim: int, compute: Callable[[Pair], Pair]) -> Pair:
    """`compute` on x's parts with `dim` moved last, and moved back."""
    rank = len(shape_of(x[0]))
    perm = list(range(rank))
    perm[dim], perm[-1] = perm[-1], perm[dim]
    moved = (b.permute(x[0], perm), None if x[1] is None else b.permute(x[1], perm))
    re, im = compute(moved)
    return b.permute(re, perm), None if im is None else b.permute(im, perm)


def _dft(
    b: _Builder, x: Pair, dim: int, normalization: int, inverse: bool, bins: int | None = None
) -> Pair:
    """The transform of x along `dim` (its first `bins` bins: a one-sided one's n//2 + 1):
    (re + i im)(cos + i sin) over the positions j, for each bin k."""
    n = shape_of(x[0])[dim]
    assert isinstance(n, int)
    cos, sin = dft_basis(n, n if bins is None else bins, inverse, norm_scale(normalization, n))
    name = f"{'i' if inverse else ''}dft{n}"

    def compute(p: Pair) -> Pair:
        re, im = p
        out_re = b.sub(b.linear(re, cos, f"{name}.cos"),
                       None if im is None else b.linear(im, sin, f"{name}.sin"))  # fmt: skip
        out_im = b.add(b.linear(re, sin, f"{name}.sin"),
                       None if im is None else b.linear(im, cos, f"{name}.cos"))  # fmt: skip
        assert out_re is not None
        return out_re, out_im

    return _along(b, x, dim, compute)


def _framed(b: _Builder, frames: SSAValue, dim: int, normalization: int, bins: int) -> Pair | None:
    """torch.stft's transform of its windowed frames, `rfft(unfold(x, -1, n, hop) * w)`
    along the last dim, as one convolution of x per part: out channel k of the real part has
    the kernel `w * cos(2π jk/n)` over the n taps j, stride hop (`sin` for the imaginary
    part). The frames are never made; n MACs per bin and frame instead of n for each of the
    n framing taps and then n for each bin. None when `frames` is not such a product."""
    shape = shape_of(frames)
    n = shape[-1]
    if dim != len(shape) - 1 or not isinstance(n, int):
        return None
    window, unfold = torch.ones(n, dtype=torch.float64), frames.owner
    if isinstance(unfold, aten.MulOp) and unfold.other is not None:
        w = constant_tensor(unfold.other)
        if w is None or w.numel() != n or w.shape[-1] != n or w.is_complex():
            return None
        bypassed = [frames.owner, unfold.other.owner]
        window, unfold = w.reshape(n).double(), unfold.input.owner
    else:
        bypassed = []
    if not (isinstance(unfold, aten.GenericOp) and unfold.target.data == "aten::unfold"):
        return None
    x, unfold_dim, size, hop = _args(unfold)
    x_shape = shape_of(x)
    if (
        size != n
        or unfold_dim % len(x_shape) != len(x_shape) - 1
        or not all(isinstance(d, int) for d in (*x_shape, *shape))
    ):
        return None
    cos, sin = dft_basis(n, bins, False, norm_scale(normalization, n))
    signal = b.view(x, (math.prod(x_shape[:-1]), 1, x_shape[-1]))
    parts = []
    for basis, part in ((cos, "cos"), (sin, "sin")):
        kernel = (basis * window).reshape(bins, 1, n)
        y = b.conv1d(signal, kernel, f"stft{n}.{part}", hop, False)  # [N, bins, frames]
        parts.append(b.view(b.permute(y, (0, 2, 1)), (*shape[:-1], bins)))
    b.bypassed += [*bypassed, unfold]
    return parts[0], parts[1]


def _inverse_real(b: _Builder, x: Pair, dim: int, normalization: int, n: int) -> SSAValue:
    """The real signal of length n whose one-sided spectrum x is along `dim`:
    y_j = sum_k w_k (re_k cos - im_k sin) over the first n//2 + 1 bins (ATen reads those;
    fewer bins are the spectrum zero-padded), where w_k = 2 for a bin that stands for a
    conjugate pair, 1 for bin 0 and bin n/2."""
    half = n // 2 + 1
    length = shape_of(x[0])[dim]
    assert isinstance(length, int)
    used = min(half, length)
    cos, sin = dft_basis(n, half, True, norm_scale(normalization, n))
    weight = torch.full((half, 1), 2.0, dtype=torch.float64)
    weight[0] = 1.0
    if n % 2 == 0:
        weight[-1] = 1.0
    wc, ws = (cos * weight)[:used].T, (sin * weight)[:used].T  # [n, used]

    def compute(p: Pair) -> Pair:
        re, im = p
        if shape_of(re)[-1] != used:
            re = b.slice(re, len(shape_of(re)) - 1, 0, used)
            im = None if im is None else b.slice(im, len(shape_of(im)) - 1, 0, used)
        y = b.sub(b.linear(re, wc, f"idft{n}.cos"),
                  None if im is None else b.linear(im, ws, f"idft{n}.sin"))  # fmt: skip
        assert y is not None
        return y, None

    return _along(b, x, dim, compute)[0]


RULES: tuple[Rule, ...] = (_fft, _elementwise, _unary, _make_complex, _select_part, _alike)


def _constant_parts(value: SSAValue, b: _Builder) -> Pair | None:
    tensor = constant_tensor(value)
    if tensor is None:
        return None
    name = getattr(value, "name_hint", None) or "complex"
    return b.constant(tensor.real.contiguous(), f"{name}.re"), b.constant(
        tensor.imag.contiguous(), f"{name}.im"
    )


def lower_block(block: Block) -> None:
    """Each op of `block` with a rule rewritten on its values' parts, in order; the ops whose
    values no one reads any more erased."""
    pairs: dict[SSAValue, Pair] = {}
    made: set[Operation] = set()
    for op in list(block.ops):
        if not has_complex(op) or isinstance(op, aten.ConstantOp):
            continue
        b = _Builder(block, op)

        def parts(v: SSAValue, b: _Builder = b) -> Pair:
            if not is_complex(v):
                return (v, None)
            if v not in pairs:
                pair = _constant_parts(v, b)
                if pair is None:  # made by an op without a rule: its parts, read on torch
                    t = _real_type(v)
                    pair = (b.generic("aten::real", [v], t), b.generic("aten::imag", [v], t))
                pairs[v] = pair
            return pairs[v]

        for rule in RULES:
            results = rule(op, b, parts)
            if results is not None:
                break
        else:
            for new in reversed(b.made):  # parts read for nothing
                if not any(r.uses for r in new.results):
                    block.erase_op(new)
            continue
        made.update(b.made, b.bypassed)
        for r, new in zip(op.results, results, strict=True):
            if is_complex(r):
                # a part taken from one operand alone (the imaginary part of z + r, r real
                # and wider) broadcasts to its value's shape
                re, im = (None if p is None else b.expand(p, shape_of(r)) for p in new)
                pairs[r] = (re, im)
            else:
                r.replace_all_uses_with(new)
    # Users first: the complex ops whose values no one reads now, and what the rules made
    # for users that kept their complex operands.
    for op in reversed(list(block.ops)):
        if (has_complex(op) or op in made) and op is not block.last_op:
            if not any(r.uses for r in op.results):
                block.erase_op(op)


@dataclass(frozen=True)
class LowerComplexPass(ModulePass):
    """Complex values as (re, im) pairs of real tensors; fixed-length DFTs as GEMMs."""

    name = "aten-lower-complex"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp) and not f.is_declaration]:
            lower_block(func.body.block)
