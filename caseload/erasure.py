"""Erasure that erases: a client and every copy of their data, including Django's admin log.

`django.contrib.admin` keeps `object_repr` (the client's name, or a contact's "…1234") and a
change message for every add/change/delete made in admin; the erasure scrubs those rows of the
erased objects. Conversation content goes through `conversations.retention.contact_erase`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from uuid import UUID

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction

from audit.services import audit_event_record
from caseload.models import Client, ClientContact, PhoneLinkRequest
from conversations.retention import UnknownContact, contact_erase

logger = logging.getLogger(__name__)

ERASED_REPR = "(erased)"


def admin_log_scrub(*, model: type[models.Model], object_ids: Iterable[object]) -> int:
    """Blank the name and change message of the admin log rows of these objects; returns rows scrubbed."""
    ids = [str(object_id) for object_id in object_ids]
    if not ids:
        return 0
    content_type = ContentType.objects.get_for_model(model, for_concrete_model=False)
    return LogEntry.objects.filter(content_type=content_type, object_id__in=ids).update(
        object_repr=ERASED_REPR, change_message=""
    )


def client_erase(*, client: Client, actor: str) -> dict[str, int]:
    """Erase a client: their linked contacts' conversations and numbers, link requests, the client record
    and the admin log's copies of their name. One content-free audit event records the counts."""
    client_id = str(client.pk)
    contact_ids = list(client.contacts.values_list("pk", flat=True))
    erased = 0
    for contact_id in contact_ids:
        try:
            contact_erase(contact_id=contact_id, actor=actor)
            erased += 1
        except UnknownContact:
            continue  # erased meanwhile (the person texted DELETE): nothing left to do
    with transaction.atomic():
        link_ids = list(ClientContact.objects.filter(client_id=client_id).values_list("pk", flat=True))
        scrubbed = admin_log_scrub(model=ClientContact, object_ids=link_ids)
        scrubbed += admin_log_scrub(model=Client, object_ids=[client_id])
        requests = PhoneLinkRequest.objects.filter(client_id=client_id).count()
        Client.objects.filter(pk=client_id).delete()
        audit_event_record(
            action="client.erased",
            actor=actor,
            object_type="client",
            object_id=client_id,
            data={"contacts": erased, "admin_log_rows": scrubbed, "link_requests": requests},
        )
    return {"contacts": erased, "admin_log_rows": scrubbed}


def contact_erase_everywhere(*, contact_id: UUID | str, actor: str) -> dict[str, int]:
    """Erase one contact (SMS DELETE): its conversations, link, link requests and admin-log copies."""
    link_ids = list(ClientContact.objects.filter(contact_id=contact_id).values_list("pk", flat=True))
    counts = contact_erase(contact_id=contact_id, actor=actor)
    admin_log_scrub(model=ClientContact, object_ids=link_ids)
    return counts


def erase_after_confirmation(*, contact_id: str, message_id: str) -> None:
    """Send the erasure confirmation, then erase (run after the YES's transaction commits).

    The confirmation goes first: once the contact is gone there is no number to text.
    """
    from conversations.sms.sender import outbound_deliver

    try:
        outbound_deliver(message_id=message_id)
    except Exception:  # noqa: BLE001 - a failed confirmation must never keep the data
        logger.warning("erasure confirmation %s could not be sent; erasing anyway", message_id)
    try:
        contact_erase_everywhere(contact_id=contact_id, actor=f"contact:{contact_id}")
    except UnknownContact:
        logger.info("contact %s was already erased", contact_id)
