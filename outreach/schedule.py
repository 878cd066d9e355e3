"""When a reminder's texts go out: the day before and two hours before, never in quiet hours.

Pure functions of the appointment time and now (America/Chicago), tested without a database.
A send time inside quiet hours moves later to the morning when that is still at least 30 minutes
before the appointment, otherwise earlier to the evening before; send times already past are dropped.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from plans.dates import TZ

QUIET_START: Final = dt.time(21, 0)  # 9 pm
QUIET_END: Final = dt.time(8, 0)  # 8 am
EVENING_BEFORE: Final = dt.time(20, 30)
MIN_LEAD: Final = dt.timedelta(minutes=30)
SLOTS: Final = (("day_before", dt.timedelta(hours=24)), ("two_hours", dt.timedelta(hours=2)))


def in_quiet_hours(moment: dt.datetime) -> bool:
    local = moment.astimezone(TZ).time()
    return local >= QUIET_START or local < QUIET_END


def _out_of_quiet(send_at: dt.datetime, due_at: dt.datetime) -> dt.datetime:
    if not in_quiet_hours(send_at):
        return send_at
    local = send_at.astimezone(TZ)
    morning_day = local.date() if local.time() < QUIET_END else local.date() + dt.timedelta(days=1)
    morning = dt.datetime.combine(morning_day, QUIET_END, tzinfo=TZ)
    if morning <= due_at - MIN_LEAD:
        return morning
    evening_day = morning_day - dt.timedelta(days=1)
    return dt.datetime.combine(evening_day, EVENING_BEFORE, tzinfo=TZ)


def send_times(due_at: dt.datetime, *, now: dt.datetime) -> dict[str, dt.datetime]:
    """{slot: send time} for the sends still ahead of `now` (two slots that land together become one)."""
    times: dict[str, dt.datetime] = {}
    for slot, lead in SLOTS:
        moment = _out_of_quiet(due_at - lead, due_at)
        if moment > now and moment not in times.values():
            times[slot] = moment
    return times
