"""The confidence gate: weak or missing evidence becomes "do not assert — hand off"."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from conversations.hooks import GateDecision, apply_gate
from conversations.hooks.gate import DO_NOT_ASSERT


@dataclasses.dataclass(frozen=True)
class Retrieval:
    confidence: float
    gated: bool
    hits: Sequence[Any]


HITS = ("tx-elec-11-002", "tx-gov-411-0855")


def test_confident_retrieval_passes_its_hits_as_evidence() -> None:
    decision = apply_gate(Retrieval(0.81, False, list(HITS)), 0.5)
    assert decision == GateDecision(False, 0.81, 0.5, HITS, "ok", decision.instruction)
    assert decision.instruction != DO_NOT_ASSERT


def test_confidence_exactly_at_the_floor_passes() -> None:
    assert not apply_gate(Retrieval(0.5, False, HITS), 0.5).gated


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (Retrieval(0.49, False, HITS), "below_floor"),
        (Retrieval(0.95, True, HITS), "retrieval_gated"),
        (Retrieval(0.95, False, []), "no_evidence"),
        (Retrieval(float("nan"), False, HITS), "invalid_confidence"),
        (SimpleNamespace(confidence="high", gated=False, hits=HITS), "invalid_confidence"),
        (SimpleNamespace(confidence=0.9, hits=HITS), "retrieval_gated"),  # did not say: fail closed
        (None, "no_result"),
    ],
)
def test_weak_or_malformed_retrieval_is_gated_with_no_evidence(result: object, reason: str) -> None:
    decision = apply_gate(result, 0.5)  # type: ignore[arg-type]
    assert decision.gated
    assert decision.evidence == ()
    assert decision.instruction == DO_NOT_ASSERT == "do not assert — hand off"
    assert decision.reason == reason


@pytest.mark.parametrize("floor", [-0.1, 1.5, float("nan"), "0.5", True])
def test_a_misconfigured_floor_fails_loudly(floor: object) -> None:
    with pytest.raises(ValueError, match="floor"):
        apply_gate(Retrieval(0.9, False, HITS), floor)  # type: ignore[arg-type]


def test_the_decision_is_immutable() -> None:
    decision = apply_gate(Retrieval(0.9, False, HITS), 0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.gated = True  # type: ignore[misc]
