"""The day-one release plan: ordered, cited only from assertable corpus entries, places nearest first, en/es."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from corpus.models import CorpusEntry
from plans.dates import TZ
from plans.render import plan_sms_parts, plan_text
from plans.selectors import plan_build, plan_request_from_message, plan_request_make
from plans.types import OutOfTexas, PlanError, PlanRequest

pytestmark = pytest.mark.django_db
TODAY = dt.date(2026, 12, 1)
LEGAL_SOURCES = "/work/shared/reference/tx_legal_sources.jsonl"


def _plan_json(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("plan", *args, "--today", TODAY.isoformat(), "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_houston_parole_plan_has_at_least_six_steps_each_cited_or_with_a_place(language: str) -> None:
    plan = _plan_json(
        "--release-date", "2026-12-11", "--region", "houston", "--supervision", "parole", "--language", language
    )
    steps = plan["steps"]
    assert len(steps) >= 6
    assert [step["order"] for step in steps] == list(range(1, len(steps) + 1))
    for step in steps:
        assert step["rules"] or step["places"], step["key"]
    keys = [step["key"] for step in steps]
    assert keys[0] == "report_parole"
    # IDs in the order that unlocks the next: birth certificate, Social Security card, state ID.
    assert keys.index("id_birth_certificate") < keys.index("id_social_security") < keys.index("id_state_id")
    assert {"bed_tonight", "snap", "medicaid", "phone"} <= set(keys)
    dates = [step["date"] for step in steps]
    assert dates == sorted(dates) and dates[0] == "2026-12-11"
    report = steps[0]
    assert {rule["citation"] for rule in report["rules"]} >= {"Tex. Gov't Code § 501.015"}
    assert report["places"] and report["bring"]
    if language == "es":
        assert "Preséntese" in report["title"] and "condado" in json.dumps(report["rules"], ensure_ascii=False)


def test_every_cited_rule_is_an_assertable_corpus_entry_with_a_verified_source() -> None:
    verified = {}
    with open(LEGAL_SOURCES, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            verified[record["id"]] = record.get("verified")
    plan = _plan_json(
        "--release-date", "2026-12-11", "--region", "houston", "--supervision", "parole", "--need", "employment"
    )
    rules = [rule for step in plan["steps"] for rule in step["rules"]]
    assert rules
    for rule in rules:
        entry = CorpusEntry.objects.get(slug=rule["slug"])
        assert entry.assertable and entry.verified and verified.get(rule["slug"]) is True
        assert rule["citation"] == entry.citation and rule["url"] == entry.source_url and rule["url"].startswith("http")


def test_no_step_states_a_reporting_deadline_the_corpus_does_not_have() -> None:
    text = plan_text(
        plan_build(
            request=plan_request_make(
                release_date=dt.date(2026, 12, 11), destination="houston", supervision="parole", today=TODAY
            )
        )
    )
    lowered = text.lower()
    for invented in ("within 24 hours", "within 72 hours", "24 hours", "72 hours", "first business day"):
        assert invented not in lowered


def test_an_entry_that_loses_its_review_is_no_longer_cited() -> None:
    CorpusEntry.objects.filter(slug="tx-gov-501-015").update(reviewed_at=None)
    plan = plan_build(
        request=plan_request_make(
            release_date=dt.date(2026, 12, 11), destination="houston", supervision="parole", today=TODAY
        )
    )
    assert "tx-gov-501-015" not in {rule.slug for step in plan.steps for rule in step.rules}
    assert plan.steps[0].key == "report_parole"  # the step stays, phrased without the rule


def test_places_are_nearest_first_when_a_county_is_given() -> None:
    request = plan_request_make(
        release_date=dt.date(2026, 12, 11), destination="Bexar County", supervision="parole", today=TODAY
    )
    assert request.region == "san_antonio" and request.place_name == "Bexar County"
    plan = plan_build(request=request)
    for step in plan.steps:
        distances = [
            place.distance_km for place in step.places if place.distance_km is not None and not place.is_statewide_line
        ]
        assert distances == sorted(distances)
    assert any(place.distance_km is not None for step in plan.steps for place in step.places)


def test_probation_and_discharge_get_their_own_first_step() -> None:
    probation = plan_build(
        request=plan_request_make(
            release_date=TODAY, destination="dallas_fort_worth", supervision="probation", today=TODAY
        )
    )
    assert probation.steps[0].key == "report_probation"
    assert probation.steps[0].rules[0].citation == "Tex. Code Crim. Proc. art. 42A.301"
    discharged = plan_build(
        request=plan_request_make(release_date=TODAY, destination="austin", supervision="none", today=TODAY)
    )
    assert discharged.steps[0].key == "bed_tonight"


@pytest.mark.parametrize(
    ("args", "field", "code"),
    [
        (("--release-date", "2026-11-01", "--region", "houston"), "release_date", "in_the_past"),
        (("--release-date", "2026-12-11", "--region", "Cook County, Illinois"), "region", "out_of_state"),
        (("--release-date", "2026-12-11", "--region", "Los Angeles, CA"), "region", "out_of_state"),
        (("--release-date", "2026-12-11", "--region", ""), "region", "missing"),
        (("--release-date", "2026-12-11", "--region", "Narnia County"), "region", "unknown_county"),
        (("--release-date", "2026-12-11", "--region", "Tulsa, OK"), "region", "out_of_state"),
    ],
)
def test_bad_input_is_refused_with_the_field_named(args: tuple[str, ...], field: str, code: str) -> None:
    out = StringIO()
    with pytest.raises(CommandError, match=field):
        call_command("plan", *args, "--today", TODAY.isoformat(), "--json", stdout=out)
    payload = json.loads(out.getvalue())
    assert payload["error"]["field"] == field and payload["error"]["code"] == code
    if code == "out_of_state":
        assert "Texas" in payload["handoff"]["text"]


def test_the_chat_message_becomes_a_plan_request() -> None:
    now = dt.datetime(2026, 12, 1, 10, tzinfo=TZ)  # a Tuesday
    request = plan_request_from_message("I get out Friday, going to Bexar County, on parole", now=now)
    assert request == PlanRequest(
        release_date=dt.date(2026, 12, 4),
        region="san_antonio",
        place_name="Bexar County",
        lat=request.lat,
        lon=request.lon,
        supervision="parole",
        needs=(),
        language="en",
    )
    spanish = plan_request_from_message(
        "Salgo el viernes, voy al condado de Harris, en libertad condicional", now=now, language="es"
    )
    assert (
        isinstance(spanish, PlanRequest)
        and spanish.region == "houston"
        and spanish.supervision == "parole"
        and spanish.language == "es"
    )
    assert plan_request_from_message("how do I get an ID?", now=now) is None
    friday = dt.datetime(2026, 12, 4, 10, tzinfo=TZ)
    unclear = plan_request_from_message("I get out next friday, going to Houston", now=friday)
    assert isinstance(unclear, PlanError) and unclear.field == "release_date"
    elsewhere = plan_request_from_message("I get out Friday and I'm going to Tulsa, Oklahoma", now=now)
    assert isinstance(elsewhere, OutOfTexas)
    nowhere = plan_request_from_message("I get out Friday", now=now)
    assert isinstance(nowhere, PlanError) and nowhere.field == "region"


@pytest.mark.parametrize("language", ["en", "es"])
def test_sms_parts_fit_the_budget_and_number_themselves(language: str) -> None:
    plan = plan_build(
        request=plan_request_make(
            release_date=dt.date(2026, 12, 11),
            destination="houston",
            supervision="parole",
            language=language,
            today=TODAY,
        )
    )
    parts = plan_sms_parts(plan, max_chars=320)
    assert len(parts) == len(plan.steps) + 1
    assert all(len(part) <= 320 for part in parts)
    assert parts[0].startswith(f"(1/{len(parts)}) 1. ")
    assert "PLAN" in parts[-1]


def test_a_texas_county_named_like_a_state_stays_in_texas() -> None:
    request = plan_request_make(release_date=TODAY, destination="Washington County", today=TODAY)
    assert request.place_name == "Washington County" and request.region == "other"
    houston_county = plan_request_make(release_date=TODAY, destination="Houston County", today=TODAY)
    assert houston_county.region == "east_texas"
