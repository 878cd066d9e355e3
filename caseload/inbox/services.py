"""Writes from the inbox: staff replies on either channel, marking a crisis handled; each checks scope and audits.

Approve / reject / take over / hand back reuse caseload.services (same checks, same audit events);
this module adds what the inbox needs on top and notifies the other open inboxes.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from caseload import selectors
from caseload.errors import NotInCaseload, ReplyNotPossible
from caseload.models import Alert, CrisisHandled
from caseload.services import _conversation_for, _require, actor_of
from conversations.models import StaffMessage, Turn
from conversations.staff import StaffReplyRefused, inbox_notify_on_commit, staff_message_create


def conversation_reply(
    *, conversation_id: UUID | str, user: Any, body: str | None, idempotency_key: str
) -> StaffMessage:
    """A case manager's reply on the conversation's own channel (web: shown in the chat page; SMS: the outbox).

    Outside the user's scope answers like a missing conversation (404). A repeated key (double-click,
    retried post) returns the first message; nothing is sent twice.
    """
    _require(user, selectors.PERM_TAKE_OVER)
    if not selectors.conversation_queryset(user=user).filter(pk=conversation_id).exists():
        raise NotInCaseload("This conversation is not in your caseload.")
    try:
        with transaction.atomic(durable=True):
            message, created = staff_message_create(
                conversation_id=conversation_id,
                author=user,
                body=body,
                idempotency_key=idempotency_key,
                actor=actor_of(user),
            )
            if created:
                # Someone answered: alerts about unanswered messages in this conversation are resolved.
                Alert.objects.filter(
                    conversation_id=conversation_id,
                    resolved_at__isnull=True,
                    kind__in=[Alert.Kind.UNANSWERED, Alert.Kind.ASKED_FOR_PERSON],
                ).update(resolved_at=timezone.now())
    except StaffReplyRefused as exc:
        raise ReplyNotPossible(exc.message) from None
    return message


def crisis_mark_handled(*, conversation_id: UUID | str, user: Any) -> CrisisHandled:
    """Close the crisis tier for what was seen: crisis turns up to now no longer lead the inbox (audited)."""
    _require(user, selectors.PERM_TAKE_OVER)
    with transaction.atomic(durable=True):
        conversation = _conversation_for(user, conversation_id, lock=True)
        if not Turn.objects.filter(conversation=conversation).exclude(crisis="none").exists():
            raise ReplyNotPossible("This conversation has no crisis to mark handled.")
        now = timezone.now()
        mark, _ = CrisisHandled.objects.update_or_create(
            conversation=conversation, defaults={"handled_at": now, "handled_by": user.get_username()}
        )
        resolved = Alert.objects.filter(
            conversation=conversation,
            resolved_at__isnull=True,
            kind__in=[Alert.Kind.CRISIS, Alert.Kind.CRISIS_UNHANDLED],
        ).update(resolved_at=now)
        if conversation.needs_human and conversation.needs_human_reason == "crisis":
            conversation.needs_human, conversation.needs_human_reason = False, ""
            conversation.save(update_fields=["needs_human", "needs_human_reason", "updated_at"])
        audit_event_record(
            action="caseload.crisis_handled",
            actor=actor_of(user),
            object_type="conversation",
            object_id=conversation.pk,
            data={"alerts_resolved": resolved},
        )
        inbox_notify_on_commit(conversation.pk, "crisis_handled")
    return mark
