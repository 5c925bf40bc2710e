"""The pipeline: the default pipeline's stages and `lower` (stages.py), the options every entry
point takes and checks (options.py), and every pass by name (registry.py, what `xnn-opt`
and `-p` pipelines read). Nothing is imported here: a tool that only lists passes must not
pay for loading them."""
