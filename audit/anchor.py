"""The audit chain's anchor outside the database: the head `audit verify` saw, HMAC-signed.

The hash chain shows an edit or a deletion inside the log, but someone with write access to the
database could rewrite every row and recompute every hash, or TRUNCATE it and start over. Each
`manage.py audit verify` therefore writes the chain head (last event id, its hash, the count) to
AUDIT_ANCHOR_PATH, signed with AUDIT_ANCHOR_KEY (an environment / var/secrets.json secret the
database never holds), and the next run checks that the anchored event is still there with the
same hash. The same line goes to the command's output, so a log system keeps a copy too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from audit.log import AuditEvent


class AnchorError(Exception):
    """The anchor file is unreadable, altered, or signed with another key."""


@dataclass(frozen=True)
class Anchor:
    event_id: int
    hash: str
    count: int
    written_at: str


def _key() -> bytes:
    key = getattr(settings, "AUDIT_ANCHOR_KEY", "") or ""
    if not key:
        raise AnchorError("AUDIT_ANCHOR_KEY is not set: the chain head cannot be signed")
    return key.encode()


def _signature(fields: dict[str, Any]) -> str:
    payload = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hmac.new(_key(), payload.encode(), hashlib.sha256).hexdigest()


def anchor_path() -> Path:
    return Path(settings.AUDIT_ANCHOR_PATH)


def anchor_read(path: Path | None = None) -> Anchor | None:
    """The last anchor, or None when none was written yet; AnchorError when it is not genuine."""
    path = path or anchor_path()
    if not path.exists():
        return None
    try:
        stored = json.loads(path.read_text())
        fields = {k: stored[k] for k in ("event_id", "hash", "count", "written_at")}
        signature = str(stored["signature"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise AnchorError(f"the audit anchor {path} is unreadable ({exc})") from None
    if not hmac.compare_digest(signature, _signature(fields)):
        raise AnchorError(f"the audit anchor {path} does not carry a valid signature (altered, or another key)")
    return Anchor(**fields)


def anchor_check(anchor: Anchor) -> str | None:
    """What is wrong with the chain compared with the anchor; None when the anchored head is intact."""
    if anchor.event_id == 0:
        return None
    stored = AuditEvent.objects.filter(pk=anchor.event_id).values_list("hash", flat=True).first()
    if stored is None:
        return (
            f"event #{anchor.event_id}, the chain head anchored at {anchor.written_at}, is gone "
            "(the log was truncated or rebuilt)"
        )
    if stored != anchor.hash:
        return (
            f"event #{anchor.event_id} no longer has the hash anchored at {anchor.written_at} (the chain was rewritten)"
        )
    return None


def anchor_write(*, event_id: int, head_hash: str, count: int, path: Path | None = None) -> str:
    """Write the signed head atomically (mode 600); returns the line written."""
    path = path or anchor_path()
    fields = asdict(Anchor(event_id=event_id, hash=head_hash, count=count, written_at=timezone.now().isoformat()))
    line = json.dumps({**fields, "signature": _signature(fields)}, sort_keys=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(line + "\n")
    os.chmod(tmp, 0o600)
    tmp.replace(path)
    return line
