"""Celery app: Redis broker when REDIS_URL is set, eager (in-process) otherwise."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")

app = Celery("pathways_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_postrun.connect
def _connections_back_to_the_pool(task: Any = None, **kwargs: Any) -> None:
    """After each task on a worker, return the connection to the pool, or close it if it broke
    (CELERY_DB_REUSE_MAX keeps Celery from closing the whole pool around every task)."""
    if task is None or getattr(task.request, "is_eager", False):
        return  # eager: the caller's connection and transaction are not ours to close
    # Imported here: this module is loaded by pathways_site/__init__ before Django's settings are.
    from django.db import close_old_connections  # noqa: PLC0415

    close_old_connections()


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _redaction_filter_on_every_handler(logger: Any = None, **kwargs: Any) -> None:
    """Whatever handlers Celery's logging setup leaves or adds, each one redacts PII before writing
    (worker lines carry task arguments and return values)."""
    from conversations.hooks.logfilter import RedactPIIFilter  # noqa: PLC0415 - the app loads before Django apps are ready

    for target in {logging.getLogger(), logger} - {None}:
        for handler in target.handlers:
            if not any(isinstance(existing, RedactPIIFilter) for existing in handler.filters):
                handler.addFilter(RedactPIIFilter())


@app.task(name="pathways_site.ping")
def ping(value: str = "pong") -> str:
    """Echo a value; used by health checks and tests to prove a worker consumes the broker."""
    return value
