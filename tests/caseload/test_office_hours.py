"""People who ask for a person are told what happens next and when, with after-hours wording."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from caseload.checks import office_hours_check
from caseload.office_hours import OfficeHoursError, human_request_notice, office_hours_parse

CHICAGO = ZoneInfo("America/Chicago")
HOURS = office_hours_parse("Mon-Fri 09:00-17:00 America/Chicago")


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2025, 3, day, hour, minute, tzinfo=CHICAGO)  # March 10, 2025 is a Monday


def test_it_says_the_office_is_open_during_hours() -> None:
    text = human_request_notice(language="en", now=at(12, 10), hours=HOURS)
    assert "open now" in text and "today" in text


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (at(12, 18), "opens tomorrow at 9 AM"),  # Wednesday evening
        (at(13, 7, 30), "opens today at 9 AM"),  # Thursday early morning
        (at(14, 17, 0), "opens Monday at 9 AM"),  # Friday at closing time
        (at(15, 12), "opens Monday at 9 AM"),  # Saturday
    ],
)
def test_it_says_when_the_office_opens_after_hours(now: datetime, expected: str) -> None:
    text = human_request_notice(language="en", now=now, hours=HOURS)
    assert expected in text
    assert "988" in text and "911" in text


def test_it_speaks_spanish() -> None:
    assert "abre el lunes a las 09:00" in human_request_notice(language="es", now=at(15, 12), hours=HOURS)
    assert "abierta ahora" in human_request_notice(language="es", now=at(11, 9, 0), hours=HOURS)


def test_it_reads_several_windows_and_other_zones() -> None:
    hours = office_hours_parse("Mon-Thu 08:00-18:00; Fri 08:00-12:00 America/Denver")
    assert hours.is_open(datetime(2025, 3, 14, 11, 59, tzinfo=ZoneInfo("America/Denver")))
    assert not hours.is_open(datetime(2025, 3, 14, 12, 0, tzinfo=ZoneInfo("America/Denver")))


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "Mon-Fri 09:00-17:00",
        "Mon-Fri 17:00-09:00 America/Chicago",
        "Someday 09:00-17:00 America/Chicago",
        "Mon-Fri 9-5 America/Chicago",
    ],
)
def test_it_refuses_odd_office_hours(spec: str) -> None:
    with pytest.raises(OfficeHoursError):
        office_hours_parse(spec)


def test_the_system_check_reports_bad_office_hours(settings: Any) -> None:
    settings.OFFICE_HOURS = "whenever"
    assert [error.id for error in office_hours_check()] == ["caseload.E001"]
    settings.OFFICE_HOURS = "Mon-Fri 09:00-17:00 America/Chicago"
    assert office_hours_check() == []
