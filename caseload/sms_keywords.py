"""SMS keywords of caseload (registered with conversations.sms.commands in caseload.apps).

- `YES` / `SI`: confirms the person's latest open ask — an erasure (DELETE) or a phone link — unless a
  reminder waiting for its YES is newer, which outreach's handler then confirms.
- `STOP SHARING` / `NO COMPARTIR`: no case manager sees the number's messages any more.
- `DELETE` / `BORRAR`: asks for a YES within 15 minutes, then erases the texter (their messages, number,
  conversations and link) after one last confirmation text.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from django.db import transaction

from audit.services import audit_event_record
from caseload import erasure, phone_links
from caseload.phone_links import keyword_fold
from conversations.models import Contact, Conversation, InboundSms, OutboundMessage

ERASE_WINDOW: Final = timedelta(minutes=15)
_DELETE_WORDS: Final = {"DELETE": "en", "DELETE ME": "en", "ERASE": "en", "BORRAR": "es", "BORRAME": "es"}

TEXTS: Final[dict[str, dict[str, str]]] = {
    "erase_ask": {
        "en": (
            "Pathways: reply YES within 15 minutes to erase your messages and your number from Pathways. "
            "This cannot be undone."
        ),
        "es": (
            "Pathways: responda SI en los próximos 15 minutos para borrar sus mensajes y su número de Pathways. "
            "No se puede deshacer."
        ),
    },
    "erase_done": {
        "en": "Pathways: your messages and number are erased. If you text us again, we start fresh.",
        "es": "Pathways: sus mensajes y su número fueron borrados. Si nos escribe otra vez, empezamos de nuevo.",
    },
}


def _text(key: str, language: str) -> str:
    return TEXTS[key].get(language) or TEXTS[key]["en"]


def _put(conversation: Conversation, *, purpose: str, body: str) -> OutboundMessage:
    from conversations.sms.outbox import outbox_put

    message = outbox_put(
        conversation=conversation,
        body=body,
        kind=OutboundMessage.Kind.KEYWORD,
        status=OutboundMessage.Status.APPROVED,
        purpose=purpose,
    )
    return message


def delete_command(*, contact: Contact, conversation: Conversation, body: str, now: datetime) -> str | None:
    """DELETE / BORRAR: ask for a YES (the keyword row, stored as DELETE/BORRAR, is the pending ask)."""
    folded = keyword_fold(body)
    if len(body) > 20 or folded not in _DELETE_WORDS:
        return None
    language = _DELETE_WORDS[folded] if folded != "DELETE" else (conversation.language or contact.language)
    _put(conversation, purpose="erase_ask", body=_text("erase_ask", language))
    audit_event_record(action="sms.erase_requested", object_type="contact", object_id=contact.pk)
    return "BORRAR" if language == "es" else "DELETE"


def _erase_asked(contact: Contact, now: datetime) -> InboundSms | None:
    """The DELETE this YES answers: the number's last decided message, if it is a DELETE of the last 15 minutes."""
    last = (
        InboundSms.objects.filter(contact=contact)
        .exclude(outcome=InboundSms.Outcome.PENDING)
        .order_by("-received_at")
        .first()
    )
    if last is not None and last.keyword in ("DELETE", "BORRAR") and last.received_at >= now - ERASE_WINDOW:
        return last
    return None


def _reminder_waiting_since(contact: Contact, now: datetime) -> datetime | None:
    from outreach.models import Reminder
    from outreach.services import CONFIRM_WINDOW

    return (
        Reminder.objects.filter(
            contact=contact, status=Reminder.Status.AWAITING, created_at__gte=now - CONFIRM_WINDOW, due_at__gt=now
        )
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )


def yes_command(*, contact: Contact, conversation: Conversation, body: str, now: datetime) -> str | None:
    """YES: the newest open ask wins (erasure, phone link, or — by returning None — a reminder)."""
    if not phone_links.is_yes(body):
        return None
    asks: list[tuple[datetime, str]] = []
    erase_ask = _erase_asked(contact, now)
    if erase_ask is not None:
        asks.append((erase_ask.received_at, "erase"))
    link = phone_links.pending_request(contact=contact, now=now)
    if link is not None:
        asks.append((link.created_at, "link"))
    reminder_at = _reminder_waiting_since(contact, now)
    if reminder_at is not None:
        asks.append((reminder_at, "reminder"))
    if not asks:
        return None
    _at, kind = max(asks)
    if kind == "erase" and erase_ask is not None:
        _erase_confirmed(contact, conversation, language="es" if erase_ask.keyword == "BORRAR" else "en")
        return "ERASE_YES"
    if kind == "link" and link is not None:
        language = phone_links.answer_language(body, contact, conversation)
        phone_links.phone_link_confirm(request=link, language=language, now=now)
        return "LINK_YES"
    return None


def _erase_confirmed(contact: Contact, conversation: Conversation, *, language: str) -> None:
    """Queue the last text (not enqueued: sent by the eraser itself, just before it erases)."""
    from conversations.sms.outbox import outbox_put

    message = outbox_put(
        conversation=conversation,
        body=_text("erase_done", language),
        kind=OutboundMessage.Kind.KEYWORD,
        purpose="erase_done",
        dispatch=False,
    )
    audit_event_record(action="sms.erase_confirmed", object_type="contact", object_id=contact.pk)
    contact_id, message_id = str(contact.pk), str(message.pk)
    transaction.on_commit(lambda: erasure.erase_after_confirmation(contact_id=contact_id, message_id=message_id))
