"""Caseload data: clients entered by staff, their linked contacts, and admin-only proxies.

A Client is the staff-side record of a person (name and notes typed by staff, never by the
navigator); a ClientContact links one channel identity (web session or SMS number) to one client.
`Queue` and `Dashboard` are proxies that give the approval queue and the dashboard their admin
URLs (/admin/caseload/queue/, /admin/caseload/dashboard/) without tables of their own.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from conversations.models import Contact, Conversation, OutboundMessage, Turn


class Client(models.Model):
    """A person on a case manager's caseload."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused (no contact expected)"
        CLOSED = "closed", "Closed"

    class Supervision(models.TextChoices):
        PAROLE = "parole", "Parole"
        MANDATORY = "mandatory_supervision", "Mandatory supervision"
        PROBATION = "probation", "Probation (community supervision)"
        NONE = "none", "None (discharged)"
        UNKNOWN = "unknown", "Unknown"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=150, help_text="entered by staff")
    notes = models.TextField(blank=True, help_text="staff notes; never shown to the navigator or sent to a model")
    case_manager = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="clients",
        help_text="empty: the client's flags go to the on-call queue",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    release_date = models.DateField(null=True, blank=True)
    supervision_type = models.CharField(max_length=24, choices=Supervision.choices, default=Supervision.UNKNOWN)
    contacts = models.ManyToManyField(Contact, through="ClientContact", related_name="clients", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        indexes = [models.Index(fields=["case_manager", "status"], name="client_caseload_idx")]
        permissions = [
            ("view_all_clients", "See every client and conversation (supervisor)"),
            ("approve_outbound", "Approve, edit or reject outbound messages"),
            ("take_over_conversation", "Take over and hand back conversations, reply by SMS"),
            ("view_oncall_queue", "See flagged conversations that have no case manager"),
            ("view_dashboard", "See the supervisor dashboard"),
        ]

    def __str__(self) -> str:
        return self.name


class ClientContact(models.Model):
    """One channel identity of a client; a contact belongs to at most one client."""

    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="client_contacts")
    contact = models.OneToOneField(Contact, on_delete=models.CASCADE, related_name="client_link")
    linked_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.contact} → {self.client_id}"


class PhoneLinkRequest(models.Model):
    """A case manager asked to link an SMS number to a client; it becomes a `ClientContact` only on the person's YES.

    Until then the number's messages stay out of the caseload. Only supervisors see these rows, so a
    case manager learns nothing about a number (whether it has texted, or is linked elsewhere).
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the person's YES"
        CONFIRMED = "confirmed", "Confirmed by the person"
        HELD = "held", "Not sent: linked to another client (a supervisor decides)"
        NOT_SENT = "not_sent", "Not sent: the number replied STOP"
        SUPERSEDED = "superseded", "Replaced by a newer request"
        EXPIRED = "expired", "No answer in time"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="phone_link_requests")
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="phone_link_requests")
    requested_by = models.CharField(max_length=150, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["contact", "status", "created_at"], name="phone_link_contact_idx")]
        verbose_name = "pending phone link"
        verbose_name_plural = "pending phone links"

    def __str__(self) -> str:
        return f"{self.contact} → {self.client_id} ({self.status})"


class Queue(OutboundMessage):
    """Admin handle for the approval queue (a view over pending OutboundMessages)."""

    class Meta:
        proxy = True
        default_permissions = ()
        verbose_name = "approval queue"
        verbose_name_plural = "approval queue"


class Dashboard(Turn):
    """Admin handle for the supervisor dashboard (aggregates over Turns and the outbox)."""

    class Meta:
        proxy = True
        default_permissions = ()
        verbose_name = "dashboard"
        verbose_name_plural = "dashboard"


class CrisisHandled(models.Model):
    """When a staff member last marked a conversation's crisis handled: crisis turns up to then no longer lead the inbox.

    A later crisis turn opens the crisis tier again (the mark only covers what was seen).
    """

    conversation = models.OneToOneField(
        "conversations.Conversation", on_delete=models.CASCADE, primary_key=True, related_name="crisis_handled"
    )
    handled_at = models.DateTimeField()
    handled_by = models.CharField(max_length=150)

    class Meta:
        verbose_name = "crisis handled mark"

    def __str__(self) -> str:
        return f"crisis handled {self.handled_at:%Y-%m-%d %H:%M}"


class Alert(models.Model):
    """One alert about a conversation that needs a person, recorded once per event (its `key` is unique).

    Audience: the assigned case manager (`user`), else the on-call group; escalations go to supervisors.
    An alert is open until the conversation no longer needs a person for that reason (`resolved_at`).
    """

    class Kind(models.TextChoices):
        CRISIS = "crisis", "Crisis"
        ASKED_FOR_PERSON = "asked_for_person", "Asked for a person"
        APPROVAL_WAITING = "approval_waiting", "Reply waiting for approval"
        UNANSWERED = "unanswered", "Unanswered message in a staff thread"
        SLA_BREACH = "sla_breach", "Approval past the service level"
        CRISIS_UNHANDLED = "crisis_unhandled", "Crisis not handled in time"

    class Audience(models.TextChoices):
        ASSIGNED = "assigned", "Assigned case manager"
        ONCALL = "oncall", "On-call group"
        SUPERVISORS = "supervisors", "Supervisors"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    key = models.CharField(max_length=200, unique=True, help_text="kind:conversation:event — one alert per event")
    conversation = models.ForeignKey("conversations.Conversation", on_delete=models.CASCADE, related_name="alerts")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    audience = models.CharField(max_length=12, choices=Audience.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="caseload_alerts"
    )
    event_at = models.DateTimeField(help_text="when the thing alerted about happened")
    created_at = models.DateTimeField()
    emailed_to = models.PositiveSmallIntegerField(default=0, help_text="how many addresses the email went to")
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["resolved_at", "audience"], name="alert_open_idx")]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} → {self.audience}"


class Inbox(Conversation):
    """Admin handle for the case-manager inbox (/admin/caseload/inbox/): conversations that need a person."""

    class Meta:
        proxy = True
        default_permissions = ()
        verbose_name = "inbox"
        verbose_name_plural = "inbox"
