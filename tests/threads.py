"""The tests' way to call something from many threads at once."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any


def run_threads(work: Callable[[int], None], count: int = 8) -> None:
    """Runs `work(0)` ... `work(count - 1)`, each on a thread of its own, all at once;
    returns when every one has."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def calls_that_differ(
    call: Callable[[Any], Any], inputs: Sequence[Any], want: Sequence[Any],
    same: Callable[[Any, Any], bool], count: int = 8,
) -> list[str]:  # fmt: skip
    """`count` threads at once, each calling `call` on every one of `inputs` (thread k
    starting at input k); the calls whose result is not `same` as `want` for its input,
    named "thread k call i (input j)"."""
    failures: list[str] = []

    def work(k: int) -> None:
        for i in range(len(inputs)):
            j = (i + k) % len(inputs)
            if not same(call(inputs[j]), want[j]):
                failures.append(f"thread {k} call {i} (input {j})")

    run_threads(work, count)
    return failures
