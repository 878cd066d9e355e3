"""Writes of the conversations app: conversations, contacts, turns (ingress hooks, idempotency, running, finalizing)."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any, Literal, Protocol, cast
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from audit.services import audit_event_record
from conversations import crypto, llm
from conversations.crisis_opinion import crisis_opinion_start, crisis_with_opinion
from conversations.errors import EmptyMessage, IdempotencyConflict, MessageTooLong
from conversations.hooks import CrisisResult, carry_crisis, crisis_carries, crisis_check, message_model, redact
from conversations.models import Contact, Conversation, OutboundMessage, Turn
from conversations.workflow import engine
from conversations.workflow.delivery import DeliveryPlan, Outbound, delivery_plan
from conversations.workflow.graph import START_NODE, WORKFLOW_VERSION
from conversations.workflow.intake_rules import is_follow_up
from conversations.workflow.state import CrisisState, TurnState
from conversations.workflow.understanding import continues_previous
from corpus import embeddings
from vocab import NO_CRISIS

logger = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 2000
FOLLOW_UP_CONTEXT_TURNS = 3
# What the model draft sees of the conversation so far: the last few turns, each side cut short, and
# a total budget, so a long conversation never crowds the evidence out of the prompt.
HISTORY_TURNS = 3
HISTORY_MESSAGE_CHARS = 300
HISTORY_REPLY_CHARS = 400
HISTORY_MAX_CHARS = 1500


def conversation_create(
    *, channel: str = "web", language: str | None = None, contact: Contact | None = None
) -> tuple[Conversation, str]:
    """Create a conversation and return it with its bearer token (only the token's hash is stored)."""
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        if contact is None:
            contact = Contact.objects.create(channel=channel, language=language or "en")
        conversation = Conversation.objects.create(
            contact=contact, channel=channel, language=language or contact.language, token_hash=crypto.token_hash(token)
        )
        audit_event_record(
            action="conversation.created",
            actor="system",
            object_type="conversation",
            object_id=conversation.pk,
            data={"channel": channel},
        )
    return conversation, token


def contact_for_phone(*, phone: str, language: str = "en") -> tuple[Contact, bool]:
    """Find or create the SMS contact for a number (looked up by HMAC, stored encrypted)."""
    e164 = crypto.normalize_phone(phone)
    digest = crypto.phone_hash(e164)
    contact = Contact.objects.filter(phone_hash=digest).first()
    if contact:
        return contact, False
    try:
        with transaction.atomic():
            contact = Contact.objects.create(
                channel="sms",
                phone_encrypted=crypto.encrypt(e164),
                phone_hash=digest,
                phone_last4=crypto.phone_last4(e164),
                language=language,
            )
            return contact, True
    except IntegrityError:
        return Contact.objects.get(phone_hash=digest), False


def _text_fingerprint(redacted: str) -> str:
    return hashlib.sha256(redacted.encode()).hexdigest()


def _crisis_record(crisis: CrisisResult) -> CrisisState:
    """The turn state's record of the crisis decision (a carried one reads source "context")."""
    return {
        "category": crisis.category,
        "severity": crisis.severity,
        "about_third_party": crisis.about_third_party,
        "source": crisis.source if crisis.is_crisis else "none",
    }


def turn_start(
    *,
    conversation: Conversation,
    text: str,
    idempotency_key: str,
    language: str | None = None,
    channel: str | None = None,
) -> tuple[Turn, bool]:
    """Run the ingress hooks and record a new turn; a repeated key returns the existing turn.

    The raw text is used only here, in memory: crisis is checked on it, then only the redacted
    text is stored. Returns (turn, created).
    """
    if text is None or not str(text).strip():
        raise EmptyMessage("Please type a message.")
    if len(text) > MAX_MESSAGE_CHARS:
        raise MessageTooLong(f"Messages are limited to {MAX_MESSAGE_CHARS} characters. Please send a shorter message.")
    if not idempotency_key or len(idempotency_key) > 100:
        raise IdempotencyConflict("A message id of 1 to 100 characters is required.", code="bad_idempotency_key")
    redacted = redact(text).text
    # With a key, Haiku's crisis second opinion of the redacted text runs while the rest of ingress
    # does, and is collected (time-boxed) before the crisis is decided.
    pending_opinion = crisis_opinion_start(redacted)
    # The trained model reads only the redacted text; the rules read the raw text in memory. The
    # query embedding computed here is the one retrieval reuses (corpus.embeddings caches it).
    assessment = message_model.assess(redacted, _embedding(redacted))
    crisis = crisis_check(text, assessment)
    channel = channel or conversation.channel
    standalone = _standalone(conversation, redacted)
    opinion, opinion_trace = pending_opinion.collect()
    crisis = crisis_with_opinion(crisis, opinion)
    # On a later turn of a conversation that was no crisis so far the model's stricter later-turn thresholds
    # apply (the rules and the second opinion are the same); which one counts is known once the turn is locked.
    crisis_later = crisis_with_opinion(crisis_check(text, assessment.later_turn()), opinion)
    state: TurnState = {
        "text": standalone,
        "place_text": redacted,
        "query": standalone,
        "language_pref": language,
        "language_hint": conversation.language,
        "region_hint": None,
        "channel": cast('Literal["web", "sms"]', channel),  # Conversation.channel's choices are these two
        "crisis": _crisis_record(crisis),
        "assessment": assessment.summary(),
        **({"crisis_opinion": opinion_trace} if opinion_trace else {}),
        "need_hint": None,
        "mode": conversation.mode,
        "revisions": 0,
        "fingerprint": _text_fingerprint(redacted),
    }
    try:
        with transaction.atomic():
            # One statement: lock the conversation (serialising its turns' positions), read the last
            # position and where the person last said they are (that stays true for the next
            # question unless they name another place).
            turns = Turn.objects.filter(conversation=OuterRef("pk"))
            last_seq, state["region_hint"], state["need_hint"], previous_crisis, previous_carries = (
                Conversation.objects.select_for_update()
                .filter(pk=conversation.pk)
                .values_list(
                    Subquery(turns.order_by("-seq").values("seq")[:1]),
                    Subquery(turns.exclude(region="").order_by("-seq").values("region")[:1]),
                    Subquery(turns.exclude(top_need="").order_by("-seq").values("top_need")[:1]),
                    Subquery(turns.order_by("-seq").values("crisis")[:1]),
                    Subquery(turns.order_by("-seq").values("state__crisis__carries")[:1]),
                )
                .get()
            )
            seq = (last_seq or 0) + 1
            if last_seq and previous_crisis == NO_CRISIS and crisis_later != crisis:
                crisis = crisis_later
                state["crisis"] = _crisis_record(crisis)
            if llm.enabled() and last_seq:
                state["history"] = _history(conversation)
            # An ongoing crisis stays one while the next message only continues it.
            # A turn stored before `carries` was recorded (None) carries, as every crisis then did.
            carried = carry_crisis(
                crisis,
                previous_crisis if previous_carries is not False else None,
                continues=continues_previous(redacted),
            )
            if carried is not crisis:
                crisis = carried
                state["crisis"] = _crisis_record(crisis)
            state["crisis"]["carries"] = crisis_carries(
                crisis, assessment.crisis_probability, assessment.carry_threshold
            )
            turn = Turn.objects.create(
                conversation=conversation,
                seq=seq,
                idempotency_key=idempotency_key,
                channel=channel,
                redacted_text=redacted,
                standalone_text=standalone if standalone != redacted else "",
                current_node=START_NODE,
                workflow_version=WORKFLOW_VERSION,
                state=state,
                crisis=crisis.category,
                # The second opinion is one of the turn's LLM calls: it counts towards MAX_LLM_CALLS.
                llm_calls=1 if opinion_trace else 0,
                cost_usd=Decimal(str((opinion_trace or {}).get("cost_usd", 0))),
                started_at=timezone.now(),
            )
    except IntegrityError:
        # The key was used before (a retry), or a concurrent request with it won the insert.
        existing = Turn.objects.get(conversation=conversation, idempotency_key=idempotency_key)
        return _same_or_conflict(existing, redacted), False
    return turn, True


def _history(conversation: Conversation) -> list[dict[str, str]]:
    """The last turns as redacted text only (oldest first), bounded per message and in total, for the model draft."""
    rows = conversation.turns.order_by("-seq").values_list("redacted_text", "reply")[:HISTORY_TURNS]
    history: list[dict[str, str]] = []
    budget = HISTORY_MAX_CHARS
    for person, reply in rows:  # newest first: when the budget runs out, the oldest turns are the ones left out
        # The person's text was redacted at its own ingress; the reply is redacted too, since it may
        # repeat what the person wrote (a model draft, a staff edit).
        item = {
            "person": _clip(person, HISTORY_MESSAGE_CHARS),
            "reply": _clip(redact(reply or "").text, HISTORY_REPLY_CHARS),
        }
        size = len(item["person"]) + len(item["reply"])
        if size > budget:
            break
        budget -= size
        history.append(item)
    return history[::-1]


def _clip(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _embedding(redacted: str) -> list[float] | None:
    """The message's query embedding, or None when the encoder cannot run (the rules still decide)."""
    if not redacted.strip():
        return None
    try:
        return embeddings.embed_one(redacted)
    except Exception:
        logger.exception("query embedding failed at ingress; the message model runs on text features alone")
        return None


def _same_or_conflict(existing: Turn, redacted: str) -> Turn:
    if existing.state.get("fingerprint") != _text_fingerprint(redacted):
        raise IdempotencyConflict("This message id was already used for a different message.")
    return existing


def _standalone(conversation: Conversation, redacted: str) -> str:
    """Rewrite a follow-up ('what about Dallas?') into a standalone question from recent redacted turns."""
    if not is_follow_up(redacted):
        return redacted
    previous = list(
        conversation.turns.order_by("-seq").values_list("standalone_text", "redacted_text")[:FOLLOW_UP_CONTEXT_TURNS]
    )
    if not previous:
        return redacted
    base = previous[0][0] or previous[0][1]
    return f"{base} {redacted}".strip()


def turn_run(*, turn_id: UUID | str, retry_failed: bool = True) -> Turn:
    """Run (or resume) a turn to the end and deliver its reply."""
    return engine.turn_advance_to_end(turn_id, finalize=turn_finalize, retry_failed=retry_failed)


class OutboundWriter(Protocol):
    """Puts a turn's planned message in a channel's outbox (the SMS channel registers one)."""

    def __call__(self, *, conversation: Conversation, turn: Turn, outbound: Outbound) -> OutboundMessage: ...


_outbound_writers: dict[str, OutboundWriter] = {}


def outbound_writer_register(channel: str, writer: OutboundWriter) -> None:
    """Install the outbox of a channel above this layer (conversations.apps wires the SMS one at start-up)."""
    _outbound_writers[channel] = writer


_turn_finished_listeners: list[Callable[[UUID, str], None]] = []


def turn_finished_listener_register(listener: Callable[[UUID, str], None]) -> None:
    """Be told (conversation id, reason) after each finished turn: the staff inbox refreshes live."""
    if listener not in _turn_finished_listeners:
        _turn_finished_listeners.append(listener)


def turn_finalize(turn: Turn) -> None:
    """Apply the delivery plan of a finished turn inside the engine's final checkpoint transaction.

    The plan (status, reply or human-mode suggestion, the outbox row, the case-manager flag) was made
    by the workflow's last node (workflow/delivery.py); this writes it: the turn, the conversation's
    flag and language, the outbox row, the audit event.
    """
    state = cast(TurnState, turn.state)
    conversation = Conversation.objects.select_for_update().get(pk=turn.conversation_id)
    plan = DeliveryPlan.from_json(state["delivery_plan"])
    if plan.mode != conversation.mode:
        # A case manager took over (or handed back) while the turn ran: the mode is the one input of
        # the plan that can change under a running turn, so the plan is made again with the current one.
        plan = delivery_plan(
            reply=str(state.get("reply") or ""),
            delivery=state.get("delivery", "reply"),
            handoff_category=state.get("handoff_category"),
            channel=turn.channel,
            mode=conversation.mode,
            require_approval=bool(settings.SMS_REQUIRE_APPROVAL),
        )
        state["delivery_plan"] = plan.as_json()
    turn.language = state.get("language") or turn.language
    turn.top_need = state.get("top_need") or ""
    turn.region = state.get("region") or ""
    turn.audit_verdict = (state.get("audit") or {}).get("verdict", "")
    turn.escalation_reason = state.get("escalation_reason") or (state.get("handoff") or {}).get("category", "")
    turn.finished_at = timezone.now()
    turn.total_ms = round((turn.finished_at - turn.started_at).total_seconds() * 1000, 2)
    if plan.needs_human_reason:
        conversation.needs_human = True
        conversation.needs_human_reason = plan.needs_human_reason
    status: str = plan.status  # or Turn.Status.WAITING_APPROVAL below
    if plan.suggestion is not None:
        state["suggestion"] = plan.suggestion
    if plan.outbound is not None:
        message = _outbound_writers[turn.channel](conversation=conversation, turn=turn, outbound=plan.outbound)
        if plan.awaits_approval and message.status == OutboundMessage.Status.PENDING_APPROVAL:
            status = Turn.Status.WAITING_APPROVAL
        if message.error_code:
            state["undeliverable"] = message.error_code  # the turn completes; the trace says nothing went out
    turn.reply = plan.reply
    turn.status = status
    turn.state = state
    if turn.language in ("en", "es") and conversation.language != turn.language:
        conversation.language = turn.language
    conversation.save(update_fields=["needs_human", "needs_human_reason", "language", "updated_at"])
    for listener in _turn_finished_listeners:  # the staff inbox (conversations.staff), registered in apps
        listener(conversation.pk, "turn_finished")
    audit_event_record(
        action="turn.escalated" if plan.escalated else "turn.finished",
        actor="system",
        object_type="turn",
        object_id=turn.pk,
        data={
            "status": status,
            "crisis": turn.crisis,
            "top_need": turn.top_need,
            "verdict": turn.audit_verdict,
            "reason": turn.escalation_reason,
        },
    )


def turns_resume(*, older_than: Any = None, now: Any = None, turn_ids: list[str] | None = None) -> int:
    """Resume unfinished turns from their last checkpoint; busy conversations are left to their runner."""
    now = now or timezone.now()
    query = Turn.objects.filter(status=Turn.Status.RUNNING)
    if turn_ids:
        query = query.filter(pk__in=turn_ids)
    elif older_than is not None:
        query = query.filter(started_at__lte=now - (older_than or timedelta(0)))
    resumed = 0
    for turn in query.order_by("created_at").only("pk", "conversation_id"):
        with engine.conversation_lock(turn.conversation_id, wait=False) as acquired:
            if not acquired:
                continue
        turn_run(turn_id=turn.pk)
        resumed += 1
    return resumed
