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


def _fmt_time(value: dt.time) -> str:
    if value == END_OF_DAY:
        return "midnight"
    hour = value.hour % 12 or 12
    suffix = "am" if value.hour < 12 else "pm"
    return f"{hour}{suffix}" if value.minute == 0 else f"{hour}:{value.minute:02d}{suffix}"


def _fmt_days(byday: str) -> str:
    days = byday.split(",")
    indexes = sorted(DAY_CODES.index(day) for day in days)
    if len(indexes) > 2 and indexes == list(range(indexes[0], indexes[-1] + 1)):
        return f"{_DAY_NAMES[DAY_CODES[indexes[0]]]}-{_DAY_NAMES[DAY_CODES[indexes[-1]]]}"
    return ", ".join(_DAY_NAMES[DAY_CODES[index]] for index in indexes)


def summarize(rules: Iterable[Rule]) -> str:
    """One line such as "24/7" or "Mon-Fri 8am-5pm"; a rule's own description wins over the generated text."""
    parts: list[str] = []
    for rule in rules:
        if rule.structured:
            assert rule.opens_at is not None and rule.closes_at is not None  # noqa: S101
            if len(rule.byday.split(",")) == 7 and rule.opens_at == dt.time(0, 0) and rule.closes_at == END_OF_DAY:
                text = "24/7"
            else:
                text = f"{_fmt_days(rule.byday)} {_fmt_time(rule.opens_at)}-{_fmt_time(rule.closes_at)}"
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
