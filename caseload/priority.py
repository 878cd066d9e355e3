"""Who needs me now: a deterministic, explainable priority per client (no model decides it).

The same weight table drives the database annotation (so the caseload list sorts by it) and the
Python explanation (so each score shows the drivers that make it up); a test checks they agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import IntEnum
from typing import Any, Final

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Least
from django.utils import timezone

from caseload.types import Priority, PriorityDriver
from conversations.models import Conversation, OutboundMessage, Turn

CRISIS_RECENT: Final = timedelta(hours=72)
CRISIS_WEEK: Final = timedelta(days=7)
RECENT: Final = timedelta(days=14)

POINTS_CRISIS_72H: Final = 50
POINTS_CRISIS_7D: Final = 30
POINTS_ASKED_FOR_PERSON: Final = 25
POINTS_PER_PENDING_REPLY: Final = 10
MAX_PENDING_COUNTED: Final = 3
POINTS_PER_UNANSWERED: Final = 5
MAX_UNANSWERED_COUNTED: Final = 4
POINTS_MISSED_APPOINTMENT: Final = 15
# Days since release → points; the first 30 days weigh most (the riskiest weeks after release).
RELEASE_TIERS: Final = ((14, 25), (30, 20), (90, 8))

WAITING_STATUSES: Final = (OutboundMessage.Status.PENDING_APPROVAL, OutboundMessage.Status.SUGGESTED)
DELIVERED_STATUSES: Final = (
    OutboundMessage.Status.APPROVED,
    OutboundMessage.Status.SENDING,
    OutboundMessage.Status.SENT,
    OutboundMessage.Status.DELIVERED,
)
# PostgreSQL (~*) and Python share this syntax: no \b, only classes and alternation.
MISSED_APPOINTMENT_PATTERN: Final = (
    r"(miss(ed)?|skipped|didn.?t (make|go to)|couldn.?t (make|go to)) (it to )?(my |an |the |our )?"
    r"(appointment|appt|check.?in|meeting|report(ing)? date|court date|parole (meeting|visit)|probation (meeting|visit))"
    r"|(no (fui|llegu[eé]) a|perd[ií]|falt[eé] a) (mi |la |una )?(cita|reuni[oó]n|corte)"
)


@dataclass(frozen=True)
class PriorityInputs:
    """The raw facts a score is made of (also what the admin shows)."""

    crisis_72h: bool
    crisis_7d: bool
    asked_for_person: bool
    pending_replies: int
    unanswered: int
    missed_appointment: bool
    release_date: date | None


def release_points(release_date: date | None, today: date) -> tuple[int, int | None]:
    """(points, days since release) for a release date; future or unknown dates add nothing."""
    if release_date is None or release_date > today:
        return 0, None
    days = (today - release_date).days
    for limit, points in RELEASE_TIERS:
        if days <= limit:
            return points, days
    return 0, days


def priority_explain(inputs: PriorityInputs, *, today: date) -> Priority:
    """Score and drivers for one client's inputs, largest driver first."""
    drivers: list[PriorityDriver] = []
    if inputs.crisis_72h:
        drivers.append(PriorityDriver("crisis_72h", "crisis in the last 72 hours", POINTS_CRISIS_72H))
    elif inputs.crisis_7d:
        drivers.append(PriorityDriver("crisis_7d", "crisis in the last 7 days", POINTS_CRISIS_7D))
    if inputs.asked_for_person:
        drivers.append(PriorityDriver("asked_for_person", "asked for a person", POINTS_ASKED_FOR_PERSON))
    if inputs.pending_replies:
        counted = min(inputs.pending_replies, MAX_PENDING_COUNTED)
        drivers.append(
            PriorityDriver(
                "pending_replies",
                f"{inputs.pending_replies} repl{'y' if inputs.pending_replies == 1 else 'ies'} waiting for approval",
                counted * POINTS_PER_PENDING_REPLY,
            )
        )
    points, days = release_points(inputs.release_date, today)
    if points:
        drivers.append(
            PriorityDriver("released_recently", f"released {days} day{'' if days == 1 else 's'} ago", points)
        )
    if inputs.unanswered:
        counted = min(inputs.unanswered, MAX_UNANSWERED_COUNTED)
        drivers.append(
            PriorityDriver(
                "unanswered",
                f"{inputs.unanswered} unanswered message{'' if inputs.unanswered == 1 else 's'}",
                counted * POINTS_PER_UNANSWERED,
            )
        )
    if inputs.missed_appointment:
        drivers.append(
            PriorityDriver("missed_appointment", "mentioned a missed appointment", POINTS_MISSED_APPOINTMENT)
        )
    drivers.sort(key=lambda driver: (-driver.points, driver.code))
    return Priority(score=sum(driver.points for driver in drivers), drivers=tuple(drivers))


def crisis_not_handled() -> Q:
    """Turns whose crisis no staff member has marked handled since (a Turn filter): only these count as open."""
    return Q(conversation__crisis_handled__isnull=True) | Q(
        created_at__gt=F("conversation__crisis_handled__handled_at")
    )


def _client_turns() -> QuerySet[Turn]:
    return Turn.objects.filter(conversation__contact__client_link__client=OuterRef("pk"))


def _count(queryset: QuerySet[Any]) -> Coalesce:
    """A correlated COUNT(*) subquery (no GROUP BY on the outer query, so annotations stay independent)."""
    return Coalesce(
        Subquery(
            queryset.order_by().annotate(_group=Value(1)).values("_group").annotate(n=Count("pk")).values("n")[:1]
        ),
        Value(0),
    )


def annotate_priority(queryset: QuerySet[Any], *, now: datetime) -> QuerySet[Any]:
    """Add the priority inputs and `priority` (the score) to a Client queryset, for sorting in the database."""
    today = timezone.localdate(now)
    turns = _client_turns()
    answered_after = OutboundMessage.objects.filter(
        conversation_id=OuterRef("conversation_id"),
        status__in=DELIVERED_STATUSES,
        created_at__gte=OuterRef("created_at"),
    )
    unanswered = (
        Turn.objects.filter(conversation__contact__client_link__client=OuterRef("pk"), created_at__gte=now - RECENT)
        .exclude(status=Turn.Status.RUNNING)
        .filter(Q(channel="sms") | Q(reply=""))
        .filter(~Exists(answered_after))
    )
    annotated = queryset.annotate(
        # A crisis a staff member marked handled no longer scores (it did for 72 h before the tiers).
        p_crisis_72h=Exists(
            turns.exclude(crisis="none").filter(crisis_not_handled(), created_at__gte=now - CRISIS_RECENT)
        ),
        p_crisis_7d=Exists(
            turns.exclude(crisis="none").filter(crisis_not_handled(), created_at__gte=now - CRISIS_WEEK)
        ),
        p_asked_for_person=Exists(
            Conversation.objects.filter(
                contact__client_link__client=OuterRef("pk"), needs_human=True, needs_human_reason="asked_for_human"
            )
        ),
        p_pending=_count(
            OutboundMessage.objects.filter(
                conversation__contact__client_link__client=OuterRef("pk"), status__in=WAITING_STATUSES
            )
        ),
        p_unanswered=_count(unanswered),
        p_missed=Exists(turns.filter(created_at__gte=now - RECENT, redacted_text__iregex=MISSED_APPOINTMENT_PATTERN)),
    )
    release_case = Case(
        *[
            When(release_date__lte=today, release_date__gte=today - timedelta(days=limit), then=Value(points))
            for limit, points in RELEASE_TIERS
        ],
        default=Value(0),
        output_field=IntegerField(),
    )
    score = (
        Case(
            When(p_crisis_72h=True, then=Value(POINTS_CRISIS_72H)),
            When(p_crisis_7d=True, then=Value(POINTS_CRISIS_7D)),
            default=Value(0),
            output_field=IntegerField(),
        )
        + Case(
            When(p_asked_for_person=True, then=Value(POINTS_ASKED_FOR_PERSON)),
            default=Value(0),
            output_field=IntegerField(),
        )
        + Least(F("p_pending"), Value(MAX_PENDING_COUNTED)) * Value(POINTS_PER_PENDING_REPLY)
        + release_case
        + Least(F("p_unanswered"), Value(MAX_UNANSWERED_COUNTED)) * Value(POINTS_PER_UNANSWERED)
        + Case(
            When(p_missed=True, then=Value(POINTS_MISSED_APPOINTMENT)), default=Value(0), output_field=IntegerField()
        )
    )
    return annotated.annotate(priority=score)


def inputs_of(client: Any) -> PriorityInputs:
    """Read the inputs back from a client annotated by `annotate_priority`."""
    return PriorityInputs(
        crisis_72h=bool(client.p_crisis_72h),
        crisis_7d=bool(client.p_crisis_7d),
        asked_for_person=bool(client.p_asked_for_person),
        pending_replies=int(client.p_pending or 0),
        unanswered=int(client.p_unanswered or 0),
        missed_appointment=bool(client.p_missed),
        release_date=client.release_date,
    )


# --- tiers: who comes first in the inbox -------------------------------------------------------
# The score above mixes drivers, so "released 10 days ago + asked for a person + one pending reply"
# (60) could outrank a crisis (50). Tiers are strict instead: a lower tier always comes first, and
# the score only orders conversations inside the last tier. Read top to bottom, like graph.py.


class Tier(IntEnum):
    OPEN_CRISIS = 0  # a crisis turn nobody has marked handled: newest crisis first, then longest waiting
    ASKED_FOR_PERSON = 1  # asked for a human, flag not yet answered: longest waiting first
    APPROVAL_WAITING = 2  # replies waiting for approval: longest waiting first
    OTHER = 3  # unanswered staff threads and other flags: the client's score, then longest waiting


TIER_LABELS: Final = {
    Tier.OPEN_CRISIS: "open crisis",
    Tier.ASKED_FOR_PERSON: "asked for a person",
    Tier.APPROVAL_WAITING: "reply waiting for approval",
    Tier.OTHER: "needs a reply",
}


def conversation_tier(*, open_crisis: bool, asked_for_person: bool, pending_replies: int) -> Tier:
    """The tier of one conversation from its facts (the inbox's database CASE mirrors this; a test checks)."""
    if open_crisis:
        return Tier.OPEN_CRISIS
    if asked_for_person:
        return Tier.ASKED_FOR_PERSON
    if pending_replies:
        return Tier.APPROVAL_WAITING
    return Tier.OTHER


def tier_sort_key(
    *, tier: Tier, crisis_at: datetime | None, waiting_since: datetime | None, score: int = 0
) -> tuple[Any, ...]:
    """Sort key inside and across tiers (ascending sort): tier, then the tier's own order."""
    waiting = waiting_since.timestamp() if waiting_since else float("inf")
    if tier == Tier.OPEN_CRISIS:
        return (int(tier), -(crisis_at.timestamp() if crisis_at else 0.0), waiting)
    if tier == Tier.OTHER:
        return (int(tier), -score, waiting)
    return (int(tier), waiting)
