"""Inbound SMS: recorded once (redacted), the turn queued off the request, empty TwiML at once."""

from __future__ import annotations

import pytest

from conversations import crypto
from conversations.models import Contact, Conversation, InboundSms, Turn
from tests.conversations.sms.conftest import PERSON

pytestmark = pytest.mark.django_db


def test_it_records_the_message_redacted_and_queues_the_turn_without_running_it(post_sms, dispatched) -> None:
    response = post_sms("I need a job in Dallas, call me at 512-555-0199")
    assert response.status_code == 200
    inbound = InboundSms.objects.get(message_sid=response.sid)
    assert "555-0199" not in inbound.redacted_body
    assert inbound.outcome == InboundSms.Outcome.TURN and inbound.processed
    turn = Turn.objects.get(pk=inbound.turn_id)
    assert turn.idempotency_key == f"sms:{response.sid}" and turn.channel == "sms"
    assert "555-0199" not in turn.redacted_text
    # The webhook only queued the turn: it is still at its first node.
    assert turn.status == Turn.Status.RUNNING and turn.steps == 0
    assert dispatched.names() == ["conversations.run_turn"]
    assert dispatched.calls[0][1] == (str(turn.pk),)


def test_the_queued_turn_runs_to_an_approval_waiting_reply(post_sms, dispatched) -> None:
    response = post_sms("where can I get a Texas ID in Houston")
    dispatched.run_all()
    turn = InboundSms.objects.get(message_sid=response.sid).turn
    turn.refresh_from_db()
    assert turn.is_finished
    outbound = turn.outbound_messages.get()
    assert outbound.status in ("pending_approval", "approved")


def test_the_number_is_stored_encrypted_with_a_lookup_hash(post_sms, dispatched) -> None:
    post_sms("hello", sender="(512) 555-0177")
    contact = Contact.objects.get()
    assert contact.phone_hash == crypto.phone_hash(PERSON)
    assert PERSON not in contact.phone_encrypted and crypto.decrypt(contact.phone_encrypted) == PERSON
    assert contact.phone_last4 == "0177"


def test_a_repeated_message_sid_creates_one_row_and_one_turn(post_sms, dispatched) -> None:
    first = post_sms("need food in austin")
    second = post_sms("need food in austin", sid=first.sid)
    assert first.status_code == second.status_code == 200
    assert InboundSms.objects.count() == 1
    assert Turn.objects.count() == 1
    assert dispatched.names() == ["conversations.run_turn"]


def test_a_repeated_twilio_idempotency_token_is_a_duplicate(post_sms, dispatched) -> None:
    post_sms("need food in austin", headers={"I-Twilio-Idempotency-Token": "tok-1"})
    post_sms("need food in austin", headers={"I-Twilio-Idempotency-Token": "tok-1"})
    assert InboundSms.objects.count() == 1
    assert Turn.objects.count() == 1


def test_messages_from_one_number_share_one_conversation(post_sms, dispatched) -> None:
    post_sms("need food in austin")
    post_sms("and a place to sleep")
    assert Conversation.objects.filter(channel="sms").count() == 1
    assert list(Turn.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2]


def test_a_message_without_text_is_recorded_without_a_turn(post_sms, dispatched) -> None:
    response = post_sms("   ")
    assert response.status_code == 200
    assert InboundSms.objects.get().outcome == InboundSms.Outcome.EMPTY
    assert not Turn.objects.exists()


def test_a_signed_request_without_a_message_sid_is_a_bad_request(client) -> None:
    from tests.conversations.sms.conftest import sign

    form = {"From": PERSON, "Body": "hi"}
    response = client.post(
        "/sms/twilio/inbound", form, HTTP_X_TWILIO_SIGNATURE=sign("http://testserver/sms/twilio/inbound", form)
    )
    assert response.status_code == 400
    assert not InboundSms.objects.exists()
