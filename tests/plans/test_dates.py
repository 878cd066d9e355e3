"""Written dates and times, read in America/Chicago; anything that could mean two things is Ambiguous."""

from __future__ import annotations

import datetime as dt

import pytest

from plans.dates import TZ, Ambiguous, When, parse_when

FRIDAY = dt.datetime(2026, 3, 6, 10, 0, tzinfo=TZ)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("remind me about my PO appointment tuesday 9am", When(dt.date(2026, 3, 10), dt.time(9, 0))),
        ("recuérdame mi cita con el oficial el martes a las 9am", When(dt.date(2026, 3, 10), dt.time(9, 0))),
        ("recuérdame mañana a las 10 de la mañana", When(dt.date(2026, 3, 7), dt.time(10, 0))),
        ("court on 3/10 at 2:30pm", When(dt.date(2026, 3, 10), dt.time(14, 30))),
        ("doctor march 12 10am", When(dt.date(2026, 3, 12), dt.time(10, 0))),
        ("at 21:30 on monday", When(dt.date(2026, 3, 9), dt.time(21, 30))),
        ("salgo el 15 de marzo", When(dt.date(2026, 3, 15), None)),
        ("a las 8 de la noche el jueves", When(dt.date(2026, 3, 12), dt.time(20, 0))),
    ],
)
def test_it_reads_dates_and_times_in_english_and_spanish(text: str, expected: When) -> None:
    assert parse_when(text, now=FRIDAY) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("remind me next friday at 3pm", "which_week"),
        ("el próximo viernes a las 3pm", "which_week"),
        ("I get out Friday", "which_week"),
        ("tomorrow at 8", "am_pm"),
        ("el lunes a las 9", "am_pm"),
    ],
)
def test_what_could_mean_two_things_is_ambiguous_not_guessed(text: str, reason: str) -> None:
    result = parse_when(text, now=FRIDAY)
    assert isinstance(result, Ambiguous) and result.reason == reason
    if reason == "which_week":
        assert len(result.options) == 2 and result.options[0] < result.options[1]


def test_a_message_without_a_date_names_none_and_yesterday_is_in_the_past() -> None:
    assert parse_when("remind me about stuff", now=FRIDAY) is None
    when = parse_when("yesterday at 9am", now=FRIDAY)
    assert isinstance(when, When)
    assert when.at() < FRIDAY
