"""Roll turns up into the aggregate tables (the only place that reads `Turn`; the views never do)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Count
from django.db.models.functions import ExtractIsoYear, ExtractWeek, TruncMonth
from django.utils import timezone

from audit.services import audit_event_record
from conversations.models import Turn
from plans.dates import TZ
from publicstats.models import CrisisMonthCount, NeedWeekCount

CACHE_KEY = "publicstats:needs.json"
WINDOW_DAYS = 400  # about 56 weeks / 13 months: enough for the published ranges, bounded work


def stats_rollup(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Recompute the aggregate tables for the window, in one transaction (idempotent)."""
    now = now or timezone.now()
    since = now - dt.timedelta(days=WINDOW_DAYS)
    turns = Turn.objects.filter(started_at__gte=since)
    weekly = (
        turns.annotate(y=ExtractIsoYear("started_at", tzinfo=TZ), w=ExtractWeek("started_at", tzinfo=TZ))
        .values("top_need", "region", "y", "w")
        .annotate(n=Count("id"))
        .order_by()
    )
    monthly = (
        turns.exclude(crisis="none")
        .exclude(crisis="")
        .annotate(m=TruncMonth("started_at", tzinfo=TZ))
        .values("crisis", "region", "m")
        .annotate(n=Count("id"))
        .order_by()
    )
    with transaction.atomic():
        NeedWeekCount.objects.all().delete()
        CrisisMonthCount.objects.all().delete()
        NeedWeekCount.objects.bulk_create(
            [
                NeedWeekCount(
                    need=row["top_need"] or "other",
                    region=row["region"] or "unknown",
                    iso_year=row["y"],
                    iso_week=row["w"],
                    turns=row["n"],
                )
                for row in _merge(weekly, ("top_need", "region", "y", "w"))
            ]
        )
        CrisisMonthCount.objects.bulk_create(
            [
                CrisisMonthCount(
                    category=row["crisis"],
                    region=row["region"] or "unknown",
                    month=row["m"].date() if hasattr(row["m"], "date") else row["m"],
                    turns=row["n"],
                )
                for row in _merge(monthly, ("crisis", "region", "m"))
            ]
        )
        counts = {"need_cells": NeedWeekCount.objects.count(), "crisis_cells": CrisisMonthCount.objects.count()}
        audit_event_record(action="publicstats.rolled_up", data=counts)
    cache.delete(CACHE_KEY)
    return counts


def _merge(rows: Iterable[Mapping[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """Blank need/region collapse into other/unknown: merge rows that become the same cell."""
    merged: dict[tuple[object, ...], dict[str, Any]] = {}
    for row in rows:
        fixed = dict(row)
        if "top_need" in fixed:
            fixed["top_need"] = fixed["top_need"] or "other"
        fixed["region"] = fixed["region"] or "unknown"
        key = tuple(fixed[name] for name in keys)
        if key in merged:
            merged[key]["n"] = int(merged[key]["n"]) + int(fixed["n"])
        else:
            merged[key] = fixed
    return list(merged.values())
