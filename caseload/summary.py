"""Caseload summary per client: read-only by construction.

The summarizer is a function of a frozen ClientSnapshot (plain data: no model instances, no ids, no
managers) and returns plain data. It is handed no sender and no writer; the only thing it may call
is the LLM client, which itself writes nothing. A test runs it inside a READ ONLY transaction.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime
from pathlib import Path

from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field

from caseload import priority as priority_rules
from caseload.selectors import client_snapshot
from caseload.types import ClientSnapshot, ClientSummary
from conversations import llm

logger = logging.getLogger(__name__)

PROMPT = (Path(__file__).parent / "prompts" / "summary_v1.md").read_text()
MAX_BULLETS = 5
QUOTE_CHARS = 140


class SummaryOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bullets: list[str] = Field(min_length=1, max_length=MAX_BULLETS)


def _supervision_label(value: str) -> str:
    return {
        "mandatory_supervision": "mandatory supervision",
        "none": "no supervision",
        "unknown": "supervision unknown",
    }.get(value, value)


def summarize_deterministic(snapshot: ClientSnapshot) -> ClientSummary:
    """A template summary from the snapshot's facts (demo mode, and the fallback when the model fails)."""
    bullets: list[str] = []
    if snapshot.days_since_release is not None:
        bullets.append(
            f"Released {snapshot.days_since_release} days ago; {_supervision_label(snapshot.supervision_type)}."
        )
    else:
        bullets.append(f"Release date not recorded; {_supervision_label(snapshot.supervision_type)}.")
    crises = [turn for turn in snapshot.turns if turn.crisis != "none"]
    if crises:
        last = crises[-1]
        bullets.append(
            f"Crisis flagged ({last.crisis.replace('_', ' ')}) on {last.at:%b %d}; the crisis line was sent at once."
        )
    if snapshot.needs_human_reason == "asked_for_human":
        bullets.append("Asked to talk to a person.")
    missed = [turn for turn in snapshot.turns if _mentions_missed_appointment(turn.redacted_text)]
    if missed:
        bullets.append(f"Mentioned a missed appointment on {missed[-1].at:%b %d}.")
    needs = Counter(turn.top_need for turn in snapshot.turns if turn.top_need and turn.top_need != "other")
    if needs:
        bullets.append(
            "Asked about "
            + ", ".join(f"{need.replace('_', ' ')} ({count})" for need, count in needs.most_common(3))
            + "."
        )
    waiting = _waiting_on_you(snapshot)
    if waiting:
        bullets.append("Waiting on you: " + "; ".join(waiting) + ".")
    if snapshot.turns and len(bullets) < MAX_BULLETS:
        bullets.append(_last_message(snapshot))
    if not snapshot.turns:
        bullets.append("No messages yet.")
    return ClientSummary(
        bullets=tuple(bullets[:MAX_BULLETS]),
        source="deterministic",
        needs=tuple(need for need, _ in needs.most_common(3)),
    )


def _waiting_on_you(snapshot: ClientSnapshot) -> list[str]:
    waiting = []
    if snapshot.pending_replies:
        waiting.append(f"{snapshot.pending_replies} repl{'y' if snapshot.pending_replies == 1 else 'ies'} to approve")
    unanswered = sum(1 for turn in snapshot.turns if not turn.reply_sent)
    if unanswered:
        waiting.append(f"{unanswered} message{'' if unanswered == 1 else 's'} without a reply")
    if snapshot.mode_human:
        waiting.append("you have taken this conversation over")
    return waiting


def _last_message(snapshot: ClientSnapshot) -> str:
    last_turn = snapshot.turns[-1]
    quote = last_turn.redacted_text.strip().replace("\n", " ")
    if len(quote) > QUOTE_CHARS:
        quote = quote[: QUOTE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return f"Last message ({last_turn.channel}, {last_turn.at:%b %d}): “{quote}”"


def _mentions_missed_appointment(text: str) -> bool:
    import re

    return re.search(priority_rules.MISSED_APPOINTMENT_PATTERN, text, flags=re.IGNORECASE) is not None


def _facts_text(snapshot: ClientSnapshot) -> str:
    lines = [
        f"status: {snapshot.status}",
        f"supervision: {_supervision_label(snapshot.supervision_type)}",
        f"days since release: {snapshot.days_since_release if snapshot.days_since_release is not None else 'unknown'}",
        f"human mode: {'yes' if snapshot.mode_human else 'no'}",
        f"flag: {snapshot.needs_human_reason or 'none'}",
        f"replies waiting for approval: {snapshot.pending_replies}",
        "messages (oldest first):",
    ]
    lines.extend(
        f"- {turn.at:%Y-%m-%d} {turn.channel} need={turn.top_need or '?'} crisis={turn.crisis} "
        f"reply_sent={'yes' if turn.reply_sent else 'no'}: {turn.redacted_text[:400]}"
        for turn in snapshot.turns
    )
    return "\n".join(lines)


def summarize(snapshot: ClientSnapshot) -> ClientSummary:
    """Summarize a snapshot: Claude when a key is configured, the template otherwise or on any failure."""
    if not isinstance(snapshot, ClientSnapshot):
        raise TypeError("the summarizer only accepts a ClientSnapshot")
    fallback = summarize_deterministic(snapshot)
    if not llm.enabled() or not snapshot.turns:
        return fallback
    try:
        result = llm.structured_call(
            model=settings.ANTHROPIC_MODEL_FAST,
            system=PROMPT,
            messages=[{"role": "user", "content": _facts_text(snapshot)}],
            tool_name="write_summary",
            tool_description="Return the case manager's summary bullets.",
            schema=SummaryOutput,
            max_tokens=400,
        )
    except llm.LLMError as exc:
        logger.warning("caseload summary fell back to the template: %s", exc.kind)
        return fallback
    bullets = tuple(bullet.strip()[:300] for bullet in result.value.bullets if bullet.strip())
    return ClientSummary(
        bullets=bullets or fallback.bullets, source="llm" if bullets else "deterministic", needs=fallback.needs
    )


def client_summary(*, client: object, now: datetime | None = None) -> ClientSummary:
    """Build the client's read-only snapshot and summarize it."""
    return summarize(client_snapshot(client=client, now=now))  # type: ignore[arg-type]
