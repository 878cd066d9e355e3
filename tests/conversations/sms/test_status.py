"""Signed delivery-status callbacks move an outbound message forward, never back."""

from __future__ import annotations

import pytest

from audit.log import AuditEvent
from conversations import services
from conversations.models import Contact, OutboundMessage
from tests.conversations.sms.conftest import PERSON

pytestmark = pytest.mark.django_db

SID = "SM" + "f" * 32


@pytest.fixture
def sent_message() -> OutboundMessage:
    contact, _ = services.contact_for_phone(phone=PERSON)
    conversation, _ = services.conversation_create(channel="sms", contact=contact)
    return OutboundMessage.objects.create(
        conversation=conversation, kind="reply", body="hi", status="sent", provider_sid=SID
    )


def status_of(message: OutboundMessage) -> tuple[str, str, str]:
    message.refresh_from_db()
    return message.status, message.provider_status, message.error_code


def test_delivered_is_recorded(post_status, sent_message) -> None:
    assert post_status(SID, "delivered").status_code == 204
    assert status_of(sent_message) == ("delivered", "delivered", "")


@pytest.mark.parametrize(
    ("reported", "expected"),
    [
        ("queued", "sent"),
        ("sent", "sent"),
        ("delivered", "delivered"),
        ("undelivered", "undelivered"),
        ("failed", "failed"),
    ],
)
def test_each_twilio_status_maps_to_ours(post_status, sent_message, reported, expected) -> None:
    post_status(SID, reported)
    assert status_of(sent_message)[:2] == (expected, reported)


def test_undelivered_keeps_the_error_code_and_is_audited(post_status, sent_message) -> None:
    post_status(SID, "undelivered", error_code="30003")
    assert status_of(sent_message) == ("undelivered", "undelivered", "30003")
    assert AuditEvent.objects.get(action="outbound.undelivered").data == {
        "status": "undelivered",
        "error_code": "30003",
    }


def test_a_late_sent_does_not_undo_delivered(post_status, sent_message) -> None:
    post_status(SID, "delivered")
    post_status(SID, "sent")
    post_status(SID, "queued")
    assert status_of(sent_message)[0] == "delivered"


def test_a_callback_before_the_sid_was_saved_finds_the_message_by_id(post_status, sent_message) -> None:
    OutboundMessage.objects.filter(pk=sent_message.pk).update(provider_sid="", status="sending")
    post_status(SID, "delivered", message_id=str(sent_message.pk))
    sent_message.refresh_from_db()
    assert sent_message.status == "delivered" and sent_message.provider_sid == SID


def test_an_unknown_message_is_acknowledged_and_ignored(post_status, sent_message) -> None:
    assert post_status("SM" + "0" * 32, "delivered").status_code == 204
    assert status_of(sent_message)[0] == "sent"


def test_a_carrier_opt_out_error_opts_the_number_out(post_status, sent_message) -> None:
    post_status(SID, "failed", error_code="21610")
    assert Contact.objects.get().opted_out


def test_the_status_callback_url_carries_the_message_id(settings, fake_twilio, sent_message) -> None:
    from conversations.sms import sender

    settings.PUBLIC_BASE_URL = "https://pathways.example.org"
    message = OutboundMessage.objects.create(
        conversation=sent_message.conversation, kind="human", body="hello", status="approved"
    )
    assert sender.outbound_deliver(message_id=message.pk) == "sent"
    assert (
        fake_twilio.sent[0]["form"]["StatusCallback"]
        == f"https://pathways.example.org/sms/twilio/status?m={message.pk}"
    )
