"""Every staff read of a client, transcript, turn trace or outbound body is an audit event (#21 item 7)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from audit.models import AuditEvent

pytestmark = pytest.mark.django_db


def _events(action: str, user: Any) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, actor=f"user:{user.pk}"))


@pytest.mark.parametrize(
    ("url_name", "obj", "action"),
    [
        ("admin:conversations_turn_change", "turn_a", "caseload.trace_viewed"),
        ("admin:conversations_outboundmessage_change", "msg_a", "caseload.outbound_viewed"),
        ("admin:caseload_client_change", "alice", "caseload.client_viewed"),
        ("admin:conversations_conversation_change", "conv_a", "caseload.transcript_viewed"),
        ("admin:caseload_client_summary", "alice", "caseload.summary_viewed"),
        ("admin:caseload_client_plan", "alice", "caseload.plan_viewed"),
    ],
)
def test_each_detail_read_records_who_what_and_when(cast, client, url_name: str, obj: str, action: str) -> None:
    target = getattr(cast, obj)
    client.force_login(cast.cm_a)
    assert client.get(reverse(url_name, args=[target.pk])).status_code == 200
    [event] = _events(action, cast.cm_a)
    assert event.object_id == str(target.pk) and event.created_at is not None


def test_list_pages_that_show_content_record_the_ids_shown(cast, client) -> None:
    client.force_login(cast.cm_a)
    assert client.get(reverse("admin:caseload_client_changelist")).status_code == 200
    assert client.get(reverse("admin:caseload_queue_changelist")).status_code == 200
    assert client.get(reverse("admin:conversations_conversation_changelist")).status_code == 200
    [conversations] = _events("caseload.conversations_listed", cast.cm_a)
    assert conversations.data["ids"] == [str(cast.conv_a.pk)]
    [listed] = _events("caseload.clients_listed", cast.cm_a)
    assert listed.data == {"ids": [str(cast.alice.pk)], "count": 1}
    [queue] = _events("caseload.queue_viewed", cast.cm_a)
    assert str(cast.msg_a.pk) in queue.data["ids"] and str(cast.msg_b.pk) not in queue.data["ids"]


def test_a_read_outside_the_caseload_records_nothing(cast, client) -> None:
    client.force_login(cast.cm_a)
    response = client.get(reverse("admin:conversations_turn_change", args=[cast.turn_b.pk]))
    assert response.status_code in (302, 404)
    assert _events("caseload.trace_viewed", cast.cm_a) == []


def test_supervisors_read_the_read_events_in_admin_and_case_managers_cannot(cast, client) -> None:
    client.force_login(cast.cm_a)
    client.get(reverse("admin:conversations_turn_change", args=[cast.turn_a.pk]))
    client.force_login(cast.supervisor)
    page = client.get(reverse("admin:audit_auditevent_changelist"), {"action": "caseload.trace_viewed"})
    assert page.status_code == 200
    assert "caseload.trace_viewed" in page.content.decode() and f"user:{cast.cm_a.pk}" in page.content.decode()
    client.force_login(cast.cm_a)
    assert client.get(reverse("admin:audit_auditevent_changelist")).status_code == 403
