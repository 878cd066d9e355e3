"""Supervisor dashboard queries: plain aggregates over turns and the outbox (no per-person data)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Count, F, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from conversations import metrics
from conversations.models import OutboundMessage, Turn

DEFAULT_DAYS = 30


@dataclass(frozen=True)
class Latency:
    count: int
    median_minutes: float | None
    p90_minutes: float | None


@dataclass(frozen=True)
class DashboardMetrics:
    since: date
    until: date
    turns_total: int
    turns_per_day: tuple[tuple[date, int], ...]
    crisis_per_day: tuple[tuple[date, int], ...]
    crisis_total: int
    escalated_total: int
    verdicts: tuple[tuple[str, int, float], ...]  # (verdict, count, share)
    gate_checked: int
    gate_handoffs: int
    approval_latency: Latency
    top_needs_by_region: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    map_pins_by_region: tuple[tuple[str, int], ...]
    webhook_rejections: int = 0  # unsigned or mis-signed Twilio requests refused (a flood shows here)

    @property
    def gate_handoff_rate(self) -> float | None:
        return self.gate_handoffs / self.gate_checked if self.gate_checked else None


def _days(since: date, until: date) -> list[date]:
    return [since + timedelta(days=offset) for offset in range((until - since).days + 1)]


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def dashboard_metrics(*, days: int = DEFAULT_DAYS, now: datetime | None = None) -> DashboardMetrics:
    """Aggregates for the last `days` local days, up to and including today."""
    now = now or timezone.now()
    until = timezone.localdate(now)
    since = until - timedelta(days=days - 1)
    tz = timezone.get_current_timezone()
    start = datetime.combine(since, datetime.min.time(), tzinfo=tz)
    turns = Turn.objects.filter(created_at__gte=start, created_at__lte=now)

    per_day = dict(
        turns.annotate(day=TruncDate("created_at", tzinfo=tz))
        .values("day")
        .annotate(n=Count("pk"))
        .values_list("day", "n")
    )
    crisis_turns = turns.exclude(crisis="none")
    crisis_day = dict(
        crisis_turns.annotate(day=TruncDate("created_at", tzinfo=tz))
        .values("day")
        .annotate(n=Count("pk"))
        .values_list("day", "n")
    )
    calendar = _days(since, until)

    verdict_counts = dict(
        turns.exclude(audit_verdict="")
        .values("audit_verdict")
        .annotate(n=Count("pk"))
        .values_list("audit_verdict", "n")
    )
    audited = sum(verdict_counts.values())
    verdicts = tuple(
        (verdict, verdict_counts.get(verdict, 0), verdict_counts.get(verdict, 0) / audited if audited else 0.0)
        for verdict in sorted(set(verdict_counts) | {"pass", "soft_block", "hard_block"})
    )

    # Gate hand-off rate: turns whose retrieval ran, and how many of those the gate turned into a hand-off.
    gate = turns.filter(state__has_key="retrieval").aggregate(
        checked=Count("pk"), gated=Count("pk", filter=Q(state__retrieval__gated=True))
    )

    approved = OutboundMessage.objects.filter(
        approved_at__isnull=False, approved_at__gte=start, approved_at__lte=now
    ).exclude(kind=OutboundMessage.Kind.HUMAN)
    waits = [
        (approved_at - created_at).total_seconds() / 60
        for approved_at, created_at in approved.annotate(c=F("created_at")).values_list("approved_at", "c")
    ]
    latency = Latency(
        count=len(waits),
        median_minutes=round(statistics.median(waits), 1) if waits else None,
        p90_minutes=round(_percentile(waits, 0.9), 1) if waits else None,
    )

    needs_rows = (
        turns.exclude(top_need="")
        .values("region", "top_need")
        .annotate(n=Count("pk"))
        .order_by("region", "-n", "top_need")
    )
    by_region: dict[str, list[tuple[str, int]]] = {}
    for row in needs_rows:
        by_region.setdefault(row["region"] or "unknown", []).append((row["top_need"], row["n"]))
    top_needs = tuple(
        sorted(
            ((region, tuple(rows[:3])) for region, rows in by_region.items()),
            key=lambda item: -sum(n for _, n in item[1]),
        )
    )

    # Map pins: resource cards with coordinates that finished turns showed (what the chat map drew).
    pins: dict[str, int] = {}
    for region, resources in turns.exclude(reply="").values_list("region", "state__resources").iterator(chunk_size=500):
        count = sum(
            1
            for item in resources or []
            if isinstance(item, dict) and item.get("lat") is not None and item.get("lon") is not None
        )
        if count:
            pins[region or "unknown"] = pins.get(region or "unknown", 0) + count

    return DashboardMetrics(
        since=since,
        until=until,
        turns_total=sum(per_day.values()),
        turns_per_day=tuple((day, per_day.get(day, 0)) for day in calendar),
        crisis_per_day=tuple((day, crisis_day.get(day, 0)) for day in calendar),
        crisis_total=sum(crisis_day.values()),
        escalated_total=turns.filter(status=Turn.Status.ESCALATED).count(),
        verdicts=verdicts,
        gate_checked=gate["checked"] or 0,
        gate_handoffs=gate["gated"] or 0,
        approval_latency=latency,
        top_needs_by_region=top_needs,
        map_pins_by_region=tuple(sorted(pins.items(), key=lambda item: (-item[1], item[0]))),
        webhook_rejections=metrics.metric_prefix_total(prefix=metrics.SMS_SIGNATURE_REJECTED, since=since, until=until),
    )


def eval_report_path() -> Path | None:
    """The latest evaluation report (var/eval.html) if the eval harness wrote one."""
    path = Path(settings.VAR_DIR) / "eval.html"
    return path if path.is_file() else None
