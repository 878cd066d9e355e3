"""Reads of the MCP tool server: who a bearer token belongs to."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from toolserver.models import StaffApiToken
from toolserver.services import TOKEN_PREFIX, token_hash


def staff_token_user_id(*, token: str) -> int | None:
    """The user id of a valid token (not revoked, account still active staff), else None; marks it used."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = (
        StaffApiToken.objects.filter(token_hash=token_hash(token), revoked_at=None, user__is_active=True)
        .filter(Q(user__is_staff=True) | Q(user__is_superuser=True))
        .only("pk", "user_id")
        .first()
    )
    if row is None:
        return None
    StaffApiToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
    return row.user_id
