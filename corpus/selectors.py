"""Reads of the corpus for other apps: search with the confidence gate, and one entry by slug."""

from __future__ import annotations

from corpus import wiring
from corpus.embeddings import embed_one
from corpus.models import CorpusEntry
from corpus.retrieval import clean_query, query_for_index, search, validate_options
from corpus.types import EvidenceHit, RetrievalResult, caveat_in


def corpus_search(
    *,
    query: str,
    language: str = "en",
    category: str | None = None,
    k: int = 5,
    widen_if_gated: bool = False,
    own_case: float | None = None,
) -> RetrievalResult:
    """Return ranked evidence for a question, its confidence and whether the gate closed.

    With `widen_if_gated`, a category search whose gate closes is retried over every category
    (a question can be answered by a rule filed under a neighbouring one), reusing the question's
    embedding. Raises corpus.errors.QueryError (http_status 400) for an empty query or unknown
    category, without touching the database. A gated result must not be asserted: hand off instead.
    `own_case`: intake's probability that the question asks about the writer's own matter (a gate input);
    when not given, intake's reading of the question alone (settings.CORPUS_INTAKE_OWN_CASE), as the gate
    was trained.
    """
    text, _warnings = clean_query(query)
    validate_options(language=language, category=category, k=k)
    if own_case is None:
        own_case_for = wiring.own_case_resolver()
        own_case = own_case_for(text) if own_case_for else None
    vector = embed_one(query_for_index(text))
    result = search(query=query, language=language, category=category, k=k, vector=vector, own_case=own_case)
    if widen_if_gated and result.gated and category is not None:
        wider = search(
            query=query, language=language, category=None, k=k, vector=vector, need=category, own_case=own_case
        )
        if not wider.gated:
            return wider
    return result


def corpus_entry_get(*, slug: str, language: str = "en") -> EvidenceHit | None:
    """Return one entry as evidence (no ranks, score 0), or None when the slug is unknown."""
    entry = CorpusEntry.objects.filter(slug=slug).first()
    if entry is None:
        return None
    return EvidenceHit(
        slug=entry.slug,
        citation=entry.citation,
        title=entry.title,
        summary=entry.summary_es if language == "es" else entry.summary_en,
        url=entry.source_url,
        category=entry.category,
        jurisdiction=entry.jurisdiction,
        assertable=entry.assertable,
        caveat=caveat_in(language, en=entry.caveat, es=entry.caveat_es),
        score=0.0,
        lexical_rank=None,
        semantic_rank=None,
    )


def corpus_source_excerpts(*, slugs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Return each known slug's verbatim source excerpt (one query; unknown slugs are left out)."""
    return dict(CorpusEntry.objects.filter(slug__in=list(slugs)).values_list("slug", "source_excerpt"))
