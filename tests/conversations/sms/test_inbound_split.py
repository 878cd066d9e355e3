"""With a broker the webhook only records (one statement) and a worker decides: the production split."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Contact, InboundSms, Turn
from conversations.sms import services as sms_services
from tests.conversations.sms.conftest import PERSON

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(settings) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False  # the webhook hands the decision to a worker


def test_the_webhook_records_a_pending_row_and_queues_its_decision(
    broker, post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    response = post_sms("I need a job in Dallas, call me at 512-555-0199")
    assert response.status_code == 200 and b"<Response/>" in response.content
    inbound = InboundSms.objects.get(message_sid=response.sid)
    assert inbound.outcome == InboundSms.Outcome.PENDING and inbound.contact_id is None and inbound.turn_id is None
    assert "555-0199" not in inbound.redacted_body and PERSON not in inbound.phone_encrypted and inbound.phone_hash
    assert Turn.objects.count() == 0 and Contact.objects.count() == 0
    assert dispatched.names() == ["conversations.sms_inbound_process"]

    with django_capture_on_commit_callbacks(execute=True):
        dispatched.run_all()  # the worker: decides, starts the turn, queues its run
    inbound.refresh_from_db()
    assert inbound.outcome == InboundSms.Outcome.TURN and inbound.processed
    assert inbound.phone_encrypted == ""  # the contact holds the number now
    assert inbound.contact.phone_last4 == PERSON[-4:]
    turn = Turn.objects.get()
    assert turn.idempotency_key == f"sms:{response.sid}" and "555-0199" not in turn.redacted_text
    assert dispatched.names() == ["conversations.run_turn"]


def test_a_second_delivery_of_the_decision_task_changes_nothing(broker, post_sms, dispatched) -> None:
    response = post_sms("where can I sleep tonight in Austin")
    inbound_id = InboundSms.objects.get(message_sid=response.sid).pk
    first = sms_services.inbound_process(inbound_id=inbound_id)
    again = sms_services.inbound_process(inbound_id=inbound_id)
    assert first.outcome == "turn" and not first.duplicate
    assert again.duplicate and again.turn_id == first.turn_id
    assert Turn.objects.count() == 1


def test_duplicate_deliveries_are_refused_by_the_insert(broker, post_sms, dispatched) -> None:
    first = post_sms("need food in El Paso", headers={"I-Twilio-Idempotency-Token": "tok-1"})
    post_sms("need food in El Paso", sid=first.sid)  # Twilio's retry: same MessageSid
    post_sms("need food in El Paso", headers={"I-Twilio-Idempotency-Token": "tok-1"})  # same token, new sid
    assert InboundSms.objects.count() == 1
    assert dispatched.names() == ["conversations.sms_inbound_process"]
    assert sms_services.inbound_record(message_sid=first.sid, from_number=PERSON, body="x") is None


def test_keywords_and_the_rate_limit_are_decided_by_the_worker_in_order(broker, post_sms, dispatched, settings) -> None:
    settings.SMS_RATE_LIMIT_COUNT = 2
    for text in ("question one about housing", "question two about housing", "question three about housing", "STOP"):
        post_sms(text)
    dispatched.run_all()
    outcomes = list(InboundSms.objects.order_by("received_at").values_list("outcome", flat=True))
    assert outcomes == ["turn", "turn", "held", "keyword"]
    assert Contact.objects.get().opted_out


def test_pending_rows_whose_task_was_lost_are_swept(broker, post_sms, dispatched) -> None:
    post_sms("how do I get an ID in Houston")
    dispatched.calls.clear()  # the broker lost the task
    assert sms_services.inbound_process_pending() == 0  # too fresh: its task may still be on the way
    later = timezone.now() + timedelta(seconds=31)
    assert sms_services.inbound_process_pending(now=later) == 1
    assert InboundSms.objects.get().outcome == InboundSms.Outcome.TURN
    assert sms_services.inbound_process_pending(now=later) == 0


def test_one_row_that_fails_does_not_hold_back_the_rows_behind_it(
    broker, post_sms, dispatched, monkeypatch, caplog
) -> None:
    post_sms("how do I get an ID in Houston")
    post_sms("need food in El Paso", sender="+15125550188")
    dispatched.calls.clear()  # the broker lost both tasks
    oldest = InboundSms.objects.order_by("received_at").first()
    real = sms_services.inbound_process

    def failing_on_the_oldest(*, inbound_id):
        if str(inbound_id) == str(oldest.pk):
            raise RuntimeError("database hiccup")
        return real(inbound_id=inbound_id)

    monkeypatch.setattr(sms_services, "inbound_process", failing_on_the_oldest)
    later = timezone.now() + timedelta(seconds=31)
    assert sms_services.inbound_process_pending(now=later) == 1
    outcomes = dict(InboundSms.objects.values_list("pk", "outcome"))
    assert outcomes.pop(oldest.pk) == InboundSms.Outcome.PENDING  # left for the next sweep
    assert list(outcomes.values()) == [InboundSms.Outcome.TURN]
    assert "stays pending" in caplog.text
    monkeypatch.setattr(sms_services, "inbound_process", real)
    assert sms_services.inbound_process_pending(now=later) == 1  # the next sweep decides it
    assert not InboundSms.objects.filter(outcome=InboundSms.Outcome.PENDING).exists()


def test_the_decision_of_an_unknown_row_is_a_clear_no_op(dispatched) -> None:
    result = sms_services.inbound_process(inbound_id="00000000-0000-0000-0000-000000000000")
    assert result.outcome == "unknown" and result.inbound_id is None
