"""The outbox: approval → Celery (eager) → the real twilio client → fake Twilio, exactly once, re-checking consent."""

from __future__ import annotations

import pytest
from django.utils import timezone

from audit.log import AuditEvent
from conversations import services
from conversations.models import Contact, Conversation, OutboundMessage, Turn
from conversations.sms import gateway, sender
from conversations.sms.errors import OutboundNotPending, RejectionNeedsReason
from conversations.sms.outbox import outbound_approve, outbound_reject
from conversations.sms.texts import NOTICE_VERSION
from tests.conversations.sms.conftest import FROM_NUMBER, PERSON

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation() -> Conversation:
    contact, _ = services.contact_for_phone(phone=PERSON)
    conversation, _ = services.conversation_create(channel="sms", contact=contact)
    return conversation


def pending(
    conversation: Conversation, body: str = "Call Workforce Solutions at 713-555-0100.", **fields
) -> OutboundMessage:
    fields.setdefault("status", "pending_approval")
    return OutboundMessage.objects.create(
        conversation=conversation, kind=fields.pop("kind", "reply"), body=body, draft_body=body, **fields
    )


def approve(message: OutboundMessage, capture, **kwargs) -> OutboundMessage:
    with capture(execute=True):
        outbound_approve(message_id=message.pk, actor="cm_alice", **kwargs)
    message.refresh_from_db()
    return message


def test_approval_sends_exactly_once_and_records_the_sid(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert len(fake_twilio.requests) == 1
    request = fake_twilio.requests[0]
    assert request["auth_ok"]
    assert request["form"]["To"] == PERSON and request["form"]["From"] == FROM_NUMBER
    assert request["form"]["Body"].startswith("Call Workforce Solutions at 713-555-0100.")
    assert message.status == "sent" and message.provider_sid == request["sid"]
    assert message.approved_by == "cm_alice" and message.attempts == 1
    assert message.segments >= 1 and message.encoding == "GSM-7"
    actions = list(AuditEvent.objects.filter(object_id=str(message.pk)).values_list("action", flat=True))
    assert "outbound.approved" in actions and "outbound.sent" in actions
    # A second delivery of the same task finds nothing to claim.
    assert sender.outbound_deliver(message_id=message.pk) == "skipped"
    assert len(fake_twilio.requests) == 1


def test_edit_and_approve_sends_the_edited_text_and_keeps_the_draft(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    message = approve(
        pending(conversation, "draft text"), django_capture_on_commit_callbacks, body="Edited by your case manager."
    )
    assert fake_twilio.sent[0]["form"]["Body"].startswith("Edited by your case manager.")
    assert message.draft_body == "draft text"
    assert AuditEvent.objects.get(action="outbound.approved", object_id=str(message.pk)).data["edited"] is True


def test_reject_needs_a_reason_and_sends_nothing(conversation, fake_twilio) -> None:
    message = pending(conversation)
    with pytest.raises(RejectionNeedsReason):
        outbound_reject(message_id=message.pk, actor="cm_alice", reason=" ")
    outbound_reject(message_id=message.pk, actor="cm_alice", reason="wrong office")
    message.refresh_from_db()
    assert message.status == "rejected" and message.rejection_reason == "wrong office"
    with pytest.raises(OutboundNotPending):
        outbound_approve(message_id=message.pk, actor="cm_alice")
    assert fake_twilio.requests == []


def test_a_server_error_is_retried_and_the_message_goes_once(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    fake_twilio.fail_next(500)
    fake_twilio.fail_next(503)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert [r["answered"] for r in fake_twilio.requests] == [500, 503, 201]
    assert len(fake_twilio.sent) == 1
    assert message.status == "sent" and message.attempts == 3 and message.error_code == ""
    # The notice is added once, not once per attempt.
    assert fake_twilio.sent[0]["form"]["Body"].count("Privacy:") == 1


def test_rate_limiting_by_twilio_is_retried(conversation, fake_twilio, django_capture_on_commit_callbacks) -> None:
    fake_twilio.fail_next(429, 20429)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert message.status == "sent" and len(fake_twilio.sent) == 1


def test_retries_are_bounded(conversation, fake_twilio, django_capture_on_commit_callbacks) -> None:
    for _ in range(10):
        fake_twilio.fail_next(500)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert len(fake_twilio.requests) == 6  # the first try and five retries
    assert message.status == "failed" and message.error_code == "500"
    assert fake_twilio.sent == []


@pytest.mark.parametrize("code", [21211, 21614])
def test_an_invalid_number_fails_permanently_without_retry(
    conversation, fake_twilio, django_capture_on_commit_callbacks, code
) -> None:
    fake_twilio.fail_next(400, code)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert len(fake_twilio.requests) == 1
    assert message.status == "failed" and message.error_code == str(code)


def test_a_carrier_opt_out_error_opts_the_contact_out(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    fake_twilio.fail_next(400, 21610)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert message.status == "failed" and message.error_code == "21610"
    assert Contact.objects.get().opted_out


def test_an_ambiguous_timeout_is_not_resent(
    conversation, fake_twilio, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr(gateway, "SEND_TIMEOUT_SECONDS", 0.3)
    gateway.client_reset()
    fake_twilio.slow_next(1.0)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert len(fake_twilio.requests) == 1
    assert message.status == "failed" and message.error_code == "timeout_ambiguous"


def test_an_unreachable_twilio_is_retried_then_gives_up(
    conversation, settings, django_capture_on_commit_callbacks
) -> None:
    settings.TWILIO_API_BASE_URL = "http://127.0.0.1:9"  # nothing listens: connection refused
    gateway.client_reset()
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert message.status == "failed" and message.error_code == "connection" and message.attempts == 6


def test_an_opted_out_number_gets_nothing_even_when_approved_earlier(conversation, fake_twilio) -> None:
    message = pending(conversation, status="approved")
    Contact.objects.update(opted_out=True)
    assert sender.outbound_deliver(message_id=message.pk) == "suppressed"
    message.refresh_from_db()
    assert message.status == "suppressed"
    assert fake_twilio.requests == []


@pytest.mark.parametrize("kind", ["reply", "crisis", "keyword", "human", "notice"])
def test_an_opted_out_number_gets_no_message_of_any_kind(conversation, fake_twilio, kind) -> None:
    Contact.objects.update(opted_out=True)
    message = pending(conversation, kind=kind, status="approved", purpose="help" if kind == "keyword" else "")
    assert sender.outbound_deliver(message_id=message.pk) == "suppressed"
    assert fake_twilio.requests == []


def test_only_the_opt_out_confirmation_reaches_an_opted_out_number(conversation, fake_twilio) -> None:
    Contact.objects.update(opted_out=True)
    message = pending(
        conversation, kind="keyword", status="approved", purpose="opt_out_confirmation", body="unsubscribed"
    )
    assert sender.outbound_deliver(message_id=message.pk) == "sent"
    assert len(fake_twilio.sent) == 1
    assert "Privacy:" not in fake_twilio.sent[0]["form"]["Body"]


def test_approving_for_an_opted_out_number_suppresses(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    Contact.objects.update(opted_out=True)
    message = approve(pending(conversation), django_capture_on_commit_callbacks)
    assert message.status == "suppressed" and fake_twilio.requests == []


@pytest.mark.parametrize(
    ("kind", "goes_out"), [("reply", False), ("notice", False), ("crisis", True), ("human", True), ("keyword", True)]
)
def test_human_mode_blocks_automated_messages(conversation, fake_twilio, kind, goes_out) -> None:
    Conversation.objects.update(mode="human")
    message = pending(conversation, kind=kind, status="approved")
    result = sender.outbound_deliver(message_id=message.pk)
    assert (result == "sent") is goes_out
    assert len(fake_twilio.requests) == (1 if goes_out else 0)
    message.refresh_from_db()
    if not goes_out:
        assert message.status == "suggested" and message.claimed_at is None


def test_approving_a_human_mode_suggestion_makes_it_the_case_managers_message(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    Conversation.objects.update(mode="human")
    message = approve(pending(conversation, status="suggested"), django_capture_on_commit_callbacks)
    assert message.kind == "human" and message.status == "sent"
    assert len(fake_twilio.sent) == 1


def test_the_first_reply_carries_the_privacy_notice_once(
    conversation, fake_twilio, django_capture_on_commit_callbacks
) -> None:
    approve(pending(conversation, "first"), django_capture_on_commit_callbacks)
    approve(pending(conversation, "second"), django_capture_on_commit_callbacks)
    first, second = (r["form"]["Body"] for r in fake_twilio.sent)
    assert "a case manager may read them" in first and "STOP" in first and "HELP" in first
    assert "Privacy:" not in second
    contact = Contact.objects.get()
    assert contact.consent_version == NOTICE_VERSION and contact.consent_at is not None


def test_a_long_first_reply_with_the_notice_stays_within_the_budget(
    conversation, fake_twilio, post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    words = " ".join(f"word{i}" for i in range(120))  # ~900 characters, and the notice is still due
    approve(pending(conversation, words), django_capture_on_commit_callbacks)
    first = fake_twilio.sent[0]["form"]["Body"]
    assert "Privacy:" in first and "(Reply MORE for the rest)" in first
    assert len(first) <= 320


def test_the_notice_is_in_the_persons_language(conversation, fake_twilio, django_capture_on_commit_callbacks) -> None:
    Conversation.objects.update(language="es")
    approve(pending(conversation, "Hola"), django_capture_on_commit_callbacks)
    body = fake_twilio.sent[0]["form"]["Body"]
    assert "Privacidad:" in body and "PARAR" in body and "AYUDA" in body


def test_a_crisis_reply_goes_without_approval_through_the_workflow(
    fake_twilio, post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    post_sms("I want to kill myself tonight")
    with django_capture_on_commit_callbacks(execute=True):
        dispatched.run_all()  # run_turn → finalize → approved crisis message → outbound_send (eager)
    message = OutboundMessage.objects.get(kind="crisis")
    assert message.status == "sent" and message.crisis
    assert "988" in fake_twilio.sent[0]["form"]["Body"]
    assert Conversation.objects.get().needs_human


def test_a_long_reply_is_shortened_and_more_sends_the_rest(
    conversation, fake_twilio, post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    Contact.objects.update(consent_version=NOTICE_VERSION)  # notice already shown
    words = " ".join(f"word{i}" for i in range(120))  # ~900 characters
    message = approve(pending(conversation, words), django_capture_on_commit_callbacks)
    first = fake_twilio.sent[0]["form"]["Body"]
    assert len(first) <= 320 and first.endswith("(Reply MORE for the rest)")
    assert message.remainder and message.segments == 3
    # Reassembled, nothing was lost or cut inside a word.
    sent_words = first.removesuffix("(Reply MORE for the rest)").split()
    assert sent_words == words.split()[: len(sent_words)]
    post_sms("MORE")
    dispatched.run_all()
    message.refresh_from_db()
    assert message.remainder == ""
    second = fake_twilio.sent[1]["form"]["Body"]
    assert second.split()[0] == f"word{len(sent_words)}"
    post_sms("more")
    dispatched.run_all()
    post_sms("more")
    dispatched.run_all()
    bodies = [r["form"]["Body"].replace("(Reply MORE for the rest)", "") for r in fake_twilio.sent]
    assert " ".join(" ".join(bodies).split()[:120]) == words
    assert OutboundMessage.objects.filter(purpose="more_none").exists()


def test_more_does_not_send_the_source_link_again(
    conversation, fake_twilio, post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    """Found by hand: each MORE part of a reply citing one entry repeated that entry's link."""
    Contact.objects.update(consent_version=NOTICE_VERSION)
    cite, url = "[Tex. Elec. Code § 11.002(a)(4)]", "https://statutes.capitol.texas.gov/Docs/EL/htm/EL.11.htm"
    turn = Turn.objects.create(
        conversation=conversation,
        seq=1,
        idempotency_key="more-link",
        channel="sms",
        redacted_text="can i vote",
        workflow_version="test",
        state={"evidence": [{"citation": cite[1:-1], "url": url, "assertable": True}], "resources": []},
        started_at=timezone.now(),
    )
    filler = " ".join(f"word{i}" for i in range(60))
    body = f"Not yet: you can vote once the whole sentence is done {cite}. {filler}. Again: parole counts {cite}."
    first = approve(pending(conversation, body, turn=turn), django_capture_on_commit_callbacks)
    assert first.remainder and url in fake_twilio.sent[0]["form"]["Body"]
    for _ in range(3):
        post_sms("MORE")
        dispatched.run_all()
    rest = [r["form"]["Body"] for r in fake_twilio.sent[1:]]
    assert any("parole counts" in part for part in rest), rest
    assert not any(url in part for part in rest), rest


def test_the_preview_shows_what_will_be_sent(conversation) -> None:
    preview = sender.outbound_preview(message_id=pending(conversation, "Hola, ¿cómo está?").pk)
    assert preview["encoding"] == "UCS-2" and preview["notice"] is True and preview["segments"] >= 1
