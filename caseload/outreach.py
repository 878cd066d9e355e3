"""Case managers' side of outreach: reminders for linked clients and their release plan.

Scoped like every caseload service (a client outside the user's caseload is "not found"). A
reminder a case manager adds still waits for the person's own YES before anything is sent.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from caseload import selectors
from caseload.errors import NotInCaseload, ReplyNotPossible
from caseload.models import Client
from caseload.services import actor_of
from conversations.models import Contact, Conversation
from conversations.services import conversation_create
from outreach.models import Reminder
from outreach.services import ReminderAsk, ReminderRefused, plan_send_sms, reminder_request
from plans.selectors import plan_build, plan_request_make
from plans.types import ReleasePlan

_REFUSALS = {
    "opted_out": "This person replied STOP; no reminder can be set until they text START.",
    "past": "That time has already passed.",
    "too_soon": "That is too soon for a reminder (the last text would go out after it).",
    "too_many": "This person already has 20 active reminders.",
    "no_sms": "This client has no SMS number linked.",
}


def _client(user: Any, client_id: object) -> Client:
    client = selectors.client_queryset(user=user).filter(pk=client_id).first()  # type: ignore[misc]  # ids arrive untyped from admin URLs
    if client is None:
        raise NotInCaseload("No such client in your caseload.")
    return client


def _sms_thread(client: Client) -> tuple[Contact, Conversation]:
    contact = (
        Contact.objects.select_for_update()
        .filter(client_link__client=client, channel="sms")
        .exclude(phone_hash="")
        .first()
    )
    if contact is None:
        raise ReplyNotPossible(_REFUSALS["no_sms"])
    conversation = contact.conversations.filter(channel="sms").order_by("-created_at").first()
    if conversation is None:
        conversation, _token = conversation_create(channel="sms", contact=contact, language=contact.language)
    return contact, conversation


def client_reminder_add(
    *, client_id: object, user: Any, label: str, due_at: dt.datetime, now: dt.datetime | None = None
) -> Reminder:
    """Add a reminder for a linked client; the person is texted to confirm it (YES) before any send."""
    now = now or timezone.now()
    text = (label or "").strip()
    if not text:
        raise ReplyNotPossible("Say what the reminder is for.")
    with transaction.atomic(durable=True):
        client = _client(user, client_id)
        contact, conversation = _sms_thread(client)
        try:
            result = reminder_request(
                contact=contact,
                conversation=conversation,
                text=text,
                now=now,
                language=conversation.language or contact.language,
                created_by=actor_of(user),
                due_at=due_at,
                label=text[:60],
            )
        except ReminderRefused as refused:
            raise ReplyNotPossible(_REFUSALS.get(refused.code, "This reminder cannot be set.")) from None
        assert not isinstance(result, ReminderAsk)  # noqa: S101 - a due_at was given, so nothing is left to ask
        audit_event_record(
            action="caseload.reminder_added",
            actor=actor_of(user),
            object_type="client",
            object_id=client.pk,
            data={"reminder": str(result.pk)},
        )
    return result


def client_plan(
    *,
    client_id: object,
    user: Any,
    destination: str,
    needs: tuple[str, ...] = (),
    language: str = "en",
    today: dt.date | None = None,
) -> ReleasePlan:
    """The release plan of a client (their release date and supervision type) for a pre-release meeting."""
    client = _client(user, client_id)
    if client.release_date is None:
        raise ReplyNotPossible("Enter the client's release date first.")
    request = plan_request_make(
        release_date=client.release_date,
        destination=destination,
        supervision=client.supervision_type,
        needs=needs,
        language=language,
        today=today,
    )
    return plan_build(request=request)


def client_plan_send_sms(
    *, client_id: object, user: Any, destination: str, language: str = "en", now: dt.datetime | None = None
) -> int:
    """Text the client's plan in parts (a case manager's own approved messages); returns the parts queued."""
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        client = _client(user, client_id)
        if client.release_date is None:
            raise ReplyNotPossible("Enter the client's release date first.")
        contact, conversation = _sms_thread(client)
        if contact.opted_out:
            raise ReplyNotPossible(_REFUSALS["opted_out"])
        request = plan_request_make(
            release_date=client.release_date,
            destination=destination,
            supervision=client.supervision_type,
            language=language,
            today=min(client.release_date, now.date()),
        )
        parts = plan_send_sms(conversation=conversation, request=request, now=now, created_by=actor_of(user))
        audit_event_record(
            action="caseload.plan_sent",
            actor=actor_of(user),
            object_type="client",
            object_id=client.pk,
            data={"parts": parts},
        )
    return parts
