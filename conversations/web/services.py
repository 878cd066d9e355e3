"""Writes behind the web chat's session controls: accept the privacy notice, start over, delete.

Kept next to the web views because only the chat uses them; they follow services.py's rules
(keyword-only, one transaction, a content-free audit event for every change).
"""

from __future__ import annotations

from contextlib import ExitStack

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
    """Open a fresh conversation for the same contact and revoke the old token; return the new one and its token.

    The old conversation stays (case managers and retention still see it) but its token no longer
    opens it: on a shared computer, "Start over" must not leave the history one cookie away.
    """
    with transaction.atomic():
        Conversation.objects.filter(pk=conversation.pk).update(token_hash="")
        return services.conversation_create(channel="web", language=conversation.language, contact=conversation.contact)


def conversation_delete(*, conversation: Conversation) -> dict[str, int]:
    """Delete every web conversation of this device's contact (turns, node runs, outbox rows); return the counts.

    "Delete" means everything the person wrote from this device, the conversations left behind by
    "Start over" included. Waits for running turns to finish (their runners hold the conversation
    locks, taken in id order), so no workflow checkpoints into a deleted turn. The Contact stays: it
    holds no content (a web contact has no phone, only language and the accepted notice version)
    and retention removes it once nothing points at it. Each audit event carries only ids and counts.
    """
    contact = conversation.contact
    ids = sorted(
        str(pk) for pk in Conversation.objects.filter(contact=contact, channel="web").values_list("pk", flat=True)
    )
    totals = {"conversations": 0, "turns": 0, "node_runs": 0, "outbound_messages": 0}
    with ExitStack() as locks:
        for conversation_id in ids:
            locks.enter_context(engine.conversation_lock(conversation_id))
        with transaction.atomic():
            for conversation_id in ids:
                counts = {
                    "turns": Turn.objects.filter(conversation_id=conversation_id).count(),
                    "node_runs": NodeRun.objects.filter(turn__conversation_id=conversation_id).count(),
                    "outbound_messages": OutboundMessage.objects.filter(conversation_id=conversation_id).count(),
                }
                deleted, _ = Conversation.objects.filter(pk=conversation_id).delete()
                if not deleted:
                    continue
                totals["conversations"] += 1
                for key, value in counts.items():
                    totals[key] += value
                audit_event_record(
                    action="conversation.deleted",
                    actor="web_session",
                    object_type="conversation",
                    object_id=conversation_id,
                    data={**counts, "contact": str(contact.pk), "by": "person"},
                )
    return totals
