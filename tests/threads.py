"""The tests' way to call something from many threads at once."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_threads(work: Callable[[int], None], count: int = 8) -> None:
    """Runs `work(0)` ... `work(count - 1)`, each on a thread of its own, all at once;
    returns when every one has."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
