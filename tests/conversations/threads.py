"""Run work on real threads at the same instant (a barrier), each with its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection


def in_threads(count: int, work: Callable[[int], object]) -> list[object]:
    """Call work(i) on `count` threads released together; return results, exceptions in place of failures."""
    results: list[object] = [None] * count
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = work(index)
        except Exception as exc:  # noqa: BLE001 - collected and asserted on by the caller
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results
