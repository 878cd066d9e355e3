"""Confirmed SMS reminders and the last release plan sent to a person.

A reminder is sent only after the person confirms (YES). Each of its sends (the day before, two
hours before) is a `ReminderSend` row, unique per (reminder, slot): the dispatcher turns a row
into exactly one outbox message under the row's lock, so no beat, worker or retry sends it twice.
"""

from __future__ import annotations

import uuid

from django.db import models

from conversations.models import Contact, Conversation, OutboundMessage


class Reminder(models.Model):
    class Status(models.TextChoices):
        AWAITING = "awaiting", "Waiting for the person's YES"
        CONFIRMED = "confirmed", "Confirmed"
        CANCELLED = "cancelled", "Cancelled"
        DONE = "done", "All sends done"
        EXPIRED = "expired", "Never confirmed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="reminders")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="reminders")
    number = models.PositiveSmallIntegerField(help_text="the person's own reminder number (CANCEL n)")
    label = models.CharField(max_length=80, help_text="what it is for, redacted")
    due_at = models.DateTimeField(help_text="the appointment")
    language = models.CharField(max_length=2, default="en")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.AWAITING)
    created_by = models.CharField(
        max_length=40, default="person", help_text="'person' or 'user:<id>' for a case manager"
    )
    created_at = models.DateTimeField()
    confirmed_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["contact", "number"], name="reminder_number_unique")]
        indexes = [models.Index(fields=["contact", "status"], name="reminder_contact_status_idx")]

    def __str__(self) -> str:
        return f"reminder {self.number} ({self.status})"


class ReminderSend(models.Model):
    class Slot(models.TextChoices):
        DAY_BEFORE = "day_before", "The day before"
        TWO_HOURS = "two_hours", "Two hours before"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Queued in the outbox"
        SUPPRESSED = "suppressed", "Not sent: opted out"
        SKIPPED = "skipped", "Not sent: too late"
        CANCELLED = "cancelled", "Cancelled"

    reminder = models.ForeignKey(Reminder, on_delete=models.CASCADE, related_name="sends")
    slot = models.CharField(max_length=12, choices=Slot.choices)
    send_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    outbound = models.OneToOneField(
        OutboundMessage, on_delete=models.SET_NULL, null=True, blank=True, related_name="reminder_send"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reminder", "slot"], name="reminder_send_slot_unique")]
        indexes = [models.Index(fields=["status", "send_at"], name="reminder_send_due_idx")]

    def __str__(self) -> str:
        return f"{self.slot} {self.status}"


class PlanDelivery(models.Model):
    """The inputs of the last release plan sent to a contact by SMS (PLAN rebuilds and resends it)."""

    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="plan_deliveries")
    release_date = models.DateField()
    destination = models.CharField(max_length=80, help_text="region code or the resolved Texas place name")
    supervision = models.CharField(max_length=24, default="unknown")
    needs = models.JSONField(default=list)
    language = models.CharField(max_length=2, default="en")
    created_by = models.CharField(max_length=40, default="person")
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"plan for {self.release_date}"
