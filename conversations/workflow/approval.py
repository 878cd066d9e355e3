"""Which SMS replies need no approval, and what a person is told at once while one waits (pure).

- `fixed_text_without_approval(state)`: the fixed handoff texts that contain nothing generated
  (a person asked for a human; legal-aid and out-of-state handoffs) go out at once;
- `after_hours_unreviewed(...)`: with AFTER_HOURS_POLICY=send_audited, a reply whose audit passed
  with no findings goes out after hours, labelled as not yet reviewed;
- `acknowledgement_text(...)`: "we got your message", when to expect the answer (office hours and
  APPROVAL_SLA_MINUTES), 211 and 988 — the SMS outbox sends it once per waiting period.
The lines named: 211 Texas, "2-1-1 or 1-877-541-7905", free statewide information and referral
(https://www.211texas.org); the 988 Suicide & Crisis Lifeline, call or text 988, 24/7, English and
Spanish (https://988lifeline.org) — both as recorded in shared/reference/tx_resources.jsonl.
The send node's delivery plan calls the first two; office hours are parsed by caseload (above
conversations), which registers them here at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import Any, Final, Protocol

from django.conf import settings

FIXED_TEXT_CATEGORIES: Final = frozenset({"human", "legal_aid", "out_of_state"})
UNREVIEWED_LABEL: Final = {
    "en": "(Sent after hours; not yet reviewed by a case manager.)",
    "es": "(Enviado fuera de horario; todavía no lo revisó un administrador de casos.)",
}
_DAY_NAMES: Final = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
}


class Hours(Protocol):
    """What the acknowledgement needs of office hours (caseload.office_hours.OfficeHours has it)."""

    # Read-only (a property): OfficeHours is a frozen dataclass, and a plain attribute here would demand a settable one.
    @property
    def tz(self) -> tzinfo: ...

    def is_open(self, now: datetime) -> bool: ...

    def next_opening(self, now: datetime) -> datetime: ...


_hours_provider: Callable[[], Hours] | None = None


def register_office_hours(provider: Callable[[], Hours]) -> None:
    """Install the provider of the configured office hours (caseload does, at start-up)."""
    global _hours_provider  # noqa: PLW0603 - one registry slot, set once at start-up
    _hours_provider = provider


def office_hours() -> Hours | None:
    return _hours_provider() if _hours_provider else None


def fixed_text_without_approval(state: dict[str, Any]) -> bool:
    """True for a fixed handoff text with nothing generated in it: it may go out at once, without approval."""
    if state.get("delivery") != "handoff":
        return False
    handoff = state.get("handoff") or {}
    # A bound breach or an audit block also ends in a handoff, but its category then is "bound"/"uncertain".
    return handoff.get("category") in FIXED_TEXT_CATEGORIES and not state.get("plan")


def after_hours_unreviewed(*, state: dict[str, Any], now: datetime, hours: Hours | None, policy: str) -> bool:
    """send_audited after hours: a reply whose audit passed with no findings goes out, labelled unreviewed."""
    if policy != "send_audited" or hours is None or hours.is_open(now):
        return False
    audit = state.get("audit") or {}
    return state.get("delivery") == "reply" and audit.get("verdict") == "pass" and not audit.get("findings")


def label_unreviewed(body: str, language: str) -> str:
    """The label goes first: a long reply is shortened with MORE at its end, and the label must not be cut."""
    return f"{UNREVIEWED_LABEL.get(language, UNREVIEWED_LABEL['en'])}\n{body}"


def _clock(moment: datetime, language: str) -> str:
    if language == "es":
        return moment.strftime("%H:%M")
    hour = moment.hour % 12 or 12
    suffix = "AM" if moment.hour < 12 else "PM"
    return f"{hour}:{moment.minute:02d} {suffix}" if moment.minute else f"{hour} {suffix}"


def opening_phrase(*, opening: datetime, now: datetime, tz: Any, language: str) -> str:
    """'today at 9 AM' / 'tomorrow at 9 AM' / 'Monday at 9 AM' (es: 'hoy a las 09:00', …)."""
    spanish = language == "es"
    local_now = now.astimezone(tz)
    opening = opening.astimezone(tz)
    if opening.date() == local_now.date():
        return f"hoy a las {_clock(opening, 'es')}" if spanish else f"today at {_clock(opening, 'en')}"
    if opening.date() == (local_now + timedelta(days=1)).date():
        return f"mañana a las {_clock(opening, 'es')}" if spanish else f"tomorrow at {_clock(opening, 'en')}"
    name = _DAY_NAMES["es" if spanish else "en"][opening.weekday()]
    return f"el {name} a las {_clock(opening, 'es')}" if spanish else f"{name} at {_clock(opening, 'en')}"


def acknowledgement_text(*, language: str, now: datetime, hours: Hours | None, sla_minutes: int) -> str:
    """The immediate 'a case manager will check the answer' text, with when to expect it and 211 / 988."""
    spanish = language == "es"
    if hours is None or hours.is_open(now):
        when = (
            f"normalmente en unos {sla_minutes} minutos en horario de oficina"
            if spanish
            else f"usually within {sla_minutes} minutes during office hours"
        )
    else:
        phrase = opening_phrase(opening=hours.next_opening(now), now=now, tz=hours.tz, language=language)
        when = f"después de que abra la oficina, {phrase}" if spanish else f"after the office opens {phrase}"
    if spanish:
        return (
            f"Recibimos su mensaje. Un administrador de casos revisará la respuesta y le enviará un texto, {when}. "
            "Si es urgente, llame al 211 (2-1-1). En una crisis, llame o envíe un texto al 988."
        )
    return (
        f"We got your message. A case manager will check the answer and text you back, {when}. "
        "If it is urgent, call 211 (2-1-1). In a crisis, call or text 988."
    )


def sla_minutes() -> int:
    """APPROVAL_SLA_MINUTES: the office-hours wait the acknowledgement names and supervisors are alerted at."""
    return int(getattr(settings, "APPROVAL_SLA_MINUTES", 30))
