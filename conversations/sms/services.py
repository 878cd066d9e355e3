"""Writes of the SMS gateway: recording inbound webhooks, keywords, the rate limit, approvals, delivery status.

The webhook path (`inbound_receive`) records and decides; it never runs the workflow. Turns and sends
leave through `transaction.on_commit`, as ids, to `conversations.background.task_dispatch` (a Celery
worker, or a bounded thread pool when Celery is eager).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from audit.services import audit_event_record
from conversations import crypto, tasks
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
from conversations.sms.commands import sms_command_dispatch
from conversations.sms.errors import OutboundNotPending, RejectionNeedsReason, UnknownOutbound
from conversations.sms.texts import keyword_match, text_for

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status
Kind = OutboundMessage.Kind

# Statuses a delivery report may move a message between, in the order they happen.
_DELIVERY_RANK: Final = {
    Status.SENDING: 0,
    Status.SENT: 1,
    Status.DELIVERED: 2,
    Status.UNDELIVERED: 2,
    Status.FAILED: 2,
}
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


def _sms_conversation(contact: Contact) -> Conversation:
    """The number's SMS thread (one per contact); the caller holds the contact's row lock."""
    conversation = contact.conversations.filter(channel="sms").order_by("-created_at").first()
    if conversation is None:
        conversation, _token = conversation_create(channel="sms", contact=contact, language=contact.language)
    return conversation


_RECORD_SQL = """
INSERT INTO {table} (id, message_sid, idempotency_token, phone_hash, phone_encrypted, redacted_body, keyword,
                     outcome, crisis, processed, received_at)
VALUES (%s, %s, %s, %s, %s, %s, '', %s, %s, false, %s)
ON CONFLICT DO NOTHING
RETURNING id
"""


def inbound_record(
    *, message_sid: str, from_number: str, body: str, idempotency_token: str = "", received_at: datetime | None = None
) -> str | None:
    """Store one signed inbound SMS as `pending`, once; None when its MessageSid or token was seen before.

    One statement, so the webhook answers fast: the body is redacted and the number encrypted and
    hashed first (the raw text is only in memory here); the unique MessageSid and token make a
    retry or a concurrent duplicate delivery insert nothing. Raises InvalidPhoneNumber.
    """
    e164 = crypto.normalize_phone(from_number)
    body = (body or "").strip()
    crisis = detect_crisis(body).category if body else "none"
    redacted = redact(body).text if body else ""
    params = [
        uuid.uuid4(),
        message_sid,
        (idempotency_token or "")[:100],
        crypto.phone_hash(e164),
        crypto.encrypt(e164),
        redacted,
        InboundSms.Outcome.PENDING,
        crisis,
        received_at or timezone.now(),
    ]
    with connection.cursor() as cursor:
        cursor.execute(_RECORD_SQL.format(table=connection.ops.quote_name(InboundSms._meta.db_table)), params)
        row = cursor.fetchone()
    return str(row[0]) if row else None


def inbound_receive(
    *, message_sid: str, from_number: str, body: str, idempotency_token: str = "", received_at: datetime | None = None
) -> InboundResult:
    """Record one signed inbound SMS exactly once and have it decided; never runs a turn.

    With a broker the decision (contact, keyword, rate limit, turn) is a Celery task and this
    returns `pending` at once; without one (development, tests) it is made here. Duplicate
    deliveries (same MessageSid or Twilio idempotency token) return `duplicate=True` and change nothing.
    """
    inbound_id = inbound_record(
        message_sid=message_sid,
        from_number=from_number,
        body=body,
        idempotency_token=idempotency_token,
        received_at=received_at,
    )
    if inbound_id is None:
        return InboundResult(None, "duplicate", duplicate=True)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return inbound_process(inbound_id=inbound_id)
    transaction.on_commit(lambda: task_dispatch(tasks.sms_inbound_process, inbound_id))
    return InboundResult(inbound_id, InboundSms.Outcome.PENDING)


def inbound_process(*, inbound_id: object, now: datetime | None = None) -> InboundResult:
    """Decide one pending inbound SMS: keyword, held by the rate limit, or a turn. Safe to run twice.

    Messages from one number are serialised on the contact's row lock, which makes the rate-limit
    count and keyword transitions exact; the row's own lock and `pending` status make a second
    delivery of the task a no-op.
    """
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        inbound = InboundSms.objects.select_for_update().filter(pk=inbound_id).first()
        if inbound is None:
            return InboundResult(None, "unknown")
        if inbound.outcome != InboundSms.Outcome.PENDING:
            return InboundResult(
                str(inbound.pk),
                inbound.outcome,
                duplicate=True,
                turn_id=str(inbound.turn_id) if inbound.turn_id else None,
            )
        contact = Contact.objects.select_for_update().filter(phone_hash=inbound.phone_hash).first()
        if contact is None:
            created, _ = contact_for_phone(phone=crypto.decrypt(inbound.phone_encrypted))
            contact = Contact.objects.select_for_update().get(pk=created.pk)
        return _decide(inbound, contact=contact, now=now)


def _decide(inbound: InboundSms, *, contact: Contact, now: datetime) -> InboundResult:
    conversation = _sms_conversation(contact)
    inbound.contact, inbound.conversation, inbound.phone_encrypted = contact, conversation, ""
    body = inbound.redacted_body
    # Commands of higher layers (reminders, PLAN) first; a crisis always becomes a turn.
    command = (
        sms_command_dispatch(contact=contact, conversation=conversation, body=body, now=now)
        if body and inbound.crisis == "none"
        else None
    )
    match = keyword_match(body) if body and command is None else None
    turn_id = None
    if command is not None:
        inbound.outcome, inbound.keyword, inbound.redacted_body = InboundSms.Outcome.KEYWORD, command[:20], command[:20]
        inbound.processed, inbound.processed_at = True, now
    elif match is not None:
        inbound.outcome, inbound.keyword, inbound.redacted_body = InboundSms.Outcome.KEYWORD, match[2], match[2]
        inbound.processed, inbound.processed_at = True, now
    elif not body:
        inbound.outcome, inbound.processed, inbound.processed_at = InboundSms.Outcome.EMPTY, True, now
    else:
        limit, window = rate_limit()
        recent = (
            InboundSms.objects.filter(
                contact=contact, received_at__gte=inbound.received_at - window, received_at__lte=inbound.received_at
            )
            .exclude(outcome__in=[InboundSms.Outcome.KEYWORD, InboundSms.Outcome.PENDING])
            .count()
        )
        # A crisis is never held back by the rate limit.
        if recent >= limit and inbound.crisis == "none":
            inbound.outcome = InboundSms.Outcome.HELD
        else:
            inbound.outcome = InboundSms.Outcome.TURN
            turn_id = _turn_for(inbound, text=body[:MAX_MESSAGE_CHARS], now=now)
    inbound.save()
    if match is not None:
        _keyword_apply(contact=contact, conversation=conversation, action=match[0], language=match[1], now=now)
    elif inbound.outcome == InboundSms.Outcome.HELD:
        _rate_notice(contact=contact, conversation=conversation, now=now)
    return InboundResult(str(inbound.pk), inbound.outcome, turn_id=turn_id)


def inbound_process_pending(
    *, older_than: timedelta = timedelta(seconds=30), now: datetime | None = None, batch: int = 200
) -> int:
    """Decide pending rows whose task was lost (a broker restart), the oldest first; returns how many
    were decided. A row that fails stays pending for the next sweep and does not stop the rest:
    stopping at it would leave every younger message waiting behind one bad row, sweep after sweep."""
    now = now or timezone.now()
    ids = list(
        InboundSms.objects.filter(outcome=InboundSms.Outcome.PENDING, received_at__lt=now - older_than)
        .order_by("received_at")
        .values_list("pk", flat=True)[:batch]
    )
    decided = 0
    for inbound_id in ids:
        try:
            inbound_process(inbound_id=inbound_id)
        except Exception:
            logger.exception("pending inbound SMS %s could not be decided; it stays pending", inbound_id)
            continue
        decided += 1
    return decided


def _turn_for(inbound: InboundSms, *, text: str, now: datetime) -> str:
    """Start the turn (ingress hooks on the raw text, only redacted text stored) and queue its run.

    Sets the turn on `inbound` without saving it: the caller writes the row.
    """
    conversation = inbound.conversation
    turn, created = turn_start(
        conversation=conversation,
        text=text,
        idempotency_key=f"sms:{inbound.message_sid}",
        language=conversation.language,
        channel="sms",
    )
    inbound.turn, inbound.processed, inbound.processed_at = turn, True, now
    inbound.redacted_body = turn.redacted_text
    turn_id = str(turn.pk)
    if created:
        transaction.on_commit(lambda: task_dispatch(tasks.run_turn, turn_id))
    return turn_id


def _outbox_put(*, conversation: Conversation, kind: str, purpose: str, body: str) -> OutboundMessage:
    """Queue a fixed text (keyword answer, notice); opted-out numbers get only the opt-out confirmation."""
    opted_out = Contact.objects.filter(pk=conversation.contact_id).values_list("opted_out", flat=True).first()
    status = Status.SUPPRESSED if opted_out and purpose != "opt_out_confirmation" else Status.APPROVED
    message = OutboundMessage.objects.create(
        conversation=conversation, kind=kind, purpose=purpose, body=body, draft_body=body, status=status
    )
    audit_event_record(
        action="outbound.created",
        object_type="outbound",
        object_id=message.pk,
        data={"status": status, "kind": kind, "purpose": purpose},
    )
    if status == Status.APPROVED:
        message_id = str(message.pk)
        transaction.on_commit(lambda: task_dispatch(tasks.outbound_send, message_id))
    return message


def _keyword_apply(
    *, contact: Contact, conversation: Conversation, action: str, language: str | None, now: datetime
) -> None:
    lang = language or conversation.language or contact.language
    if language and contact.language != language:
        Contact.objects.filter(pk=contact.pk).update(language=language)
    if action == "stop":
        # Only the transition sends a confirmation: repeated STOPs get exactly one answer.
        if Contact.objects.filter(pk=contact.pk, opted_out=False).update(opted_out=True, opted_out_at=now):
            withdrawn = OutboundMessage.objects.filter(
                conversation__contact=contact,
                status__in=[Status.PENDING_APPROVAL, Status.APPROVED, Status.SUGGESTED],
                claimed_at=None,
            ).update(status=Status.SUPPRESSED)
            audit_event_record(
                action="sms.opted_out", object_type="contact", object_id=contact.pk, data={"withdrawn": withdrawn}
            )
            _outbox_put(
                conversation=conversation,
                kind=Kind.KEYWORD,
                purpose="opt_out_confirmation",
                body=text_for("opt_out_confirmation", lang),
            )
    elif action == "start":
        if Contact.objects.filter(pk=contact.pk, opted_out=True).update(opted_out=False, opted_out_at=None):
            audit_event_record(action="sms.opted_in", object_type="contact", object_id=contact.pk)
        _outbox_put(
            conversation=conversation,
            kind=Kind.KEYWORD,
            purpose="opt_in_confirmation",
            body=text_for("opt_in_confirmation", lang),
        )
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
    if (
        last is not None
        and OutboundMessage.objects.filter(pk=last.pk, remainder=last.remainder).update(remainder="") == 1
    ):
        message = OutboundMessage.objects.create(
            conversation=conversation,
            turn=last.turn,
            kind=last.kind,
            purpose="more",
            body=last.remainder,
            draft_body=last.remainder,
            status=Status.APPROVED,
            approved_by=last.approved_by,
            approved_at=last.approved_at,
        )
        audit_event_record(
            action="outbound.created",
            object_type="outbound",
            object_id=message.pk,
            data={"status": message.status, "kind": message.kind, "purpose": "more"},
        )
        message_id = str(message.pk)
        transaction.on_commit(lambda: task_dispatch(tasks.outbound_send, message_id))
        return
    _outbox_put(conversation=conversation, kind=Kind.KEYWORD, purpose="more_none", body=text_for("more_none", language))


def _rate_notice(*, contact: Contact, conversation: Conversation, now: datetime) -> None:
    """One polite notice per window; the held messages themselves wait for `inbound_process_held`."""
    _limit, window = rate_limit()
    fresh = Q(sms_rate_notice_at__isnull=True) | Q(sms_rate_notice_at__lt=now - window)
    if Contact.objects.filter(fresh, pk=contact.pk).update(sms_rate_notice_at=now):
        audit_event_record(action="sms.rate_limited", object_type="contact", object_id=contact.pk)
        _outbox_put(
            conversation=conversation,
            kind=Kind.NOTICE,
            purpose="rate_limit",
            body=text_for("rate_limit", conversation.language),
        )


def inbound_process_held(*, now: datetime | None = None, batch: int = 50) -> int:
    """Turn messages held by the rate limit into turns once their window has passed (oldest first)."""
    now = now or timezone.now()
    _limit, window = rate_limit()
    processed = 0
    with transaction.atomic(durable=True):
        rows = list(
            InboundSms.objects.select_for_update(skip_locked=True, of=("self",))
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
            raise OutboundNotPending(
                f"This message is {message.get_status_display().lower()}, not waiting for approval."
            )
        edited = body is not None and body.strip() != message.body.strip()
        if body is not None:
            if not body.strip():
                raise ConversationError("An approved message cannot be empty.", code="empty_message")
            message.body = body.strip()
        if message.status == Status.SUGGESTED:
            # In human mode only a case manager's own messages go out: approving makes it theirs.
            message.kind = Kind.HUMAN
        opted_out = (
            Contact.objects.filter(conversations=message.conversation_id).values_list("opted_out", flat=True).first()
        )
        message.status = Status.SUPPRESSED if opted_out else Status.APPROVED
        message.approved_by, message.approved_at = name, timezone.now()
        message.save(update_fields=["body", "kind", "status", "approved_by", "approved_at", "updated_at"])
        audit_event_record(
            action="outbound.approved",
            actor=name,
            object_type="outbound",
            object_id=message.pk,
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
            raise OutboundNotPending(
                f"This message is {message.get_status_display().lower()}, not waiting for approval."
            )
        message.status, message.rejection_reason = Status.REJECTED, reason.strip()[:300]
        message.save(update_fields=["status", "rejection_reason", "updated_at"])
        audit_event_record(
            action="outbound.rejected",
            actor=name,
            object_type="outbound",
            object_id=message.pk,
            data={"kind": message.kind},
        )
    return message


def outbound_status_record(
    *, message_sid: str, status: str, error_code: str = "", message_id: str | None = None
) -> OutboundMessage | None:
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
            audit_event_record(
                action="outbound.undelivered",
                object_type="outbound",
                object_id=message.pk,
                data={"status": status, "error_code": error_code},
            )
        if error_code == CARRIER_OPT_OUT_CODE:
            contact_opt_out_by_carrier(contact_id=message.conversation.contact_id)
    return message


def contact_opt_out_by_carrier(*, contact_id: object) -> bool:
    """Twilio says the number opted out (error 21610): stop texting it, without a confirmation of our own."""
    updated = Contact.objects.filter(pk=contact_id, opted_out=False).update(opted_out=True, opted_out_at=timezone.now())
    if updated:
        audit_event_record(
            action="sms.opted_out", object_type="contact", object_id=contact_id, data={"source": "carrier"}
        )
    return bool(updated)
