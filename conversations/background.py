"""Run a Celery task off the current request: on a worker when a broker is configured, else in a small pool.

With eager Celery (no REDIS_URL) `task.delay()` would run inline, inside the webhook or API request
that asked for it. Webhooks must answer at once (Twilio gives up after 15 s and retries), so eager
work goes to a bounded thread pool instead. Callers pass ids, never objects, and call this from
`transaction.on_commit`, so the worker sees committed rows.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

_POOL_SIZE = 2  # bounded: the dev server shares two cores with PostgreSQL
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pending: set[Future[Any]] = set()


def _executor() -> ThreadPoolExecutor:
    global _pool  # noqa: PLW0603 - one lazily created pool per process
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_POOL_SIZE, thread_name_prefix="pathways-bg")
        return _pool


def _run_eager(task: Any, args: tuple[Any, ...]) -> None:
    try:
        # apply() keeps Celery's eager semantics, including self.retry() loops.
        task.apply(args=list(args), throw=False)
    except Exception:
        logger.exception("background task %s failed", getattr(task, "name", task))
    finally:
        connection.close()


# A dead broker must not hold a request for long: kombu's default policy plus the Redis result
# backend's reconnect loop blocked a webhook for ~20 s and then raised (found by the fault suite).
_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def task_dispatch(task: Any, *args: Any) -> None:
    """Queue `task(*args)` to run outside this request (Celery worker, or a bounded thread pool when eager).

    When the broker is unreachable the task runs in the local pool instead: the rows it works on
    are already committed, and every dispatched task is idempotent (turns resume from their
    checkpoint, sends are claimed), so running it here is safe and loses nothing.
    """
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        try:
            # Nobody waits on these results: skip the result backend, so publishing needs only the broker.
            task.apply_async(args=list(args), ignore_result=True, retry_policy=_PUBLISH_RETRY)
            return
        except Exception as exc:  # noqa: BLE001 - kombu/redis raise several types; any of them means "no broker"
            logger.warning("broker unavailable (%s): running %s in this process", type(exc).__name__, getattr(task, "name", task))
    future = _executor().submit(_run_eager, task, args)
    with _lock:
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future[Any]) -> None:
    with _lock:
        _pending.discard(future)


def background_join(timeout: float = 30.0) -> bool:
    """Wait for queued eager work (tests, benchmarks); True when everything finished."""
    with _lock:
        pending = set(_pending)
    if not pending:
        return True
    _, not_done = wait(pending, timeout=timeout)
    return not not_done
