"""Reads of the inbox, scoped through caseload.selectors: the list (bounded queries whatever its length) and a thread.

The list is one annotated query over the user's conversations plus one for the priority of the
clients in the last tier; nothing is read per row (a test holds the list to 15 queries).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypedDict
from uuid import UUID

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

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

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
    conversation_id: Any
    label: str
    client_id: Any
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
    needs_human_reason: str


PAGE_SIZE = 50

# What the list reads per conversation: plain values, no model instances (500 rows stay cheap).
_LIST_FIELDS = (
    "pk",
    "channel",
    "language",
    "mode",
    "created_at",
    "needs_human",
    "needs_human_reason",
    "contact__phone_last4",
    "contact__client_link__client_id",
    "contact__client_link__client__name",
    "contact__client_link__client__case_manager__username",
    "in_tier",
    "in_crisis",
    "in_crisis_at",
    "in_oldest_pending",
    "in_pending",
    "in_last_turn_at",
    "in_last_turn_text",
    "in_last_staff_at",
    "in_last_staff_text",
    "in_first_unanswered",
)


class InboxAnnotations(TypedDict):
    """The SQL annotations annotate_inbox adds to each conversation (their names start with "in_")."""

    in_crisis_at: datetime | None
    in_crisis: str | None
    in_oldest_pending: datetime | None
    in_pending: int | None
    in_last_turn_at: datetime | None
    in_last_turn_text: str | None
    in_last_staff_at: datetime | None
    in_last_staff_text: str | None
    in_answered_at: datetime
    in_first_unanswered: datetime | None
    in_unanswered_staff: int
    in_tier: int


if TYPE_CHECKING:
    # A conversation as annotate_inbox returns it (a typing-only name: django-stubs-ext is a dev dependency).
    InboxConversation = WithAnnotations[Conversation, InboxAnnotations]


def _turns() -> QuerySet[Turn]:
    return Turn.objects.filter(conversation=OuterRef("pk"))


def annotate_inbox(queryset: QuerySet[Conversation]) -> QuerySet[InboxConversation]:
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
    values = list(
        annotate_inbox(selectors.conversation_queryset(user=user)).filter(needs_person()).values(*_LIST_FIELDS)
    )
    # The last tier is ordered by the client's existing score: one query for those clients only.
    client_ids = {
        item["contact__client_link__client_id"]
        for item in values
        if item["in_tier"] == priority_rules.Tier.OTHER and item["contact__client_link__client_id"]
    }
    scored: dict[Any, Priority] = {}
    if client_ids:
        today = timezone.localdate(now)
        for client in priority_rules.annotate_priority(Client.objects.filter(pk__in=client_ids), now=now):
            scored[client.pk] = priority_rules.priority_explain(priority_rules.inputs_of(client), today=today)
    rows = [_row(item, scored) for item in values]
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


def _row(item: dict[str, Any], scored: dict[Any, Priority]) -> InboxRow:
    tier = priority_rules.Tier(item["in_tier"])
    if tier == priority_rules.Tier.APPROVAL_WAITING:
        waiting = item["in_oldest_pending"]
    else:
        waiting = item["in_first_unanswered"] or item["in_oldest_pending"] or item["in_last_turn_at"]
    last_turn, last_staff = item["in_last_turn_at"], item["in_last_staff_at"]
    staff_newer = bool(last_staff and (last_turn is None or last_staff > last_turn))
    client_id = item["contact__client_link__client_id"]
    return InboxRow(
        conversation_id=item["pk"],
        label=conversation_label(
            channel=item["channel"],
            client_name=item["contact__client_link__client__name"],
            last4=item["contact__phone_last4"],
            created_at=item["created_at"],
        ),
        client_id=client_id,
        channel=item["channel"],
        language=item["language"],
        mode=item["mode"],
        tier=tier,
        tier_label=priority_rules.TIER_LABELS[tier],
        crisis=item["in_crisis"] or "none",
        crisis_at=item["in_crisis_at"],
        waiting_since=waiting,
        pending=int(item["in_pending"] or 0),
        preview=(item["in_last_staff_text"] if staff_newer else item["in_last_turn_text"]) or "",
        preview_author="staff" if staff_newer else "person",
        priority=scored.get(client_id) if client_id else None,
        assigned_to=item["contact__client_link__client__case_manager__username"] or "",
        needs_human_reason=item["needs_human_reason"] or "",
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


def _sms_preview(message: OutboundMessage) -> dict[str, Any] | None:
    """What the person would receive if approved now: the first text, its parts and encoding, the rest after MORE."""
    from conversations.sms.sender import outbound_preview

    if message.conversation.channel != "sms":
        return None
    return outbound_preview(message_id=message.pk)


def thread(*, user: Any, conversation_id: UUID | str) -> Thread | None:
    """One conversation's timeline and the drafts waiting in it, or None when outside the user's scope."""
    from conversations.selectors import conversation_timeline

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
        (message, selectors.message_context(message) | {"preview": _sms_preview(message)})
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
