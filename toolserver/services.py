"""Writes of the MCP tool server: issuing and revoking staff API tokens (audited, content-free)."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from audit.services import audit_event_record
from toolserver.errors import TokenError
from toolserver.models import StaffApiToken

TOKEN_PREFIX = "pwmcp_"  # noqa: S105 - a public marker that tells tokens apart, not a secret


def token_hash(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def staff_token_create(*, username: str, name: str) -> tuple[StaffApiToken, str]:
    """Issue a token for an active staff account; returns the row and the token, shown once."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None or not user.is_active or not user.is_staff:
        raise TokenError("Tokens are only issued to active staff accounts.")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        row = StaffApiToken.objects.create(user=user, name=name[:80], token_hash=token_hash(token), prefix=token[:8])
        audit_event_record(
            action="mcp.token_created", actor=f"user:{user.pk}", object_type="mcp_token", object_id=row.pk
        )
    return row, token


def staff_token_revoke(*, token_id: int) -> bool:
    """Revoke a token; returns False when it was unknown or already revoked."""
    with transaction.atomic():
        revoked = StaffApiToken.objects.filter(pk=token_id, revoked_at=None).update(revoked_at=timezone.now())
        if revoked:
            audit_event_record(action="mcp.token_revoked", object_type="mcp_token", object_id=token_id)
    return bool(revoked)
