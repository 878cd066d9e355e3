"""Reads of the conversations app: the turn JSON shared by the CLI and the API, token checks."""

from __future__ import annotations

import hmac
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from conversations import crypto
from conversations.errors import BadToken, UnknownConversation, UnknownTurn
from conversations.models import Conversation, OutboundMessage, StaffMessage, Turn

# The last-use stamp is written at most this often: the expiry is counted in days, a write per poll is waste.
TOKEN_TOUCH_EVERY = timedelta(minutes=10)


def token_live(conversation: Conversation) -> bool:
    """Check a web token's idle time and stamp its use; an idle token is revoked here (its hash cleared).

    A write inside a read on purpose: every token use passes here, so the inactivity rule
    (CHAT_TOKEN_DAYS) is enforced server-side on each request, whatever age the cookie claims.
    """
    now = timezone.now()
    last = conversation.token_used_at or conversation.created_at
    if last < now - timedelta(days=settings.CHAT_TOKEN_DAYS):
        Conversation.objects.filter(pk=conversation.pk, token_hash=conversation.token_hash).update(token_hash="")
        conversation.token_hash = ""
        return False
    if conversation.token_used_at is None or now - conversation.token_used_at > TOKEN_TOUCH_EVERY:
        Conversation.objects.filter(pk=conversation.pk).update(token_used_at=now)  # update(): updated_at stays
        conversation.token_used_at = now
    return True


def conversation_get_authorized(*, conversation_id: UUID | str, token: str | None) -> Conversation:
    """Return the conversation if `token` is its live bearer token; unknown ids and wrong tokens never leak which."""
    try:
        conversation = Conversation.objects.select_related("contact").get(pk=conversation_id)
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise UnknownConversation("This conversation does not exist.") from None
    if (
        not token
        or not conversation.token_hash
        or not hmac.compare_digest(conversation.token_hash, crypto.token_hash(token))
        or not token_live(conversation)
    ):
        raise BadToken("This conversation belongs to another session.")
    return conversation


def turn_get_authorized(*, turn_id: UUID | str, token: str | None) -> Turn:
    """Return a turn if `token` opens its conversation."""
    try:
        turn = Turn.objects.select_related("conversation").get(pk=turn_id)
    except (Turn.DoesNotExist, ValueError, TypeError):
        raise UnknownTurn("This message does not exist.") from None
    conversation_get_authorized(conversation_id=turn.conversation_id, token=token)
    return turn


def _citations(state: dict[str, Any], reply: str) -> list[dict[str, str]]:
    """Evidence actually cited in the reply (never anything retrieval did not return)."""
    cited = []
    for item in state.get("evidence") or []:
        if item.get("assertable") and item.get("citation") and item["citation"] in reply:
            cited.append(
                {
                    "id": item["slug"],
                    "citation": item["citation"],
                    "url": item.get("url", ""),
                    "title": item.get("title", ""),
                    # What qualifies the answer (amendments, effective dates, secondary sources): shown with it.
                    "caveat": item.get("caveat", "") or "",
                }
            )
    return cited


def _resources(state: dict[str, Any]) -> list[dict[str, Any]]:
    keys = (
        "id",
        "name",
        "phone",
        "phone_display",
        "region",
        "lat",
        "lon",
        "address",
        "city",
        "hours",
        "languages",
        "url",
        "last_verified_at",
        "distance_km",
        "is_statewide_line",
        "service",
        "alert",
        "documents",
        "attributes",
    )
    return [{key: item.get(key) for key in keys} for item in state.get("resources") or []]


def turn_payload(turn: Turn, *, node_runs: list[Any] | None = None) -> dict[str, Any]:
    """The stable turn JSON of ARCHITECTURE.md."""
    state = turn.state or {}
    runs = (
        node_runs if node_runs is not None else list(turn.node_runs.order_by("step").values("node", "ms", "transition"))
    )
    audit = state.get("audit") or {}
    retrieval = state.get("retrieval") or {}
    finished = turn.is_finished
    show_resources = finished and turn.reply != ""
    return {
        "turn_id": str(turn.pk),
        "conversation_id": str(turn.conversation_id),
        "status": turn.status,
        "language": state.get("language") or turn.language,
        "crisis": turn.crisis,
        "top_need": turn.top_need or state.get("top_need") or None,
        "region": turn.region or state.get("region") or None,
        "redacted_text": turn.redacted_text,
        "reply": turn.reply,
        "citations": _citations(state, turn.reply) if finished else [],
        "resources": _resources(state) if show_resources else [],
        # A day-one release plan (web card; by SMS it goes in parts through the outbox), or the one
        # question the plan still needs answered.
        "plan": state.get("plan") if show_resources else None,
        "plan_question": state.get("plan_question") if finished else None,
        "retrieval": {"confidence": retrieval.get("confidence"), "gated": retrieval.get("gated")}
        if retrieval
        else {"confidence": None, "gated": None},
        "audit": {"verdict": audit.get("verdict"), "revisions": turn.revisions, "findings": audit.get("findings", [])},
        "handoff": state.get("handoff"),
        "nodes": [
            {
                "name": run["node"] if isinstance(run, dict) else run.node,
                "ms": run["ms"] if isinstance(run, dict) else run.ms,
                "transition": run["transition"] if isinstance(run, dict) else run.transition,
            }
            for run in runs
        ],
        "llm": {"calls": turn.llm_calls, "cost_usd": float(turn.cost_usd)},
        "created_at": turn.created_at.isoformat() if turn.created_at else None,
    }


def conversation_timeline(*, conversation: Conversation, staff: QuerySet[StaffMessage] | None = None) -> list[dict]:
    """Person, Pathways and staff messages oldest first: `{author, text, created_at, turn_id[, from_name]}`.

    Pathways' side is what reached the person: the web reply, or on SMS the outbox rows that went out
    (a reply still waiting for approval is not shown as said).
    """
    items: list[tuple[Any, int, dict[str, Any]]] = []
    turns = list(
        Turn.objects.filter(conversation=conversation)
        .order_by("seq")
        .values("id", "redacted_text", "reply", "created_at", "finished_at", "channel", "status")
    )
    for turn in turns:
        items.append(
            (
                turn["created_at"],
                0,
                {
                    "author": "person",
                    "text": turn["redacted_text"],
                    "created_at": turn["created_at"],
                    "turn_id": str(turn["id"]),
                },
            )
        )
        if turn["channel"] == "web" and turn["reply"]:
            at = turn["finished_at"] or turn["created_at"]
            items.append(
                (at, 1, {"author": "pathways", "text": turn["reply"], "created_at": at, "turn_id": str(turn["id"])})
            )
    if conversation.channel == "sms":
        sent = OutboundMessage.objects.filter(
            conversation=conversation,
            status__in=[
                OutboundMessage.Status.SENDING,
                OutboundMessage.Status.SENT,
                OutboundMessage.Status.DELIVERED,
            ],
            staff_message__isnull=True,
        ).values("turn_id", "body", "sent_at", "created_at")
        for row in sent:
            at = row["sent_at"] or row["created_at"]
            turn_id = str(row["turn_id"]) if row["turn_id"] else None
            items.append((at, 1, {"author": "pathways", "text": row["body"], "created_at": at, "turn_id": turn_id}))
    staff_rows = staff if staff is not None else StaffMessage.objects.filter(conversation=conversation)
    for staff_row in staff_rows.values("id", "body", "created_at", "author_first_name"):
        items.append(
            (
                staff_row["created_at"],
                2,
                {
                    "author": "staff",
                    "text": staff_row["body"],
                    "created_at": staff_row["created_at"],
                    "turn_id": None,
                    "from_name": staff_row["author_first_name"],
                    "id": str(staff_row["id"]),
                },
            )
        )
    items.sort(key=lambda item: (item[0], item[1]))
    return [
        {**payload, "created_at": payload["created_at"].isoformat().replace("+00:00", "Z")} for _, _, payload in items
    ]
