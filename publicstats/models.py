"""Aggregate tables behind /stats/: counts only — no text, no ids, no person-level row ever."""

from __future__ import annotations

from django.db import models


class NeedWeekCount(models.Model):
    """Turns per top need x region x ISO week (America/Chicago)."""

    need = models.CharField(max_length=20)
    region = models.CharField(max_length=24)
    iso_year = models.PositiveSmallIntegerField()
    iso_week = models.PositiveSmallIntegerField()
    turns = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["need", "region", "iso_year", "iso_week"], name="need_week_unique")
        ]

    def __str__(self) -> str:
        return f"{self.iso_year}-W{self.iso_week:02d} {self.need}@{self.region}"


class CrisisMonthCount(models.Model):
    """Turns with a detected crisis, per crisis category x region x month (America/Chicago)."""

    category = models.CharField(max_length=40)
    region = models.CharField(max_length=24)
    month = models.DateField(help_text="first day of the month")
    turns = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["category", "region", "month"], name="crisis_month_unique")]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.category}@{self.region}"
