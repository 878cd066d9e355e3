"""/stats/needs.json and /stats/ on a seeded database: aggregate tables only, no cell under 11, no text."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.test import Client

from conversations.models import Contact, Conversation, Turn
from plans.dates import TZ
from publicstats.models import NeedWeekCount
from publicstats.services import stats_rollup

pytestmark = pytest.mark.django_db
NOW = dt.datetime(2026, 3, 20, 12, tzinfo=TZ)
SECRET = "my name is Zelda Quixote and my SSN is 123-45-6789"


def _seed() -> None:
    contact = Contact.objects.create(channel="web")
    conversation = Conversation.objects.create(contact=contact, channel="web")
    plan = [
        # (need, region, crisis, count, days ago)
        ("housing", "houston", "none", 40, 2),
        ("housing", "austin", "none", 4, 2),
        ("food", "houston", "none", 25, 3),
        ("food", "austin", "none", 13, 3),
        ("id_documents", "el_paso", "none", 2, 1),
        ("supervision", "houston", "none", 11, 9),
        ("housing", "houston", "suicide_self_harm", 3, 4),
        ("housing", "houston", "housing_emergency", 14, 4),
        ("other", "", "none", 12, 2),
    ]
    turns = []
    seq = 0
    for need, region, crisis, count, days in plan:
        for _ in range(count):
            seq += 1
            turns.append(
                Turn(
                    conversation=conversation,
                    seq=seq,
                    idempotency_key=f"k{seq}",
                    channel="web",
                    redacted_text=SECRET,
                    reply=SECRET,
                    workflow_version="t",
                    top_need=need,
                    region=region,
                    crisis=crisis,
                    started_at=NOW - dt.timedelta(days=days),
                )
            )
    Turn.objects.bulk_create(turns)


def _numbers(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, dict):
        return [n for key, item in value.items() if key not in ("threshold",) for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return []


def test_the_public_json_has_no_cell_under_eleven_and_no_text(client: Client) -> None:
    _seed()
    stats_rollup(now=NOW)
    response = client.get("/stats/needs.json")
    assert response.status_code == 200
    assert "public" in response["Cache-Control"] and "max-age=600" in response["Cache-Control"]
    document = response.json()
    assert document["threshold"] == 11
    numbers = _numbers({k: v for k, v in document.items() if k in ("needs_by_week", "crisis_by_month")})
    assert numbers and all(n >= 11 for n in numbers)
    raw = response.content.decode()
    assert "Zelda" not in raw and "123-45-6789" not in raw and "[SSN]" not in raw
    week = document["needs_by_week"][0]
    cells = {(c["need"], c["region"]): c for c in week["cells"]}
    assert cells[("housing", "austin")]["suppressed"] is True and cells[("housing", "austin")]["turns"] is None
    assert cells[("other", "unknown")]["turns"] == 12
    # No line (a need with its total, a region with its total) has exactly one hidden cell beside a published total.
    need_totals = {t["need"]: t for t in week["need_totals"]}
    region_totals = {t["region"]: t for t in week["region_totals"]}
    for need, total in need_totals.items():
        if not total["suppressed"]:
            assert sum(1 for c in week["cells"] if c["need"] == need and c["suppressed"]) != 1
    for region, total in region_totals.items():
        if not total["suppressed"]:
            assert sum(1 for c in week["cells"] if c["region"] == region and c["suppressed"]) != 1
    crisis = document["crisis_by_month"][0]
    assert crisis["month"] == "2026-03"
    by_category = {c["category"]: c for c in crisis["cells"]}
    assert by_category["suicide_self_harm"]["suppressed"] is True
    assert by_category["housing_emergency"]["suppressed"] is True  # its complement: 14 would give away 3 from the total
    allowed = {
        "need",
        "category",
        "region",
        "turns",
        "suppressed",
        "iso_week",
        "month",
        "cells",
        "need_totals",
        "category_totals",
        "region_totals",
        "total",
    }
    for section in ("needs_by_week", "crisis_by_month"):
        for table in document[section]:
            assert set(table) <= allowed
            for cell in table["cells"]:
                assert set(cell) <= allowed


def test_the_document_is_cached_until_the_next_rollup(client: Client) -> None:
    _seed()
    stats_rollup(now=NOW)
    first = client.get("/stats/needs.json").json()
    NeedWeekCount.objects.all().delete()  # the cached document does not read the tables again
    assert client.get("/stats/needs.json").json() == first
    stats_rollup(now=NOW)  # a rollup clears the cache
    assert client.get("/stats/needs.json").json()["needs_by_week"] == first["needs_by_week"]


def test_the_stats_page_shows_a_chart_of_published_totals(client: Client) -> None:
    _seed()
    stats_rollup(now=NOW)
    page = client.get("/stats/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<svg" in html and "housing" in html and "needs.json" in html
    assert "Zelda" not in html
    assert json.loads(client.get("/stats/needs.json").content)["threshold"] == 11


def test_the_rollup_is_idempotent() -> None:
    _seed()
    first = stats_rollup(now=NOW)
    assert stats_rollup(now=NOW) == first
