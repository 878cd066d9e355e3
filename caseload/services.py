"""Writes of the caseload app: take over / hand back, case-manager replies, queue decisions, clients.

Every function checks the user's permission and that the object is in their caseload (through the
same selectors the admin uses), then writes with an audit event. Sending always goes through the
SMS services of `conversations`, never around them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from caseload import selectors
from caseload.errors import ModeConflict, NotInCaseload, NotPermitted, ReplyNotPossible
from caseload.models import Client, ClientContact
from conversations.models import Contact, Conversation, OutboundMessage

MAX_REPLY_CHARS = 1600  # Twilio's limit for one outbound message body


def actor_of(user: Any) -> str:
    """The content-free actor string of audit events."""
    return f"user:{user.pk}"


def _require(user: Any, perm: str) -> None:
    if not (user and user.is_authenticated and user.is_active and user.has_perm(perm)):
        raise NotPermitted("You do not have permission to do this.")


def _conversation_for(user: Any, conversation_id: object, *, lock: bool = False) -> Conversation:
    queryset = selectors.conversation_queryset(user=user)
    if lock:
        queryset = queryset.select_for_update(of=("self",))
    try:
        return queryset.get(pk=conversation_id)  # type: ignore[misc]  # any id from a request: a bad one is refused below
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise NotInCaseload("This conversation is not in your caseload.") from None


def _message_for(user: Any, message_id: object) -> OutboundMessage:
    try:
        return selectors.outbound_queryset(user=user).get(pk=message_id)  # type: ignore[misc]  # any id from a request: a bad one is refused below
    except (OutboundMessage.DoesNotExist, ValueError, TypeError):
        raise NotInCaseload("This message is not in your caseload.") from None


def conversation_take_over(*, conversation_id: object, user: Any) -> Conversation:
    """Give the conversation to a person: no automated reply goes out until it is handed back."""
    _require(user, selectors.PERM_TAKE_OVER)
    with transaction.atomic(durable=True):
        conversation = _conversation_for(user, conversation_id, lock=True)
        if conversation.mode == Conversation.Mode.HUMAN:
            raise ModeConflict(f"{conversation.mode_changed_by or 'Someone'} already has this conversation.")
        cleared = conversation.needs_human_reason
        conversation.mode = Conversation.Mode.HUMAN
        conversation.mode_changed_by = user.get_username()
        conversation.mode_changed_at = timezone.now()
        # The person who asked for a human (or had a crisis) now has one: the flag is answered.
        conversation.needs_human = False
        conversation.needs_human_reason = ""
        conversation.save(
            update_fields=[
                "mode",
                "mode_changed_by",
                "mode_changed_at",
                "needs_human",
                "needs_human_reason",
                "updated_at",
            ]
        )
        audit_event_record(
            action="conversation.taken_over",
            actor=actor_of(user),
            object_type="conversation",
            object_id=conversation.pk,
            data={"cleared_flag": cleared},
        )
    return conversation


def conversation_hand_back(*, conversation_id: object, user: Any) -> Conversation:
    """Return the conversation to the navigator."""
    _require(user, selectors.PERM_TAKE_OVER)
    with transaction.atomic(durable=True):
        conversation = _conversation_for(user, conversation_id, lock=True)
        if conversation.mode != Conversation.Mode.HUMAN:
            raise ModeConflict("The navigator already has this conversation.")
        held_by = conversation.mode_changed_by
        conversation.mode = Conversation.Mode.NAVIGATOR
        conversation.mode_changed_by = user.get_username()
        conversation.mode_changed_at = timezone.now()
        conversation.save(update_fields=["mode", "mode_changed_by", "mode_changed_at", "updated_at"])
        audit_event_record(
            action="conversation.handed_back",
            actor=actor_of(user),
            object_type="conversation",
            object_id=conversation.pk,
            data={"held_by_self": held_by == user.get_username()},
        )
    return conversation


def conversation_flag_clear(*, conversation_id: object, user: Any) -> Conversation:
    """Mark a flagged conversation as seen without taking it over (e.g. the case manager called them)."""
    _require(user, selectors.PERM_TAKE_OVER)
    with transaction.atomic(durable=True):
        conversation = _conversation_for(user, conversation_id, lock=True)
        reason = conversation.needs_human_reason
        conversation.needs_human = False
        conversation.needs_human_reason = ""
        conversation.save(update_fields=["needs_human", "needs_human_reason", "updated_at"])
        audit_event_record(
            action="conversation.flag_cleared",
            actor=actor_of(user),
            object_type="conversation",
            object_id=conversation.pk,
            data={"reason": reason},
        )
    return conversation


def conversation_reply_sms(*, conversation_id: object, user: Any, body: str) -> OutboundMessage:
    """Send a case manager's own SMS: an approved `human` message in the outbox, sent after commit."""
    _require(user, selectors.PERM_TAKE_OVER)
    text = (body or "").strip()
    if not text:
        raise ReplyNotPossible("Type a message first.")
    if len(text) > MAX_REPLY_CHARS:
        raise ReplyNotPossible(f"Messages are limited to {MAX_REPLY_CHARS} characters.")
    from conversations.sms.outbox import outbox_put

    with transaction.atomic(durable=True):
        conversation = _conversation_for(user, conversation_id, lock=True)
        contact = conversation.contact
        if conversation.channel != "sms" or not contact.phone_hash:
            raise ReplyNotPossible("This conversation is on web chat; there is no number to text.")
        if contact.opted_out:
            raise ReplyNotPossible("This person replied STOP; no message can be sent until they text START.")
        message = outbox_put(
            conversation=conversation,
            body=text,
            kind=OutboundMessage.Kind.HUMAN,
            status=OutboundMessage.Status.APPROVED,
            actor=actor_of(user),
            approved_by=user.get_username(),
        )
        audit_event_record(
            action="caseload.reply_sent",
            actor=actor_of(user),
            object_type="outbound",
            object_id=message.pk,
            data={"conversation": str(conversation.pk), "chars": len(text)},
        )
    return message


# --- approval queue ------------------------------------------------------------------------


def _sms_services() -> Any:
    # The gateway module loads the twilio SDK: imported on first use, not at admin start-up.
    from conversations.sms import outbox

    return outbox


def queue_approve(*, message_id: object, user: Any, body: str | None = None, via: str = "queue") -> OutboundMessage:
    """Approve one waiting message (optionally with an edited body) through the SMS services."""
    _require(user, selectors.PERM_APPROVE)
    message = _message_for(user, message_id)
    edited = body is not None and body.strip() != "" and body.strip() != message.body.strip()
    approved = _sms_services().outbound_approve(
        message_id=message.pk, actor=user, body=body.strip() if edited and body else None
    )
    audit_event_record(
        action="caseload.outbound_approved",
        actor=actor_of(user),
        object_type="outbound",
        object_id=message.pk,
        data={"via": via, "edited": edited, "crisis": message.crisis},
    )
    return approved


def queue_reject(*, message_id: object, user: Any, reason: str) -> OutboundMessage:
    """Reject one waiting message with a reason (nothing is sent)."""
    _require(user, selectors.PERM_APPROVE)
    reason = (reason or "").strip()
    if not reason:
        raise ReplyNotPossible("Give a reason for rejecting this reply.")
    message = _message_for(user, message_id)
    rejected = _sms_services().outbound_reject(message_id=message.pk, actor=user, reason=reason[:300])
    audit_event_record(
        action="caseload.outbound_rejected",
        actor=actor_of(user),
        object_type="outbound",
        object_id=message.pk,
        data={"via": "queue", "reason_chars": len(reason)},
    )
    return rejected


@dataclass(frozen=True)
class BulkResult:
    approved: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]  # (message id, reason)


def queue_approve_bulk(*, message_ids: Iterable[object], user: Any) -> BulkResult:
    """Approve several messages as drafted; each is its own transaction, so one failure stops none."""
    _require(user, selectors.PERM_APPROVE)
    approved: list[str] = []
    failed: list[tuple[str, str]] = []
    for message_id in message_ids:
        try:
            queue_approve(message_id=message_id, user=user, via="bulk")
            approved.append(str(message_id))
        except Exception as exc:  # noqa: BLE001 - any domain error of one message is reported, the rest go on
            failed.append((str(message_id), getattr(exc, "message", None) or str(exc) or type(exc).__name__))
    return BulkResult(approved=tuple(approved), failed=tuple(failed))


# --- clients -------------------------------------------------------------------------------


def client_contact_link(*, client: Client, contact: Contact, user: Any) -> ClientContact:
    """Link a contact (web session or SMS number) to a client the user may edit."""
    _require(user, "caseload.change_client")
    if not selectors.client_queryset(user=user).filter(pk=client.pk).exists():
        raise NotInCaseload("This client is not in your caseload.")
    with transaction.atomic():
        existing = ClientContact.objects.select_for_update().filter(contact=contact).first()
        if existing is not None and existing.client_id != client.pk and not selectors.sees_all(user):
            # Moving a number between caseloads would hand one person's messages to another case manager.
            raise NotPermitted("This number is linked to another client; ask a supervisor to move it.")
        link, _ = ClientContact.objects.update_or_create(
            contact=contact, defaults={"client": client, "linked_by": user.get_username()}
        )
        audit_event_record(
            action="caseload.contact_linked",
            actor=actor_of(user),
            object_type="client",
            object_id=client.pk,
            data={"contact": str(contact.pk)},
        )
    return link


def client_phone_link(*, client: Client, phone: str, user: Any) -> str:
    """Ask the person to let this client's case manager see their texts (see caseload.phone_links).

    Returns the answer to show; it is the same whether or not the number has texted or is linked elsewhere.
    """
    from caseload.phone_links import phone_link_request

    return phone_link_request(client=client, phone=phone, user=user)
