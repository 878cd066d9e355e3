"""Reads for the claim checker: the reviewed texts of entries, as audit's plain EvidenceRecords.

Kept beside `selectors.py` (retrieval's module) because it answers a different question: not "what
matches this query" but "what exactly does this entry say" — the excerpt, both summaries, the caveat
and the key points — for the draft to quote and the audit to check against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from audit.types import EvidenceRecord
from corpus.models import CorpusEntry
from corpus.types import caveat_in


@dataclass(frozen=True)
class EntryText:
    """What an entry says, in both languages, with its caveat and key points."""

    slug: str
    citation: str
    url: str
    assertable: bool
    excerpt: str
    summary_en: str
    summary_es: str
    caveat: str
    key_points: tuple[dict[str, Any], ...]
    caveat_es: str = ""

    def caveat_in(self, language: str) -> str:
        """The caveat a reader of `language` is shown (English when no Spanish one was written)."""
        return caveat_in(language, en=self.caveat, es=self.caveat_es)

    def record(self, language: str) -> EvidenceRecord:
        """The audit's view: the summary in `language` first, then the other summary and the excerpt."""
        first, other = (self.summary_es, self.summary_en) if language == "es" else (self.summary_en, self.summary_es)
        return EvidenceRecord(
            slug=self.slug,
            citation=self.citation,
            url=self.url,
            assertable=self.assertable,
            summary=first,
            excerpt=self.excerpt,
            summaries=(other,),
        )


def entry_texts(*, slugs: Sequence[str]) -> dict[str, EntryText]:
    """The texts of the entries with these slugs (unknown slugs are simply absent)."""
    rows = CorpusEntry.objects.filter(slug__in=list(slugs)).values(
        "slug",
        "citation",
        "source_url",
        "assertable",
        "source_excerpt",
        "summary_en",
        "summary_es",
        "caveat",
        "caveat_es",
        "key_points",
    )
    return {
        row["slug"]: EntryText(
            slug=row["slug"],
            citation=row["citation"],
            url=row["source_url"],
            assertable=bool(row["assertable"]),
            excerpt=row["source_excerpt"],
            summary_en=row["summary_en"],
            summary_es=row["summary_es"],
            caveat=row["caveat"],
            caveat_es=row["caveat_es"],
            key_points=tuple(row["key_points"] or ()),
        )
        for row in rows
    }


def evidence_records(*, slugs: Sequence[str], language: str) -> list[EvidenceRecord]:
    """EvidenceRecords for `audit check-draft`, in the order given (unknown slugs skipped)."""
    texts = entry_texts(slugs=slugs)
    return [texts[slug].record(language) for slug in slugs if slug in texts]
