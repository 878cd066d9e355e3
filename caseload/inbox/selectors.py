"""Reads of the inbox, scoped through caseload.selectors: the list (bounded queries whatever its length) and a thread.

The list is one annotated query over the user's conversations plus one for the priority of the
clients in the last tier; nothing is read per row (a test holds the list to 15 queries).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import (
    Case,
    DateTimeField,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest, Left
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from caseload import priority as priority_rules
from caseload import selectors
from caseload.models import Alert, Client
from caseload.types import Priority
from conversations.models import Conversation, OutboundMessage, StaffMessage, Turn

PREVIEW_CHARS = 140


def _epoch() -> datetime:
    return datetime(2000, 1, 1, tzinfo=UTC)


def conversation_label(*, channel: str, client_name: str | None, last4: str, created_at: datetime) -> str:
    """How staff call a conversation: the client's name, else "SMS …1234" or "Web chat, 3 Dec" (never a hex id)."""
    if client_name:
        return client_name
    if channel == "sms" and last4:
        return _("SMS …%(last4)s") % {"last4": last4}
    day = date_format(timezone.localtime(created_at), "j M")
    return _("Web chat, %(day)s") % {"day": day}


@dataclass(frozen=True)
class InboxRow:
    conversation: Conversation
    label: str
    client: Client | None
    channel: str
    language: str
    mode: str
    tier: priority_rules.Tier
    tier_label: str
    crisis: str
    crisis_at: datetime | None
    waiting_since: datetime | None
    pending: int
    preview: str
    preview_author: str
    priority: Priority | None
    assigned_to: str

    @property
    def waiting_minutes(self) -> int | None:
        if self.waiting_since is None:
            return None
        return max(0, int((timezone.now() - self.waiting_since).total_seconds() // 60))


def _turns() -> QuerySet[Turn]:
    return Turn.objects.filter(conversation=OuterRef("pk"))


def annotate_inbox(queryset: QuerySet[Conversation]) -> QuerySet[Conversation]:
    """Add what the inbox needs per conversation (tier facts, waiting time, preview) as SQL annotations."""
    waiting = OutboundMessage.objects.filter(
        conversation=OuterRef("pk"), status__in=priority_rules.WAITING_STATUSES
    ).order_by("created_at")
    open_crisis = _turns().exclude(crisis="none").filter(priority_rules.crisis_not_handled())
    staff = StaffMessage.objects.filter(conversation=OuterRef("pk")).order_by("-created_at")
    annotated = queryset.annotate(
        in_crisis_at=Subquery(open_crisis.order_by("-created_at").values("created_at")[:1]),
        in_crisis=Subquery(open_crisis.order_by("-created_at").values("crisis")[:1]),
        in_oldest_pending=Subquery(waiting.values("created_at")[:1]),
        in_pending=priority_rules._count(waiting),
        in_last_turn_at=Subquery(_turns().order_by("-seq").values("created_at")[:1]),
        in_last_turn_text=Subquery(
            _turns().order_by("-seq").annotate(p=Left("redacted_text", PREVIEW_CHARS)).values("p")[:1]
        ),
        in_last_staff_at=Subquery(staff.values("created_at")[:1]),
        in_last_staff_text=Subquery(staff.annotate(p=Left("body", PREVIEW_CHARS)).values("p")[:1]),
    ).annotate(
        # Waiting since the person's first message after the last staff answer (or the crisis mark).
        in_answered_at=Greatest(
            Coalesce(F("in_last_staff_at"), Value(_epoch()), output_field=DateTimeField()),
            Coalesce(F("crisis_handled__handled_at"), Value(_epoch()), output_field=DateTimeField()),
        ),
    )
    annotated = annotated.annotate(
        in_first_unanswered=Subquery(
            _turns().filter(created_at__gt=OuterRef("in_answered_at")).order_by("seq").values("created_at")[:1]
        ),
        in_unanswered_staff=Case(
            When(
                Q(mode=Conversation.Mode.HUMAN) & Q(in_first_unanswered__isnull=False),
                then=Value(1),
            ),
            default=Value(0),
            output_field=IntegerField(),
        ),
    )
    return annotated.annotate(
        in_tier=Case(
            When(in_crisis_at__isnull=False, then=Value(int(priority_rules.Tier.OPEN_CRISIS))),
            When(
                needs_human=True,
                needs_human_reason="asked_for_human",
                then=Value(int(priority_rules.Tier.ASKED_FOR_PERSON)),
            ),
            When(in_oldest_pending__isnull=False, then=Value(int(priority_rules.Tier.APPROVAL_WAITING))),
            default=Value(int(priority_rules.Tier.OTHER)),
            output_field=IntegerField(),
        )
    )


def needs_person() -> Q:
    """The inbox's filter: open crisis, asked for a human (or any flag), a reply waiting, or an unanswered staff thread."""
    return (
        Q(in_crisis_at__isnull=False)
        | Q(needs_human=True)
        | Q(in_oldest_pending__isnull=False)
        | Q(in_unanswered_staff=1)
    )


def inbox_rows(*, user: Any, now: datetime | None = None) -> list[InboxRow]:
    """Conversations in the user's scope that need a person, by tier (see caseload.priority.Tier)."""
    now = now or timezone.now()
    conversations = list(
        annotate_inbox(selectors.conversation_queryset(user=user))
        .filter(needs_person())
        .select_related("contact", "contact__client_link__client", "contact__client_link__client__case_manager")
    )
    clients: dict[Any, Client] = {}
    for conversation in conversations:
        client = _client_of(conversation)
        if client is not None and conversation.in_tier == priority_rules.Tier.OTHER:
            clients[client.pk] = client
    scored: dict[Any, Priority] = {}
    if clients:
        annotated = priority_rules.annotate_priority(Client.objects.filter(pk__in=list(clients)), now=now)
        for client in annotated:
            scored[client.pk] = priority_rules.priority_explain(
                priority_rules.inputs_of(client), today=timezone.localdate(now)
            )
    rows = [_row(conversation, scored) for conversation in conversations]
    rows.sort(
        key=lambda row: priority_rules.tier_sort_key(
            tier=row.tier,
            crisis_at=row.crisis_at,
            waiting_since=row.waiting_since,
            score=row.priority.score if row.priority else 0,
        )
    )
    return rows


def _client_of(conversation: Conversation) -> Client | None:
    try:
        return conversation.contact.client_link.client
    except Exception:  # noqa: BLE001 - RelatedObjectDoesNotExist: a contact not linked to a client
        return None


def _row(conversation: Any, scored: dict[Any, Priority]) -> InboxRow:
    client = _client_of(conversation)
    tier = priority_rules.Tier(conversation.in_tier)
    if tier == priority_rules.Tier.APPROVAL_WAITING:
        waiting = conversation.in_oldest_pending
    else:
        waiting = conversation.in_first_unanswered or conversation.in_oldest_pending or conversation.in_last_turn_at
    staff_newer = conversation.in_last_staff_at and (
        conversation.in_last_turn_at is None or conversation.in_last_staff_at > conversation.in_last_turn_at
    )
    return InboxRow(
        conversation=conversation,
        label=conversation_label(
            channel=conversation.channel,
            client_name=client.name if client else None,
            last4=conversation.contact.phone_last4,
            created_at=conversation.created_at,
        ),
        client=client,
        channel=conversation.channel,
        language=conversation.language,
        mode=conversation.mode,
        tier=tier,
        tier_label=priority_rules.TIER_LABELS[tier],
        crisis=conversation.in_crisis or "none",
        crisis_at=conversation.in_crisis_at,
        waiting_since=waiting,
        pending=int(conversation.in_pending or 0),
        preview=(conversation.in_last_staff_text if staff_newer else conversation.in_last_turn_text) or "",
        preview_author="staff" if staff_newer else "person",
        priority=scored.get(client.pk) if client else None,
        assigned_to=(client.case_manager.get_username() if client and client.case_manager else ""),
    )


def inbox_counts(*, user: Any) -> dict[str, int]:
    """The user's own counts for the admin index: open crises, waiting approvals, unanswered threads, alerts."""
    rows = (
        annotate_inbox(selectors.conversation_queryset(user=user))
        .filter(needs_person())
        .values_list("in_tier", "in_pending", "in_unanswered_staff")
    )
    counts = {"crises": 0, "approvals": 0, "unanswered": 0, "asked": 0, "total": 0}
    for tier, pending, unanswered in rows:
        counts["total"] += 1
        counts["crises"] += tier == priority_rules.Tier.OPEN_CRISIS
        counts["asked"] += tier == priority_rules.Tier.ASKED_FOR_PERSON
        counts["approvals"] += int(pending or 0)
        counts["unanswered"] += int(unanswered or 0)
    counts["alerts"] = open_alerts(user=user).count()
    return counts


def open_alerts(*, user: Any) -> QuerySet[Alert]:
    """Open alerts this user is an audience of (their own, the on-call group's, the supervisors')."""
    if not (user and user.is_authenticated and user.is_active and user.is_staff):
        return Alert.objects.none()
    audience = Q(audience=Alert.Audience.ASSIGNED, user=user)
    if user.has_perm(selectors.PERM_ONCALL):
        audience |= Q(audience=Alert.Audience.ONCALL)
    if selectors.sees_all(user):
        audience |= Q(audience=Alert.Audience.SUPERVISORS) | Q(audience=Alert.Audience.ONCALL)
    return Alert.objects.filter(audience, resolved_at__isnull=True).filter(
        conversation__in=selectors.conversation_queryset(user=user).values("pk")
    )


@dataclass(frozen=True)
class Thread:
    conversation: Conversation
    label: str
    client: Client | None
    timeline: list[dict[str, Any]]
    waiting: list[tuple[OutboundMessage, dict[str, Any]]]
    open_crisis: bool
    tier: priority_rules.Tier | None


def thread(*, user: Any, conversation_id: object) -> Thread | None:
    """One conversation's timeline and the drafts waiting in it, or None when outside the user's scope."""
    from conversations.staff import conversation_timeline

    try:
        conversation = (
            annotate_inbox(selectors.conversation_queryset(user=user))
            .select_related("contact", "contact__client_link__client")
            .get(pk=conversation_id)
        )
    except (Conversation.DoesNotExist, ValueError, TypeError):
        return None
    client = _client_of(conversation)
    waiting = [
        (message, selectors.message_context(message))
        for message in selectors.outbound_queryset(user=user)
        .filter(conversation=conversation, status__in=priority_rules.WAITING_STATUSES)
        .select_related("turn")
        .order_by("created_at")
    ]
    timeline = conversation_timeline(conversation=conversation)
    for item in timeline:
        item["at"] = datetime.fromisoformat(item["created_at"].replace("Z", "+00:00"))
    return Thread(
        conversation=conversation,
        label=conversation_label(
            channel=conversation.channel,
            client_name=client.name if client else None,
            last4=conversation.contact.phone_last4,
            created_at=conversation.created_at,
        ),
        client=client,
        timeline=timeline,
        waiting=waiting,
        open_crisis=conversation.in_crisis_at is not None,
        tier=priority_rules.Tier(conversation.in_tier),
    )
