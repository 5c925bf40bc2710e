"""Translations out of the IR: `xnn` -> the XNNPACK delegate blob (`xnnpack`)."""
