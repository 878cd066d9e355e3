"""Staff-typed text (replies, draft edits, rejection reasons, client notes) is redacted like the person's before storage."""

from __future__ import annotations

import pytest

from conversations import services
from conversations.models import Conversation, OutboundMessage, StaffMessage
from conversations.sms.outbox import outbound_approve, outbound_reject, staff_edit_redact
from conversations.staff import staff_message_create
from tests.conversations.sms.conftest import PERSON

pytestmark = pytest.mark.django_db

TYPED = "Maria Lopez called for you, call her back at 512-555-0147."
LEAKS = ("Maria", "Lopez", "512-555-0147")
DRAFT = "Call Workforce Solutions at 713-555-0100. They open at 8."


def _clean(text: str) -> bool:
    return not any(leak in text for leak in LEAKS)


@pytest.fixture
def sms_conversation() -> Conversation:
    contact, _ = services.contact_for_phone(phone=PERSON)
    conversation, _ = services.conversation_create(channel="sms", contact=contact)
    return conversation


def test_a_case_managers_reply_is_redacted_before_it_is_stored() -> None:
    conversation, _ = services.conversation_create(channel="web")
    message, created = staff_message_create(
        conversation_id=conversation.pk, author=None, body=TYPED, idempotency_key="k1", actor="cm_rosa"
    )
    assert created
    stored = StaffMessage.objects.get(pk=message.pk).body
    assert _clean(stored) and "[PHONE]" in stored and "[NAME]" in stored
    assert "call her back" in stored


def test_an_sms_reply_is_redacted_in_the_outbox_too(sms_conversation: Conversation) -> None:
    message, _ = staff_message_create(
        conversation_id=sms_conversation.pk, author=None, body=TYPED, idempotency_key="k2", actor="cm_rosa"
    )
    assert _clean(StaffMessage.objects.get(pk=message.pk).body)
    assert all(_clean(body) for body in OutboundMessage.objects.values_list("body", flat=True))


def test_an_edit_on_approval_redacts_what_staff_typed_and_keeps_the_navigators_words(
    sms_conversation: Conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    pending = OutboundMessage.objects.create(
        conversation=sms_conversation, kind="reply", body=DRAFT, draft_body=DRAFT, status="pending_approval"
    )
    with django_capture_on_commit_callbacks(execute=True):
        outbound_approve(message_id=pending.pk, actor="cm_alice", body=f"{DRAFT} {TYPED}")
    pending.refresh_from_db()
    assert _clean(pending.body) and "[PHONE]" in pending.body
    assert pending.body.startswith(DRAFT)  # the directory's phone number is not the person's
    assert _clean(fake_twilio.sent[0]["form"]["Body"])


def test_a_rejection_reason_is_redacted(sms_conversation: Conversation) -> None:
    pending = OutboundMessage.objects.create(
        conversation=sms_conversation, kind="reply", body=DRAFT, draft_body=DRAFT, status="pending_approval"
    )
    outbound_reject(message_id=pending.pk, actor="cm_alice", reason=f"Wrong office. {TYPED}")
    pending.refresh_from_db()
    assert pending.rejection_reason.startswith("Wrong office.") and _clean(pending.rejection_reason)


def test_an_edit_that_changes_nothing_typed_keeps_the_draft_verbatim() -> None:
    assert staff_edit_redact(draft=DRAFT, edited=DRAFT) == DRAFT
    assert "Officer [NAME]" in staff_edit_redact(draft=DRAFT, edited=f"{DRAFT} Tell Officer Johnson.")


def test_client_notes_typed_in_the_admin_are_redacted() -> None:
    from caseload.admin import ClientForm

    form = ClientForm(
        data={"name": "Client A", "status": "active", "supervision_type": "parole", "notes": f"Sister: {TYPED}"}
    )
    assert form.is_valid(), form.errors
    assert _clean(form.cleaned_data["notes"]) and form.cleaned_data["notes"].startswith("Sister:")


def test_the_case_managers_own_name_stays_everyone_elses_goes() -> None:
    from tests.caseload.factories import UserFactory

    rosa = UserFactory(username="rosa.g", first_name="Rosa", last_name="Garza")
    conversation, _ = services.conversation_create(channel="web")
    message, _ = staff_message_create(
        conversation_id=conversation.pk,
        author=rosa,
        body=f"Hi, this is Rosa Garza. {TYPED}",
        idempotency_key="own",
        actor="rosa.g",
    )
    stored = StaffMessage.objects.get(pk=message.pk).body
    assert stored.startswith("Hi, this is Rosa Garza.") and _clean(stored)
