"""Concurrent duplicate webhooks and sends on the real database, with real threads."""

from __future__ import annotations

import threading

import pytest
from django.test import Client

from conversations import background, services
from conversations.models import InboundSms, OutboundMessage, Turn
from conversations.sms import sender
from conversations.sms import services as sms_services
from tests.conversations.sms.conftest import ACCOUNT_SID, FROM_NUMBER, PERSON, sign
from tests.conversations.threads import in_threads

pytestmark = pytest.mark.django_db(transaction=True)


def signed_post(sid: str, body: str, sender_number: str = PERSON) -> int:
    params = {"MessageSid": sid, "AccountSid": ACCOUNT_SID, "From": sender_number, "To": FROM_NUMBER, "Body": body}
    return (
        Client()
        .post(
            "/sms/twilio/inbound", params, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver/sms/twilio/inbound", params)
        )
        .status_code
    )


def test_concurrent_duplicate_webhooks_create_exactly_one_turn(dispatched) -> None:
    sid = "SM" + "d" * 32
    results = in_threads(8, lambda i: signed_post(sid, "need a job in dallas"))
    assert results == [200] * 8
    assert InboundSms.objects.filter(message_sid=sid).count() == 1
    assert Turn.objects.count() == 1
    assert dispatched.names() == ["conversations.run_turn"]


def test_concurrent_first_messages_from_a_new_number_share_one_contact_and_conversation(dispatched) -> None:
    results = in_threads(5, lambda i: signed_post(f"SM{i:032x}", f"question number {i} about housing"))
    assert results == [200] * 5
    assert InboundSms.objects.count() == 5
    assert Turn.objects.values("conversation").distinct().count() == 1
    assert sorted(Turn.objects.values_list("seq", flat=True)) == [1, 2, 3, 4, 5]


def test_concurrent_sends_of_one_message_post_to_twilio_once(fake_twilio) -> None:
    conversation, _ = services.conversation_create(channel="sms", contact=services.contact_for_phone(phone=PERSON)[0])
    message = OutboundMessage.objects.create(conversation=conversation, kind="reply", body="hello", status="approved")
    results = in_threads(6, lambda i: sender.outbound_deliver(message_id=message.pk))
    assert sorted(results) == ["sent"] + ["skipped"] * 5
    assert len(fake_twilio.requests) == 1


def test_the_webhook_answers_before_the_turn_runs_with_eager_celery(monkeypatch) -> None:
    """With eager Celery the turn still runs off the request, on the background pool."""
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def slow_turn_run(*, turn_id: object, retry_failed: bool = True) -> Turn:
        started.set()
        release.wait(timeout=30)
        ran.append(str(turn_id))
        return Turn.objects.get(pk=turn_id)

    monkeypatch.setattr(services, "turn_run", slow_turn_run)
    assert sms_services.task_dispatch is background.task_dispatch
    assert signed_post("SM" + "e" * 32, "need a job in dallas") == 200
    # The response came back while the turn is still blocked in the background.
    assert started.wait(timeout=10)
    assert ran == []
    release.set()
    assert background.background_join(timeout=30)
    assert ran == [str(Turn.objects.get().pk)]
