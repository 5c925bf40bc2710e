"""Shape rules shared by the `aten` and `xnn` verifiers. Pure functions on int tuples."""

from __future__ import annotations

from collections.abc import Sequence


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
