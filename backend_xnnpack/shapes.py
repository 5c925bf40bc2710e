"""Shape rules shared by the `aten` and `xnn` verifiers. Pure functions on int tuples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xnnc.backend_xnnpack.dims import NotAffine


def conv_output_size(size: int, kernel: int, stride: int, pad_total: int, dilation: int) -> int:
    """Output length of a convolution along one dim (floor mode)."""
    return (size + pad_total - dilation * (kernel - 1) - 1) // stride + 1


def deconv_output_size(
    size: int, kernel: int, stride: int, pad_total: int, dilation: int, adjustment: int
) -> int:
    """Output length of a transposed convolution along one dim."""
    return (size - 1) * stride - pad_total + dilation * (kernel - 1) + 1 + adjustment


def pool_output_size(
    size: int, kernel: int, stride: int, pad_total: int, dilation: int, ceil_mode: bool
) -> int:
    """Output length of a pooling window along one dim, PyTorch's ceil_mode rule included."""
    span = size + pad_total - dilation * (kernel - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    out = -(-span // stride) + 1
    # The last window must start inside the input or the left padding.
    if (out - 1) * stride >= size + pad_total // 2:
        out -= 1
    return out


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy broadcasting of static shapes; None when they are incompatible."""
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        for i, d in enumerate(shape, start=rank - len(shape)):
            if d == out[i] or d == 1:
                continue
            if out[i] != 1:
                return None
            out[i] = d
    return tuple(out)


def numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def same_numel(x: Sequence, y: Sequence) -> bool:
    """Whether shapes of `int | DimExpr` dims hold as many elements for every size: equal
    symbolic factors cancel (`[4, S, S]` and `[1, 4, S, S]`), the rest must agree as
    affine products; NotAffine when that depends on the size."""
    left, right = list(x), list(y)
    for d in [d for d in left if not isinstance(d, int)]:
        if d in right:
            left.remove(d)
            right.remove(d)
    return numel(left) == numel(right)


def normalize_dim(dim: int, rank: int) -> int | None:
    """A possibly negative dim as an index in [0, rank); None when out of range."""
    d = dim + rank if dim < 0 else dim
    return d if 0 <= d < rank else None


INT64_MAX = 2**63 - 1  # ATen's `end=None`


def slice_bounds(size: Any, start: int | None, end: int | None) -> tuple[Any, Any]:
    """ATen's unit-step slice [start, end) of a dim as (offset, length), for an int or a
    symbolic (`DimExpr`) size. Negative bounds count from the end, `end` None or past the end
    means the end. On a symbolic size an absolute bound must hold at every size (the dim at
    least as large), else `NotAffine` (from the comparison) says it depends on the size."""
    if isinstance(size, int):
        first, last, _ = slice(start, end).indices(size)
        return first, max(last - first, 0)
    first = 0 if start is None else (size + start if start < 0 else start)
    if end is None or end >= INT64_MAX:
        last = size
    else:
        last = size + end if end < 0 else end
    try:
        inside = 0 <= first and first <= last and last <= size
    except NotAffine:
        inside = True  # holds over the symbols' ranges: torch.export checked them
    if not inside:
        raise ValueError(f"slice [{start}, {end}) is outside the dim {size} or empty")
    return first, last - first


def relative_end(size: Any, offset: int, length: Any) -> int:
    """xnn.static_slice's size entry for a slice of `length` at `offset` of a dim of `size`:
    `length` when static, else how far before the dim's end the slice stops, as zero or a
    negative number (XNNPACK's slice ends read the same way)."""
    if isinstance(length, int):
        return length
    gap = size - offset - length
    if not isinstance(gap, int) or gap < 0:
        raise ValueError(f"a slice of {length} at {offset} of the dim {size} does not stop a "
                         "fixed distance before its end")  # fmt: skip
    return -gap


def relative_begin(size: Any, start: Any) -> int:
    """xnn.static_slice's offset entry for a slice starting at `start` of a dim of `size`:
    `start` when static, else how far before the dim's end it starts, as a negative number
    (XNNPACK's v3 begins read the same way; only the extended runtime's node takes them)."""
    if isinstance(start, int):
        return start
    gap = size - start
    if not isinstance(gap, int) or gap <= 0:
        raise ValueError(f"a slice at {start} of the dim {size} does not start a fixed "
                         "distance before its end")  # fmt: skip
    return -gap


def whole_sizes(shape: Sequence[Any]) -> list[int]:
    """xnn.static_slice sizes that keep every dim whole (0: to a symbolic dim's end)."""
    return [relative_end(d, 0, d) for d in shape]


def sliced_shape(shape: Sequence[Any], offsets: Sequence[int], sizes: Sequence[int]) -> list:
    """The result of xnn.static_slice: on a symbolic dim an offset < 0 starts that far before
    the dim's end and a size <= 0 stops that far before it."""
    return [
        n if isinstance(d, int) or n > 0 else n - o if o < 0 else d - o + n
        for d, o, n in zip(shape, offsets, sizes, strict=True)
    ]
