"""Template tags of the branded admin: the alert badge in the header and the user's own counts on the index."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.simple_tag
def inbox_alert_badge(user: Any) -> int:
    """Open alerts this user is an audience of (one COUNT query)."""
    from caseload.inbox.selectors import open_alerts

    try:
        return open_alerts(user=user).count()
    except Exception:  # noqa: BLE001 - a badge must never break an admin page (e.g. before migrations ran)
        return 0


@register.simple_tag
def inbox_counts(user: Any) -> dict[str, int]:
    """The user's own open crises, waiting approvals, unanswered threads and asks for a person."""
    from caseload.inbox.selectors import inbox_counts as counts

    return counts(user=user)
