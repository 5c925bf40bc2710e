"""`make demo` (examples/demo.py) at the small size: every system at the thread count it
prints, the table side by side, and torch's and ExecuTorch's noise kept out of it. (Run from a
terminal or a pipe the demo prints no ExecuTorch log line at all; under pytest's fd capture
ExecuTorch's buffered lines still surface after the table, so only the table is checked.)"""

import torch

from xnnc.examples import demo


def test_demo_runs_every_system_at_its_thread_count(capfd) -> None:
    threads = torch.get_num_threads()
    try:
        assert demo.main(["--small", "--threads", "1"]) == 0
        assert torch.get_num_threads() == 1  # torch eager ran on the one thread printed
    finally:
        torch.set_num_threads(threads)
    out, err = capfd.readouterr()
    assert "1 thread(s)" in out
    assert "vs stock  vs eager" in out
    for system in ("torch eager", "stock ExecuTorch", "xnnc .pte", "xnnc on the extended"):
        assert system in out
    assert out.rstrip().endswith("OK")
    assert "LeafSpec" not in out + err  # torch's pytree deprecation, silenced by the demo
    table = out[out.index("system ") :]
    assert "cpuinfo_utils" not in table  # ExecuTorch's native log lines stay out of the table
