"""The approval queue: crisis first then oldest; approve, edit-and-approve, reject, bulk; each audited."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from caseload import selectors
from conversations.models import OutboundMessage
from tests.caseload.factories import OutboundFactory, TurnFactory

QUEUE = "admin:caseload_queue_changelist"


def _age(message: OutboundMessage, minutes: int) -> None:
    OutboundMessage.objects.filter(pk=message.pk).update(created_at=timezone.now() - timedelta(minutes=minutes))


@pytest.mark.django_db
def test_it_puts_crisis_first_then_the_oldest(cast: Any) -> None:
    _age(cast.msg_a, 30)
    older = OutboundFactory(turn=TurnFactory(conversation=cast.conv_a, seq=2))
    _age(older, 90)
    crisis = OutboundFactory(turn=TurnFactory(conversation=cast.conv_a, seq=3, crisis="domestic_violence"))
    queue = list(selectors.approval_queue(user=cast.cm_a))
    assert [message.pk for message in queue] == [crisis.pk, older.pk, cast.msg_a.pk]


@pytest.mark.django_db
def test_it_shows_the_question_draft_citations_and_findings_with_access_keys(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    page = client.get(reverse(QUEUE)).content.decode()
    assert cast.turn_a.redacted_text in page
    assert cast.msg_a.body in page
    assert "Tex. Transp. Code § 521.142" in page
    assert "plain language" in page  # the audit finding
    assert 'accesskey="a"' in page and 'accesskey="r"' in page and 'accesskey="b"' in page
    assert ":focus-visible" in page
    # Form order: the draft comes before Approve, which comes before the reason and Reject.
    assert (
        page.index(f'id="body-{cast.msg_a.pk}"')
        < page.index('value="approve"')
        < page.index(f'id="reason-{cast.msg_a.pk}"')
        < page.index('value="reject"')
    )


@pytest.mark.django_db
def test_it_approves_an_edited_reply_and_sends_it_once(
    client: Any, sms_client_of_a: Any, fake_twilio: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cast = sms_client_of_a
    client.force_login(cast.cm_a)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse(QUEUE),
            {
                "action": "approve",
                "message_id": str(cast.msg_a.pk),
                "body": "Edited by Cara: bring your birth certificate.",
            },
        )
    assert response.status_code == 302
    cast.msg_a.refresh_from_db()
    assert cast.msg_a.status == OutboundMessage.Status.SENT
    assert cast.msg_a.approved_by == "cara-cm"
    assert cast.msg_a.draft_body != cast.msg_a.body
    assert len(fake_twilio.sent) == 1
    assert "Edited by Cara" in fake_twilio.sent[0]["form"]["Body"]
    event = AuditEvent.objects.get(action="caseload.outbound_approved", object_id=str(cast.msg_a.pk))
    assert event.actor == f"user:{cast.cm_a.pk}" and event.data["edited"] is True


@pytest.mark.django_db
def test_it_rejects_with_a_reason_and_never_without_one(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    client.post(reverse(QUEUE), {"action": "reject", "message_id": str(cast.msg_a.pk), "reason": ""})
    cast.msg_a.refresh_from_db()
    assert cast.msg_a.status == OutboundMessage.Status.PENDING_APPROVAL
    client.post(reverse(QUEUE), {"action": "reject", "message_id": str(cast.msg_a.pk), "reason": "Wrong county office"})
    cast.msg_a.refresh_from_db()
    assert cast.msg_a.status == OutboundMessage.Status.REJECTED
    assert cast.msg_a.rejection_reason == "Wrong county office"
    assert AuditEvent.objects.filter(action="caseload.outbound_rejected", object_id=str(cast.msg_a.pk)).count() == 1


@pytest.mark.django_db
def test_bulk_approval_approves_only_messages_in_the_caseload(client: Any, cast: Any) -> None:
    second = OutboundFactory(turn=TurnFactory(conversation=cast.conv_a, seq=2))
    client.force_login(cast.cm_a)
    response = client.post(
        reverse(QUEUE),
        {"action": "bulk_approve", "selected": [str(cast.msg_a.pk), str(second.pk), str(cast.msg_b.pk)]},
        follow=True,
    )
    statuses = dict(
        OutboundMessage.objects.filter(pk__in=[cast.msg_a.pk, second.pk, cast.msg_b.pk]).values_list("pk", "status")
    )
    assert statuses[cast.msg_a.pk] == statuses[second.pk] == OutboundMessage.Status.APPROVED
    assert statuses[cast.msg_b.pk] == OutboundMessage.Status.PENDING_APPROVAL
    assert "not in your caseload" in response.content.decode()
    assert AuditEvent.objects.filter(action="caseload.outbound_approved", data__via="bulk").count() == 2


@pytest.mark.django_db
def test_approving_twice_is_refused_with_a_message(client: Any, cast: Any) -> None:
    client.force_login(cast.cm_a)
    client.post(reverse(QUEUE), {"action": "approve", "message_id": str(cast.msg_a.pk)})
    response = client.post(reverse(QUEUE), {"action": "approve", "message_id": str(cast.msg_a.pk)}, follow=True)
    assert "not waiting for approval" in response.content.decode()
    assert AuditEvent.objects.filter(action="caseload.outbound_approved", object_id=str(cast.msg_a.pk)).count() == 1
