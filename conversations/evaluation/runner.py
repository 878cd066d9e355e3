"""Run pinned traces through the real workflow and observe what it did (no judging here).

Each trace runs in its own transaction that is rolled back at the end: the evaluation leaves no
conversations, turns, outbox rows or audit events behind, and nothing it queues (SMS, pushes)
ever leaves, because those only go out on commit. One transaction per trace, not per run, keeps
the audit chain's append lock (held to the end of a transaction) for seconds, not minutes.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.conf import settings
from django.db import transaction

from audit.models import AuditEvent
from conversations import selectors, services
from conversations.evaluation.traces import Trace, TurnExpect
from conversations.models import Conversation, NodeRun, OutboundMessage, Turn
from corpus.selectors import corpus_entry_get

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Observation:
    """Everything the workflow produced for one turn that the metrics judge."""

    trace_id: str
    suite: str
    turn_index: int
    channel: str
    expect: TurnExpect
    payload: dict[str, Any]
    retrieved_slugs: tuple[str, ...] = ()
    evidence_citations: tuple[str, ...] = ()  # citation texts of the evidence the draft was allowed to use
    assertable: dict[str, bool] = field(default_factory=dict)  # cited slug -> assertable in the corpus now
    pii_leaked: tuple[int, ...] = ()  # indexes into expect.pii of strings found in stored data
    latency_ms: float = 0.0
    error: str = ""


def mode_name() -> str:
    """'llm' when a model key is configured (every LLM node may call it), else 'demo'."""
    return "llm" if settings.ANTHROPIC_API_KEY else "demo"


def warm_up() -> None:
    """Load the embedding model before any turn's clock starts, as `manage.py ask` does."""
    from corpus.embeddings import get_model  # noqa: PLC0415 - loads the embedding model's code only when warming up

    get_model()


def run_traces(traces: list[Trace], *, progress: Callable[[Trace], None] | None = None) -> list[Observation]:
    """Run every trace (turns in order, one conversation each) and return one Observation per turn."""
    warm_up()
    observations: list[Observation] = []
    for trace in traces:
        observations.extend(_run_trace(trace))
        if progress is not None:
            progress(trace)
    return observations


def _run_trace(trace: Trace) -> list[Observation]:
    observations: list[Observation] = []
    with transaction.atomic():
        conversation, _ = services.conversation_create(channel=trace.channel, language=trace.ui_language)
        for index, item in enumerate(trace.turns):
            # Fresh from the database each turn, as the API and SMS webhook load it: the previous
            # turn may have changed its language or mode.
            conversation = Conversation.objects.get(pk=conversation.pk)
            observations.append(_run_turn(trace, index, item.text, item.expect, conversation))
        # Nothing the evaluation did is kept (see the module docstring).
        transaction.set_rollback(True)
    return observations


class _TurnKey(TypedDict):
    """The fields every Observation of a turn starts from, failed or not."""

    trace_id: str
    suite: str
    turn_index: int
    channel: str
    expect: TurnExpect


def _run_turn(trace: Trace, index: int, text: str, expect: TurnExpect, conversation: Any) -> Observation:
    base: _TurnKey = {
        "trace_id": trace.id,
        "suite": trace.suite,
        "turn_index": index,
        "channel": trace.channel,
        "expect": expect,
    }
    started = time.perf_counter()
    try:
        # A savepoint per turn: a failing turn is rolled back alone and the next turn still runs.
        with transaction.atomic():
            turn, _ = services.turn_start(
                conversation=conversation,
                text=text,
                idempotency_key=f"eval-{trace.id}-{index}",
                language=trace.ui_language,
                channel=trace.channel,
            )
            turn = services.turn_run(turn_id=turn.pk)
            latency = (time.perf_counter() - started) * 1000
            payload = selectors.turn_payload(turn)
            state = turn.state or {}
            cited = [item["id"] for item in payload["citations"]]
            assertable = {}
            for slug in cited:
                hit = corpus_entry_get(slug=slug)
                assertable[slug] = bool(hit is not None and hit.assertable)
            leaked = pii_leaks(_stored_text(turn), expect.pii)
    except Exception as exc:  # noqa: BLE001 - one broken turn is a failed case, not a failed run
        logger.warning("evaluation turn %s#%s failed: %s", trace.id, index, type(exc).__name__)
        return Observation(
            **base, payload={}, latency_ms=(time.perf_counter() - started) * 1000, error=type(exc).__name__
        )
    return Observation(
        **base,
        payload=payload,
        retrieved_slugs=tuple(state.get("retrieved_slugs") or ()),
        evidence_citations=tuple(str(item.get("citation") or "") for item in state.get("evidence") or []),
        assertable=assertable,
        pii_leaked=tuple(leaked),
        latency_ms=round(latency, 2),
    )


def _stored_text(turn: Turn) -> str:
    """Every stored trace of the turn as one string: row, state, node runs, outbox and audit events."""
    runs = list(NodeRun.objects.filter(turn=turn).values("projection", "output", "outcome", "transition"))
    outbox = list(
        OutboundMessage.objects.filter(turn=turn).values("body", "draft_body", "remainder", "rejection_reason")
    )
    object_ids = [
        str(turn.pk),
        str(turn.conversation_id),
        *(str(pk) for pk in OutboundMessage.objects.filter(turn=turn).values_list("pk", flat=True)),
    ]
    events = list(AuditEvent.objects.filter(object_id__in=object_ids).values("action", "data"))
    record = {
        "turn": {
            "redacted_text": turn.redacted_text,
            "standalone_text": turn.standalone_text,
            "reply": turn.reply,
            "error": turn.error,
            "escalation_reason": turn.escalation_reason,
            "state": turn.state,
        },
        "payload": selectors.turn_payload(turn),
        "node_runs": runs,
        "outbox": outbox,
        "audit_events": events,
    }
    return json.dumps(record, ensure_ascii=False, default=str)


_SEPARATORS = r"[\s\-./()]*"


def pii_leaks(haystack: str, secrets: tuple[str, ...] | list[str]) -> list[int]:
    """Indexes of `secrets` found in `haystack` (case-insensitive; long numbers also with other separators)."""
    folded = haystack.casefold()
    found = []
    for index, secret in enumerate(secrets):
        if secret.casefold() in folded:
            found.append(index)
            continue
        digits = re.sub(r"\D", "", secret)
        if len(digits) >= 7:
            # "412-55-7890" also leaks as "412557890" or "412 55 7890".
            pattern = r"(?<!\d)" + _SEPARATORS.join(re.escape(digit) for digit in digits) + r"(?!\d)"
            if re.search(pattern, haystack):
                found.append(index)
    return found
