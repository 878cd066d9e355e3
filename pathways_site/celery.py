"""Celery app: Redis broker when REDIS_URL is set, eager (in-process) otherwise."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")

app = Celery("pathways_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="pathways_site.ping")
def ping(value: str = "pong") -> str:
    """Echo a value; used by health checks and tests to prove a worker consumes the broker."""
    return value
