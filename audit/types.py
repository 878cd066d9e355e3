"""Plain data passed into and out of the compliance rules (no Django, no other app)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final


class Verdict(StrEnum):
    """An audit verdict; ordered by severity so `max()` of several verdicts is the tightest."""

    PASS = "pass"  # noqa: S105 - a verdict name, not a password
    SOFT_BLOCK = "soft_block"
    HARD_BLOCK = "hard_block"

    @property
    def rank(self) -> int:
        return _RANK[self]

    # str's own ordering is alphabetical ("hard_block" < "pass"), so severity is spelled out here.
    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank >= other.rank


_RANK: Final = {Verdict.PASS: 0, Verdict.SOFT_BLOCK: 1, Verdict.HARD_BLOCK: 2}


class Rule(StrEnum):
    """Names of the compliance rules; the LLM auditor may only report findings under these names."""

    FABRICATED_CITATION = "fabricated_citation"
    UNCITED_CLAIM = "uncited_claim"
    GATED_CLAIM = "gated_claim"
    OUT_OF_STATE = "out_of_state"
    OUTCOME_PROMISE = "outcome_promise"
    LEGAL_ADVICE = "legal_advice"
    MORALIZING = "moralizing"
    FALSE_REASSURANCE = "false_reassurance"
    READABILITY = "readability"
    TOO_LONG = "too_long"
    PII_PLACEHOLDER = "pii_placeholder"
    PROMPT_LEAK = "prompt_leak"
    UNSUPPORTED_CLAIM = "unsupported_claim"
    CONTRADICTED_CLAIM = "contradicted_claim"


@dataclass(frozen=True)
class Finding:
    """One rule violation: which rule, how severe, why, and the offending span of the draft."""

    rule: str
    verdict: Verdict
    message: str
    span: str = ""
    entry: str = ""  # the evidence slug a claim finding is about ("" for draft-wide rules)


@dataclass(frozen=True)
class EvidenceRecord:
    """A piece of evidence retrieval returned for this turn; only `assertable` ones may be cited.

    `summary` is the summary in the turn's language; `excerpt` the verbatim source quote and
    `summaries` the other reviewed summaries: the claim checker looks for a claim's support in these.
    """

    slug: str
    citation: str
    url: str
    assertable: bool
    summary: str = ""
    excerpt: str = ""
    summaries: tuple[str, ...] = ()
    caveat: str = ""  # reviewed qualification shown with the answer ("Note: …"); never a claim's support


@dataclass(frozen=True)
class AuditContext:
    """The turn facts the rules need (never the raw user message)."""

    language: str
    channel: str
    top_need: str
    region: str | None
    gated: bool
    out_of_state: str | None
    legal_advice_requested: bool
    max_chars: int


@dataclass(frozen=True)
class AuditResult:
    """The verdict (the tightest of the findings') and every finding behind it."""

    verdict: Verdict
    findings: tuple[Finding, ...] = field(default=())

    @property
    def rules(self) -> frozenset[str]:
        """Names of the rules that produced a finding (content-free: safe to log)."""
        return frozenset(f.rule for f in self.findings)
