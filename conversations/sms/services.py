"""Writes of the SMS gateway: recording inbound webhooks, keywords, the rate limit, approvals, delivery status.

The webhook path (`inbound_receive`) records and decides; it never runs the workflow. Turns and sends
leave through `transaction.on_commit`, as ids, to `conversations.background.task_dispatch` (a Celery
worker, or a bounded thread pool when Celery is eager).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from audit.services import audit_event_record
from conversations import crypto
from conversations.background import task_dispatch
from conversations.errors import ConversationError
from conversations.hooks import detect_crisis, redact
from conversations.models import Contact, Conversation, InboundSms, OutboundMessage
from conversations.services import (
    MAX_MESSAGE_CHARS,
    contact_for_phone,
    conversation_create,
    outbound_enqueue,
    turn_start,
)
from conversations.sms.errors import OutboundNotPending, RejectionNeedsReason, UnknownOutbound
from conversations.sms.texts import keyword_match, text_for

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status
Kind = OutboundMessage.Kind

# Statuses a delivery report may move a message between, in the order they happen.
_DELIVERY_RANK: Final = {Status.SENDING: 0, Status.SENT: 1, Status.DELIVERED: 2, Status.UNDELIVERED: 2, Status.FAILED: 2}
_TWILIO_STATUS: Final = {
    "sent": Status.SENT,
    "delivered": Status.DELIVERED,
    "read": Status.DELIVERED,
    "undelivered": Status.UNDELIVERED,
    "failed": Status.FAILED,
    "canceled": Status.FAILED,
}
CARRIER_OPT_OUT_CODE: Final = "21610"


@dataclass(frozen=True)
class InboundResult:
    inbound_id: str | None
    outcome: str
    duplicate: bool = False
    turn_id: str | None = None


def rate_limit() -> tuple[int, timedelta]:
    """(messages allowed, window) per number; settings SMS_RATE_LIMIT_COUNT / SMS_RATE_LIMIT_WINDOW_SECONDS."""
    count = int(getattr(settings, "SMS_RATE_LIMIT_COUNT", 6))
    seconds = float(getattr(settings, "SMS_RATE_LIMIT_WINDOW_SECONDS", 60))
    return count, timedelta(seconds=seconds)


def _is_duplicate(message_sid: str, token: str) -> bool:
    query = Q(message_sid=message_sid)
    if token:
        query |= Q(idempotency_token=token)
    return InboundSms.objects.filter(query).exists()


def _sms_conversation(contact: Contact) -> Conversation:
    """The number's SMS thread (one per contact); the caller holds the contact's row lock."""
    conversation = contact.conversations.filter(channel="sms").order_by("-created_at").first()
    if conversation is None:
        conversation, _token = conversation_create(channel="sms", contact=contact, language=contact.language)
    return conversation


def inbound_receive(
    *, message_sid: str, from_number: str, body: str, idempotency_token: str = "", received_at: datetime | None = None
) -> InboundResult:
    """Record one signed inbound SMS exactly once and decide what it is (keyword, turn, held); never runs a turn.

    Duplicate deliveries (same MessageSid or Twilio idempotency token) return `duplicate=True` and
    change nothing. Webhooks from one number are serialised on the contact's row lock, which makes
    the duplicate check, the rate-limit count and keyword transitions exact; the unique constraints
    are the backstop.
    """
    now = received_at or timezone.now()
    token = (idempotency_token or "")[:100]
    if _is_duplicate(message_sid, token):  # the common retry, answered without taking any lock
        return InboundResult(None, "duplicate", duplicate=True)
    e164 = crypto.normalize_phone(from_number)
    body = (body or "").strip()
    try:
        with transaction.atomic(durable=True):
            return _receive_locked(message_sid=message_sid, token=token, e164=e164, body=body, now=now)
    except IntegrityError:
        # A concurrent delivery of the same message committed first (the unique MessageSid or token):
        # everything this one did is rolled back.
        if _is_duplicate(message_sid, token):
            return InboundResult(None, "duplicate", duplicate=True)
        raise


def _receive_locked(*, message_sid: str, token: str, e164: str, body: str, now: datetime) -> InboundResult:
    contact = Contact.objects.select_for_update().filter(phone_hash=crypto.phone_hash(e164)).first()
    if contact is None:
        created, _ = contact_for_phone(phone=e164)
        contact = Contact.objects.select_for_update().get(pk=created.pk)
    conversation = _sms_conversation(contact)
    match = keyword_match(body) if body else None
    inbound = InboundSms(message_sid=message_sid, idempotency_token=token, contact=contact, conversation=conversation, received_at=now)
    turn_id = None
    if match is not None:
        inbound.outcome, inbound.keyword, inbound.redacted_body = InboundSms.Outcome.KEYWORD, match[2], match[2]
        inbound.processed, inbound.processed_at = True, now
    elif not body:
        inbound.outcome, inbound.processed, inbound.processed_at = InboundSms.Outcome.EMPTY, True, now
    else:
        inbound.crisis = detect_crisis(body).category
        limit, window = rate_limit()
        recent = (
            InboundSms.objects.filter(contact=contact, received_at__gte=now - window)
            .exclude(outcome=InboundSms.Outcome.KEYWORD)
            .count()
        )
        # A crisis is never held back by the rate limit.
        if recent >= limit and inbound.crisis == "none":
            inbound.outcome, inbound.redacted_body = InboundSms.Outcome.HELD, redact(body).text
        else:
            inbound.outcome = InboundSms.Outcome.TURN
            turn_id = _turn_for(inbound, text=body[:MAX_MESSAGE_CHARS], now=now)
    # Inserted after the turn so the row is written once; a duplicate fails here and rolls it all back.
    inbound.save(force_insert=True)
    if match is not None:
        _keyword_apply(contact=contact, conversation=conversation, action=match[0], language=match[1], now=now)
    elif inbound.outcome == InboundSms.Outcome.HELD:
        _rate_notice(contact=contact, conversation=conversation, now=now)
    return InboundResult(str(inbound.pk), inbound.outcome, turn_id=turn_id)


def _turn_for(inbound: InboundSms, *, text: str, now: datetime) -> str:
    """Start the turn (ingress hooks on the raw text, only redacted text stored) and queue its run.

    Sets the turn on `inbound` without saving it: the caller writes the row.
    """
    conversation = inbound.conversation
    turn, created = turn_start(
        conversation=conversation, text=text, idempotency_key=f"sms:{inbound.message_sid}", language=conversation.language, channel="sms"
    )
    inbound.turn, inbound.processed, inbound.processed_at = turn, True, now
    inbound.redacted_body = turn.redacted_text
    turn_id = str(turn.pk)
    if created:
        transaction.on_commit(lambda: _dispatch_turn(turn_id))
    return turn_id


def _dispatch_turn(turn_id: str) -> None:
    from conversations.tasks import run_turn

    task_dispatch(run_turn, turn_id)


def _dispatch_send(message_id: str) -> None:
    from conversations.tasks import outbound_send

    task_dispatch(outbound_send, message_id)


def _outbox_put(*, conversation: Conversation, kind: str, purpose: str, body: str) -> OutboundMessage:
    """Queue a fixed text (keyword answer, notice); opted-out numbers get only the opt-out confirmation."""
    opted_out = Contact.objects.filter(pk=conversation.contact_id).values_list("opted_out", flat=True).first()
    status = Status.SUPPRESSED if opted_out and purpose != "opt_out_confirmation" else Status.APPROVED
    message = OutboundMessage.objects.create(
        conversation=conversation, kind=kind, purpose=purpose, body=body, draft_body=body, status=status
    )
    audit_event_record(
        action="outbound.created", object_type="outbound", object_id=message.pk, data={"status": status, "kind": kind, "purpose": purpose}
    )
    if status == Status.APPROVED:
        message_id = str(message.pk)
        transaction.on_commit(lambda: _dispatch_send(message_id))
    return message


def _keyword_apply(*, contact: Contact, conversation: Conversation, action: str, language: str | None, now: datetime) -> None:
    lang = language or conversation.language or contact.language
    if language and contact.language != language:
        Contact.objects.filter(pk=contact.pk).update(language=language)
    if action == "stop":
        # Only the transition sends a confirmation: repeated STOPs get exactly one answer.
        if Contact.objects.filter(pk=contact.pk, opted_out=False).update(opted_out=True, opted_out_at=now):
            withdrawn = OutboundMessage.objects.filter(
                conversation__contact=contact, status__in=[Status.PENDING_APPROVAL, Status.APPROVED, Status.SUGGESTED], claimed_at=None
            ).update(status=Status.SUPPRESSED)
            audit_event_record(action="sms.opted_out", object_type="contact", object_id=contact.pk, data={"withdrawn": withdrawn})
            _outbox_put(conversation=conversation, kind=Kind.KEYWORD, purpose="opt_out_confirmation", body=text_for("opt_out_confirmation", lang))
    elif action == "start":
        if Contact.objects.filter(pk=contact.pk, opted_out=True).update(opted_out=False, opted_out_at=None):
            audit_event_record(action="sms.opted_in", object_type="contact", object_id=contact.pk)
        _outbox_put(conversation=conversation, kind=Kind.KEYWORD, purpose="opt_in_confirmation", body=text_for("opt_in_confirmation", lang))
    elif action == "help":
        _outbox_put(conversation=conversation, kind=Kind.KEYWORD, purpose="help", body=text_for("help", lang))
    elif action == "more":
        _more(conversation=conversation, language=lang)


def _more(*, conversation: Conversation, language: str) -> None:
    """Send the next part of the last shortened reply, once."""
    last = (
        OutboundMessage.objects.filter(conversation=conversation, status__in=[Status.SENT, Status.DELIVERED])
        .exclude(remainder="")
        .order_by("-sent_at")
        .first()
    )
    # Claiming the remainder with a conditional update: two MOREs never send the same part twice.
    if last is not None and OutboundMessage.objects.filter(pk=last.pk, remainder=last.remainder).update(remainder="") == 1:
        message = OutboundMessage.objects.create(
            conversation=conversation, turn=last.turn, kind=last.kind, purpose="more", body=last.remainder,
            draft_body=last.remainder, status=Status.APPROVED, approved_by=last.approved_by, approved_at=last.approved_at,
        )
        audit_event_record(action="outbound.created", object_type="outbound", object_id=message.pk, data={"status": message.status, "kind": message.kind, "purpose": "more"})
        message_id = str(message.pk)
        transaction.on_commit(lambda: _dispatch_send(message_id))
        return
    _outbox_put(conversation=conversation, kind=Kind.KEYWORD, purpose="more_none", body=text_for("more_none", language))


def _rate_notice(*, contact: Contact, conversation: Conversation, now: datetime) -> None:
    """One polite notice per window; the held messages themselves wait for `inbound_process_held`."""
    _limit, window = rate_limit()
    fresh = Q(sms_rate_notice_at__isnull=True) | Q(sms_rate_notice_at__lt=now - window)
    if Contact.objects.filter(fresh, pk=contact.pk).update(sms_rate_notice_at=now):
        audit_event_record(action="sms.rate_limited", object_type="contact", object_id=contact.pk)
        _outbox_put(conversation=conversation, kind=Kind.NOTICE, purpose="rate_limit", body=text_for("rate_limit", conversation.language))


def inbound_process_held(*, now: datetime | None = None, batch: int = 50) -> int:
    """Turn messages held by the rate limit into turns once their window has passed (oldest first)."""
    now = now or timezone.now()
    _limit, window = rate_limit()
    processed = 0
    with transaction.atomic(durable=True):
        rows = list(
            InboundSms.objects.select_for_update(skip_locked=True)
            .select_related("conversation")
            .filter(outcome=InboundSms.Outcome.HELD, processed=False, received_at__lt=now - window)
            .order_by("received_at")[:batch]
        )
        for inbound in rows:
            # The raw text was never stored: the turn starts from the redacted body.
            _turn_for(inbound, text=inbound.redacted_body or "(empty)", now=now)
            inbound.save(update_fields=["turn", "processed", "processed_at", "redacted_body"])
            processed += 1
    return processed


def _actor_name(actor: object) -> str:
    return str(getattr(actor, "get_username", lambda: actor)())[:150]


def outbound_approve(*, message_id: object, actor: object, body: str | None = None) -> OutboundMessage:
    """Approve (optionally edit) a pending reply or a human-mode suggestion; the send is queued on commit."""
    name = _actor_name(actor)
    # Not durable: the caseload admin calls this inside its own transaction (the send still waits for
    # the outermost commit through on_commit).
    with transaction.atomic():
        message = OutboundMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise UnknownOutbound("This message does not exist.")
        if message.status not in (Status.PENDING_APPROVAL, Status.SUGGESTED):
            raise OutboundNotPending(f"This message is {message.get_status_display().lower()}, not waiting for approval.")
        edited = body is not None and body.strip() != message.body.strip()
        if body is not None:
            if not body.strip():
                raise ConversationError("An approved message cannot be empty.", code="empty_message")
            message.body = body.strip()
        if message.status == Status.SUGGESTED:
            # In human mode only a case manager's own messages go out: approving makes it theirs.
            message.kind = Kind.HUMAN
        opted_out = Contact.objects.filter(conversations=message.conversation_id).values_list("opted_out", flat=True).first()
        message.status = Status.SUPPRESSED if opted_out else Status.APPROVED
        message.approved_by, message.approved_at = name, timezone.now()
        message.save(update_fields=["body", "kind", "status", "approved_by", "approved_at", "updated_at"])
        audit_event_record(
            action="outbound.approved", actor=name, object_type="outbound", object_id=message.pk,
            data={"edited": edited, "kind": message.kind, "status": message.status},
        )
        if message.status == Status.APPROVED:
            approved_id = str(message.pk)
            transaction.on_commit(lambda: outbound_enqueue(message_id=approved_id))
    return message


def outbound_reject(*, message_id: object, actor: object, reason: str) -> OutboundMessage:
    """Reject a pending reply or suggestion with a reason (kept on the row, not in the audit log)."""
    name = _actor_name(actor)
    if not (reason or "").strip():
        raise RejectionNeedsReason("Please give a reason for rejecting this message.")
    # Not durable: the caseload admin calls this inside its own transaction (the send still waits for
    # the outermost commit through on_commit).
    with transaction.atomic():
        message = OutboundMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise UnknownOutbound("This message does not exist.")
        if message.status not in (Status.PENDING_APPROVAL, Status.SUGGESTED):
            raise OutboundNotPending(f"This message is {message.get_status_display().lower()}, not waiting for approval.")
        message.status, message.rejection_reason = Status.REJECTED, reason.strip()[:300]
        message.save(update_fields=["status", "rejection_reason", "updated_at"])
        audit_event_record(action="outbound.rejected", actor=name, object_type="outbound", object_id=message.pk, data={"kind": message.kind})
    return message


def outbound_status_record(*, message_sid: str, status: str, error_code: str = "", message_id: str | None = None) -> OutboundMessage | None:
    """Apply a Twilio delivery report; statuses only move forward (a late 'sent' never undoes 'delivered')."""
    query = OutboundMessage.objects.select_for_update().select_related("conversation")
    with transaction.atomic(durable=True):
        message = None
        if message_id:
            message = query.filter(pk=message_id).first()
        if message is None and message_sid:
            message = query.filter(provider_sid=message_sid).first()
        if message is None or (message.provider_sid and message_sid and message.provider_sid != message_sid):
            logger.info("status callback for an unknown message %s", message_sid[-8:])
            return None
        fields = ["provider_status", "updated_at"]
        message.provider_status = status[:20]
        if not message.provider_sid and message_sid:
            message.provider_sid = message_sid[:64]
            fields.append("provider_sid")
        target = _TWILIO_STATUS.get(status)
        current = _DELIVERY_RANK.get(message.status)
        if target is not None and current is not None and _DELIVERY_RANK[target] > current:
            message.status = target
            fields.append("status")
        if error_code:
            message.error_code = error_code[:20]
            fields.append("error_code")
        message.save(update_fields=fields)
        if target in (Status.UNDELIVERED, Status.FAILED):
            audit_event_record(action="outbound.undelivered", object_type="outbound", object_id=message.pk, data={"status": status, "error_code": error_code})
        if error_code == CARRIER_OPT_OUT_CODE:
            contact_opt_out_by_carrier(contact_id=message.conversation.contact_id)
    return message


def contact_opt_out_by_carrier(*, contact_id: object) -> bool:
    """Twilio says the number opted out (error 21610): stop texting it, without a confirmation of our own."""
    updated = Contact.objects.filter(pk=contact_id, opted_out=False).update(opted_out=True, opted_out_at=timezone.now())
    if updated:
        audit_event_record(action="sms.opted_out", object_type="contact", object_id=contact_id, data={"source": "carrier"})
    return bool(updated)
