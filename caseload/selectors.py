"""Reads of the caseload app, every one scoped to what the asking user may see.

Case managers see their own clients and those clients' conversations, turns, node runs and outbox
rows; users with `view_all_clients` (supervisors, admins) see everything; users with
`view_oncall_queue` also see flagged conversations nobody is assigned to. Admin querysets come from
here, so the admin and any later API share one rule.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Case, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When
from django.utils import timezone

from caseload import priority as priority_rules
from caseload.models import Client
from caseload.types import ClientSnapshot, Priority, TurnSnapshot
from conversations.models import Conversation, OutboundMessage, Turn

PERM_ALL = "caseload.view_all_clients"
PERM_ONCALL = "caseload.view_oncall_queue"
PERM_APPROVE = "caseload.approve_outbound"
PERM_TAKE_OVER = "caseload.take_over_conversation"
PERM_DASHBOARD = "caseload.view_dashboard"
SNAPSHOT_TURNS = 12


def sees_all(user: Any) -> bool:
    return bool(user and user.is_active and user.has_perm(PERM_ALL))


def _is_staff_user(user: Any) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.is_staff)


def client_queryset(*, user: Any) -> QuerySet[Client]:
    """Clients the user may see: all for supervisors, their own for case managers, none otherwise."""
    if not _is_staff_user(user):
        return Client.objects.none()
    if sees_all(user):
        return Client.objects.all()
    if user.has_perm("caseload.view_client"):
        return Client.objects.filter(case_manager=user)
    return Client.objects.none()


def _unassigned_flagged() -> Q:
    """Flagged conversations with no client, or whose client has no case manager: the on-call queue."""
    return Q(needs_human=True) & (
        Q(contact__client_link__isnull=True) | Q(contact__client_link__client__case_manager__isnull=True)
    )


def conversation_queryset(*, user: Any) -> QuerySet[Conversation]:
    """Conversations the user may see (their clients'; all for supervisors; plus on-call flags)."""
    if not _is_staff_user(user) or not user.has_perm("conversations.view_conversation"):
        return Conversation.objects.none()
    if sees_all(user):
        return Conversation.objects.all()
    scope = Q(contact__client_link__client__case_manager=user)
    if user.has_perm(PERM_ONCALL):
        scope |= _unassigned_flagged()
    return Conversation.objects.filter(scope)


def _in_scope(user: Any, model_perm: str) -> Q | None:
    """A filter on `conversation` for a model that hangs off a conversation; None means all."""
    if not _is_staff_user(user) or not user.has_perm(model_perm):
        return Q(pk__in=[])
    if sees_all(user):
        return None
    return Q(conversation__in=conversation_queryset(user=user).values("pk"))


def turn_queryset(*, user: Any) -> QuerySet[Turn]:
    scope = _in_scope(user, "conversations.view_turn")
    return Turn.objects.all() if scope is None else Turn.objects.filter(scope)


def outbound_queryset(*, user: Any) -> QuerySet[OutboundMessage]:
    scope = _in_scope(user, "conversations.view_outboundmessage")
    return OutboundMessage.objects.all() if scope is None else OutboundMessage.objects.filter(scope)


def approval_queue(*, user: Any) -> QuerySet[OutboundMessage]:
    """Messages waiting for a person, crisis-flagged first (message or its turn), then oldest first."""
    if not user.has_perm(PERM_APPROVE):
        return OutboundMessage.objects.none()
    crisis_turn = Q(turn__isnull=False) & ~Q(turn__crisis="none")
    return (
        outbound_queryset(user=user)
        .filter(status__in=priority_rules.WAITING_STATUSES)
        .annotate(
            is_crisis=Case(
                When(Q(crisis=True) | crisis_turn, then=Value(1)), default=Value(0), output_field=IntegerField()
            )
        )
        .select_related("turn", "conversation", "conversation__contact")
        .order_by("-is_crisis", "created_at", "pk")
    )


def flagged_conversations(*, user: Any) -> QuerySet[Conversation]:
    """Conversations that asked for a person or had a crisis, in the user's scope, oldest flag first."""
    return conversation_queryset(user=user).filter(needs_human=True).order_by("updated_at")


def oncall_queue(*, user: Any) -> QuerySet[Conversation]:
    """Flagged conversations nobody is assigned to (for supervisors and on-call case managers)."""
    if not (_is_staff_user(user) and (user.has_perm(PERM_ONCALL) or sees_all(user))):
        return Conversation.objects.none()
    return Conversation.objects.filter(_unassigned_flagged()).order_by("updated_at")


def client_queryset_with_priority(*, user: Any, now: datetime | None = None) -> QuerySet[Any]:
    """Scoped clients annotated with their priority inputs and score (sortable in the database).

    Typed as QuerySet[Any]: its rows are Clients that carry the annotations (`priority`, ...) too."""
    return priority_rules.annotate_priority(client_queryset(user=user), now=now or timezone.now())


def client_priority(client: Client, *, now: datetime | None = None) -> Priority:
    """Score and drivers of a client annotated by `client_queryset_with_priority`."""
    today = timezone.localdate(now or timezone.now())
    return priority_rules.priority_explain(priority_rules.inputs_of(client), today=today)


def clients_by_priority(*, user: Any, now: datetime | None = None) -> list[tuple[Client, Priority]]:
    """Who needs me now: the user's clients, highest score first (ties: oldest release first, then name)."""
    now = now or timezone.now()
    clients = client_queryset_with_priority(user=user, now=now).order_by("-priority", "release_date", "name", "pk")
    return [(client, client_priority(client, now=now)) for client in clients]


def message_context(message: OutboundMessage) -> dict[str, Any]:
    """What a reviewer needs beside a draft: the question (redacted), citations used, audit findings."""
    turn = message.turn
    state = (turn.state if turn else None) or {}
    audit = state.get("audit") or {}
    body = message.body or ""
    citations = [
        {"citation": item.get("citation", ""), "url": item.get("url", ""), "title": item.get("title", "")}
        for item in state.get("evidence") or []
        if item.get("assertable") and item.get("citation") and item["citation"] in body
    ]
    return {
        "question": turn.redacted_text if turn else "",
        "turn_status": turn.status if turn else "",
        "crisis": (turn.crisis if turn else "none"),
        "verdict": audit.get("verdict") or (turn.audit_verdict if turn else ""),
        "findings": list(audit.get("findings") or []),
        "citations": citations,
        "gated": bool((state.get("retrieval") or {}).get("gated")),
        "edited": bool(message.draft_body and message.draft_body != message.body),
    }


def client_snapshot(*, client: Client, now: datetime | None = None) -> ClientSnapshot:
    """The read-only projection a summarizer gets: redacted turns and facts, no name, notes or ids."""
    now = now or timezone.now()
    conversations = Conversation.objects.filter(contact__client_link__client=client)
    delivered = OutboundMessage.objects.filter(turn=OuterRef("pk"), status__in=priority_rules.DELIVERED_STATUSES)
    turns = (
        Turn.objects.filter(conversation__in=conversations)
        .annotate(delivered=Exists(delivered))
        .order_by("-created_at")[:SNAPSHOT_TURNS]
    )
    snapshots = tuple(
        TurnSnapshot(
            at=turn.created_at,
            channel=turn.channel,
            redacted_text=turn.redacted_text,
            status=turn.status,
            crisis=turn.crisis,
            top_need=turn.top_need,
            region=turn.region,
            reply_sent=bool(turn.delivered or (turn.channel == "web" and turn.reply)),
        )
        for turn in reversed(list(turns))
    )
    _, days = priority_rules.release_points(client.release_date, timezone.localdate(now))
    flagged = conversations.filter(needs_human=True).values_list("needs_human_reason", flat=True).first()
    return ClientSnapshot(
        status=client.status,
        supervision_type=client.supervision_type,
        release_date=client.release_date,
        days_since_release=days,
        mode_human=conversations.filter(mode=Conversation.Mode.HUMAN).exists(),
        needs_human_reason=flagged or "",
        pending_replies=OutboundMessage.objects.filter(
            conversation__in=conversations, status__in=priority_rules.WAITING_STATUSES
        ).count(),
        turns=snapshots,
    )
