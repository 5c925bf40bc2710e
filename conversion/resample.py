"""Where each output pixel of a torch upsample reads from, and whether XNNPACK reads the same.

torch takes the scale from `scale_factors` when they are given (1 / s, not in / out), so a
non-integer scale such as 1.5 on 5 pixels (out = floor(7.5) = 7) samples other points than
an op that only knows the sizes. Rather than re-deriving torch's index formulas, the maps
come from torch's own kernel run on index ramps: `x[h, w] = h` upsampled gives, per output
row, the source row (nearest) or the clamped source coordinate (bilinear).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

Pieces = list[tuple[int, int]]  # (start, size) slices of one dim, in output order

# A nearest upsample becomes at most this many slices per period of its index map (below).
MAX_NEAREST_PIECES = 16


def _ramps(h: int, w: int) -> tuple[torch.Tensor, torch.Tensor]:
    rows = torch.arange(h, dtype=torch.float32).view(1, 1, h, 1).expand(1, 1, h, w)
    cols = torch.arange(w, dtype=torch.float32).view(1, 1, 1, w).expand(1, 1, h, w)
    return rows.contiguous(), cols.contiguous()


def torch_source_maps(
    kind: str,
    in_hw: Sequence[int],
    output_size: Sequence[int] | None,
    scale_factors: Sequence[float] | None,
    align_corners: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """torch's source row per output row and source column per output column, computed by
    `aten.upsample_{kind}2d.vec` in fp32 (integers for nearest, coordinates for bilinear)."""
    size = None if output_size is None else list(output_size)
    scales = None if scale_factors is None else [float(s) for s in scale_factors]
    rows, cols = _ramps(*in_hw)
    if kind == "nearest":
        op = torch.ops.aten.upsample_nearest2d.vec
        r, c = (op(t, size, scales) for t in (rows, cols))
    else:
        op = torch.ops.aten.upsample_bilinear2d.vec
        r, c = (op(t, size, align_corners, scales) for t in (rows, cols))
    return r[0, 0, :, 0].numpy(), c[0, 0, 0, :].numpy()


def nearest_period(index: Sequence[int], length: int) -> tuple[int, int, Pieces] | None:
    """(p, q, pieces) when output j reads input (j // p) * q + m[j % p], with m[:p] in
    [0, q) read as `pieces` (runs of consecutive indices): the dim reshaped to
    [length / q, q], gathered on the inner dim to p, is the upsample. The smallest period is
    taken (1.5 gives p = 3, q = 2 and pieces [(0, 1), (0, 2)]); None when even the whole
    map (p = out, q = length) needs more than MAX_NEAREST_PIECES slices."""
    m = [int(i) for i in index]
    out = len(m)
    for p in range(1, out + 1):
        if out % p or (length * p) % out:
            continue
        q = length * p // out
        if q == 0 or length % q:
            continue
        head = m[:p]
        if min(head) < 0 or max(head) >= q:
            continue
        if any(m[j] != (j // p) * q + head[j % p] for j in range(out)):
            continue
        pieces = runs(head)
        return (p, q, pieces) if len(pieces) <= MAX_NEAREST_PIECES else None
    return None


def runs(index: Sequence[int]) -> Pieces:
    """Maximal runs of consecutive indices: runs([0, 0, 1, 2, 2]) == [(0, 1), (0, 3), (2, 1)]"""
    pieces: Pieces = []
    for i in index:
        if pieces and pieces[-1][0] + pieces[-1][1] == i:
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + 1)
        else:
            pieces.append((i, 1))
    return pieces


# XNNPACK's coordinate may differ from torch's by the rounding of two differently ordered
# fp32 expressions (a few ulps of the coordinate), and torch's ramp carries one rounding of
# its interpolation: 1e-5 pixels plus 4 ulps of the largest coordinate covers both, and
# moves an interpolated value by at most that fraction of the step between two inputs.
def _coord_tol(length: int) -> float:
    return 1e-5 + 4 * length * 2.0**-23


def xnnpack_bilinear_coords(length: int, out: int, align_corners: bool) -> np.ndarray:
    """XNNPACK's source coordinate per output index (xnn_indirection_init_resize_bilinear2d
    _hwc at 92a7ad50): the scale is the size ratio, in fp32, never a given scale factor."""
    f = np.float32
    aligned = align_corners and out != 1
    scale = f(length - aligned) / f(out - aligned)
    y = np.arange(out, dtype=np.float32)
    if align_corners:
        return y * scale
    coord = y * scale + (f(0.5) * scale - f(0.5))
    return np.clip(coord, f(0), f(length - 1))


def bilinear_mismatch(
    in_hw: Sequence[int],
    out_hw: Sequence[int],
    output_size: Sequence[int] | None,
    scale_factors: Sequence[float] | None,
    align_corners: bool,
) -> str | None:
    """None when XNNPACK's resize of in_hw to out_hw samples where torch's upsample (given
    output_size or scale_factors) does, within `_coord_tol`; else why not."""
    maps = torch_source_maps("bilinear", in_hw, output_size, scale_factors, align_corners)
    for axis, length, out, want in zip(("height", "width"), in_hw, out_hw, maps, strict=True):
        got = xnnpack_bilinear_coords(length, out, align_corners)
        err = float(np.max(np.abs(got - want)))
        if err > _coord_tol(length):
            return (f"scale factor sampling differs from XNNPACK's size ratio {length}/{out} "
                    f"on the {axis} (by up to {err:.3g} pixels)")  # fmt: skip
    return None
