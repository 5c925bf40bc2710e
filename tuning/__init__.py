"""The tuned source of the cost model: each distinct layer's candidate forms timed on this
machine's XNNPACK (`tuner`), the results kept in a tuning database (`db`) for later compiles,
and the choices recorded in the IR by the `xnn-tune` pass."""
