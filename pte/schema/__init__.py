"""The `.pte` program flatbuffer schema (ExecuTorch's `program.fbs`) as flatc-generated Python.

`program_generated` is generated code: regenerate it with `regenerate.sh`, never edit it.
"""
