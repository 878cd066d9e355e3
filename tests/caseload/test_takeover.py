"""Take over / hand back / clear a flag / text the person: services and their audit events."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from caseload import services
from caseload.errors import ModeConflict, NotInCaseload, ReplyNotPossible
from conversations.models import Conversation, OutboundMessage


@pytest.mark.django_db
def test_taking_over_records_who_and_when_clears_the_flag_and_is_audited(cast: Any) -> None:
    Conversation.objects.filter(pk=cast.conv_a.pk).update(needs_human=True, needs_human_reason="asked_for_human")
    conversation = services.conversation_take_over(conversation_id=cast.conv_a.pk, user=cast.cm_a)
    conversation.refresh_from_db()
    assert conversation.mode == Conversation.Mode.HUMAN
    assert conversation.mode_changed_by == "cara-cm" and conversation.mode_changed_at is not None
    assert not conversation.needs_human
    event = AuditEvent.objects.get(action="conversation.taken_over", object_id=str(cast.conv_a.pk))
    assert event.actor == f"user:{cast.cm_a.pk}" and event.data == {"cleared_flag": "asked_for_human"}
    with pytest.raises(ModeConflict):
        services.conversation_take_over(conversation_id=cast.conv_a.pk, user=cast.supervisor)


@pytest.mark.django_db
def test_handing_back_returns_the_conversation_to_the_navigator(cast: Any) -> None:
    with pytest.raises(ModeConflict):
        services.conversation_hand_back(conversation_id=cast.conv_a.pk, user=cast.cm_a)
    services.conversation_take_over(conversation_id=cast.conv_a.pk, user=cast.cm_a)
    conversation = services.conversation_hand_back(conversation_id=cast.conv_a.pk, user=cast.cm_a)
    assert Conversation.objects.get(pk=conversation.pk).mode == Conversation.Mode.NAVIGATOR
    assert AuditEvent.objects.filter(action="conversation.handed_back", object_id=str(cast.conv_a.pk)).count() == 1


@pytest.mark.django_db
def test_a_case_manager_cannot_take_over_another_caseload(cast: Any) -> None:
    with pytest.raises(NotInCaseload):
        services.conversation_take_over(conversation_id=cast.conv_b.pk, user=cast.cm_a)
    assert Conversation.objects.get(pk=cast.conv_b.pk).mode == Conversation.Mode.NAVIGATOR


@pytest.mark.django_db
def test_the_case_manager_texts_the_person_from_admin(
    client: Any, sms_client_of_a: Any, fake_twilio: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cast = sms_client_of_a
    client.force_login(cast.cm_a)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("admin:caseload_conversation_take_over", args=[cast.conv_a.pk]))
        response = client.post(
            reverse("admin:caseload_conversation_reply", args=[cast.conv_a.pk]),
            {"body": "Hi, this is Cara. I can meet Tuesday."},
        )
    assert response.status_code == 302
    message = OutboundMessage.objects.get(conversation=cast.conv_a, kind=OutboundMessage.Kind.HUMAN)
    assert message.status == OutboundMessage.Status.SENT and message.approved_by == "cara-cm"
    assert [request["form"]["Body"] for request in fake_twilio.sent] == ["Hi, this is Cara. I can meet Tuesday."]
    assert fake_twilio.sent[0]["form"]["To"] == "+15125550142"
    assert AuditEvent.objects.filter(action="caseload.reply_sent", object_id=str(message.pk)).exists()


@pytest.mark.django_db
def test_no_text_goes_to_a_web_conversation_or_an_opted_out_number(cast: Any) -> None:
    Conversation.objects.filter(pk=cast.conv_a.pk).update(channel="web")
    with pytest.raises(ReplyNotPossible):
        services.conversation_reply_sms(conversation_id=cast.conv_a.pk, user=cast.cm_a, body="hello")
    Conversation.objects.filter(pk=cast.conv_a.pk).update(channel="sms")
    cast.conv_a.contact.opted_out = True
    cast.conv_a.contact.save()
    with pytest.raises(ReplyNotPossible):
        services.conversation_reply_sms(conversation_id=cast.conv_a.pk, user=cast.cm_a, body="hello")
    assert not OutboundMessage.objects.filter(kind=OutboundMessage.Kind.HUMAN).exists()


@pytest.mark.django_db
def test_the_transcript_shows_redacted_turns_and_the_trace_shows_every_node(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    transcript = client.get(reverse("admin:conversations_conversation_change", args=[cast.conv_a.pk])).content.decode()
    assert cast.turn_a.redacted_text in transcript
    assert 'accesskey="t"' in transcript  # Take over
    trace = client.get(reverse("admin:conversations_turn_change", args=[cast.turn_a.pk])).content.decode()
    assert 'id="step-1"' in trace and "intake→retrieve" in trace and "id_documents" in trace
    assert AuditEvent.objects.filter(action="caseload.transcript_viewed", object_id=str(cast.conv_a.pk)).exists()
