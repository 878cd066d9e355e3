"""Admin logins and failed logins become audit events (the username of a failure is hashed, never stored)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.http import HttpRequest

from audit.services import audit_event_record


def username_hash(username: str) -> str:
    """Keyed hash of a login name: repeated failures for one name correlate, but the name is not recoverable."""
    key = f"audit-login:{settings.SECRET_KEY}".encode()
    return hmac.new(key, username.strip().casefold().encode(), hashlib.sha256).hexdigest()[:32]


def on_user_logged_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """Record a successful login (actor is the user id, nothing else about them)."""
    audit_event_record(
        action="admin.login",
        actor=f"user:{user.pk}",
        object_type="user",
        object_id=user.pk,
        data={"staff": bool(getattr(user, "is_staff", False))},
    )


def on_user_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    """Record a failed login with the attempted username hashed (a typed password in the name field must not leak)."""
    field = get_user_model().USERNAME_FIELD
    username = str(credentials.get(field) or credentials.get("username") or "")
    audit_event_record(
        action="admin.login_failed",
        actor="anonymous",
        object_type="user",
        data={"username_hash": username_hash(username) if username else ""},
    )


def connect() -> None:
    """Connect the receivers once."""
    user_logged_in.connect(on_user_logged_in, dispatch_uid="audit.admin_login")
    user_login_failed.connect(on_user_login_failed, dispatch_uid="audit.admin_login_failed")
