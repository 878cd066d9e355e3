"""SMS commands that higher layers add without conversations importing them (reminders, PLAN).

A command handler sees one inbound SMS (already redacted, never a crisis) with the contact's row
locked, inside the inbound decision's transaction, and returns the command's name when it handled
the message (then no turn is started) or None to let keywords and the workflow have it. Handlers
run before the carrier keywords, so each must match only its own exact forms ("CANCEL 2" only when
reminder 2 exists; a bare "CANCEL" stays an opt-out).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol


class SmsCommand(Protocol):
    def __call__(self, *, contact: object, conversation: object, body: str, now: datetime) -> str | None: ...


_handlers: list[tuple[str, SmsCommand]] = []


def register_sms_command(name: str, handler: SmsCommand | Callable[..., str | None]) -> None:
    """Install a handler once per name (apps' ready() may run twice in tests)."""
    if all(existing != name for existing, _ in _handlers):
        _handlers.append((name, handler))


def sms_command_dispatch(*, contact: object, conversation: object, body: str, now: datetime) -> str | None:
    """The name of the first command that handled the message, or None."""
    for _name, handler in _handlers:
        handled = handler(contact=contact, conversation=conversation, body=body, now=now)
        if handled:
            return handled
    return None
