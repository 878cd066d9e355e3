"""Writes of the SMS gateway: recording inbound webhooks, keywords, the per-number rate limit.

The webhook path (`inbound_receive`) records and decides; it never runs the workflow. Turns leave
through `transaction.on_commit`, as ids, to `conversations.background.task_dispatch` (a Celery
worker, or a bounded thread pool when Celery is eager); every text back goes through the outbox
(`conversations.sms.outbox`).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from audit.services import audit_event_record
from conversations import crypto
from conversations.background import task_dispatch
from conversations.hooks import detect_crisis, redact
from conversations.models import Contact, Conversation, InboundSms, OutboundMessage
from conversations.services import MAX_MESSAGE_CHARS, contact_for_phone, conversation_create, turn_start
from conversations.sms import outbox
from conversations.sms.commands import sms_command_dispatch
from conversations.sms.texts import keyword_match, text_for

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status
Kind = OutboundMessage.Kind


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
    params: list[Any] = [  # database parameters of _RECORD_SQL, in its order
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
        with outbox.webhook_answering():
            return inbound_process(inbound_id=inbound_id)
    transaction.on_commit(lambda: task_dispatch("conversations.sms_inbound_process", inbound_id))
    return InboundResult(inbound_id, InboundSms.Outcome.PENDING)


def inbound_process(*, inbound_id: UUID | str, now: datetime | None = None) -> InboundResult:
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
    if conversation is None:  # _decide sets it before a row becomes a turn or is held; never None here
        raise ValueError(f"inbound SMS {inbound.pk} has no conversation to start a turn in")
    turn, created = turn_start(
        conversation=conversation,
        text=text,
        idempotency_key=f"sms:{inbound.message_sid}",
        # No fixed preference: a text has no language picker, so each message's own language is
        # detected (the conversation's is the hint) and a person who switches gets replies in theirs.
        language=None,
        channel="sms",
    )
    inbound.turn, inbound.processed, inbound.processed_at = turn, True, now
    inbound.redacted_body = turn.redacted_text
    turn_id = str(turn.pk)
    if created:
        transaction.on_commit(lambda: task_dispatch("conversations.run_turn", turn_id))
    return turn_id


def _keyword_apply(
    *, contact: Contact, conversation: Conversation, action: str, language: str | None, now: datetime
) -> None:
    lang = language or conversation.language or contact.language
    if language and contact.language != language:
        Contact.objects.filter(pk=contact.pk).update(language=language)
    if action == "stop":
        # Only the transition sends a confirmation: repeated STOPs get exactly one answer.
        if Contact.objects.filter(pk=contact.pk, opted_out=False).update(opted_out=True, opted_out_at=now):
            withdrawn = outbox.outbox_withdraw(contact=contact)
            audit_event_record(
                action="sms.opted_out", object_type="contact", object_id=contact.pk, data={"withdrawn": withdrawn}
            )
            outbox.outbox_put(
                conversation=conversation,
                kind=Kind.KEYWORD,
                purpose=outbox.OPT_OUT_CONFIRMATION,
                body=text_for(outbox.OPT_OUT_CONFIRMATION, lang),
            )
    elif action == "start":
        if Contact.objects.filter(pk=contact.pk, opted_out=True).update(opted_out=False, opted_out_at=None):
            audit_event_record(action="sms.opted_in", object_type="contact", object_id=contact.pk)
        outbox.outbox_put(
            conversation=conversation,
            kind=Kind.KEYWORD,
            purpose="opt_in_confirmation",
            body=text_for("opt_in_confirmation", lang),
        )
    elif action == "help":
        outbox.outbox_put(conversation=conversation, kind=Kind.KEYWORD, purpose="help", body=text_for("help", lang))
    elif action == "more":
        _more(conversation=conversation, language=lang)


def _more(*, conversation: Conversation, language: str) -> None:
    """Send the next part of the last shortened reply, once; say so when nothing is left."""
    if outbox.outbox_more(conversation=conversation) is None:
        outbox.outbox_put(
            conversation=conversation, kind=Kind.KEYWORD, purpose="more_none", body=text_for("more_none", language)
        )


def _rate_notice(*, contact: Contact, conversation: Conversation, now: datetime) -> None:
    """One polite notice per window; the held messages themselves wait for `inbound_process_held`."""
    _limit, window = rate_limit()
    fresh = Q(sms_rate_notice_at__isnull=True) | Q(sms_rate_notice_at__lt=now - window)
    if Contact.objects.filter(fresh, pk=contact.pk).update(sms_rate_notice_at=now):
        audit_event_record(action="sms.rate_limited", object_type="contact", object_id=contact.pk)
        outbox.outbox_put(
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
