"""Dates and times people write ("tuesday 9am", "el martes a las 9", "3/10 at 2:30pm"), in America/Chicago.

The only importer of `dateparser` (the day); the time of day is read by a strict pattern first, so
"mañana" (tomorrow) is never confused with "de la mañana" (in the morning) and "at 8" is never read
as the 8th. What could mean two things is returned as `Ambiguous` with a reason, never guessed:
an hour with no am/pm, or a weekday that is today ("next friday" said on a Friday).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Final
from zoneinfo import ZoneInfo

from vocab import fold

TZ: Final = ZoneInfo("America/Chicago")

_WEEKDAYS: Final = {
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
    "lunes": 0,
    "martes": 1,
    "miercoles": 2,
    "jueves": 3,
    "viernes": 4,
    "sabado": 5,
    "domingo": 6,
}
_MONTHS: Final = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre"
).split()
_RELATIVE: Final = ("today", "tomorrow", "tonight", "hoy", "manana", "pasado manana")

# "9am", "9:30 pm", "9 a.m.", "21:00", "a las 9", "a las 9:30 de la noche", "at 8".
_TIME_RE: Final = re.compile(
    r"(?:\b(?:at|a\s+las?|las)\s+)?"
    r"\b(?P<hour>[01]?\d|2[0-3])(?::(?P<minute>[0-5]\d))?\s*"
    r"(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?|de\s+la\s+(?:manana|tarde|noche)|en\s+la\s+(?:manana|tarde|noche)|in\s+the\s+(?:morning|afternoon|evening))?"
    r"(?![\d/])",
    re.IGNORECASE,
)
_NEXT_WEEKDAY_RE: Final = re.compile(
    r"\b(?:next|this|coming|proximo|proxima|este|esta)\s+(?P<day>[a-z]+)|\b(?P<day2>[a-z]+)\s+que\s+viene\b"
)


@dataclass(frozen=True)
class When:
    """A resolved local date, with a time of day when one was given."""

    date: dt.date
    time: dt.time | None

    def at(self) -> dt.datetime | None:
        """The aware datetime in America/Chicago, or None without a time."""
        return dt.datetime.combine(self.date, self.time, tzinfo=TZ) if self.time else None


@dataclass(frozen=True)
class Ambiguous:
    """What was unclear: `am_pm` or `which_week` (the person should be asked); `options` are the dates it could be."""

    reason: str
    options: tuple[dt.date, ...] = ()


def _time_of_day(folded: str) -> tuple[dt.time | None, str, Ambiguous | None]:
    """The time written in the text, the text without it, and whether the hour lacked am/pm."""
    for found in _TIME_RE.finditer(folded):
        has_cue = (
            bool(found.group("ampm"))
            or bool(found.group("minute"))
            or found.group(0).strip().split()[0] in ("at", "a", "las")
        )
        if not has_cue:
            continue  # a bare number ("3/10", "77002", "2 kids") is not a time
        hour, minute = int(found.group("hour")), int(found.group("minute") or 0)
        marker = (found.group("ampm") or "").replace(".", "").replace(" ", "")
        rest = folded[: found.start()] + " " + folded[found.end() :]
        if marker in ("am", "delamanana", "enlamanana", "inthemorning"):
            hour = 0 if hour == 12 else hour
        elif marker:
            hour = hour if hour == 12 else hour + 12
        elif 1 <= hour <= 12:
            return None, rest, Ambiguous("am_pm")  # "at 9", "a las 10": morning or evening?
        return dt.time(hour, minute), rest, None
    return None, folded, None


def _is_date_words(matched: str) -> bool:
    words = set(re.findall(r"[a-z]+", matched))
    return (
        bool(re.search(r"\d", matched))
        or bool(words & set(_WEEKDAYS))
        or bool(words & set(_MONTHS))
        or bool(words & {"today", "tomorrow", "tonight", "hoy", "manana"})
    )


def _relative_day(rest: str, today: dt.date) -> dt.date | None:
    """Relative days by hand: dateparser reads "mañana" as "morning" in some builds."""
    if re.search(r"\bpasado\s+manana\b", rest):
        return today + dt.timedelta(days=2)
    if re.search(r"\b(?:tomorrow|manana)\b", rest):
        return today + dt.timedelta(days=1)
    if re.search(r"\b(?:yesterday|ayer)\b", rest):
        return today - dt.timedelta(days=1)  # in the past: the caller refuses it
    if re.search(r"\b(?:today|tonight|hoy|esta\s+noche)\b", rest):
        return today
    return None


def parse_when(text: str, *, now: dt.datetime) -> When | Ambiguous | None:
    """The date (and time) a message names, relative to `now` (aware); None when it names none."""
    from dateparser.search import search_dates  # noqa: PLC0415 - dateparser compiles its locale data on import (start-up cost)

    local_now = now.astimezone(TZ)
    folded = fold(text)
    time_of_day, rest, unclear = _time_of_day(folded)
    if unclear:
        return unclear
    # Which week: a weekday that is today ("next friday" on a Friday, "friday" on a Friday).
    for found in _NEXT_WEEKDAY_RE.finditer(rest):
        day = found.group("day") or found.group("day2")
        if _WEEKDAYS.get(day) == local_now.weekday():
            week = dt.timedelta(days=7)
            return Ambiguous("which_week", (local_now.date() + week, local_now.date() + 2 * week))
    weekday_words = [word for word in re.findall(r"[a-z]+", rest) if word in _WEEKDAYS]
    if any(_WEEKDAYS[word] == local_now.weekday() for word in weekday_words):
        return Ambiguous("which_week", (local_now.date(), local_now.date() + dt.timedelta(days=7)))
    settings = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": local_now.replace(tzinfo=None, hour=12, minute=0, second=0, microsecond=0),
        "DATE_ORDER": "MDY",
        "PREFER_DAY_OF_MONTH": "first",
        "STRICT_PARSING": False,
    }
    relative = _relative_day(rest, local_now.date())
    if relative is not None:
        return When(relative, time_of_day)
    found_dates = search_dates(rest, languages=["en", "es"], settings=settings) or []
    for matched, value in found_dates:
        if _is_date_words(matched):
            return When(value.date(), time_of_day)
    return None
