"""Plain frozen values the corpus hands to other apps (the workflow's retrieve node)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vocab import NEED_CATEGORIES

# The project's need taxonomy (vocab), under the corpus's own name for it.
CATEGORIES: tuple[str, ...] = NEED_CATEGORIES
JURISDICTIONS: tuple[str, ...] = ("TX", "US")
LANGUAGES: tuple[str, ...] = ("en", "es")

# What the draft step must do with gated evidence: cite nothing, hand off to a person.
HANDOFF_INSTRUCTION = "do not assert — hand off"


def caveat_in(language: str, *, en: str, es: str) -> str:
    """The caveat a reader of `language` is shown: the Spanish one for Spanish, else (or when missing) the English."""
    return (es or en) if language == "es" else en


@dataclass(frozen=True)
class EvidenceHit:
    """One corpus entry as evidence; `summary` is in the language that was asked for."""

    slug: str
    citation: str
    title: str
    summary: str
    url: str
    category: str
    jurisdiction: str
    assertable: bool
    caveat: str  # in the language asked for, like `summary`
    score: float
    lexical_rank: int | None
    semantic_rank: int | None


@dataclass(frozen=True)
class RetrievalResult:
    """Ranked evidence plus one confidence; `gated` means nothing here may be asserted to a user."""

    query: str
    language: str
    category: str | None
    hits: tuple[EvidenceHit, ...]
    confidence: float
    gated: bool
    floor: float
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def handoff(self) -> str | None:
        """The instruction the draft step must honour when the gate closed, else None."""
        return HANDOFF_INSTRUCTION if self.gated else None

    @property
    def assertable_hits(self) -> tuple[EvidenceHit, ...]:
        """Hits that may be cited to a user: none when gated, else only reviewed, verified entries."""
        if self.gated:
            return ()
        return tuple(hit for hit in self.hits if hit.assertable)

    def as_json(self) -> dict[str, object]:
        """The stable CLI/JSON shape (`manage.py corpus search --json`)."""
        return {
            "query": self.query,
            "language": self.language,
            "category": self.category,
            "hits": [
                {
                    "slug": hit.slug,
                    "citation": hit.citation,
                    "score": round(hit.score, 6),
                    "lexical_rank": hit.lexical_rank,
                    "semantic_rank": hit.semantic_rank,
                    "assertable": hit.assertable,
                }
                for hit in self.hits
            ],
            "confidence": round(self.confidence, 4),
            "gated": self.gated,
            # The answerability gate's view: its probability that the hits answer the question, and its call.
            "gate": {"probability": round(self.confidence, 4), "decision": "do_not_assert" if self.gated else "assert"},
            "floor": self.floor,
            "handoff": self.handoff,
            "warnings": list(self.warnings),
        }
