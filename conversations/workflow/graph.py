"""The workflow graph: every node, what state it may read, and every named transition.

WORKFLOW_VERSION is derived from this table, so any change to the graph changes the version and an
unfinished turn started under the old graph escalates instead of running half under each.
"""

from __future__ import annotations

import hashlib
import json
from typing import Final

START_NODE: Final = "intake"
TERMINAL: Final = "end"

MAX_AUDIT_REVISIONS: Final = 2
MAX_NODE_STEPS: Final = 12
MAX_LLM_CALLS: Final = 6

TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    ("intake", "crisis"): "escalate",
    ("intake", "handoff"): "escalate",  # out of state, legal advice about one's own case, human asked for
    ("intake", "ok"): "retrieve",
    ("retrieve", "ok"): "match",
    ("retrieve", "gated"): "match",  # gated evidence reaches draft as "do not assert"
    ("match", "ok"): "draft",
    ("draft", "ok"): "audit",
    ("audit", "pass"): "send",
    ("audit", "soft_block"): "draft",  # bounded by MAX_AUDIT_REVISIONS
    ("audit", "revisions_exhausted"): "escalate",
    ("audit", "hard_block"): "escalate",
    ("send", "ok"): TERMINAL,
    ("escalate", "ok"): TERMINAL,
}

# Any node may be cut short by a bound (steps, LLM calls, deadline) or a version change.
BREACH_OUTCOMES: Final = ("bound_breach",)

# What each node may read from the turn state: it receives a read-only projection of exactly these.
NODE_READS: Final[dict[str, tuple[str, ...]]] = {
    "intake": (
        "text",
        "place_text",
        "language_pref",
        "language_hint",
        "region_hint",
        "need_hint",
        "assessment",
        "crisis",
    ),
    "retrieve": ("query", "language", "top_need", "assessment"),
    "match": ("top_need", "region", "place", "language", "needs", "place_text"),
    "draft": (
        "query",
        "language",
        "channel",
        "gate",
        "resources",
        "audit",
        "revisions",
        "history",
        "plan",
        "plan_question",
        "top_need",
    ),
    "audit": (
        "draft",
        "statements",
        "evidence",
        "language",
        "channel",
        "top_need",
        "region",
        "gated",
        "out_of_state",
        "legal_advice",
        "revisions",
    ),
    "send": ("draft", "channel", "mode", "audit", "language"),
    "escalate": ("handoff_category", "escalation_reason", "language", "channel", "crisis", "resources", "mode", "plan"),
}

NODES: Final = tuple(NODE_READS)

# What the SMS sender may read of a finished turn to shape its text (names and numbers of the
# places, the cited rules): like a node, it gets a read-only projection of these keys only.
SENDER_READS: Final = ("resources", "evidence")


def next_node(node: str, outcome: str) -> str:
    """Return the node after `node` given its outcome; an undeclared edge is a programming error."""
    if outcome in BREACH_OUTCOMES:
        return "escalate" if node != "escalate" else TERMINAL
    try:
        return TRANSITIONS[(node, outcome)]
    except KeyError:
        raise KeyError(f"undeclared transition {node}.{outcome}") from None


def _version() -> str:
    table = {
        "transitions": sorted(f"{a}.{b}->{c}" for (a, b), c in TRANSITIONS.items()),
        "reads": NODE_READS,
        "bounds": [MAX_AUDIT_REVISIONS, MAX_NODE_STEPS, MAX_LLM_CALLS],
    }
    return hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()[:12]


WORKFLOW_VERSION: Final = _version()
