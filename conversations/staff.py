"""Case managers' own messages in a conversation, on either channel, and the conversation's timeline.

A staff reply is stored as a `StaffMessage` (author, time, audit event). On SMS it also becomes a
`human` OutboundMessage through the SMS outbox (`sms.outbox.outbox_put`), so the outbox's opt-out, mode and
segment rules apply; on the web it is shown in the person's chat page (a notify-only WebSocket
event makes the page fetch the timeline, and the timeline API returns it after a reload).
Scope and permission are the caller's job (caseload checks them); this module trusts its caller.
"""

from __future__ import annotations

import logging
from typing import Any, Final
from uuid import UUID

from django.db import IntegrityError, transaction

from audit.services import audit_event_record
from conversations.errors import ConversationError
from conversations.models import Conversation, OutboundMessage, StaffMessage
from conversations.sms.outbox import outbox_put
from conversations.staff_redaction import staff_text_redact
from conversations.web.events import publish_group, publish_progress

logger = logging.getLogger(__name__)

MAX_SMS_CHARS: Final = 1600  # Twilio's limit for one outbound message body
MAX_WEB_CHARS: Final = 2000  # the same bound the person's own messages have
INBOX_GROUP: Final = "staff.inbox"


class StaffReplyRefused(ConversationError):
    """A staff message cannot go out; the message says why (shown to the case manager as is)."""

    code = "staff_reply_refused"


def first_name(user: Any) -> str:
    """What the person sees of a case manager: the first name only (username's first part as a fallback)."""
    name = (getattr(user, "first_name", "") or "").strip().split(" ")[0]
    if not name:
        name = str(getattr(user, "get_username", lambda: "")() or "").split("@")[0].split(".")[0].split("-")[0]
    return name[:60].capitalize() if name.islower() else name[:60]


def staff_message_validate(*, body: str | None, channel: str) -> str:
    """The cleaned text, or StaffReplyRefused for an empty or over-long message (nothing is stored)."""
    text = (body or "").strip()
    if not text:
        raise StaffReplyRefused("Type a message first.", code="empty_message")
    limit = MAX_SMS_CHARS if channel == "sms" else MAX_WEB_CHARS
    if len(text) > limit:
        raise StaffReplyRefused(
            f"Messages are limited to {limit} characters on this channel ({len(text)} typed).", code="message_too_long"
        )
    return text


def staff_message_create(
    *, conversation_id: UUID | str, author: Any, body: str | None, idempotency_key: str, actor: str
) -> tuple[StaffMessage, bool]:
    """Store (and on SMS queue) one staff message; a repeated key returns the first one. Returns (message, created).

    The conversation row is locked first, so two case managers replying at once are stored one
    after the other (both kept, in order); the unique key makes a double-click one message.
    """
    key = (idempotency_key or "").strip()[:100]
    if not key:
        raise StaffReplyRefused("A message id is required.", code="bad_idempotency_key")
    try:
        with transaction.atomic():
            conversation = Conversation.objects.select_for_update().select_related("contact").get(pk=conversation_id)
            existing = StaffMessage.objects.filter(conversation=conversation, idempotency_key=key).first()
            if existing is not None:
                return existing, False
            # Staff text is redacted like the person's before it is stored (and so before it is sent):
            # a name or number a case manager types must not sit in the database either.
            text = staff_text_redact(
                staff_message_validate(body=body, channel=conversation.channel),
                author=author,
                language=conversation.language,
            )
            outbound = None
            if conversation.channel == "sms":
                contact = conversation.contact
                if contact.opted_out:
                    raise StaffReplyRefused(
                        "This person replied STOP, so no text can be sent until they text START.", code="opted_out"
                    )
                if not contact.phone_encrypted:
                    raise StaffReplyRefused("This conversation has no phone number to text.", code="no_phone")
                outbound = outbox_put(
                    conversation=conversation,
                    body=text,
                    kind=OutboundMessage.Kind.HUMAN,
                    actor=actor,
                    approved_by=author.get_username() if author is not None else actor,
                )
            message = StaffMessage.objects.create(
                conversation=conversation,
                author=author,
                author_first_name=first_name(author),
                channel=conversation.channel,
                body=text,
                outbound=outbound,
                idempotency_key=key,
            )
            # Touch the conversation: "last activity" orders lists and the row lock above serialises writers.
            conversation.save(update_fields=["updated_at"])
            audit_event_record(
                action="staff_message.created",
                actor=actor,
                object_type="conversation",
                object_id=conversation.pk,
                data={
                    "message": str(message.pk),
                    "channel": conversation.channel,
                    "chars": len(text),
                    **({"outbound": str(outbound.pk), "outbound_status": outbound.status} if outbound else {}),
                },
            )
            conversation_id_str, message_id = str(conversation.pk), str(message.pk)
            transaction.on_commit(lambda: staff_message_notify(conversation_id_str, message_id))
    except IntegrityError:
        # A concurrent request with the same key won the insert: that one is the message.
        return StaffMessage.objects.get(conversation_id=conversation_id, idempotency_key=key), False
    return message, True


def staff_message_notify(conversation_id: str, message_id: str) -> None:
    """Tell the person's open page and the staff inboxes (ids only; they fetch what they may see)."""
    publish_progress(conversation_id, {"event": "staff_message", "message_id": message_id, "turn_id": None})
    inbox_notify(conversation_id, "staff_message")


def inbox_notify(conversation_id: str, reason: str) -> None:
    """Notify the staff inbox listeners that a conversation changed (they re-read it through their scope)."""
    try:
        publish_group(INBOX_GROUP, {"type": "inbox.changed", "conversation_id": conversation_id, "reason": reason})
    except Exception:  # noqa: BLE001 - a notification is best effort; the inbox also polls
        logger.warning("inbox notification for %s not delivered", conversation_id)


def inbox_notify_on_commit(conversation_id: UUID | str, reason: str) -> None:
    """The one-line hook for writers of conversations: notify the inbox once the write commits."""
    value = str(conversation_id)
    transaction.on_commit(lambda: inbox_notify(value, reason))
