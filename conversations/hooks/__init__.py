"""Safety hooks: deterministic checks that run outside any model (see README.md).

Pure Python: no Django, no LLM SDK, no other app. The layering contract enforces it.
"""

from conversations.hooks.crisis import (
    CrisisResult,
    carry_crisis,
    combine_crisis,
    crisis_carries,
    crisis_check,
    detect_crisis,
)
from conversations.hooks.gate import GateDecision, apply_gate
from conversations.hooks.handoffs import Handoff, handoff_for
from conversations.hooks.normalize import normalize
from conversations.hooks.pii import Redaction, redact

__all__ = [
    "CrisisResult",
    "GateDecision",
    "Handoff",
    "Redaction",
    "apply_gate",
    "carry_crisis",
    "combine_crisis",
    "crisis_carries",
    "crisis_check",
    "detect_crisis",
    "handoff_for",
    "normalize",
    "redact",
]
