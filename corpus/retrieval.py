"""Hybrid retrieval over the corpus and the confidence gate. Deterministic: no LLM anywhere.

Two legs, fused by reciprocal rank fusion (RRF):
- lexical: PostgreSQL full text over the English and the Spanish vectors. A strict
  `websearch_to_tsquery` match earns a bonus, but ranking runs on an OR-query of the question's
  lexemes, because people type three words and one miss must not empty the leg;
- semantic: cosine distance between the MiniLM embedding of the question and of each entry.

Confidence (0..1) is computed over **assertable** hits only (non-assertable hits are returned,
flagged, but never count as evidence): for each of the top assertable hits it blends how close
the embedding is, how much of the question's vocabulary the entry covers, and whether both legs
agree; the best hit's value is the confidence. Below the calibrated floor the result is gated:
the workflow must not assert anything and hands off. A question naming another US state is
out of jurisdiction (Pathways is Texas-only) and its confidence is cut so it gates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from django.conf import settings
from django.db import connection

from corpus import answerability
from corpus.errors import QueryError
from corpus.models import fold_accents
from corpus.translate import expand
from corpus.types import CATEGORIES, LANGUAGES, EvidenceHit, RetrievalResult, caveat_in
from vocab import fold

CALIBRATION_PATH = Path(__file__).resolve().parent / "calibration.json"
MAX_QUERY_CHARS = 500  # SMS is 160; MiniLM reads at most 256 word pieces anyway
MAX_K = 50
CANDIDATES = 30  # per leg, before fusion
CONFIDENCE_TOP = 3  # assertable hits considered for confidence
STRICT_BONUS = 0.5  # lexical score bonus when every word of the question matches
OTHER_STATE_FACTOR = 0.25

# Defaults; corpus/calibration.json (written by `manage.py corpus evaluate`) overrides them.
DEFAULT_CALIBRATION: dict[str, float] = {
    "floor": 0.5,
    "sim_low": 0.25,
    "sim_high": 0.65,
    "w_sim": 0.5,
    "w_cov": 0.35,
    "w_agree": 0.15,
    "rrf_k": 60.0,
    "lexical_weight": 1.0,
    "semantic_weight": 1.0,
    # MiniLM is English-centred: for Spanish questions its ranks count for less.
    "semantic_weight_es": 1.0,
    # The neighbour leg: entries ranked by how close the question is to a training question labelled
    # with them (answerability exemplars). Weight 0 turns it off.
    "exemplar_weight": 0.0,
    "exemplar_min_similarity": 0.6,
}
EXEMPLAR_TOP = 10  # entries the neighbour leg ranks

# Other US states (English and Spanish spellings). Whole-word matched after accent folding.
_OTHER_STATES = (
    "alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho "
    "illinois indiana iowa kansas kentucky louisiana luisiana maine maryland massachusetts michigan minnesota "
    "mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania pensilvania tennessee utah "
    "vermont virginia wisconsin wyoming"
).split()
_OTHER_STATE_PHRASES = (
    "new hampshire",
    "new jersey",
    "nueva jersey",
    "new mexico",
    "nuevo mexico",
    "new york",
    "nueva york",
    "north carolina",
    "carolina del norte",
    "south carolina",
    "carolina del sur",
    "north dakota",
    "dakota del norte",
    "south dakota",
    "dakota del sur",
    "rhode island",
    "west virginia",
    "virginia occidental",
    "washington state",
    "estado de washington",
    "puerto rico",
)
_STATE_RE = re.compile(r"\b(" + "|".join([re.escape(s) for s in _OTHER_STATE_PHRASES] + _OTHER_STATES) + r")(?:'?s)?\b")
# Texas itself, or a big Texas city: the question is then (also) about here.
_TEXAS_RE = re.compile(r"\b(texas|tejas|tx|houston|dallas|austin|san antonio|el paso|fort worth|tdcj)\b")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class _Candidate:
    entry_id: int
    lexical_rank: int | None
    semantic_rank: int | None
    similarity: float
    coverage: float
    row: dict[str, Any]


@lru_cache(maxsize=1)
def calibration() -> dict[str, float]:
    """Return the calibrated parameters (floor, confidence weights), read once per process."""
    values = dict(DEFAULT_CALIBRATION)
    if CALIBRATION_PATH.is_file():
        stored = json.loads(CALIBRATION_PATH.read_text(encoding="utf-8"))
        values.update({key: float(stored[key]) for key in DEFAULT_CALIBRATION if key in stored})
    return values


def confidence_floor() -> float:
    """Return the gate's floor: settings.CORPUS_CONFIDENCE_FLOOR when set, else the trained gate's
    threshold, else the calibrated score floor."""
    model = answerability.gate()
    return _override_floor(model.threshold if model is not None else calibration()["floor"])


def _override_floor(default: float) -> float:
    override = getattr(settings, "CORPUS_CONFIDENCE_FLOOR", None)
    return float(override) if override is not None else default


def mentions_other_state(text: str) -> bool:
    """Return True when the question names another US state and not Texas."""
    folded = fold(text)
    return bool(_STATE_RE.search(folded)) and not _TEXAS_RE.search(folded)


def clean_query(query: object) -> tuple[str, list[str]]:
    """Validate and normalise a query without touching the database; return it and any warnings."""
    if not isinstance(query, str) or not query.strip():
        raise QueryError("empty_query", "Type a question to search for.")
    warnings: list[str] = []
    text = _CONTROL_RE.sub(" ", query)  # PostgreSQL text cannot hold NUL; other controls are noise
    text = " ".join(text.split())
    if len(text) > MAX_QUERY_CHARS:
        cut = text[:MAX_QUERY_CHARS]
        text = cut.rsplit(" ", 1)[0] if " " in cut[MAX_QUERY_CHARS // 2 :] else cut
        warnings.append(f"query_truncated: the question was cut to {len(text)} of {len(query)} characters")
    if not text:
        raise QueryError("empty_query", "Type a question to search for.")
    return text, warnings


def validate_options(*, language: str, category: str | None, k: int) -> None:
    """Reject unknown languages, categories and result sizes before any database work."""
    if language not in LANGUAGES:
        raise QueryError("unknown_language", f"Language must be one of {', '.join(LANGUAGES)}.")
    if category is not None and category not in CATEGORIES:
        raise QueryError("unknown_category", f"Unknown category {category!r}; use one of {', '.join(CATEGORIES)}.")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise QueryError("bad_k", f"k must be a whole number from 1 to {MAX_K}.")


# One round trip. Both configurations parse the question; the OR-query is rebuilt from the
# lexemes plainto_tsquery produced (quoted, so no user character is ever tsquery syntax).
_SQL = """
WITH q AS (
    SELECT websearch_to_tsquery('english', %(q)s) AS en_strict,
           websearch_to_tsquery('spanish', %(q_es)s) AS es_strict,
           NULLIF(replace(plainto_tsquery('english', %(q)s)::text, ' & ', ' | '), '')::tsquery AS en_or,
           NULLIF(replace(plainto_tsquery('spanish', %(q_es)s)::text, ' & ', ' | '), '')::tsquery AS es_or,
           tsvector_to_array(to_tsvector('english', %(q)s)) AS en_lex,
           tsvector_to_array(to_tsvector('spanish', %(q_es)s)) AS es_lex,
           %(vec)s::vector AS vec
),
known AS MATERIALIZED (
    -- How much of the question's vocabulary the corpus knows at all (a topic it does not cover
    -- shows up as words no entry uses): one GIN probe per question lexeme. MATERIALIZED: inlined,
    -- PostgreSQL ran these probes again for every result row (46 times, ~95 ms of a 100 ms query).
    SELECT
        (SELECT count(*) FROM unnest(q.en_lex) l
         WHERE EXISTS (SELECT 1 FROM corpus_corpusentry k WHERE k.search_en @@ quote_literal(l)::tsquery)) AS en_known,
        cardinality(q.en_lex) AS en_total,
        (SELECT count(*) FROM unnest(q.es_lex) l
         WHERE EXISTS (SELECT 1 FROM corpus_corpusentry k WHERE k.search_es @@ quote_literal(l)::tsquery)) AS es_known,
        cardinality(q.es_lex) AS es_total
    FROM q
),
lex AS (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS lexical_rank FROM (
        SELECT e.id,
               GREATEST(
                   COALESCE(ts_rank(e.search_en, q.en_or), 0)
                       + CASE WHEN e.search_en @@ q.en_strict THEN %(bonus)s ELSE 0 END,
                   COALESCE(ts_rank(e.search_es, q.es_or), 0)
                       + CASE WHEN e.search_es @@ q.es_strict THEN %(bonus)s ELSE 0 END
               ) AS score
        FROM corpus_corpusentry e, q
        WHERE (e.search_en @@ q.en_or OR e.search_es @@ q.es_or) {category_filter}
        ORDER BY score DESC, e.id
        LIMIT %(candidates)s
    ) ranked
),
sem AS (
    SELECT id, row_number() OVER (ORDER BY distance, id) AS semantic_rank FROM (
        SELECT e.id, e.embedding <=> q.vec AS distance
        FROM corpus_corpusentry e, q
        WHERE e.embedding IS NOT NULL {category_filter}
        ORDER BY distance, e.id
        LIMIT %(candidates)s
    ) nearest
)
SELECT e.id, e.slug, e.citation, e.title, e.summary_en, e.summary_es, e.source_url, e.category,
       e.jurisdiction, e.assertable, e.caveat, e.caveat_es, lex.lexical_rank, sem.semantic_rank,
       1 - (e.embedding <=> q.vec) AS similarity,
       GREATEST(
           CASE WHEN cardinality(q.en_lex) = 0 THEN 0 ELSE
               (SELECT count(*) FROM unnest(q.en_lex) l WHERE l = ANY(tsvector_to_array(e.search_en)))::float
               / cardinality(q.en_lex) END,
           CASE WHEN cardinality(q.es_lex) = 0 THEN 0 ELSE
               (SELECT count(*) FROM unnest(q.es_lex) l WHERE l = ANY(tsvector_to_array(e.search_es)))::float
               / cardinality(q.es_lex) END
       ) AS coverage,
       known.en_known, known.en_total, known.es_known, known.es_total
FROM corpus_corpusentry e
CROSS JOIN q
CROSS JOIN known
LEFT JOIN lex ON lex.id = e.id
LEFT JOIN sem ON sem.id = e.id
WHERE lex.id IS NOT NULL OR sem.id IS NOT NULL
"""

_LEGS = ("hybrid", "lexical", "semantic")


def query_for_index(text: str) -> str:
    """The question as the English index and the embedding see it: Spanish key terms carried over."""
    return expand(text)


def _fetch(text: str, vector: list[float], category: str | None) -> list[_Candidate]:
    params: dict[str, Any] = {
        "q": query_for_index(text),
        "q_es": fold_accents(text),
        "vec": "[" + ",".join(f"{value:.7f}" for value in vector) + "]",
        "bonus": STRICT_BONUS,
        "candidates": CANDIDATES,
    }
    category_filter = ""
    if category:
        category_filter = "AND e.category = %(category)s"
        params["category"] = category
    with connection.cursor() as cursor:
        cursor.execute(_SQL.format(category_filter=category_filter), params)
        columns = [column[0] for column in cursor.description]
        rows = [dict(zip(columns, values, strict=True)) for values in cursor.fetchall()]
    return [
        _Candidate(
            entry_id=row["id"],
            lexical_rank=row["lexical_rank"],
            semantic_rank=row["semantic_rank"],
            similarity=float(row["similarity"] or 0.0),
            coverage=float(row["coverage"] or 0.0),
            row=row,
        )
        for row in rows
    ]


def _fused_score(candidate: _Candidate, leg: str, language: str, params: dict[str, float]) -> float:
    """Weighted reciprocal rank fusion: sum of weight / (rrf_k + rank) over the legs that found it."""
    score = 0.0
    rrf_k = params["rrf_k"]
    if leg in ("hybrid", "lexical") and candidate.lexical_rank is not None:
        score += params["lexical_weight"] / (rrf_k + candidate.lexical_rank)
    if leg in ("hybrid", "semantic") and candidate.semantic_rank is not None:
        weight = params["semantic_weight_es"] if language == "es" else params["semantic_weight"]
        # A single-leg run ranks by that leg alone, whatever its weight.
        score += (weight if leg == "hybrid" else 1.0) / (rrf_k + candidate.semantic_rank)
    return score


def evidence_strength(candidate: _Candidate, params: dict[str, float]) -> float:
    """Return how strongly one entry answers the question, 0..1 (see module docstring)."""
    span = max(params["sim_high"] - params["sim_low"], 1e-6)
    sim = min(max((candidate.similarity - params["sim_low"]) / span, 0.0), 1.0)
    agree = 1.0 if (candidate.lexical_rank or 99) <= 3 and (candidate.semantic_rank or 99) <= 3 else 0.0
    value = params["w_sim"] * sim + params["w_cov"] * candidate.coverage + params["w_agree"] * agree
    return min(max(value, 0.0), 1.0)


def _hit(candidate: _Candidate, language: str, score: float, leg: str) -> EvidenceHit:
    row = candidate.row
    return EvidenceHit(
        slug=row["slug"],
        citation=row["citation"],
        title=row["title"],
        summary=row["summary_es"] if language == "es" else row["summary_en"],
        url=row["source_url"],
        category=row["category"],
        jurisdiction=row["jurisdiction"],
        assertable=bool(row["assertable"]),
        caveat=caveat_in(language, en=row["caveat"], es=row["caveat_es"]),
        score=score,
        lexical_rank=candidate.lexical_rank if leg != "semantic" else None,
        semantic_rank=candidate.semantic_rank if leg != "lexical" else None,
    )


def search(
    *,
    query: object,
    language: str = "en",
    category: str | None = None,
    k: int = 5,
    leg: str = "hybrid",
    params: dict[str, float] | None = None,
    vector: list[float] | None = None,
    need: str | None = None,
    own_case: float | None = None,
) -> RetrievalResult:
    """Rank corpus entries for a question and decide whether they may be asserted.

    `leg` ("lexical" or "semantic") exists for calibration: it ranks with one leg only. `vector`
    is the question's embedding when the caller already has it (one question, several searches).
    Raises QueryError for an empty query, unknown language/category or bad k — before any I/O.
    """
    text, warnings = clean_query(query)
    validate_options(language=language, category=category, k=k)
    if leg not in _LEGS:
        raise QueryError("unknown_leg", f"leg must be one of {', '.join(_LEGS)}")
    # Explicit params (calibration runs) carry their own floor; normal calls use the configured one.
    floor = float(params["floor"]) if params is not None else confidence_floor()
    params = params or calibration()

    if vector is None:
        from corpus.embeddings import embed_one

        vector = embed_one(query_for_index(text))
    candidates = _fetch(text, vector, category)
    return decide(
        text=text,
        language=language,
        category=category,
        k=k,
        candidates=candidates,
        leg=leg,
        params=params,
        floor=floor,
        warnings=warnings,
        need=need or category,
        vector=vector,
        own_case=own_case,
    )


def candidates_for(*, text: str, category: str | None = None) -> list[_Candidate]:
    """Return both legs' candidates for an already-cleaned question (calibration reuses them)."""
    from corpus.embeddings import embed_one

    return _fetch(text, embed_one(query_for_index(text)), category)


def _neighbour_ranks(
    candidates: list[_Candidate], vector: Sequence[float] | None, params: dict[str, float], exclude: str | None
) -> dict[str, int]:
    """Rank of each candidate by its nearest labelled training question (the neighbour leg).

    A chatty or Spanish question far from an entry's statute wording is often close to a training
    question that the entry answers. `exclude` leaves a training question out of its own neighbours.
    """
    stored = answerability.exemplars() if params.get("exemplar_weight", 0.0) > 0 and vector is not None else None
    if stored is None or vector is None:
        return {}
    best = stored.best_by_slug(vector, [candidate.row["slug"] for candidate in candidates], exclude)
    near = sorted(
        (slug for slug, sim in best.items() if sim >= params["exemplar_min_similarity"]), key=lambda s: (-best[s], s)
    )
    return {slug: rank for rank, slug in enumerate(near[:EXEMPLAR_TOP], start=1)}


def ranked(
    candidates: list[_Candidate],
    *,
    leg: str,
    language: str,
    params: dict[str, float],
    vector: Sequence[float] | None = None,
    exclude: str | None = None,
) -> list[tuple[_Candidate, float]]:
    """Candidates with their fused score, best first (ties by slug, so the order is stable).

    The hybrid leg adds the neighbour leg when the query `vector` is given.
    """
    scored = [(candidate, _fused_score(candidate, leg, language, params)) for candidate in candidates]
    if leg == "hybrid":
        neighbours = _neighbour_ranks(candidates, vector, params, exclude)
        weight = params.get("exemplar_weight", 0.0)
        scored = [
            (candidate, score + weight / (params["rrf_k"] + neighbours[candidate.row["slug"]]))
            if candidate.row["slug"] in neighbours
            else (candidate, score)
            for candidate, score in scored
        ]
    scored = [(candidate, score) for candidate, score in scored if score > 0]
    scored.sort(key=lambda pair: (-pair[1], pair[0].row["slug"]))
    return scored


def decide(
    *,
    text: str,
    language: str,
    category: str | None,
    k: int,
    candidates: list[_Candidate],
    leg: str,
    params: dict[str, float],
    floor: float,
    warnings: list[str] | None = None,
    gate_model: answerability.Gate | Literal["shipped"] | None = "shipped",
    need: str | None = None,
    vector: Sequence[float] | None = None,
    exclude: str | None = None,
    own_case: float | None = None,
) -> RetrievalResult:
    """Fuse, rank and gate fetched candidates: pure Python, so calibration can replay it cheaply.

    The hybrid leg is gated by the trained answerability gate (`gate_model`, the shipped one by
    default; None falls back to the evidence-strength score and `floor`, as calibration does).
    `exclude` names a training question being replayed, left out of its own neighbours.
    """
    warnings = list(warnings or [])
    if vector is None and leg == "hybrid":
        from corpus.embeddings import embed_one

        vector = embed_one(query_for_index(text))  # cached: the fetch embedded the same text
    scored = ranked(candidates, leg=leg, language=language, params=params, vector=vector, exclude=exclude)
    top = scored[:k]

    assertable = [candidate for candidate, _score in top if candidate.row["assertable"]][:CONFIDENCE_TOP]
    other_state = mentions_other_state(text)
    model = answerability.gate() if gate_model == "shipped" else gate_model
    if model is not None and leg == "hybrid" and vector is not None:
        # The trained answerability gate decides; its probability is the confidence.
        values = answerability.features(
            text=text,
            language=language,
            category=category,
            scored=scored,
            other_state=other_state,
            need=need,
            vector=vector,
            exclude=exclude,
            own_case=own_case,
        )
        confidence = model.probability(values) if assertable else 0.0
        floor = _override_floor(model.threshold)
    else:
        confidence = max((evidence_strength(candidate, params) for candidate in assertable), default=0.0)
        if other_state:
            confidence *= OTHER_STATE_FACTOR
    if other_state:
        warnings.append("other_jurisdiction: the question names another state; Pathways covers Texas only")
    if top and not assertable:
        warnings.append("no_assertable_hits: matching entries are not verified and reviewed")
    confidence = round(confidence, 4)
    return RetrievalResult(
        query=text,
        language=language,
        category=category,
        hits=tuple(_hit(candidate, language, score, leg) for candidate, score in top),
        confidence=confidence,
        gated=confidence < floor,
        floor=floor,
        warnings=tuple(warnings),
    )
