"""Phone numbers never reach the logs, on the inbound path or the outbound path."""

from __future__ import annotations

import logging

import pytest

from conversations.models import OutboundMessage
from conversations.sms.outbox import outbound_approve
from tests.conversations.sms.conftest import PERSON

pytestmark = pytest.mark.django_db

FORMS = (PERSON, PERSON[2:], "512-555-0177", "5125550177", "555-0177")


def test_no_log_record_carries_the_phone_number(
    caplog, post_sms, dispatched, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    caplog.set_level(logging.DEBUG)
    logging.getLogger("twilio").setLevel(logging.DEBUG)
    post_sms("hello, I need a job in Dallas")
    post_sms("HELP")
    post_sms("I want to kill myself")
    with django_capture_on_commit_callbacks(execute=True):
        dispatched.run_all()
    fake_twilio.fail_next(500)
    message = OutboundMessage.objects.filter(status="pending_approval").first()
    with django_capture_on_commit_callbacks(execute=True):
        outbound_approve(message_id=message.pk, actor="cm")
    assert len(fake_twilio.sent) >= 2  # the crisis reply and the approved one went out
    assert caplog.records, "the flow logs something, so the check below is meaningful"
    text = "\n".join(record.getMessage() + repr(record.args) for record in caplog.records)
    for form in FORMS:
        assert form not in text
