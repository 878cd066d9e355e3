"""Alerts when a conversation needs a person, and escalations past the service level; driven by Celery beat.

`alerts_check(now=)` is idempotent: every alert has a key naming its event (the crisis turn, the
waiting message, …) that is unique in the database, so a second run, a second beat or a retried
task records and emails nothing twice. Each new alert writes an audit event (content-free) and an
email through Django's email framework (no message text in it: a link to the inbox thread only).

Audience: the client's case manager, else the on-call group (users with `view_oncall_queue`).
Escalations go to supervisors (`view_all_clients`): an approval waiting longer than
APPROVAL_SLA_MINUTES of office time, or an open crisis nobody marked handled within
CRISIS_ESCALATION_MINUTES. An alert stays open (the admin badge counts it) until its reason is gone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from audit.services import audit_event_record
from caseload import priority as priority_rules
from caseload import selectors
from caseload.inbox.selectors import annotate_inbox, needs_person
from caseload.models import Alert
from caseload.office_hours import configured_office_hours, office_minutes_between
from conversations.models import Conversation

logger = logging.getLogger(__name__)

# Keyed by str: Alert.kind reads back from the database as a plain str (Kind members are equal to it).
SUBJECTS: dict[str, str] = {
    Alert.Kind.CRISIS: "Pathways: a crisis needs a person",
    Alert.Kind.ASKED_FOR_PERSON: "Pathways: someone asked for a person",
    Alert.Kind.APPROVAL_WAITING: "Pathways: a reply is waiting for approval",
    Alert.Kind.UNANSWERED: "Pathways: an unanswered message in your staff thread",
    Alert.Kind.SLA_BREACH: "Pathways escalation: a reply has waited past the service level",
    Alert.Kind.CRISIS_UNHANDLED: "Pathways escalation: a crisis is not marked handled",
}


@dataclass
class CheckResult:
    created: list[str] = field(default_factory=list)  # alert keys recorded by this run
    resolved: int = 0


def _stamp(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%S.%f") if moment else "-"


def _key(kind: str, conversation_id: object, event: str) -> str:
    return f"{kind}:{conversation_id}:{event}"[:200]


def _users_with(perm_codename: str) -> Any:
    app_label, codename = perm_codename.split(".")
    granted = Q(groups__permissions__codename=codename, groups__permissions__content_type__app_label=app_label) | Q(
        user_permissions__codename=codename, user_permissions__content_type__app_label=app_label
    )
    return get_user_model().objects.filter(Q(is_superuser=True) | granted, is_active=True, is_staff=True).distinct()


def recipients(alert: Alert) -> list[str]:
    """Email addresses of an alert's audience (users without an address see the badge only)."""
    if alert.audience == Alert.Audience.ASSIGNED:
        # An assigned alert whose user is gone (user_id NULL) has no one to email, as filter(pk=None) would say.
        user_model = get_user_model()
        users = (
            user_model.objects.filter(pk=alert.user_id, is_active=True)
            if alert.user_id is not None
            else user_model.objects.none()
        )
    elif alert.audience == Alert.Audience.ONCALL:
        users = _users_with(selectors.PERM_ONCALL)
    else:
        users = _users_with(selectors.PERM_ALL)
    return sorted({user.email for user in users if user.email})


def _thread_url(conversation_id: object) -> str:
    path = reverse("admin:caseload_inbox_thread", args=[conversation_id])
    base = (getattr(settings, "PUBLIC_BASE_URL", None) or "").rstrip("/")
    return f"{base}{path}" if base else path


def _record(
    *, key: str, conversation: Any, kind: str, audience: str, user_id: Any, event_at: datetime, now: datetime
) -> Alert | None:
    """Insert the alert once; None when its key exists already (another run recorded it)."""
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                key=key,
                conversation_id=conversation.pk,
                kind=kind,
                audience=audience,
                user_id=user_id,
                event_at=event_at or now,
                created_at=now,
            )
            audit_event_record(
                action="caseload.alert_raised",
                actor="system",
                object_type="conversation",
                object_id=conversation.pk,
                data={"alert": str(alert.pk), "kind": kind, "audience": audience},
            )
    except IntegrityError:
        return None
    return alert


def _send(alert: Alert) -> None:
    to = recipients(alert)
    if not to:
        return
    body = (
        f"{SUBJECTS[alert.kind]}.\n\nOpen the conversation in the Pathways inbox: {_thread_url(alert.conversation_id)}\n\n"
        "(No message content is sent by email.)"
    )
    try:
        sent = send_mail(SUBJECTS[alert.kind], body, settings.DEFAULT_FROM_EMAIL, to, fail_silently=False)
    except Exception:
        logger.exception("alert %s: email failed", alert.pk)
        return
    Alert.objects.filter(pk=alert.pk).update(emailed_to=len(to) if sent else 0)


def _audience(conversation: Any) -> tuple[str, Any]:
    try:
        manager_id = conversation.contact.client_link.client.case_manager_id
    except Exception:  # noqa: BLE001 - no linked client
        manager_id = None
    return (Alert.Audience.ASSIGNED, manager_id) if manager_id else (Alert.Audience.ONCALL, None)


def _wanted(
    conversation: Any, *, now: datetime, hours: Any, sla: int, crisis_limit: timedelta
) -> list[tuple[str, str, str, Any, datetime]]:
    """The alerts one inbox conversation calls for now: (kind, event stamp, audience, user id, event time)."""
    tier = priority_rules.Tier(conversation.in_tier)
    audience, user_id = _audience(conversation)
    wanted: list[tuple[str, str, str, Any, datetime]] = []
    if tier == priority_rules.Tier.OPEN_CRISIS:
        event = _stamp(conversation.in_crisis_at)
        wanted.append((Alert.Kind.CRISIS, event, audience, user_id, conversation.in_crisis_at))
        if now - conversation.in_crisis_at >= crisis_limit:
            wanted.append(
                (Alert.Kind.CRISIS_UNHANDLED, event, Alert.Audience.SUPERVISORS, None, conversation.in_crisis_at)
            )
    elif conversation.needs_human and conversation.needs_human_reason == "asked_for_human":
        event = _stamp(conversation.in_last_turn_at)
        wanted.append((Alert.Kind.ASKED_FOR_PERSON, event, audience, user_id, conversation.in_last_turn_at))
    elif conversation.in_unanswered_staff:
        event = _stamp(conversation.in_first_unanswered)
        wanted.append((Alert.Kind.UNANSWERED, event, audience, user_id, conversation.in_first_unanswered))
    if conversation.in_oldest_pending is not None:
        event = _stamp(conversation.in_oldest_pending)
        if tier == priority_rules.Tier.APPROVAL_WAITING:
            wanted.append((Alert.Kind.APPROVAL_WAITING, event, audience, user_id, conversation.in_oldest_pending))
        # The service level counts office minutes only: a reply waiting overnight is not "late" at 9:01.
        if office_minutes_between(conversation.in_oldest_pending, now, hours) >= sla:
            wanted.append(
                (Alert.Kind.SLA_BREACH, event, Alert.Audience.SUPERVISORS, None, conversation.in_oldest_pending)
            )
    return wanted


def alerts_check(*, now: datetime | None = None) -> CheckResult:
    """Record (once) and send every alert now due, escalate what is past its limit, resolve what is answered."""
    now = now or timezone.now()
    hours = configured_office_hours()
    sla = int(settings.APPROVAL_SLA_MINUTES)
    crisis_limit = timedelta(minutes=int(settings.CRISIS_ESCALATION_MINUTES))
    result = CheckResult()
    new: list[Alert] = []
    open_keys: set[str] = set()
    conversations = (
        annotate_inbox(Conversation.objects.all())
        .filter(needs_person())
        .select_related("contact", "contact__client_link__client")
    )
    for conversation in conversations:
        wanted = _wanted(conversation, now=now, hours=hours, sla=sla, crisis_limit=crisis_limit)
        for kind, event, who, user, event_at in wanted:
            key = _key(kind, conversation.pk, event)
            open_keys.add(key)
            alert = _record(
                key=key, conversation=conversation, kind=kind, audience=who, user_id=user, event_at=event_at, now=now
            )
            if alert is not None:
                new.append(alert)
                result.created.append(key)
    # Whatever is no longer wanted has been answered (approved, handled, replied to): close it.
    stale = Alert.objects.filter(resolved_at__isnull=True).exclude(key__in=open_keys)
    result.resolved = stale.update(resolved_at=now)
    for alert in new:
        _send(alert)
    if new or result.resolved:
        from conversations.staff import inbox_notify

        for conversation_id in {str(alert.conversation_id) for alert in new}:
            inbox_notify(conversation_id, "alert")
    return result
