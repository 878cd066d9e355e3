"""Celery tasks of caseload: the alert check that beat runs every 30 s (see CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="caseload.alerts_check")
def alerts_check() -> int:
    """Record and send due alerts and escalations; returns how many were new (idempotent)."""
    from caseload.alerts import alerts_check as check

    return len(check().created)
