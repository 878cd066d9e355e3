"""Celery tasks of outreach (beat drives them; see CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from outreach.services import reminders_dispatch_due, reminders_expire


@shared_task(name="outreach.reminders_dispatch")
def reminders_dispatch() -> int:
    """Queue every due reminder send once (idempotent in the database)."""
    reminders_expire()
    return reminders_dispatch_due()
