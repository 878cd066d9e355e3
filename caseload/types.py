"""Plain frozen data passed out of caseload's selectors (and into the summarizer)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime


@dataclass(frozen=True)
class PriorityDriver:
    """One reason a client needs attention, with the points it adds."""

    code: str
    label: str
    points: int


@dataclass(frozen=True)
class Priority:
    """A client's "who needs me now" score and the drivers that sum to it."""

    score: int
    drivers: tuple[PriorityDriver, ...]

    def explain(self) -> str:
        return "; ".join(f"{driver.label} (+{driver.points})" for driver in self.drivers) or "nothing pending"


@dataclass(frozen=True)
class TurnSnapshot:
    """What the summarizer may know about one turn: redacted text and workflow facts only."""

    at: datetime
    channel: str
    redacted_text: str
    status: str
    crisis: str
    top_need: str
    region: str
    reply_sent: bool


@dataclass(frozen=True)
class ClientSnapshot:
    """A read-only projection of one client for the summarizer: no name, no notes, no ids to write with."""

    status: str
    supervision_type: str
    release_date: date | None
    days_since_release: int | None
    mode_human: bool
    needs_human_reason: str
    pending_replies: int
    turns: tuple[TurnSnapshot, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ClientSummary:
    """The summarizer's result: a few bullets and where they came from."""

    bullets: tuple[str, ...]
    source: str  # "deterministic" or "llm"
    needs: tuple[str, ...] = ()
