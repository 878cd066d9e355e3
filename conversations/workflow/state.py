"""The turn state: every key the ingress, the nodes, the engine and finalize may write, with its type.

Stored as JSON in `Turn.state`, so the values are JSON shapes (dicts, lists, strings); nodes read
it only through their projection (graph.NODE_READS). `total=False`: keys appear as the turn goes.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class CrisisState(TypedDict):
    category: str
    severity: str
    about_third_party: bool
    source: str
    # Whether the crisis carries to a next message that continues it (hooks.crisis_carries); absent on
    # turns stored before it was recorded, which carry.
    carries: NotRequired[bool]


class TurnState(TypedDict, total=False):
    # ingress (services.turn_start)
    text: str  # the standalone question (a follow-up rewritten from recent turns), redacted
    place_text: str  # the person's own redacted words (places and release facts are read from these)
    query: str  # what retrieval searches for
    language_pref: str | None  # an explicit choice from the client
    language_hint: str  # the conversation's language
    region_hint: str | None  # where the person last said they are
    need_hint: str | None  # the conversation's last need
    channel: Literal["web", "sms"]
    crisis: CrisisState
    crisis_opinion: dict[str, Any]  # the second opinion's trace, when one ran
    assessment: dict[str, Any]  # the message model's summary
    mode: str  # the conversation's mode when the turn started (navigator or human)
    revisions: int
    fingerprint: str  # hash of the redacted text, for idempotent retries
    history: list[dict[str, str]]  # earlier turns, redacted and bounded, for the model draft
    # intake
    language: str
    top_need: str
    supervision: str
    needs: list[str]
    region: str | None
    place: dict[str, Any] | None
    out_of_state: str | None
    legal_advice: bool
    outcome_promise: bool
    prompt_injection: bool
    intake_source: str
    handoff_category: str
    # retrieve
    evidence: list[dict[str, Any]]
    gated: bool
    gate: dict[str, Any]
    retrieval: dict[str, Any]
    retrieved_slugs: list[str]
    # match
    resources: list[dict[str, Any]]
    plan: dict[str, Any]
    plan_question: str
    # draft
    draft: str
    statements: list[dict[str, str]]
    draft_source: str
    # audit
    audit: dict[str, Any]
    escalation_reason: str  # also written by the engine on a bound breach
    # send / escalate
    reply: str
    delivery: Literal["reply", "handoff", "crisis"]
    delivery_plan: dict[str, Any]  # workflow.delivery.DeliveryPlan.as_json()
    handoff: dict[str, Any]
    # engine
    llm_errors: list[str]
    # finalize
    suggestion: str  # the navigator's reply offered to the case manager in human mode
    undeliverable: str  # why the SMS could not go out (e.g. no_phone)


TURN_STATE_KEYS: frozenset[str] = frozenset(TurnState.__annotations__)
