"""Alerts: to the assigned case manager or on call, escalation at the service level (frozen clock), idempotent, audited."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core import mail

from audit.models import AuditEvent
from caseload.alerts import alerts_check
from caseload.inbox import selectors as inbox_selectors
from caseload.inbox import services as inbox_services
from caseload.models import Alert
from caseload.office_hours import office_hours_parse, office_minutes_between
from conversations.models import Conversation, OutboundMessage, Turn
from tests.caseload.factories import TurnFactory

pytestmark = pytest.mark.django_db
CHICAGO = ZoneInfo("America/Chicago")
TUESDAY_10 = datetime(2026, 12, 1, 10, 0, tzinfo=CHICAGO)


@pytest.fixture(autouse=True)
def _hours_and_mail(settings: Any, cast: Any) -> None:
    settings.OFFICE_HOURS = "Mon-Fri 09:00-17:00 America/Chicago"
    settings.APPROVAL_SLA_MINUTES = 30
    settings.CRISIS_ESCALATION_MINUTES = 10
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    for user, address in ((cast.cm_a, "cara@example.org"), (cast.supervisor, "sam@example.org")):
        user.email = address
        user.save(update_fields=["email"])
    # Only Alice's conversation is under test: the other rows of the cast do not wait.
    OutboundMessage.objects.exclude(conversation=cast.conv_a).delete()
    Conversation.objects.exclude(pk=cast.conv_a.pk).update(needs_human=False)


def _alerts(conversation: Any) -> list[tuple[str, str]]:
    return sorted(Alert.objects.filter(conversation=conversation).values_list("kind", "audience"))


def test_office_minutes_only_count_while_the_office_is_open() -> None:
    hours = office_hours_parse("Mon-Fri 09:00-17:00 America/Chicago")
    friday_4pm = datetime(2026, 12, 4, 16, 0, tzinfo=CHICAGO)
    monday_930 = datetime(2026, 12, 7, 9, 30, tzinfo=CHICAGO)
    assert office_minutes_between(friday_4pm, monday_930, hours) == 90
    assert office_minutes_between(TUESDAY_10, TUESDAY_10 + timedelta(minutes=29), hours) == 29


def test_an_approval_escalates_to_supervisors_exactly_at_the_service_level(cast: Any) -> None:
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(created_at=TUESDAY_10)
    first = alerts_check(now=TUESDAY_10 + timedelta(minutes=1))
    assert _alerts(cast.conv_a) == [("approval_waiting", "assigned")]
    assert [m.to for m in mail.outbox] == [["cara@example.org"]]
    assert f"/admin/caseload/inbox/{cast.conv_a.pk}/" in mail.outbox[0].body  # a link to the thread
    assert cast.turn_a.redacted_text not in mail.outbox[0].body  # no message content by email
    before_sla = alerts_check(now=TUESDAY_10 + timedelta(minutes=29, seconds=59))
    assert before_sla.created == [] and len(mail.outbox) == 1
    at_sla = alerts_check(now=TUESDAY_10 + timedelta(minutes=30))
    assert [key.split(":")[0] for key in at_sla.created] == ["sla_breach"]
    assert ("sla_breach", "supervisors") in _alerts(cast.conv_a)
    assert mail.outbox[-1].to == ["sam@example.org"] and "service level" in mail.outbox[-1].subject
    assert first.created and len(first.created) == 1


def test_the_check_is_idempotent_and_every_alert_is_audited_once(cast: Any) -> None:
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(created_at=TUESDAY_10)
    now = TUESDAY_10 + timedelta(minutes=45)
    alerts_check(now=now)
    alerts_check(now=now)
    alerts_check(now=now + timedelta(minutes=5))
    assert _alerts(cast.conv_a) == [("approval_waiting", "assigned"), ("sla_breach", "supervisors")]
    assert AuditEvent.objects.filter(action="caseload.alert_raised", object_id=str(cast.conv_a.pk)).count() == 2
    assert len(mail.outbox) == 2


def test_a_reply_waiting_overnight_escalates_half_an_hour_after_opening(cast: Any) -> None:
    monday_8pm = datetime(2026, 11, 30, 20, 0, tzinfo=CHICAGO)
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(created_at=monday_8pm)
    alerts_check(now=TUESDAY_10.replace(hour=9, minute=29))
    assert ("sla_breach", "supervisors") not in _alerts(cast.conv_a)
    alerts_check(now=TUESDAY_10.replace(hour=9, minute=30))
    assert ("sla_breach", "supervisors") in _alerts(cast.conv_a)


def test_a_crisis_alerts_at_once_and_escalates_when_nobody_marks_it_handled(cast: Any) -> None:
    OutboundMessage.objects.filter(conversation=cast.conv_a).delete()
    turn = TurnFactory(conversation=cast.conv_a, seq=2, crisis="suicide_self_harm")
    Turn.objects.filter(pk=turn.pk).update(created_at=TUESDAY_10)
    alerts_check(now=TUESDAY_10 + timedelta(seconds=30))
    assert _alerts(cast.conv_a) == [("crisis", "assigned")]
    alerts_check(now=TUESDAY_10 + timedelta(minutes=10))
    assert _alerts(cast.conv_a) == [("crisis", "assigned"), ("crisis_unhandled", "supervisors")]
    assert inbox_selectors.open_alerts(user=cast.supervisor).filter(conversation=cast.conv_a).count() == 1  # escalation
    assert inbox_selectors.open_alerts(user=cast.cm_a).count() == 1  # the badge counts the case manager's own
    assert inbox_selectors.open_alerts(user=cast.cm_b).count() == 0
    inbox_services.crisis_mark_handled(conversation_id=cast.conv_a.pk, user=cast.cm_a)
    assert inbox_selectors.open_alerts(user=cast.supervisor).filter(conversation=cast.conv_a).count() == 0


def test_an_unassigned_conversation_alerts_the_on_call_group(cast: Any) -> None:
    Conversation.objects.filter(pk=cast.oncall_conv.pk).update(needs_human=True, needs_human_reason="asked_for_human")
    TurnFactory(conversation=cast.oncall_conv, seq=1)
    alerts_check(now=TUESDAY_10)
    assert _alerts(cast.oncall_conv) == [("asked_for_person", "oncall")]
    assert "sam@example.org" in mail.outbox[-1].to  # supervisors hold the on-call permission
    assert inbox_selectors.open_alerts(user=cast.supervisor).filter(conversation=cast.oncall_conv).exists()


def test_answered_alerts_are_resolved_and_leave_the_badge(cast: Any) -> None:
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(created_at=TUESDAY_10)
    alerts_check(now=TUESDAY_10 + timedelta(minutes=1))
    assert inbox_selectors.open_alerts(user=cast.cm_a).count() == 1
    OutboundMessage.objects.filter(pk=cast.msg_a.pk).update(status=OutboundMessage.Status.REJECTED)
    result = alerts_check(now=TUESDAY_10 + timedelta(minutes=2))
    assert result.resolved == 1
    assert inbox_selectors.open_alerts(user=cast.cm_a).count() == 0


def test_the_beat_schedule_runs_the_check_often_enough_for_the_60_second_budget(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["caseload-alerts-check"]
    assert entry["task"] == "caseload.alerts_check" and float(entry["schedule"]) <= 30
    from caseload.tasks import alerts_check as task

    assert task.name == "caseload.alerts_check"
