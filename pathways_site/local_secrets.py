"""Secrets generated once for the embedded (development) setup and kept under var/.

Keeping them on disk means a restart keeps sessions valid and encrypted fields readable.
They are never used in production: settings refuse generated secrets there.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from pathlib import Path

from filelock import FileLock

GENERATED_MARKER = "generated-"


def _new_secrets() -> dict[str, str]:
    return {
        "SECRET_KEY": GENERATED_MARKER + secrets.token_urlsafe(50),
        "FIELD_ENCRYPTION_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
        "PHONE_HASH_KEY": secrets.token_urlsafe(32),
        "AUDIT_ANCHOR_KEY": secrets.token_urlsafe(32),
    }


def load_or_create(var_dir: Path) -> dict[str, str]:
    """Return the generated secrets, creating var/secrets.json atomically on first use."""
    var_dir.mkdir(parents=True, exist_ok=True)
    path = var_dir / "secrets.json"
    # Two processes starting together must agree on one set of secrets.
    with FileLock(str(path) + ".lock", timeout=30):
        if path.exists():
            stored: dict[str, str] = json.loads(path.read_text())
            fresh = _new_secrets()
            missing = {k: v for k, v in fresh.items() if k not in stored}
            if not missing:
                return stored
            stored.update(missing)
        else:
            stored = _new_secrets()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(stored, indent=2))
        os.chmod(tmp, 0o600)
        tmp.replace(path)
        return stored
