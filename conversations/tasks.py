"""Celery tasks of the conversations app: run/resume turns and send approved SMS (ids only).

Only the Celery wiring imports this module (an import-linter contract): everything else queues work
by task name through `conversations.background.task_dispatch`. The registered names are the wire
format of queued messages, so they stay as they are when a Python name changes.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from conversations import background, services
from conversations.models import OutboundMessage
from conversations.retention import conversations_purge_expired
from conversations.sms import services as sms_services
from conversations.sms.gateway import SmsError
from conversations.sms.sender import outbound_deliver, outbound_give_up

logger = logging.getLogger(__name__)


@shared_task(name="conversations.run_turn", acks_late=True, max_retries=3, default_retry_delay=5)
def turn_run(turn_id: str) -> str:
    """Run or resume one turn; safe to deliver twice (the engine skips finished nodes)."""
    return services.turn_run(turn_id=turn_id).status


@shared_task(name="conversations.resume_stale_turns")
def resume_stale_turns(older_than_seconds: int | None = None) -> int:
    """Resume turns left running by a crashed worker (running longer than TURN_STALE_SECONDS); returns how many."""
    seconds = settings.TURN_STALE_SECONDS if older_than_seconds is None else older_than_seconds
    return services.turns_resume(older_than=timedelta(seconds=seconds), now=timezone.now())


# Backoff for transient send errors (Twilio 5xx/429, connection refused): 5 s, 10 s, 20 s, 40 s, 80 s.
SEND_RETRY_BASE_SECONDS = 5
SEND_RETRY_MAX_SECONDS = 300


@shared_task(bind=True, name="conversations.outbound_send", acks_late=True, autoretry_for=(), max_retries=5)
def outbound_send(self: Any, message_id: str) -> str:
    """Send one approved outbound SMS exactly once (the sender claims the row first); retry transient errors."""
    try:
        return outbound_deliver(message_id=message_id)
    except SmsError as exc:  # only transient errors reach here; the claim was released
        if self.request.retries >= self.max_retries:
            outbound_give_up(message_id=message_id, code=exc.code)
            return "failed"
        countdown = min(SEND_RETRY_MAX_SECONDS, SEND_RETRY_BASE_SECONDS * 2**self.request.retries)
        if self.request.is_eager:
            # Eager (no broker): apply() re-runs the task when it *returns* a Retry; a raised one would
            # propagate (CELERY_TASK_EAGER_PROPAGATES) instead of retrying.
            return self.retry(countdown=countdown, exc=exc, throw=False)
        raise self.retry(countdown=countdown, exc=exc) from None


@shared_task(name="conversations.sms_inbound_process", acks_late=True, max_retries=3, default_retry_delay=2)
def sms_inbound_process(inbound_id: str) -> str:
    """Decide one recorded inbound SMS (keyword, held, turn); a second delivery changes nothing."""
    return sms_services.inbound_process(inbound_id=inbound_id).outcome


@shared_task(name="conversations.sms_process_pending")
def sms_process_pending(older_than_seconds: int = 30) -> int:
    """Decide inbound SMS whose processing task never ran (lost with a broker restart)."""
    return sms_services.inbound_process_pending(older_than=timedelta(seconds=older_than_seconds))


@shared_task(name="conversations.sms_process_held")
def sms_process_held() -> int:
    """Start turns for SMS held by the per-number rate limit whose window has passed (run by beat)."""
    return sms_services.inbound_process_held()


@shared_task(name="conversations.purge_expired")
def purge_expired() -> dict[str, Any]:
    """Delete conversation content older than RETENTION_DAYS (run daily by beat)."""
    return conversations_purge_expired(now=timezone.now())


@shared_task(name="conversations.outbound_sweep")
def outbound_sweep(older_than_seconds: int = 300) -> int:
    """Re-dispatch approved SMS never claimed by a sender (the enqueue was lost); the claim keeps it to one send."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    stale = list(
        OutboundMessage.objects.filter(
            status=OutboundMessage.Status.APPROVED, claimed_at=None, updated_at__lte=cutoff
        ).values_list("pk", flat=True)[:500]
    )
    for message_id in stale:
        background.task_dispatch(outbound_send.name, str(message_id))
    return len(stale)
