"""SMS: an immediate acknowledgement while a reply waits, fixed texts at once, opt-out first, the after-hours policy."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from caseload import services
from caseload.office_hours import office_hours_parse
from conversations import services as conversation_services
from conversations.models import Contact, Conversation, OutboundMessage, Turn
from conversations.sms.outbox import ACK_PURPOSE
from conversations.workflow import approval as acks

pytestmark = pytest.mark.django_db
CHICAGO = ZoneInfo("America/Chicago")
HOURS = office_hours_parse("Mon-Fri 09:00-17:00 America/Chicago")
ALWAYS_OPEN = "Mon-Sun 00:00-23:59 America/Chicago"
NEVER_OPEN_NOW = "Mon-Sun 00:00-00:01 America/Chicago"  # open one minute a day: closed for any test run


def _sms_turn(conversation: Conversation, text: str) -> Turn:
    turn, _ = conversation_services.turn_start(
        conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex, channel="sms"
    )
    return conversation_services.turn_run(turn_id=turn.pk)


def _acks(conversation: Conversation) -> list[OutboundMessage]:
    return list(OutboundMessage.objects.filter(conversation=conversation, purpose=ACK_PURPOSE).order_by("created_at"))


def test_the_acknowledgement_in_office_hours_names_the_service_level_and_211_and_988() -> None:
    tuesday_ten = datetime(2026, 12, 1, 10, 0, tzinfo=CHICAGO)
    english = acks.acknowledgement_text(language="en", now=tuesday_ten, hours=HOURS, sla_minutes=30)
    spanish = acks.acknowledgement_text(language="es", now=tuesday_ten, hours=HOURS, sla_minutes=30)
    assert english == (
        "We got your message. A case manager will check the answer and text you back, usually within 30 minutes "
        "during office hours. If it is urgent, call 211 (2-1-1). In a crisis, call or text 988."
    )
    assert spanish == (
        "Recibimos su mensaje. Un administrador de casos revisará la respuesta y le enviará un texto, normalmente "
        "en unos 30 minutos en horario de oficina. Si es urgente, llame al 211 (2-1-1). En una crisis, llame o "
        "envíe un texto al 988."
    )


def test_after_hours_the_acknowledgement_says_when_the_office_opens() -> None:
    friday_night = datetime(2026, 12, 4, 20, 0, tzinfo=CHICAGO)
    english = acks.acknowledgement_text(language="en", now=friday_night, hours=HOURS, sla_minutes=30)
    spanish = acks.acknowledgement_text(language="es", now=friday_night, hours=HOURS, sla_minutes=30)
    assert "after the office opens Monday at 9 AM" in english
    assert "después de que abra la oficina, el lunes a las 09:00" in spanish
    early = datetime(2026, 12, 1, 7, 30, tzinfo=CHICAGO)
    assert "opens today at 9 AM" in acks.acknowledgement_text(language="en", now=early, hours=HOURS, sla_minutes=30)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"delivery": "handoff", "handoff": {"category": "human"}}, True),
        ({"delivery": "handoff", "handoff": {"category": "legal_aid"}}, True),
        ({"delivery": "handoff", "handoff": {"category": "out_of_state"}}, True),
        ({"delivery": "handoff", "handoff": {"category": "uncertain"}}, False),
        ({"delivery": "handoff", "handoff": {"category": "bound"}}, False),
        ({"delivery": "reply"}, False),
        ({"delivery": "crisis", "handoff": {"category": "suicide_self_harm"}}, False),
    ],
)
def test_only_fixed_texts_with_nothing_generated_skip_approval(state: dict[str, Any], expected: bool) -> None:
    assert acks.fixed_text_without_approval(state) is expected


def test_send_audited_after_hours_only_sends_a_clean_audited_reply() -> None:
    night = datetime(2026, 12, 1, 22, 0, tzinfo=CHICAGO)
    day = datetime(2026, 12, 1, 11, 0, tzinfo=CHICAGO)
    clean = {"delivery": "reply", "audit": {"verdict": "pass", "findings": []}}
    noted = {"delivery": "reply", "audit": {"verdict": "pass", "findings": [{"rule": "tone"}]}}
    assert acks.after_hours_unreviewed(state=clean, now=night, hours=HOURS, policy="send_audited")
    assert not acks.after_hours_unreviewed(state=clean, now=day, hours=HOURS, policy="send_audited")
    assert not acks.after_hours_unreviewed(state=noted, now=night, hours=HOURS, policy="send_audited")
    assert not acks.after_hours_unreviewed(state=clean, now=night, hours=HOURS, policy="hold")
    assert acks.label_unreviewed("Body", "es").startswith("(Enviado fuera de horario; todavía no lo revisó")


def test_a_reply_waiting_for_approval_gets_one_acknowledgement_per_waiting_period(
    sms_client_of_a: Any, fake_twilio: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.OFFICE_HOURS = ALWAYS_OPEN
    cast = sms_client_of_a
    conversation = Conversation.objects.get(pk=cast.conv_a.pk)
    OutboundMessage.objects.filter(conversation=conversation).delete()
    with django_capture_on_commit_callbacks(execute=True):
        first = _sms_turn(conversation, "Where can I get a Texas ID in Houston?")
    assert first.status == Turn.Status.WAITING_APPROVAL
    assert [m.status for m in _acks(conversation)] == [OutboundMessage.Status.SENT]
    assert len(fake_twilio.sent) == 1 and "A case manager will check the answer" in fake_twilio.sent[0]["form"]["Body"]
    with django_capture_on_commit_callbacks(execute=True):
        _sms_turn(conversation, "And how much does the ID cost?")
    assert len(_acks(conversation)) == 1  # still the same waiting period: no second acknowledgement
    waiting = OutboundMessage.objects.filter(conversation=conversation, status=OutboundMessage.Status.PENDING_APPROVAL)
    with django_capture_on_commit_callbacks(execute=True):
        for message in waiting:
            services.queue_approve(message_id=message.pk, user=cast.cm_a)
    with django_capture_on_commit_callbacks(execute=True):
        _sms_turn(conversation, "Where can I find a job in Houston?")
    assert len(_acks(conversation)) == 2  # a new waiting period after the answers went out


def test_in_spanish_the_acknowledgement_is_in_spanish(
    sms_client_of_a: Any, fake_twilio: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.OFFICE_HOURS = ALWAYS_OPEN
    conversation = Conversation.objects.get(pk=sms_client_of_a.conv_a.pk)
    OutboundMessage.objects.filter(conversation=conversation).delete()
    with django_capture_on_commit_callbacks(execute=True):
        _sms_turn(conversation, "¿Dónde puedo sacar una identificación de Texas en Houston?")
    assert _acks(conversation)[0].body.startswith("Recibimos su mensaje.")


def test_an_opted_out_person_gets_no_acknowledgement(
    sms_client_of_a: Any, fake_twilio: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    conversation = Conversation.objects.get(pk=sms_client_of_a.conv_a.pk)
    OutboundMessage.objects.filter(conversation=conversation).delete()
    Contact.objects.filter(pk=conversation.contact_id).update(opted_out=True)
    conversation.contact.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        _sms_turn(conversation, "Where can I get a Texas ID in Houston?")
    assert _acks(conversation) == []
    assert list(OutboundMessage.objects.filter(conversation=conversation).values_list("status", flat=True)) == [
        OutboundMessage.Status.SUPPRESSED
    ]
    assert fake_twilio.sent == []


def test_asking_for_a_person_gets_the_fixed_answer_at_once_without_approval(
    sms_client_of_a: Any, fake_twilio: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    conversation = Conversation.objects.get(pk=sms_client_of_a.conv_a.pk)
    with django_capture_on_commit_callbacks(execute=True):
        turn = _sms_turn(conversation, "Can I talk to a real person please?")
    assert (turn.state.get("handoff") or {}).get("category") == "human"
    message = OutboundMessage.objects.get(turn=turn)
    assert message.status == OutboundMessage.Status.SENT and message.approved_by == ""
    assert turn.status != Turn.Status.WAITING_APPROVAL
    assert _acks(conversation) == []  # nothing waits, so nothing to acknowledge
    assert len(fake_twilio.sent) == 1


def test_after_hours_with_send_audited_a_clean_reply_goes_out_labelled(
    sms_client_of_a: Any, fake_twilio: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.OFFICE_HOURS = NEVER_OPEN_NOW
    settings.AFTER_HOURS_POLICY = "send_audited"
    conversation = Conversation.objects.get(pk=sms_client_of_a.conv_a.pk)
    OutboundMessage.objects.filter(conversation=conversation).delete()
    with django_capture_on_commit_callbacks(execute=True):
        turn = _sms_turn(conversation, "Where can I get a Texas ID in Houston?")
    audit = turn.state.get("audit") or {}
    assert audit.get("verdict") == "pass" and not audit.get("findings")  # the template draft audits clean
    message = OutboundMessage.objects.get(turn=turn)
    assert message.status == OutboundMessage.Status.SENT and turn.status != Turn.Status.WAITING_APPROVAL
    assert message.body.startswith(acks.UNREVIEWED_LABEL["en"])
    assert fake_twilio.sent[0]["form"]["Body"].startswith(acks.UNREVIEWED_LABEL["en"])
    assert _acks(conversation) == []
    settings.AFTER_HOURS_POLICY = "hold"
    with django_capture_on_commit_callbacks(execute=True):
        held = _sms_turn(conversation, "How much does a Texas ID cost?")
    assert held.status == Turn.Status.WAITING_APPROVAL
    assert "after the office opens" in _acks(conversation)[0].body
