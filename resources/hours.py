"""Opening hours: open-now and a short human summary, from HSDS-like weekly rules (pure functions).

The same rule is expressed in SQL by selectors._open_now_q for ranking; tests check they agree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from resources.taxonomy import DAY_CODES

TEXAS_TZ = ZoneInfo("America/Chicago")
END_OF_DAY = dt.time(23, 59)
_DAY_NAMES = {"MO": "Mon", "TU": "Tue", "WE": "Wed", "TH": "Thu", "FR": "Fri", "SA": "Sat", "SU": "Sun"}
_DAY_NAMES_ES = {"MO": "lun", "TU": "mar", "WE": "mié", "TH": "jue", "FR": "vie", "SA": "sáb", "SU": "dom"}


@dataclass(frozen=True)
class Rule:
    byday: str
    opens_at: dt.time | None
    closes_at: dt.time | None
    description: str = ""

    @property
    def structured(self) -> bool:
        return bool(self.byday) and self.opens_at is not None and self.closes_at is not None


def local_now(now: dt.datetime | None = None) -> dt.datetime:
    """The given (aware) instant, or now, in America/Chicago."""
    return (now or dt.datetime.now(tz=TEXAS_TZ)).astimezone(TEXAS_TZ)


def day_code(moment: dt.datetime) -> str:
    return DAY_CODES[moment.weekday()]


def is_open(rules: Iterable[Rule], now: dt.datetime | None = None) -> bool | None:
    """True/False from structured rules; None when no rule is structured (hours unknown)."""
    structured = [rule for rule in rules if rule.structured]
    if not structured:
        return None
    moment = local_now(now)
    today, yesterday = day_code(moment), day_code(moment - dt.timedelta(days=1))
    clock = moment.time().replace(tzinfo=None)
    for rule in structured:
        days = rule.byday.split(",")
        opens, closes = rule.opens_at, rule.closes_at
        assert opens is not None and closes is not None  # noqa: S101 — guaranteed by `structured`
        overnight = closes < opens
        if today in days and opens <= clock and (clock < closes or closes == END_OF_DAY or overnight):
            return True
        if yesterday in days and overnight and clock < closes:
            return True
    return False


def _fmt_time(value: dt.time, language: str = "en") -> str:
    if value == END_OF_DAY:
        return "medianoche" if language == "es" else "midnight"
    if language == "es":  # Texas Spanish signage uses the 12-hour clock with a. m./p. m.
        hour = value.hour % 12 or 12
        suffix = "a. m." if value.hour < 12 else "p. m."
        return f"{hour} {suffix}" if value.minute == 0 else f"{hour}:{value.minute:02d} {suffix}"
    hour = value.hour % 12 or 12
    suffix = "am" if value.hour < 12 else "pm"
    return f"{hour}{suffix}" if value.minute == 0 else f"{hour}:{value.minute:02d}{suffix}"


def _fmt_days(byday: str, language: str = "en") -> str:
    names = _DAY_NAMES_ES if language == "es" else _DAY_NAMES
    days = byday.split(",")
    indexes = sorted(DAY_CODES.index(day) for day in days)
    if len(indexes) > 2 and indexes == list(range(indexes[0], indexes[-1] + 1)):
        return f"{names[DAY_CODES[indexes[0]]]}-{names[DAY_CODES[indexes[-1]]]}"
    return ", ".join(names[DAY_CODES[index]] for index in indexes)


def summarize(rules: Iterable[Rule], language: str = "en") -> str:
    """One line such as "24/7" or "Mon-Fri 8am-5pm" ("lun-vie 8 a. m.-5 p. m."); a rule's own description wins.

    For Spanish, pass rules whose descriptions are already the Spanish ones (Schedule.description_es).
    """
    parts: list[str] = []
    for rule in rules:
        if rule.structured:
            assert rule.opens_at is not None and rule.closes_at is not None  # noqa: S101
            if len(rule.byday.split(",")) == 7 and rule.opens_at == dt.time(0, 0) and rule.closes_at == END_OF_DAY:
                text = "24/7"
            else:
                text = f"{_fmt_days(rule.byday, language)} {_fmt_time(rule.opens_at, language)}-{_fmt_time(rule.closes_at, language)}"
            parts.append(rule.description or text)
        elif rule.description:
            parts.append(rule.description)
    return "; ".join(dict.fromkeys(parts))


MINUTES_PER_WEEK = 7 * 24 * 60


def minute_of_week(moment: dt.datetime | None = None) -> int:
    """Minutes since Monday 00:00 America/Chicago (the unit of Service.open_ranges)."""
    local = local_now(moment)
    return local.weekday() * 1440 + local.hour * 60 + local.minute


def week_ranges(rules: Iterable[Rule]) -> list[tuple[int, int]]:
    """Half-open [start, end) minute-of-week ranges equivalent to is_open (for SQL ranking).

    closes_at 23:59 runs to midnight; an overnight rule runs into the next day; Sunday night wraps
    to Monday morning.
    """
    ranges: list[tuple[int, int]] = []
    for rule in rules:
        if not rule.structured:
            continue
        assert rule.opens_at is not None and rule.closes_at is not None  # noqa: S101
        opens = rule.opens_at.hour * 60 + rule.opens_at.minute
        closes = rule.closes_at.hour * 60 + rule.closes_at.minute
        for day in rule.byday.split(","):
            base = DAY_CODES.index(day) * 1440
            if rule.closes_at == END_OF_DAY:
                end = base + 1440
            elif closes > opens:
                end = base + closes
            elif closes < opens:
                end = base + 1440 + closes
            else:
                continue  # opens == closes: an empty rule
            start = base + opens
            if end > MINUTES_PER_WEEK:
                ranges += [(start, MINUTES_PER_WEEK), (0, end - MINUTES_PER_WEEK)]
            else:
                ranges.append((start, end))
    return sorted(set(ranges))
