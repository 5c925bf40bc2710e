"""The XNNPACK delegate flatbuffer schema (`xnnc.fbs`) and its flatc-generated Python module.

`xnnc_generated` is generated code: regenerate it with `regenerate.sh`, never edit it.
"""
