"""aten -> xnn: partitioning and conversion. The lowerings kept in modules of their own
register themselves in `aten_to_xnn.LOWERINGS` when imported, so the package imports them."""

from xnnc.conversion import norms, pooling, safe_softmax  # noqa: F401
