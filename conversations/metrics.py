"""Operational counters shared by every process (in the database): counted per day, read by the dashboard."""

from __future__ import annotations

from datetime import date

from django.db import connection, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from conversations.models import MetricCounter

SMS_SIGNATURE_REJECTED = "sms.signature_rejected"


def metric_count(*, name: str, amount: int = 1) -> None:
    """Add `amount` to today's counter `name` in one upsert (concurrent requests never lose a count)."""
    table = MetricCounter._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (name, day, count) VALUES (%s, %s, %s) "  # noqa: S608 - table name from the model
            f"ON CONFLICT (name, day) DO UPDATE SET count = {table}.count + EXCLUDED.count",
            [name, timezone.localdate(), amount],
        )


def metric_prefix_total(*, prefix: str, since: date, until: date) -> int:
    """The sum of every counter named `prefix` or `prefix.…` over the local days since..until, both included."""
    rows = MetricCounter.objects.filter(day__gte=since, day__lte=until).filter(
        Q(name=prefix) | Q(name__startswith=prefix + ".")
    )
    return int(rows.aggregate(n=Sum("count"))["n"] or 0)
