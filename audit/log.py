"""The append-only, hash-chained audit log.

Each row stores the hash of the previous row, so editing or deleting any row breaks the chain
from that point on (`manage.py audit verify` finds the first broken link). Append-only is
enforced twice: here in code, and by a PostgreSQL trigger that refuses UPDATE and DELETE.
Events carry no user content: ids, actions and small structured facts only.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models

GENESIS_HASH = "0" * 64


class AppendOnlyViolation(Exception):
    """Raised on any attempt to change or remove an audit event."""


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyViolation("audit events are immutable")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyViolation("audit events cannot be deleted")


class AuditEvent(models.Model):
    """One immutable event: who did what to which object, chained to the previous event."""

    created_at = models.DateTimeField(db_index=True)
    actor = models.CharField(max_length=150, db_index=True, help_text="user:<id>, system, twilio, client:<id>")
    action = models.CharField(max_length=80, db_index=True)
    object_type = models.CharField(max_length=80, blank=True, db_index=True)
    object_id = models.CharField(max_length=80, blank=True, db_index=True)
    data = models.JSONField(default=dict, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="audit_object_idx")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action} {self.object_type}:{self.object_id} by {self.actor}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise AppendOnlyViolation("audit events are immutable")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyViolation("audit events cannot be deleted")

    def compute_hash(self) -> str:
        """Hash this event's content together with the previous hash (canonical JSON, SHA-256)."""
        return event_hash(
            prev_hash=self.prev_hash,
            created_at=self.created_at.isoformat(),
            actor=self.actor,
            action=self.action,
            object_type=self.object_type,
            object_id=self.object_id,
            data=self.data,
        )


def event_hash(
    *, prev_hash: str, created_at: str, actor: str, action: str, object_type: str, object_id: str, data: Any
) -> str:
    """Return the SHA-256 of the canonical JSON of one event's fields."""
    payload = json.dumps(
        [prev_hash, created_at, actor, action, object_type, object_id, data],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()
