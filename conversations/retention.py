"""Retention and erasure: purge conversation content past `RETENTION_DAYS`, erase one person on request.

What holds a person's content: `Turn` (redacted text, state, reply), `NodeRun` (projections and
outputs), `OutboundMessage` (bodies, drafts, remainders) and `InboundSms` (redacted bodies); an
SMS `Contact` also holds the encrypted phone number. Audit events stay: they are append-only and
carry only ids, actions and counts. Progress events on the channel layer carry only ids and node
names and expire on their own (Redis layer: `expiry` 60 s), so nothing there needs erasing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.expressions import Combinable

from audit.services import audit_event_record
from conversations.models import Contact, Conversation, InboundSms, NodeRun, OutboundMessage, StaffMessage, Turn
from conversations.workflow import engine

logger = logging.getLogger(__name__)

PURGE_BATCH = 500
# An approved or sending message is in a worker's hands: deleting it under the sender would lose
# the "sent once" record. Old ones are stuck anyway and are purged on a later run once they settle.
_IN_FLIGHT = (OutboundMessage.Status.APPROVED, OutboundMessage.Status.SENDING)


class UnknownContact(Exception):
    http_status = 404
    code = "unknown_contact"
    message = "This person is not on record (already erased?)."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)


def retention_cutoff(*, now: datetime) -> datetime:
    """The instant before which conversation content is expired."""
    return now - timedelta(days=settings.RETENTION_DAYS)


def conversations_purge_expired(*, now: datetime, dry_run: bool = False) -> dict[str, Any]:
    """Delete turns, node runs, inbound and outbound messages older than the retention period; return counts.

    Deletes in small batches (short transactions, no long lock on busy tables). Then conversations
    untouched since the cutoff with nothing left in them, and contacts created before it with nothing
    left at all (no conversation, no row of any app pointing at them) go too: an SMS contact still
    holds the encrypted number. Opted-out contacts stay, so a STOP is honoured for good. The audit
    event records counts only.
    """
    cutoff = retention_cutoff(now=now)
    outbound = OutboundMessage.objects.filter(created_at__lt=cutoff).exclude(status__in=_IN_FLIGHT)
    inbound = InboundSms.objects.filter(received_at__lt=cutoff)
    turns = Turn.objects.filter(created_at__lt=cutoff)
    staff = StaffMessage.objects.filter(created_at__lt=cutoff)  # case managers' messages are content too (#18)
    counts = {
        "turns": turns.count(),
        "node_runs": NodeRun.objects.filter(turn__created_at__lt=cutoff).count(),
        "outbound_messages": outbound.count(),
        "inbound_sms": inbound.count(),
        "staff_messages": staff.count(),
    }
    if dry_run:
        counts["empty_conversations"] = _empty_conversations(cutoff).count()
        counts["empty_contacts"] = _empty_contacts(cutoff).count()
        return {**counts, "cutoff": cutoff.isoformat(), "dry_run": True}
    # Children first: outbound/inbound rows point at turns with SET NULL, cheaper to delete them first.
    _delete_in_batches(staff)  # before outbound: a staff message points at its outbox row
    _delete_in_batches(outbound)
    _delete_in_batches(inbound)
    _delete_in_batches(turns)  # NodeRuns go with their turn (CASCADE)
    counts["empty_conversations"] = _delete_in_batches(_empty_conversations(cutoff))
    counts["empty_contacts"] = _delete_in_batches(_empty_contacts(cutoff))
    with transaction.atomic():
        audit_event_record(
            action="conversations.purged",
            actor="system",
            object_type="retention",
            data={**counts, "retention_days": settings.RETENTION_DAYS},
        )
    logger.info("retention purge: %s", counts)
    return {**counts, "cutoff": cutoff.isoformat(), "dry_run": False}


def _delete_in_batches(queryset: Any) -> int:
    deleted = 0
    while True:
        ids = list(queryset.values_list("pk", flat=True)[:PURGE_BATCH])
        if not ids:
            return deleted
        with transaction.atomic():
            # Re-filtered inside the transaction: a row that gained content meanwhile stays.
            queryset.filter(pk__in=ids).delete()
        deleted += len(ids)


def _nothing_points_at(model: Any, *, skip: tuple[str, ...] = ()) -> Q | Combinable:
    """No row of any installed app references the object (reverse relations found at run time, so
    apps above conversations, e.g. reminders or case links, keep their rows without being imported)."""
    condition: Q | Combinable = Q()  # Q() & expression is the expression itself (an empty Q drops out)
    for relation in model._meta.related_objects:
        if relation.name in skip:
            continue
        related = relation.related_model
        condition &= ~Exists(related._default_manager.filter(**{relation.field.name: OuterRef("pk")}))
    return condition


def _empty_conversations(cutoff: datetime) -> Any:
    return Conversation.objects.filter(_nothing_points_at(Conversation), updated_at__lt=cutoff)


def _empty_contacts(cutoff: datetime) -> Any:
    return Contact.objects.filter(_nothing_points_at(Contact), created_at__lt=cutoff, opted_out=False)


def contact_erase(*, contact_id: UUID | str, actor: str) -> dict[str, int]:
    """Erase a person: their contact, conversations, turns, node runs, inbound and outbound messages.

    Waits for any running turn of theirs (its runner holds the conversation lock), so the workflow
    never checkpoints into a deleted turn. Case-management links (`ClientContact`) go with the
    contact by cascade; the staff `Client` record is caseload's to delete. One content-free audit
    event records ids and counts.
    """
    contact = Contact.objects.filter(pk=contact_id).first()
    if contact is None:
        raise UnknownContact
    conversation_ids = [
        str(pk) for pk in Conversation.objects.filter(contact_id=contact.pk).order_by("pk").values_list("pk", flat=True)
    ]
    with _conversation_locks(conversation_ids), transaction.atomic():
        counts = {
            "conversations": len(conversation_ids),
            "turns": Turn.objects.filter(conversation__contact_id=contact.pk).count(),
            "node_runs": NodeRun.objects.filter(turn__conversation__contact_id=contact.pk).count(),
            "outbound_messages": OutboundMessage.objects.filter(conversation__contact_id=contact.pk).count(),
            "inbound_sms": InboundSms.objects.filter(contact_id=contact.pk).count(),
        }
        channel = contact.channel
        if contact.phone_hash:
            # Messages still waiting for the worker have no contact yet, only the number's hash and
            # ciphertext: they go too, or the worker would re-create the contact from them.
            counts["inbound_sms"] += InboundSms.objects.filter(
                phone_hash=contact.phone_hash, contact__isnull=True
            ).delete()[0]
        Contact.objects.filter(pk=contact.pk).delete()
        audit_event_record(
            action="contact.erased",
            actor=actor,
            object_type="contact",
            object_id=str(contact_id),
            data={**counts, "channel": channel},
        )
    return counts


@contextmanager
def _conversation_locks(conversation_ids: list[str]) -> Iterator[None]:
    """Hold the advisory locks of several conversations (sorted ids: two erasers cannot deadlock)."""
    with ExitStack() as stack:
        for conversation_id in sorted(conversation_ids):
            stack.enter_context(engine.conversation_lock(conversation_id))
        yield
