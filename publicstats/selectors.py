"""The public document: aggregate tables only, every cell under the threshold suppressed, with
complementary suppression so no suppressed cell can be recovered from the published totals."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any, Final

from django.core.cache import cache
from django.utils import timezone

from publicstats.models import CrisisMonthCount, NeedWeekCount
from publicstats.services import CACHE_KEY
from publicstats.suppression import THRESHOLD, Table, suppress

CACHE_SECONDS: Final = 600
WEEKS: Final = 26
MONTHS: Final = 12


def _table_json(table: Table, row_name: str) -> dict[str, Any]:
    return {
        "cells": [
            {row_name: row, "region": region, "turns": value, "suppressed": value is None}
            for (row, region), value in sorted(table.cells.items())
        ],
        f"{row_name}_totals": [
            {row_name: row, "turns": value, "suppressed": value is None}
            for row, value in sorted(table.row_totals.items())
        ],
        "region_totals": [
            {"region": region, "turns": value, "suppressed": value is None}
            for region, value in sorted(table.col_totals.items())
        ],
        "total": table.total,
    }


def needs_document(*, now: dt.datetime | None = None) -> dict[str, Any]:
    """The JSON of /stats/needs.json (cached for CACHE_SECONDS; a rollup clears the cache)."""
    cached = cache.get(CACHE_KEY)
    if cached is not None:
        return cached
    now = now or timezone.now()
    weeks: dict[str, dict[tuple[str, str], int]] = defaultdict(dict)
    for row in NeedWeekCount.objects.order_by("-iso_year", "-iso_week").values(
        "need", "region", "iso_year", "iso_week", "turns"
    ):
        weeks[f"{row['iso_year']}-W{row['iso_week']:02d}"][(row["need"], row["region"])] = row["turns"]
    months: dict[str, dict[tuple[str, str], int]] = defaultdict(dict)
    for crisis in CrisisMonthCount.objects.order_by("-month").values("category", "region", "month", "turns"):
        months[f"{crisis['month']:%Y-%m}"][(crisis["category"], crisis["region"])] = crisis["turns"]
    document = {
        "description": (
            "Pathways (Texas reentry navigator): conversation turns per need x region x ISO week, and turns with a "
            "detected crisis per category x region x month. Aggregate counts only; no text, no identifiers."
        ),
        "threshold": THRESHOLD,
        "suppression": (
            f"Any cell or total under {THRESHOLD} is published as null with suppressed=true; further cells are suppressed "
            "so that no suppressed value can be recovered from the published totals (complementary suppression)."
        ),
        "timezone": "America/Chicago",
        "generated_at": now.isoformat(timespec="seconds"),
        "needs_by_week": [
            {"iso_week": week, **_table_json(suppress(weeks[week]), "need")}
            for week in sorted(weeks, reverse=True)[:WEEKS]
        ],
        "crisis_by_month": [
            {"month": month, **_table_json(suppress(months[month]), "category")}
            for month in sorted(months, reverse=True)[:MONTHS]
        ],
    }
    cache.set(CACHE_KEY, document, CACHE_SECONDS)
    return document


def need_totals_for_chart(document: dict[str, Any]) -> list[tuple[str, int]]:
    """Published weekly need totals summed over the weeks shown (suppressed totals are not counted)."""
    sums: dict[str, int] = defaultdict(int)
    for week in document["needs_by_week"]:
        for row in week["need_totals"]:
            if row["turns"] is not None:
                sums[row["need"]] += row["turns"]
    return sorted(sums.items(), key=lambda item: (-item[1], item[0]))
