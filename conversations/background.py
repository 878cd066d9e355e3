"""Run a Celery task off the current request: on a worker when a broker is configured, else in a small pool.

With eager Celery (no REDIS_URL) `task.delay()` would run inline, inside the webhook or API request
that asked for it. Webhooks must answer at once (Twilio gives up after 15 s and retries), so eager
work goes to a bounded thread pool instead. Callers pass ids, never objects, and call this from
`transaction.on_commit`, so the worker sees committed rows.

With a broker, messages are published by one long-lived thread per process, in order: the request
only queues them. Publishing from each request's own thread built a Celery result backend per
thread (Celery keeps it thread-local) and cost a webhook ~3 ms. If the process dies before a queued
message is published, the beat sweepers pick the work up from the database (pending inbound SMS
after 30 s, stale turns after TURN_STALE_SECONDS, approved-but-unsent messages after 5 min).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

_POOL_SIZE = 2  # bounded: the dev server shares two cores with PostgreSQL
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pending: set[Future[Any]] = set()
_publish_queue: queue.SimpleQueue[tuple[Any, tuple[Any, ...]]] | None = None
_publish_queue_pid: int | None = None
_unpublished = 0
_published = threading.Condition(_lock)


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


# A dead broker must not hold a request for long: with kombu's default policy plus the Redis result
# backend's reconnect loop a publish blocks ~20 s and then raises (tests/reliability/test_faults_redis_down.py).
_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def task_for(name: str) -> Any:
    """The registered Celery task called `name` (the app's autodiscovery imports the tasks modules once)."""
    app = current_app
    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


def task_dispatch(name: str, *args: Any) -> None:
    """Queue the task registered as `name` to run outside this request (a Celery worker, or a bounded thread pool when eager).

    Callers name the task instead of importing it: only the Celery wiring imports the tasks modules,
    so the layers that queue work stay below the tasks that run it.

    When the broker is unreachable the task runs in the local pool instead: the rows it works on
    are already committed, and every dispatched task is idempotent (turns resume from their
    checkpoint, sends are claimed), so running it here is safe and loses nothing.
    """
    task = task_for(name)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        _run_locally(task, args)
        return
    global _unpublished  # noqa: PLW0603 - counted for background_join
    with _lock:
        _unpublished += 1
    _publisher().put((task, args))


def _publisher() -> queue.SimpleQueue[tuple[Any, tuple[Any, ...]]]:
    """This process's publishing queue and thread (recreated after a fork: threads do not survive it)."""
    global _publish_queue, _publish_queue_pid
    with _lock:
        if _publish_queue is None or _publish_queue_pid != os.getpid():
            _publish_queue, _publish_queue_pid = queue.SimpleQueue(), os.getpid()
            threading.Thread(
                target=_publish_forever, args=(_publish_queue,), name="pathways-publisher", daemon=True
            ).start()
        return _publish_queue


def _publish_forever(pending: queue.SimpleQueue[tuple[Any, tuple[Any, ...]]]) -> None:
    global _unpublished  # noqa: PLW0603 - counted for background_join
    while True:
        task, args = pending.get()
        try:
            # Nobody waits on these results: skip the result backend, so publishing needs only the broker.
            task.apply_async(args=list(args), ignore_result=True, retry_policy=_PUBLISH_RETRY)
        except Exception as exc:  # noqa: BLE001 - kombu/redis raise several types; any of them means "no broker"
            logger.warning(
                "broker unavailable (%s): running %s in this process", type(exc).__name__, getattr(task, "name", task)
            )
            _run_locally(task, args)
        finally:
            with _lock:
                _unpublished -= 1
                _published.notify_all()


def _run_locally(task: Any, args: tuple[Any, ...]) -> None:
    future = _executor().submit(_run_eager, task, args)
    with _lock:
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future[Any]) -> None:
    with _lock:
        _pending.discard(future)


def background_join(timeout: float = 30.0) -> bool:
    """Wait until queued work was published and local work finished, including work that work queued
    (tests, benchmarks); True when everything is done."""
    deadline = time.monotonic() + timeout
    while True:
        with _lock:
            while _unpublished > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                _published.wait(left)
            pending = set(_pending)
        if not pending:
            return True
        _, not_done = wait(pending, timeout=max(0.0, deadline - time.monotonic()))
        if not_done:
            return False
