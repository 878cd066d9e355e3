"""The SMS outbox: every `OutboundMessage` is created, approved, rejected, withdrawn and queued here.

One consent rule (`may_text`) and one dispatch policy (`outbox_dispatch`) serve every writer: the
turn's reply, keyword answers and notices, a case manager's own text, outreach's reminders and
plans. The sender (`sms.sender`) claims and sends what this module approved, and re-checks the same
rule right before the send, since the person may have texted STOP in between.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Final
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from conversations.background import task_dispatch, task_for
from conversations.errors import ConversationError
from conversations.models import Contact, Conversation, OutboundMessage, Turn
from conversations.sms.errors import OutboundNotPending, RejectionNeedsReason, UnknownOutbound
from conversations.sms.gateway import OPTED_OUT_CODE
from conversations.staff_redaction import staff_text_redact
from conversations.workflow import approval
from conversations.workflow.delivery import Outbound

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status
Kind = OutboundMessage.Kind

OPT_OUT_CONFIRMATION: Final = "opt_out_confirmation"
SEND_TASK: Final = "conversations.outbound_send"
ACK_PURPOSE: Final = "approval_ack"

# Statuses a delivery report may move a message between, in the order they happen.
# Keyed by str: a message's status reads back from the database as a plain str (Status members equal it).
_DELIVERY_RANK: Final[dict[str, int]] = {
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


def may_text(contact: Contact, purpose: str) -> bool:
    """Whether this number may get a message for `purpose`: after STOP, only the confirmation of that STOP."""
    return not contact.opted_out or purpose == OPT_OUT_CONFIRMATION


def _contact_now(conversation_id: UUID) -> Contact:
    """The conversation's contact as the database has it now (a STOP may have landed since it was loaded)."""
    return Contact.objects.get(conversations=conversation_id)


def outbox_put(
    *,
    conversation: Conversation,
    body: str,
    kind: str,
    status: str = Status.APPROVED,
    purpose: str = "",
    turn: Turn | None = None,
    crisis: bool = False,
    actor: str = "system",
    approved_by: str = "",
    dispatch: bool = True,
) -> OutboundMessage:
    """Put one SMS in the outbox; a number that may not be texted gets it suppressed, approved ones are queued.

    `status` is what the caller decided (approved, pending approval, a human-mode suggestion); the
    outbox only overrides it for consent, or marks an approved message to a conversation with no
    number as failed (`ask --channel sms`): saying so must not fail the turn or its crisis handoff.
    """
    contact = _contact_now(conversation.pk)
    error_code = ""
    if not may_text(contact, purpose):
        status = Status.SUPPRESSED
    elif not contact.phone_encrypted and status == Status.APPROVED:
        status, error_code = Status.FAILED, "no_phone"
    message = OutboundMessage.objects.create(
        conversation=conversation,
        turn=turn,
        kind=kind,
        purpose=purpose[:24],
        body=body,
        draft_body=body,
        status=status,
        crisis=crisis,
        error_code=error_code,
        approved_by=approved_by,
        approved_at=timezone.now() if approved_by and status == Status.APPROVED else None,
    )
    audit_event_record(
        action="outbound.created",
        actor=actor,
        object_type="outbound",
        object_id=message.pk,
        data={
            "status": status,
            "kind": kind,
            "crisis": crisis,
            **({"purpose": purpose} if purpose else {}),
            **({"reason": error_code} if error_code else {}),
        },
    )
    if status == Status.APPROVED and dispatch:  # dispatch=False: the caller sends it itself (the eraser's last text)
        outbox_dispatch(message_id=str(message.pk))
    return message


def turn_outbound_put(*, conversation: Conversation, turn: Turn, outbound: Outbound) -> OutboundMessage:
    """Write the message a turn's delivery plan asks for (conversations.services calls this for SMS turns).

    A reply that starts waiting for a case manager is followed at once by the acknowledgement,
    once per waiting period, so the person is never left in silence.
    """
    message = outbox_put(
        conversation=conversation,
        turn=turn,
        body=outbound.body,
        kind=outbound.kind,
        status=outbound.status,
        crisis=outbound.crisis,
        actor="after_hours_policy" if outbound.unreviewed else "system",
    )
    acknowledge_waiting(conversation=conversation, message=message, language=turn.language)
    return message


def acknowledgement_due(*, conversation_id: UUID | str, exclude_message_id: UUID | str) -> bool:
    """Once per waiting period: no acknowledgement since the last message that reached the person, and
    no other reply already waiting (the person was told when the first one started waiting)."""
    Status = OutboundMessage.Status
    rows = OutboundMessage.objects.filter(conversation_id=conversation_id).exclude(pk=exclude_message_id)
    if rows.filter(status=Status.PENDING_APPROVAL).exists():
        return False
    last_reached = (
        rows.exclude(purpose=ACK_PURPOSE)
        .filter(status__in=[Status.APPROVED, Status.SENDING, Status.SENT, Status.DELIVERED])
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    acks = rows.filter(purpose=ACK_PURPOSE)
    if last_reached is not None:
        acks = acks.filter(created_at__gt=last_reached)
    return not acks.exists()


def acknowledge_waiting(
    *, conversation: Conversation, message: OutboundMessage, language: str, now: datetime | None = None
) -> OutboundMessage | None:
    """Queue the acknowledgement for a reply that now waits for approval, once per waiting period."""
    if message.status != Status.PENDING_APPROVAL:
        return None
    if not acknowledgement_due(conversation_id=conversation.pk, exclude_message_id=message.pk):
        return None
    text = approval.acknowledgement_text(
        language=language, now=now or timezone.now(), hours=approval.office_hours(), sla_minutes=approval.sla_minutes()
    )
    return outbox_put(conversation=conversation, body=text, kind=Kind.NOTICE, purpose=ACK_PURPOSE)


def outbox_dispatch(*, message_id: str) -> None:
    """The one dispatch policy: once the approving transaction commits, the sender task gets the id.

    With a broker the task goes to a worker through `task_dispatch` (a dead broker loses nothing:
    the task then runs in this process; what a dying process loses, the beat's outbound sweep
    re-dispatches, and the sender's claim keeps it to one send). Without one (eager Celery:
    development, tests) the send runs here right after the commit, except while a Twilio webhook is
    being answered (`webhook_answering`): the webhook must answer at once, so its sends go to the
    background pool with the rest of its work.
    """
    queued = not settings.CELERY_TASK_ALWAYS_EAGER or _answering_webhook.get()
    transaction.on_commit(lambda: _send(message_id, queued=queued))


_answering_webhook: ContextVar[bool] = ContextVar("answering_webhook", default=False)


@contextmanager
def webhook_answering() -> Iterator[None]:
    """Mark the code inside as answering a webhook: eager sends queued here wait for the background pool."""
    token = _answering_webhook.set(True)
    try:
        yield
    finally:
        _answering_webhook.reset(token)


def _send(message_id: str, *, queued: bool) -> None:
    if queued:
        task_dispatch(SEND_TASK, message_id)
        return
    try:
        task_for(SEND_TASK).apply(args=[message_id], throw=True)
    except Exception:
        # Runs after the approving transaction committed: a send error must not surface as a failed
        # turn or approval. The row stays approved/unclaimed or failed; the sweeper retries what can help.
        logger.exception("outbound %s: eager send raised", message_id)


def outbox_withdraw(*, contact: Contact) -> int:
    """After STOP: every message still waiting to go to this number is suppressed; returns how many."""
    return OutboundMessage.objects.filter(
        conversation__contact=contact,
        status__in=[Status.PENDING_APPROVAL, Status.APPROVED, Status.SUGGESTED],
        claimed_at=None,
    ).update(status=Status.SUPPRESSED)


def outbox_more(*, conversation: Conversation) -> OutboundMessage | None:
    """Queue the next part of the last shortened reply, once; None when nothing is left to send."""
    last = (
        OutboundMessage.objects.filter(conversation=conversation, status__in=[Status.SENT, Status.DELIVERED])
        .exclude(remainder="")
        .order_by("-sent_at")
        .first()
    )
    # Claiming the remainder with a conditional update: two MOREs never send the same part twice.
    if last is None or OutboundMessage.objects.filter(pk=last.pk, remainder=last.remainder).update(remainder="") != 1:
        return None
    # The rest of a message already approved (and sent): it goes out under the same approval.
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
    outbox_dispatch(message_id=str(message.pk))
    return message


def _actor_name(actor: object) -> str:
    return str(getattr(actor, "get_username", lambda: actor)())[:150]


def _pending_for_update(message_id: UUID | str) -> OutboundMessage:
    message = OutboundMessage.objects.select_for_update().filter(pk=message_id).first()
    if message is None:
        raise UnknownOutbound("This message does not exist.")
    if message.status not in (Status.PENDING_APPROVAL, Status.SUGGESTED):
        raise OutboundNotPending(f"This message is {message.get_status_display().lower()}, not waiting for approval.")
    return message


_WORDS = re.compile(r"\S+|\s+")


def staff_edit_redact(*, draft: str, edited: str, author: object = None) -> str:
    """Redact what a case manager typed into a draft, keeping the navigator's own words as they were.

    The draft was written from redacted input and the reviewed directory, so its organization names
    and phone numbers are not personal data; masking them would send "Call [NAME] at [PHONE]". Only
    the runs of words the edit inserted or replaced go through `redact` (each with the unchanged
    word before it, so cues like "Officer" still mark the name after them).
    """
    old, new = _WORDS.findall(draft), _WORDS.findall(edited)
    out: list[str] = []
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(new[j1:j2])
        elif j2 > j1:
            before = next((token for token in reversed(new[:j1]) if token.strip()), "")
            out.append(_redact_run(before, "".join(new[j1:j2]), author))
    return "".join(out).strip()


def _redact_run(before: str, run: str, author: object) -> str:
    core = run.strip()
    if not core:
        return run
    head, tail = run[: len(run) - len(run.lstrip())], run[len(run.rstrip()) :]
    prefix = f"{before} "
    typed = staff_text_redact(prefix + core, author=author) if before else ""
    masked = typed[len(prefix) :] if before and typed.startswith(prefix) else staff_text_redact(core, author=author)
    return head + masked + tail


def outbound_approve(*, message_id: UUID | str, actor: object, body: str | None = None) -> OutboundMessage:
    """Approve (optionally edit) a pending reply or a human-mode suggestion; the send is queued on commit."""
    name = _actor_name(actor)
    # Not durable: the caseload admin calls this inside its own transaction (the send still waits for
    # the outermost commit through on_commit).
    with transaction.atomic():
        message = _pending_for_update(message_id)
        # A case manager's edit is redacted like any other typed text before it is stored (and sent).
        cleaned = staff_edit_redact(draft=message.body, edited=body.strip(), author=actor) if body is not None else None
        edited = cleaned is not None and cleaned != message.body.strip()
        if cleaned is not None:
            if not cleaned:
                raise ConversationError("An approved message cannot be empty.", code="empty_message")
            message.body = cleaned
        if message.status == Status.SUGGESTED:
            # In human mode only a case manager's own messages go out: approving makes it theirs.
            message.kind = Kind.HUMAN
        message.status = (
            Status.APPROVED if may_text(_contact_now(message.conversation_id), message.purpose) else (Status.SUPPRESSED)
        )
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
            outbox_dispatch(message_id=str(message.pk))
    return message


def outbound_reject(*, message_id: UUID | str, actor: object, reason: str) -> OutboundMessage:
    """Reject a pending reply or suggestion with a reason (kept on the row, not in the audit log)."""
    name = _actor_name(actor)
    if not (reason or "").strip():
        raise RejectionNeedsReason("Please give a reason for rejecting this message.")
    with transaction.atomic():  # not durable, for the same reason as outbound_approve
        message = _pending_for_update(message_id)
        message.status, message.rejection_reason = (
            Status.REJECTED,
            staff_text_redact(reason.strip(), author=actor)[:300],
        )
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
        if error_code == OPTED_OUT_CODE:
            contact_opt_out_by_carrier(contact_id=message.conversation.contact_id)
    return message


def contact_opt_out_by_carrier(*, contact_id: UUID | str, now: datetime | None = None) -> bool:
    """Twilio says the number opted out (error 21610): stop texting it, without a confirmation of our own."""
    updated = Contact.objects.filter(pk=contact_id, opted_out=False).update(
        opted_out=True, opted_out_at=now or timezone.now()
    )
    if updated:
        audit_event_record(
            action="sms.opted_out", object_type="contact", object_id=contact_id, data={"source": "carrier"}
        )
    return bool(updated)
