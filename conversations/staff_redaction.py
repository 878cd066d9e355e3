"""Redaction of staff-typed text: the person's rules, except the writer's own names.

Replies, approval edits, rejection reasons and notes go through `conversations.hooks.redact` before
they are stored, like everything a person types. The case manager's own first and last name are
kept ("Hi, this is Rosa"): they are shown with every message anyway, and masking them would only
make the greeting unreadable. Everyone else's name, and every number, is masked.
"""

from __future__ import annotations

import re
from typing import Any, Final

from conversations.hooks import redact

_OWN_NAME_MARK: Final = "[STAFF]"  # left alone by redact(): not one of its placeholders, not a name pattern


def _own_names(author: Any) -> set[str]:
    if isinstance(author, str):  # an actor name ("cm_alice", "rosa.garza@org")
        username = author
    else:
        username = str(getattr(author, "get_username", lambda: "")() or "") if author is not None else ""
    values = (
        getattr(author, "first_name", "") or "",
        getattr(author, "last_name", "") or "",
        *(re.split(r"[@._-]", username) if username else []),
    )
    names = {part for value in values for part in value.split() if len(part) >= 2}
    return names | {name.capitalize() for name in names}


def staff_text_redact(text: str, *, author: Any = None, language: str | None = None) -> str:
    """Redact `text` as typed by `author` (a user, or None); the author's own names stay as typed."""
    own = _own_names(author)
    if not own:
        return redact(text, language).text
    pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in sorted(own, key=len, reverse=True)) + r")\b")
    kept = pattern.findall(text)
    masked = redact(pattern.sub(_OWN_NAME_MARK, text), language).text
    if masked.count(_OWN_NAME_MARK) != len(kept):
        return masked.replace(_OWN_NAME_MARK, "[NAME]")
    for name in kept:
        masked = masked.replace(_OWN_NAME_MARK, name, 1)
    return masked
