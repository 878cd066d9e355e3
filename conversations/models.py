"""Conversation data: contacts, conversations, turns with their saved workflow state, node runs, outbox.

Only redacted text is stored. Phone numbers are stored encrypted with an HMAC hash for lookup.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

CHANNELS = [("web", "Web chat"), ("sms", "SMS")]
LANGUAGES = [("en", "English"), ("es", "Spanish")]


class Contact(models.Model):
    """A person's channel identity (a web session or an SMS number)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    channel = models.CharField(max_length=8, choices=CHANNELS)
    phone_encrypted = models.TextField(blank=True, help_text="Fernet-encrypted E.164 number (SMS only)")
    phone_hash = models.CharField(max_length=64, blank=True, help_text="HMAC of the E.164 number, for lookup")
    phone_last4 = models.CharField(max_length=4, blank=True)
    language = models.CharField(max_length=2, choices=LANGUAGES, default="en")
    opted_out = models.BooleanField(default=False)
    opted_out_at = models.DateTimeField(null=True, blank=True)
    consent_version = models.CharField(max_length=20, blank=True, help_text="privacy notice version accepted/shown")
    consent_at = models.DateTimeField(null=True, blank=True)
    sms_rate_notice_at = models.DateTimeField(
        null=True, blank=True, help_text="last 'too many messages' notice (one per window)"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["phone_hash"], condition=~Q(phone_hash=""), name="contact_phone_hash_unique"
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.channel} contact …{self.phone_last4}"
            if self.phone_last4
            else f"{self.channel} contact {str(self.id)[:8]}"
        )


class Conversation(models.Model):
    """A thread of turns with one contact; its mode says whether the navigator or a human answers."""

    class Mode(models.TextChoices):
        NAVIGATOR = "navigator", "Navigator"
        HUMAN = "human", "Human (case manager)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="conversations")
    channel = models.CharField(max_length=8, choices=CHANNELS)
    language = models.CharField(max_length=2, choices=LANGUAGES, default="en")
    token_hash = models.CharField(
        max_length=64, blank=True, db_index=True, help_text="SHA-256 of the bearer token (web)"
    )
    token_used_at = models.DateTimeField(
        null=True, blank=True, help_text="last use of the bearer token (web); idle past CHAT_TOKEN_DAYS it is revoked"
    )
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.NAVIGATOR)
    mode_changed_by = models.CharField(max_length=150, blank=True)
    mode_changed_at = models.DateTimeField(null=True, blank=True)
    needs_human = models.BooleanField(default=False, help_text="flagged for a case manager (crisis or request)")
    needs_human_reason = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["-updated_at"], name="conversation_recent_idx")]

    def __str__(self) -> str:
        return f"{self.channel} conversation {str(self.id)[:8]}"


class RateCounter(models.Model):
    """One fixed-window rate-limit counter, used when the cache is per process (no Redis): limits stay global.

    The key names the scope, a hash of the identity (never a raw IP) and the window number.
    """

    key = models.CharField(max_length=120, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}={self.count}"


class MetricCounter(models.Model):
    """A per-day operational count (e.g. rejected Twilio webhooks): one row per name and day, never a row per event.

    A flood of forged requests then costs one UPDATE each, not an audit row under the global audit lock.
    """

    name = models.CharField(max_length=80)
    day = models.DateField()
    count = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "day"], name="metric_counter_name_day_unique")]

    def __str__(self) -> str:
        return f"{self.name} {self.day}={self.count}"


class Turn(models.Model):
    """One user message and everything done about it: the saved state of its workflow run."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        COMPLETED = "completed", "Completed"
        ESCALATED = "escalated", "Escalated"
        WAITING_APPROVAL = "waiting_approval", "Waiting for approval"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Not indexed on its own: both unique constraints below start with the conversation.
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns", db_index=False)
    seq = models.PositiveIntegerField(help_text="position in the conversation, from 1")
    idempotency_key = models.CharField(max_length=100)
    channel = models.CharField(max_length=8, choices=CHANNELS)
    redacted_text = models.TextField()
    standalone_text = models.TextField(blank=True, help_text="follow-up rewritten as a standalone question")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.RUNNING)
    current_node = models.CharField(max_length=20, default="intake")
    workflow_version = models.CharField(max_length=20)
    state = models.JSONField(default=dict)
    steps = models.PositiveSmallIntegerField(default=0)
    llm_calls = models.PositiveSmallIntegerField(default=0)
    revisions = models.PositiveSmallIntegerField(default=0)
    language = models.CharField(max_length=2, choices=LANGUAGES, default="en")
    crisis = models.CharField(max_length=40, default="none")
    top_need = models.CharField(max_length=20, blank=True)
    region = models.CharField(max_length=24, blank=True)
    audit_verdict = models.CharField(max_length=12, blank=True)
    reply = models.TextField(blank=True)
    escalation_reason = models.CharField(max_length=60, blank=True)
    error = models.CharField(max_length=300, blank=True)
    total_ms = models.FloatField(null=True, blank=True)
    cost_usd = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["conversation", "idempotency_key"], name="turn_idempotency_unique"),
            models.UniqueConstraint(fields=["conversation", "seq"], name="turn_seq_unique"),
        ]
        # Few indexes, none on what a checkpoint writes: each node's UPDATE then stays a HOT update
        # (no index maintenance; the table keeps free space per page for it, see migration 0005).
        indexes = [
            models.Index(fields=["status", "created_at"], name="turn_status_created_idx"),
            models.Index(fields=["crisis"], name="turn_crisis_idx"),
        ]
        ordering = ["conversation", "seq"]

    def __str__(self) -> str:
        return f"turn {self.seq} of {self.conversation_id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status != self.Status.RUNNING


class NodeRun(models.Model):
    """One node execution: what it saw, what it returned, the transition taken, time and LLM usage."""

    # Not indexed on its own: the unique (turn, step) constraint starts with it.
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="node_runs", db_index=False)
    step = models.PositiveSmallIntegerField()
    node = models.CharField(max_length=20)
    projection = models.JSONField(default=dict)
    output = models.JSONField(default=dict)
    outcome = models.CharField(max_length=30)
    transition = models.CharField(max_length=50)
    ms = models.FloatField()
    llm_model = models.CharField(max_length=60, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cache_read_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["turn", "step"], name="noderun_step_unique")]
        ordering = ["turn", "step"]

    def __str__(self) -> str:
        return f"{self.node} ({self.transition})"


class OutboundMessage(models.Model):
    """An outbox row: an SMS reply waiting for approval or sending. Claimed with a conditional update."""

    class Status(models.TextChoices):
        PENDING_APPROVAL = "pending_approval", "Pending approval"
        SUGGESTED = "suggested", "Suggestion (human mode)"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        DELIVERED = "delivered", "Delivered"
        UNDELIVERED = "undelivered", "Undelivered"
        FAILED = "failed", "Failed"
        SUPPRESSED = "suppressed", "Suppressed (opted out)"

    class Kind(models.TextChoices):
        REPLY = "reply", "Reply"
        CRISIS = "crisis", "Crisis handoff"
        KEYWORD = "keyword", "Keyword confirmation"
        HUMAN = "human", "Case manager message"
        NOTICE = "notice", "Notice"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="outbound_messages")
    turn = models.ForeignKey(Turn, on_delete=models.SET_NULL, null=True, blank=True, related_name="outbound_messages")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.REPLY)
    body = models.TextField()
    draft_body = models.TextField(blank=True, help_text="the navigator's draft before a case manager's edit")
    status = models.CharField(max_length=20, choices=Status.choices, db_index=True)
    crisis = models.BooleanField(default=False)
    segments = models.PositiveSmallIntegerField(default=0)
    encoding = models.CharField(max_length=8, blank=True)
    approved_by = models.CharField(max_length=150, blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    rejection_reason = models.CharField(max_length=300, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    provider_sid = models.CharField(max_length=64, blank=True)
    error_code = models.CharField(max_length=20, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    purpose = models.CharField(
        max_length=24, blank=True, help_text="what a keyword/notice message is for, e.g. opt_out_confirmation"
    )
    remainder = models.TextField(
        blank=True, help_text="the rest of a shortened reply, sent when the person replies MORE"
    )
    provider_status = models.CharField(max_length=20, blank=True, help_text="last status reported by Twilio")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "crisis", "created_at"], name="outbound_queue_idx")]
        ordering = ["-crisis", "created_at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.status}"


class InboundSms(models.Model):
    """One inbound SMS webhook, recorded before anything else happens: its MessageSid is the idempotency key.

    Only the redacted body is kept. The webhook writes a `pending` row (the number encrypted and
    hashed, no contact yet) and a worker decides it: contact, keyword, rate limit, turn. Then the
    encrypted number is cleared (the contact holds it). A row is `processed` once it became a turn or
    a keyword action; rows held by the per-number rate limit stay unprocessed until a beat task picks them up.
    """

    class Outcome(models.TextChoices):
        PENDING = "pending", "Received, not yet decided"
        TURN = "turn", "Turn started"
        KEYWORD = "keyword", "Keyword"
        HELD = "held", "Held by the rate limit"
        EMPTY = "empty", "Empty (no text)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    message_sid = models.CharField(max_length=64, unique=True)
    idempotency_token = models.CharField(
        max_length=100, blank=True, help_text="Twilio's I-Twilio-Idempotency-Token header"
    )
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="inbound_sms", null=True, blank=True)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="inbound_sms", null=True, blank=True
    )
    phone_hash = models.CharField(
        max_length=64, blank=True, help_text="HMAC of the E.164 number, for the worker's contact lookup"
    )
    phone_encrypted = models.TextField(blank=True, help_text="the sender, encrypted; cleared once the row is decided")
    redacted_body = models.TextField(blank=True)
    keyword = models.CharField(max_length=20, blank=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    crisis = models.CharField(max_length=40, default="none")
    processed = models.BooleanField(default=False)
    processed_at = models.DateTimeField(null=True, blank=True)
    turn = models.ForeignKey(Turn, on_delete=models.SET_NULL, null=True, blank=True, related_name="inbound_sms")
    received_at = models.DateTimeField()

    class Meta:
        constraints = [
            # Twilio retries a webhook with the same token: a second row for it is a duplicate delivery.
            models.UniqueConstraint(
                fields=["idempotency_token"], condition=~Q(idempotency_token=""), name="inbound_sms_token_unique"
            ),
        ]
        indexes = [
            # The rate limit counts one number's recent messages; the beat task scans held rows.
            models.Index(fields=["contact", "received_at"], name="inbound_sms_contact_recent_idx"),
            models.Index(fields=["processed", "received_at"], name="inbound_sms_pending_idx"),
            models.Index(fields=["outcome", "received_at"], name="inbound_sms_outcome_idx"),
        ]
        verbose_name = "inbound SMS"
        verbose_name_plural = "inbound SMS"

    def __str__(self) -> str:
        return f"inbound {self.outcome} {self.message_sid[-6:]}"


class StaffMessage(models.Model):
    """A case manager's own message in a conversation (web or SMS): who wrote it, when, and its SMS outbox row.

    The person's page shows it marked as from a case manager with the author's first name only
    (`author_first_name`, copied at write time so a later rename or deletion does not rewrite history).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="staff_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="staff_messages"
    )
    author_first_name = models.CharField(max_length=60, blank=True)
    channel = models.CharField(max_length=8, choices=CHANNELS)
    body = models.TextField()
    outbound = models.OneToOneField(
        OutboundMessage, on_delete=models.SET_NULL, null=True, blank=True, related_name="staff_message"
    )
    idempotency_key = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # A double-click or a retried form post carries the same key: one message, never two.
            models.UniqueConstraint(fields=["conversation", "idempotency_key"], name="staff_message_idempotency"),
        ]
        indexes = [models.Index(fields=["conversation", "created_at"], name="staff_message_timeline_idx")]
        ordering = ["conversation", "created_at"]

    def __str__(self) -> str:
        return f"staff message {str(self.id)[:8]}"
