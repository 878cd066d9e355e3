"""Office hours and the "a person will get back to you" notice, with after-hours wording.

settings.OFFICE_HOURS reads like "Mon-Fri 09:00-17:00 America/Chicago"; several day ranges may be
joined with ";" ("Mon-Thu 08:00-18:00; Fri 08:00-12:00 America/Chicago"). Pure functions over an
explicit `now`, so the wording is testable at any hour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_OFFICE_HOURS = "Mon-Fri 09:00-17:00 America/Chicago"
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_NAMES = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
}
_RANGE = re.compile(
    r"^\s*(?P<d1>[A-Za-z]{3})(?:\s*-\s*(?P<d2>[A-Za-z]{3}))?\s+(?P<t1>\d{1,2}:\d{2})\s*-\s*(?P<t2>\d{1,2}:\d{2})\s*$"
)


class OfficeHoursError(ValueError):
    """OFFICE_HOURS could not be parsed (a start-up check reports it)."""


@dataclass(frozen=True)
class OfficeHours:
    """Opening windows per weekday (0 = Monday) in one time zone."""

    windows: tuple[tuple[int, time, time], ...]
    tz: ZoneInfo
    spec: str

    def is_open(self, now: datetime) -> bool:
        local = now.astimezone(self.tz)
        return any(day == local.weekday() and start <= local.time() < end for day, start, end in self.windows)

    def next_opening(self, now: datetime) -> datetime:
        """The next moment the office opens after `now` (in the office's time zone)."""
        local = now.astimezone(self.tz)
        for offset in range(8):
            date = (local + timedelta(days=offset)).date()
            starts = sorted(start for day, start, _ in self.windows if day == date.weekday())
            for start in starts:
                candidate = datetime.combine(date, start, tzinfo=self.tz)
                if candidate > local:
                    return candidate
        raise OfficeHoursError("office hours have no opening in a week")


def office_hours_parse(spec: str) -> OfficeHours:
    """Parse an OFFICE_HOURS string; raise OfficeHoursError with a reason on anything odd."""
    text = (spec or "").strip()
    head, _, zone = text.rpartition(" ")
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise OfficeHoursError(f"OFFICE_HOURS must end with an IANA time zone, got {zone!r}") from None
    windows: list[tuple[int, time, time]] = []
    for part in head.split(";"):
        match = _RANGE.match(part)
        if not match:
            raise OfficeHoursError(f"OFFICE_HOURS part {part.strip()!r} is not like 'Mon-Fri 09:00-17:00'")
        try:
            first = _DAYS.index(match["d1"].lower())
            last = _DAYS.index((match["d2"] or match["d1"]).lower())
            start = time.fromisoformat(match["t1"].zfill(5))
            end = time.fromisoformat(match["t2"].zfill(5))
        except ValueError:
            raise OfficeHoursError(f"OFFICE_HOURS part {part.strip()!r} has an unknown day or time") from None
        if end <= start:
            raise OfficeHoursError(f"OFFICE_HOURS part {part.strip()!r} closes before it opens")
        days = range(first, last + 1) if first <= last else [*range(first, 7), *range(last + 1)]
        windows.extend((day, start, end) for day in days)
    if not windows:
        raise OfficeHoursError("OFFICE_HOURS has no opening window")
    return OfficeHours(windows=tuple(windows), tz=tz, spec=text)


def _clock(moment: datetime, language: str) -> str:
    if language == "es":
        return moment.strftime("%H:%M")
    hour = moment.hour % 12 or 12
    suffix = "AM" if moment.hour < 12 else "PM"
    return f"{hour}:{moment.minute:02d} {suffix}" if moment.minute else f"{hour} {suffix}"


def human_request_notice(*, language: str, now: datetime, hours: OfficeHours) -> str:
    """Tell a person who asked for a human what happens next and when (no promise beyond office hours)."""
    spanish = language == "es"
    if hours.is_open(now):
        if spanish:
            return (
                "Le avisé a un administrador de casos. La oficina está abierta ahora; le responderán por este medio "
                "durante el horario de oficina de hoy. Si está en peligro, llame al 911."
            )
        return (
            "I've let a case manager know. The office is open now, so someone will reply here during today's "
            "office hours. If you are in danger, call 911."
        )
    opening = hours.next_opening(now)
    local_now = now.astimezone(hours.tz)
    day_names = _DAY_NAMES["es" if spanish else "en"]
    if opening.date() == local_now.date():
        when = f"hoy a las {_clock(opening, 'es')}" if spanish else f"today at {_clock(opening, 'en')}"
    elif opening.date() == (local_now + timedelta(days=1)).date():
        when = f"mañana a las {_clock(opening, 'es')}" if spanish else f"tomorrow at {_clock(opening, 'en')}"
    else:
        name = day_names[opening.weekday()]
        when = f"el {name} a las {_clock(opening, 'es')}" if spanish else f"{name} at {_clock(opening, 'en')}"
    if spanish:
        return (
            f"Le avisé a un administrador de casos. La oficina está cerrada ahora; abre {when} y le responderán "
            "por este medio después de esa hora. Si está en peligro, llame al 911; en una crisis, llame o envíe "
            "un texto al 988."
        )
    return (
        f"I've let a case manager know. The office is closed now; it opens {when}, and someone will reply here "
        "after that. If you are in danger, call 911; in a crisis, call or text 988."
    )


def configured_office_hours() -> OfficeHours:
    """settings.OFFICE_HOURS parsed, with the documented default when the setting is absent."""
    from django.conf import settings

    return office_hours_parse(getattr(settings, "OFFICE_HOURS", DEFAULT_OFFICE_HOURS))


def human_request_notice_now(language: str, now: datetime) -> str:
    """The notice with the configured hours: the provider caseload registers with the workflow."""
    return human_request_notice(language=language, now=now, hours=configured_office_hours())


def office_minutes_between(start: datetime, end: datetime, hours: OfficeHours) -> float:
    """Minutes of office time between two moments: the approval service level only runs while the office is open."""
    if end <= start:
        return 0.0
    local_start, local_end = start.astimezone(hours.tz), end.astimezone(hours.tz)
    total = 0.0
    day = local_start.date()
    # Bounded: a waiting period longer than a few weeks is past any service level anyway.
    for _ in range(min((local_end.date() - day).days + 1, 60)):
        for weekday, opens, closes in hours.windows:
            if weekday != day.weekday():
                continue
            window_start = datetime.combine(day, opens, tzinfo=hours.tz)
            window_end = datetime.combine(day, closes, tzinfo=hours.tz)
            overlap = (min(window_end, local_end) - max(window_start, local_start)).total_seconds()
            if overlap > 0:
                total += overlap / 60
        day += timedelta(days=1)
    return total
