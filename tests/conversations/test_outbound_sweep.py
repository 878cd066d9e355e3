"""Approved SMS whose enqueue was lost are handed to a sender again; claimed or fresh ones are left alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations import background, services, tasks
from conversations.models import OutboundMessage

pytestmark = pytest.mark.django_db


def test_only_stale_unclaimed_approved_messages_are_redispatched(monkeypatch: pytest.MonkeyPatch) -> None:
    conversation, _ = services.conversation_create(channel="sms")
    make = lambda **kw: OutboundMessage.objects.create(conversation=conversation, body="hi", **kw)  # noqa: E731
    stale = make(status=OutboundMessage.Status.APPROVED)
    claimed = make(status=OutboundMessage.Status.APPROVED, claimed_at=timezone.now())
    pending = make(status=OutboundMessage.Status.PENDING_APPROVAL)
    fresh = make(status=OutboundMessage.Status.APPROVED)
    old = timezone.now() - timedelta(minutes=10)
    OutboundMessage.objects.filter(pk__in=[stale.pk, claimed.pk, pending.pk]).update(updated_at=old)
    sent: list[str] = []
    monkeypatch.setattr(background, "task_dispatch", lambda task, *args: sent.append(args[0]))
    assert tasks.outbound_sweep(older_than_seconds=300) == 1
    assert sent == [str(stale.pk)]
    assert str(fresh.pk) not in sent
