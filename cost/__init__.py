"""The cost model: which of a layer's equivalent forms runs fastest on the target.

`rules` holds the static per-ISA rules (cross-compiles, `tune=False`, other CPUs), each with
where it was measured; `decision` records a choice on the op it concerns (`xnn.decision`),
where the rewrite that reads it, `xnn-opt` and `Program.explain()` find it. The tuned source
(`xnnc.tuning`) times the forms on this machine and records its choices the same way.
"""
