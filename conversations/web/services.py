"""Writes behind the web chat's session controls: accept the privacy notice, start over, delete.

Kept next to the web views because only the chat uses them; they follow services.py's rules
(keyword-only, one transaction, a content-free audit event for every change).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from conversations import services
from conversations.errors import ConversationError
from conversations.models import Contact, Conversation, NodeRun, OutboundMessage, Turn
from conversations.workflow import engine

# Bump whenever the notice text in templates/chat/index.html changes: people see it again.
NOTICE_VERSION = "2025-06-v1"


class StaleNotice(ConversationError):
    http_status = 409
    code = "stale_notice"


def contact_consent_record(*, conversation: Conversation, version: str) -> Contact:
    """Record that the person accepted the privacy notice `version` (only the current one is accepted)."""
    if version != NOTICE_VERSION:
        raise StaleNotice("The privacy notice changed. Please read it again.")
    contact = conversation.contact
    with transaction.atomic():
        contact.consent_version = version
        contact.consent_at = timezone.now()
        contact.save(update_fields=["consent_version", "consent_at"])
        audit_event_record(
            action="contact.consent_recorded",
            actor="web_session",
            object_type="contact",
            object_id=contact.pk,
            data={"version": version, "channel": contact.channel},
        )
    return contact


def conversation_restart(*, conversation: Conversation) -> tuple[Conversation, str]:
    """Open a fresh conversation for the same contact (its accepted notice carries over); return it and its token."""
    return services.conversation_create(channel="web", language=conversation.language, contact=conversation.contact)


def conversation_delete(*, conversation: Conversation) -> dict[str, int]:
    """Delete a web conversation with its turns, node runs and outbox rows; return what was deleted.

    Waits for a running turn to finish (its runner holds the conversation lock), so the workflow
    never checkpoints into a deleted turn. The Contact stays: it holds no content (a web contact
    has no phone, only language and the accepted notice version) and case-management records may
    point at it. The audit event carries only ids and counts.
    """
    conversation_id = str(conversation.pk)
    contact = conversation.contact
    with engine.conversation_lock(conversation_id), transaction.atomic():
        counts = {
            "turns": Turn.objects.filter(conversation_id=conversation_id).count(),
            "node_runs": NodeRun.objects.filter(turn__conversation_id=conversation_id).count(),
            "outbound_messages": OutboundMessage.objects.filter(conversation_id=conversation_id).count(),
        }
        Conversation.objects.filter(pk=conversation_id).delete()
        audit_event_record(
            action="conversation.deleted",
            actor="web_session",
            object_type="conversation",
            object_id=conversation_id,
            data={**counts, "contact": str(contact.pk), "by": "person"},
        )
    return counts
