"""Extension points the workflow offers to higher layers without importing them.

caseload (above conversations) registers how to tell a person who asked for a human what happens
next and when (office hours); the escalate node asks here and falls back to the generic handoff.
The web channel (above the workflow inside conversations) registers where the engine's per-node
progress goes (its WebSocket groups); with no listener progress is simply not published.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

HumanRequestNotice = Callable[[str, datetime], "str | None"]
ProgressListener = Callable[[str, dict[str, Any]], None]

_human_request_notice: HumanRequestNotice | None = None
_progress_listener: ProgressListener | None = None


def register_human_request_notice(provider: HumanRequestNotice) -> None:
    """Install the provider of the 'a person will get back to you' text (language, now) → text."""
    global _human_request_notice  # noqa: PLW0603 - one registry slot, set once at start-up
    _human_request_notice = provider


def human_request_notice(language: str, now: datetime) -> str | None:
    """The registered notice for a human request, or None when no provider is installed."""
    return _human_request_notice(language, now) if _human_request_notice else None


def register_progress_listener(listener: ProgressListener) -> None:
    """Install the receiver of turn progress (conversation id, payload); set once at start-up."""
    global _progress_listener  # noqa: PLW0603 - one registry slot, set once at start-up
    _progress_listener = listener


def progress_publish(conversation_id: str, payload: dict[str, Any]) -> None:
    """Hand one progress payload to the registered listener, if any (it must not block)."""
    if _progress_listener is not None:
        _progress_listener(conversation_id, payload)
