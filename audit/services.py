"""Writes of the audit app: appending events to the chain."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from audit.log import GENESIS_HASH, AuditEvent

# Any fixed 64-bit key: serialises appenders so two events never chain to the same predecessor.
_CHAIN_LOCK_KEY = 0x5041544857415953  # "PATHWAYS"
MAX_DATA_BYTES = 4096


def audit_event_record(
    *,
    action: str,
    actor: str = "system",
    object_type: str = "",
    object_id: str | int | uuid.UUID = "",
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append one content-free event to the hash chain (inside the caller's transaction if any)."""
    if not action:
        raise ValueError("an audit event needs an action")
    payload = json.loads(json.dumps(data or {}, default=str))
    if len(json.dumps(payload)) > MAX_DATA_BYTES:
        raise ValueError("audit event data is limited to 4 KB of structured facts, never content")
    # No savepoint: an event that cannot be written must take the caller's change down with it.
    with transaction.atomic(savepoint=False):
        with connection.cursor() as cursor:
            # Held to the end of the transaction: the next appender reads our hash, not the old tail.
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CHAIN_LOCK_KEY])
        last = AuditEvent.objects.order_by("-id").values_list("hash", flat=True).first()
        event = AuditEvent(
            created_at=timezone.now(),
            actor=str(actor)[:150],
            action=action[:80],
            object_type=object_type[:80],
            object_id=str(object_id)[:80],
            data=payload,
            prev_hash=last or GENESIS_HASH,
        )
        event.hash = event.compute_hash()
        event.save()
    return event
