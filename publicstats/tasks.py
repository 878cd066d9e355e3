"""Celery task of the public counts (beat: hourly)."""

from __future__ import annotations

from celery import shared_task

from publicstats.services import stats_rollup


@shared_task(name="publicstats.rollup")
def rollup() -> dict[str, int]:
    return stats_rollup()
