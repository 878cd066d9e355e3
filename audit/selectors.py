"""Reads of the audit app: chain verification."""

from __future__ import annotations

from dataclasses import dataclass

from audit.log import GENESIS_HASH, AuditEvent


@dataclass(frozen=True)
class ChainReport:
    """Result of recomputing the chain: ok, how many rows were checked, the first broken row."""

    ok: bool
    checked: int
    first_broken_id: int | None = None
    reason: str = ""
    head_id: int = 0  # the last verified event (0: none), what `audit verify` anchors outside the database
    head_hash: str = GENESIS_HASH


def audit_chain_verify(*, batch_size: int = 2000) -> ChainReport:
    """Recompute every hash in order and report the first row whose link or content was altered."""
    expected_prev = GENESIS_HASH
    checked = 0
    head_id = 0
    for event in AuditEvent.objects.order_by("id").iterator(chunk_size=batch_size):
        if event.prev_hash != expected_prev:
            return ChainReport(
                False, checked, event.pk, "prev_hash does not match the previous row (row removed or reordered)"
            )
        if event.compute_hash() != event.hash:
            return ChainReport(False, checked, event.pk, "content does not match its hash (row altered)")
        expected_prev, head_id = event.hash, event.pk
        checked += 1
    return ChainReport(True, checked, head_id=head_id, head_hash=expected_prev)
