"""The SMS sender: claim one approved outbox message, re-check consent and mode, shape it for SMS, send it once.

Exactly-once rests on the claim (`status=approved, claimed_at=None, provider_sid=''` → `sending`
in one conditional UPDATE): a duplicate task, a redelivered task or a second worker finds nothing to
claim. A transient error releases the claim for the Celery retry; an ambiguous one (the request may
have reached Twilio) is never retried automatically.
"""

from __future__ import annotations

import logging
from typing import Any, Final
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from audit.services import audit_event_record
from conversations import crypto
from conversations.models import Contact, Conversation, OutboundMessage
from conversations.sms import gateway, segments
from conversations.sms.outbox import OPT_OUT_CONFIRMATION, contact_opt_out_by_carrier, may_text
from conversations.sms.texts import NOTICE_VERSION, text_for
from conversations.workflow.graph import SENDER_READS
from conversations.workflow.projection import project
from conversations.workflow.templates import NOT_ADVICE

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status
Kind = OutboundMessage.Kind

# While a case manager has the conversation only their messages, crisis handoffs and the fixed
# compliance answers (STOP/START/HELP confirmations, which carry no navigator content) may go out.
HUMAN_MODE_KINDS: Final = frozenset({Kind.CRISIS, Kind.HUMAN, Kind.KEYWORD})


def sms_max_chars() -> int:
    """The one SMS budget (settings.SMS_MAX_CHARS): longer texts are shortened with "reply MORE"."""
    return int(settings.SMS_MAX_CHARS)


def compose(message: OutboundMessage, *, contact: Contact) -> tuple[str, str, bool]:
    """The text to send, the remainder kept for MORE, and whether the first-contact notice is included."""
    language = message.conversation.language
    state = project((message.turn.state or {}) if message.turn is not None else {}, SENDER_READS)
    with_notice = _with_notice(contact, message)
    notice = segments.gsm_safe(text_for("first_contact", language)) if with_notice else ""
    if message.kind == Kind.CRISIS:
        # A crisis handoff is sent whole: nobody should have to reply MORE to get the number to call.
        text, remainder = segments.gsm_safe(message.body), ""
    else:
        body, footer = message.body, ""
        for disclaimer in NOT_ADVICE.values():
            if disclaimer in body:
                body, footer = body.replace(disclaimer, "").strip(), disclaimer
        shaped = segments.shape(
            body,
            # The first answer to a number carries the privacy notice: it counts against the same budget
            # (a keyword's fixed text, such as HELP's, is sent whole as carriers expect).
            budget=sms_max_chars() - (len(notice) + 1 if notice and message.kind == Kind.REPLY else 0),
            more_hint=text_for("more_hint", language),
            footer=footer,
            resources=state["resources"] or (),
            citations=_unsent_sources(message, [item for item in state["evidence"] or () if item.get("assertable")]),
            # Each place's alert and documents, and the cited caveat's note: what a web card and the
            # web reply show beside the answer. The rest sent on MORE had its note in the first part.
            language=language,
            note=message.purpose != "more",
        )
        text, remainder = shaped.text, shaped.remainder
    if notice:
        text = f"{text}\n{notice}"
    return text, remainder, with_notice


def _unsent_sources(message: OutboundMessage, citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cited sources whose link no earlier part of the same reply carried: MORE does not send it again."""
    if message.purpose != "more" or message.turn_id is None:
        return citations
    sent = " ".join(
        OutboundMessage.objects.filter(turn_id=message.turn_id, status__in=[Status.SENT, Status.DELIVERED])
        .exclude(pk=message.pk)
        .values_list("body", flat=True)
    )
    return [item for item in citations if not item.get("url") or str(item["url"]) not in sent]


def _with_notice(contact: Contact, message: OutboundMessage) -> bool:
    """The first message to a number carries the privacy notice, except the confirmation of a STOP."""
    return not contact.consent_version and message.purpose != OPT_OUT_CONFIRMATION


def _status_callback_url(message_id: str) -> str | None:
    base = settings.PUBLIC_BASE_URL
    if not base:
        return None  # Twilio can only call back a public URL
    return f"{base.rstrip('/')}{reverse('sms-status')}?m={message_id}"


def _finish(message_id: UUID | str, status: str, *, action: str, data: dict[str, Any], **fields: Any) -> None:
    with transaction.atomic():
        OutboundMessage.objects.filter(pk=message_id, status=Status.SENDING).update(status=status, **fields)
        audit_event_record(action=action, object_type="outbound", object_id=message_id, data=data)


def outbound_deliver(*, message_id: UUID | str) -> str:
    """Send one approved message at most once; returns what happened. Raises SmsError only when a retry can help."""
    now = timezone.now()
    claimed = OutboundMessage.objects.filter(
        id=message_id, status=Status.APPROVED, claimed_at=None, provider_sid=""
    ).update(status=Status.SENDING, claimed_at=now, attempts=F("attempts") + 1)
    if claimed != 1:
        return "skipped"
    message = OutboundMessage.objects.select_related("conversation", "conversation__contact", "turn").get(pk=message_id)
    contact = message.conversation.contact
    # Re-checked here, right before the send: the person may have texted STOP or a case manager
    # may have taken over after the message was approved.
    if not may_text(contact, message.purpose):
        _finish(
            message_id,
            Status.SUPPRESSED,
            action="outbound.suppressed",
            data={"reason": "opted_out", "kind": message.kind},
        )
        return "suppressed"
    if message.conversation.mode == Conversation.Mode.HUMAN and message.kind not in HUMAN_MODE_KINDS:
        _finish(
            message_id,
            Status.SUGGESTED,
            action="outbound.suppressed",
            data={"reason": "human_mode", "kind": message.kind},
            claimed_at=None,
        )
        return "human_mode"
    if message.segments == 0:
        # Shaped once: a retry sends the same text and does not add the notice twice.
        text, remainder, with_notice = compose(message, contact=contact)
        info = segments.segment_info(text)
        message.body, message.remainder, message.segments, message.encoding = (
            text,
            remainder,
            info.segments,
            info.encoding,
        )
        OutboundMessage.objects.filter(pk=message_id).update(
            body=text, remainder=remainder, segments=info.segments, encoding=info.encoding
        )
    else:
        with_notice = _with_notice(contact, message)
    try:
        to = crypto.decrypt(contact.phone_encrypted) if contact.phone_encrypted else ""
    except ValueError:
        to = ""  # a key mismatch is not fixed by retrying: record it, never raise out of the sender
    if not to:
        code = "no_phone" if not contact.phone_encrypted else "bad_phone_key"
        _finish(
            message_id,
            Status.FAILED,
            action="outbound.failed",
            data={"code": code, "kind": message.kind},
            error_code=code,
        )
        return "failed"
    try:
        sent = gateway.send_sms(to=to, body=message.body, status_callback=_status_callback_url(str(message_id)))
    except gateway.SmsError as exc:
        if not exc.permanent:
            OutboundMessage.objects.filter(pk=message_id, status=Status.SENDING).update(
                status=Status.APPROVED, claimed_at=None, error_code=exc.code[:20]
            )
            logger.warning("outbound %s: transient send error %s, will retry", message_id, exc.code)
            raise
        _finish(
            message_id,
            Status.FAILED,
            action="outbound.failed",
            data={"code": exc.code, "kind": message.kind},
            error_code=exc.code[:20],
        )
        if exc.code == gateway.OPTED_OUT_CODE:
            contact_opt_out_by_carrier(contact_id=contact.pk)
        return "failed"
    sent_at = timezone.now()
    with transaction.atomic():
        fields = {"provider_sid": sent.sid[:64], "sent_at": sent_at, "error_code": ""}
        # A status callback may have moved the row on already; then only the SID and time are added.
        if not OutboundMessage.objects.filter(pk=message_id, status=Status.SENDING).update(
            status=Status.SENT, provider_status=sent.status[:20], **fields
        ):
            OutboundMessage.objects.filter(pk=message_id).update(**fields)
        if with_notice:
            Contact.objects.filter(pk=contact.pk, consent_version="").update(
                consent_version=NOTICE_VERSION, consent_at=sent_at
            )
        audit_event_record(
            action="outbound.sent",
            object_type="outbound",
            object_id=message_id,
            data={
                "kind": message.kind,
                "segments": message.segments,
                "encoding": message.encoding,
                "attempts": message.attempts,
                "notice": with_notice,
            },
        )
    return "sent"


def outbound_give_up(*, message_id: UUID | str, code: str) -> None:
    """Mark a message failed after the last retry (its claim was released by the failed attempt)."""
    with transaction.atomic():
        if OutboundMessage.objects.filter(pk=message_id, status=Status.APPROVED, claimed_at=None).update(
            status=Status.FAILED, error_code=code[:20]
        ):
            audit_event_record(
                action="outbound.failed",
                object_type="outbound",
                object_id=message_id,
                data={"code": code, "retries_exhausted": True},
            )


def outbound_preview(*, message_id: UUID | str) -> dict[str, Any]:
    """What the person would receive now (for the approval screen): text, remainder, encoding, segments."""
    message = OutboundMessage.objects.select_related("conversation", "conversation__contact", "turn").get(pk=message_id)
    text, remainder, with_notice = compose(message, contact=message.conversation.contact)
    info = segments.segment_info(text)
    return {
        "text": text,
        "remainder": remainder,
        "notice": with_notice,
        "encoding": info.encoding,
        "segments": info.segments,
    }
