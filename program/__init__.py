"""A compiled program and what runs it: `Program` (program.py), its plan (plan.py), the
`.xnnc` program file (file.py) and the LSTMs it runs on xnnc's recurrent loop over XNNPACK
(lstm_loop.py). The compiler (`xnnc.compile`, the driver) makes one; `xnnc.load` reads one.
"""

from xnnc.program.program import Explained, Outside, Program

__all__ = ["Explained", "Outside", "Program"]
