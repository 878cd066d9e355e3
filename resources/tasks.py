"""Celery tasks of the directory (scheduled weekly by CELERY_BEAT_SCHEDULE, see README)."""

from __future__ import annotations

from celery import shared_task

from resources.feeds import feeds_refresh_all


@shared_task(name="resources.tasks.refresh_feeds")
def refresh_feeds(slug: str | None = None) -> dict[str, int]:
    """Refresh partner HSDS feeds into pending ChangeRequests; returns counts by outcome."""
    refreshes = feeds_refresh_all(slug=slug)
    return {
        "ok": sum(1 for refresh in refreshes if refresh.status == "ok"),
        "failed": sum(1 for refresh in refreshes if refresh.status == "failed"),
        "change_requests": sum(refresh.change_requests_created for refresh in refreshes),
    }
