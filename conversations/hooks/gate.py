"""The retrieval confidence gate: weak evidence becomes "do not assert — hand off".

The draft node may cite only what this returns, so a gated decision carries no evidence at all:
the model cannot cite what was not found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

__all__ = ["DO_NOT_ASSERT", "USE_EVIDENCE", "GateDecision", "RetrievalLike", "apply_gate"]

DO_NOT_ASSERT: Final = "do not assert — hand off"
USE_EVIDENCE: Final = "answer only from this evidence and cite it"


class RetrievalLike(Protocol):
    """Any retrieval result: corpus' own type satisfies this without hooks importing corpus."""

    @property
    def confidence(self) -> float: ...

    @property
    def gated(self) -> bool: ...

    @property
    def hits(self) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class GateDecision:
    gated: bool
    confidence: float
    floor: float
    evidence: tuple[Any, ...]
    reason: str  # "ok" | "retrieval_gated" | "below_floor" | "no_evidence" | "invalid_confidence" | "no_result"
    instruction: str


def _confidence(result: RetrievalLike) -> float | None:
    raw = getattr(result, "confidence", None)
    if isinstance(raw, bool | str | bytes):  # True is not 100 % and "0.9" is not a score: fail closed
        return None
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _evidence(result: RetrievalLike) -> tuple[Any, ...]:
    hits = getattr(result, "hits", None)
    if isinstance(hits, str | bytes | dict):  # characters or keys are not evidence records
        return ()
    try:
        return tuple(hits or ())
    except TypeError:
        return ()


def apply_gate(result: RetrievalLike | None, floor: float) -> GateDecision:
    """Pass the hits through only when retrieval is confident enough; otherwise hand off.

    A malformed result gates (fail closed); a malformed floor raises, because it is configuration.
    """
    if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0.0 <= floor <= 1.0:
        raise ValueError(f"confidence floor must be a number in [0, 1], got {floor!r}")
    floor = float(floor)
    confidence = _confidence(result) if result is not None else None
    evidence: tuple[Any, ...] = ()
    if result is None:
        reason = "no_result"
    elif confidence is None:
        reason = "invalid_confidence"
    elif getattr(result, "gated", True) is not False:
        reason = "retrieval_gated"  # retrieval already said no (or did not say): never overrule it
    elif confidence < floor:
        reason = "below_floor"
    else:
        evidence = _evidence(result)
        reason = "ok" if evidence else "no_evidence"
    gated = reason != "ok"
    return GateDecision(
        gated=gated,
        confidence=confidence or 0.0,
        floor=floor,
        evidence=() if gated else evidence,
        reason=reason,
        instruction=DO_NOT_ASSERT if gated else USE_EVIDENCE,
    )
