"""A prefork Celery child keeps its PostgreSQL connection pool from one task to the next.

Celery's own Django fixup closes the pool around every task in a prefork child unless
CELERY_DB_REUSE_MAX is set, which cost each turn a new PostgreSQL backend. These drive that real
fixup with our settings, the way the worker's signals do.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from celery import signals
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from pathways_site.celery import app, ping

pytestmark = pytest.mark.django_db(transaction=True)


def _prefork_fixup() -> DjangoWorkerFixup:
    fixup = DjangoWorkerFixup(app)
    fixup.worker = SimpleNamespace(pool_cls="celery.concurrency.prefork:TaskPool")
    return fixup


class _WorkerTask:
    """What the signals see of a task running on a worker (hashable, like a real task)."""

    request = SimpleNamespace(is_eager=False)


def _run_like_a_worker(fixup: DjangoWorkerFixup) -> int:
    task = _WorkerTask()
    fixup.on_task_prerun(sender=task)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    fixup.on_task_postrun(sender=task)
    signals.task_postrun.send(sender=task, task=task)
    return pid


def test_the_pool_and_its_backend_survive_many_tasks() -> None:
    if "pool" not in connection.settings_dict["OPTIONS"]:
        pytest.skip("DB_POOL is off in this environment")
    fixup = _prefork_fixup()
    _run_like_a_worker(fixup)
    pool = connection.pool
    opened = pool.get_stats().get("connections_num", 0)
    pids = {_run_like_a_worker(fixup) for _ in range(20)}
    assert connection.pool is pool and not pool.closed
    assert pool.get_stats().get("connections_num", 0) == opened  # no new PostgreSQL backend for any task
    assert pids and all(isinstance(pid, int) for pid in pids)  # every task did reach PostgreSQL


def test_the_connection_goes_back_to_the_pool_after_each_task() -> None:
    if "pool" not in connection.settings_dict["OPTIONS"]:
        pytest.skip("DB_POOL is off in this environment")
    _run_like_a_worker(_prefork_fixup())
    assert connection.connection is None  # returned: the next task borrows, it does not reconnect


def test_an_eager_task_leaves_the_callers_connection_alone() -> None:
    connection.ensure_connection()
    held = connection.connection
    assert ping.apply(args=["x"]).get() == "x"  # eager: task_postrun fires in this process
    assert connection.connection is held
