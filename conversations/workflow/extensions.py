"""Extension points the workflow offers to higher layers without importing them.

caseload (above conversations) registers how to tell a person who asked for a human what happens
next and when (office hours); the escalate node asks here and falls back to the generic handoff.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

HumanRequestNotice = Callable[[str, datetime], "str | None"]

_human_request_notice: HumanRequestNotice | None = None


def register_human_request_notice(provider: HumanRequestNotice) -> None:
    """Install the provider of the 'a person will get back to you' text (language, now) → text."""
    global _human_request_notice  # noqa: PLW0603 - one registry slot, set once at start-up
    _human_request_notice = provider


def human_request_notice(language: str, now: datetime) -> str | None:
    """The registered notice for a human request, or None when no provider is installed."""
    return _human_request_notice(language, now) if _human_request_notice else None
