"""Hybrid retrieval and the confidence gate: bad input, Spanish, gating, the public surface."""

from __future__ import annotations

import dataclasses

import pytest

from corpus.errors import QueryError
from corpus.models import CorpusEntry
from corpus.retrieval import MAX_QUERY_CHARS, mentions_other_state
from corpus.selectors import corpus_entry_get, corpus_search
from corpus.types import HANDOFF_INSTRUCTION, EvidenceHit, RetrievalResult

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", ["", "   ", "\n\t ", None])
def test_an_empty_query_is_a_clear_error_without_touching_the_database(query, django_assert_num_queries):
    with django_assert_num_queries(0), pytest.raises(QueryError) as caught:
        corpus_search(query=query)
    assert caught.value.code == "empty_query"
    assert caught.value.http_status == 400
    assert caught.value.message


def test_an_unknown_category_is_a_clear_error_without_touching_the_database(django_assert_num_queries):
    with django_assert_num_queries(0), pytest.raises(QueryError) as caught:
        corpus_search(query="can i vote", category="astrology")
    assert caught.value.code == "unknown_category"
    assert "astrology" in caught.value.message


def test_an_unknown_language_is_a_clear_error(django_assert_num_queries):
    with django_assert_num_queries(0), pytest.raises(QueryError) as caught:
        corpus_search(query="can i vote", language="fr")
    assert caught.value.code == "unknown_language"


def test_a_ten_thousand_character_query_is_truncated_with_a_warning(corpus):
    result = corpus_search(query="can i vote on parole " * 500)
    assert len("can i vote on parole " * 500) >= 10_000
    assert len(result.query) <= MAX_QUERY_CHARS
    assert any(w.startswith("query_truncated") for w in result.warnings)
    assert result.hits


@pytest.mark.parametrize(
    "query",
    [
        "&",
        "|",
        "!",
        "()",
        ":*",
        "'",
        '"',
        "\\",
        "vote & | ! ( ) : * ' \" \\",
        "a:* & !b | (c",
        "'; DROP TABLE x; --",
        "vote\x00parole",
        "<->",
    ],
)
def test_tsquery_and_sql_metacharacters_never_raise(corpus, query):
    result = corpus_search(query=query)
    assert isinstance(result, RetrievalResult)
    assert 0.0 <= result.confidence <= 1.0


def test_a_parole_voting_question_gets_the_election_code_and_is_not_gated(corpus):
    result = corpus_search(query="can i vote im still on parole")
    assert {"tx-elec-11-002", "tx-elec-13-001"} & {hit.slug for hit in result.hits[:3]}
    assert result.gated is False
    assert result.handoff is None
    top = result.hits[0]
    assert top.assertable and top.url and top.citation
    assert top.lexical_rank is not None or top.semantic_rank is not None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("puedo votar si estoy en libertad condicional", {"tx-elec-11-002", "tx-elec-13-001"}),
        ("puedo recibir estampillas de comida con un delito de drogas", {"tx-hrc-33-018", "us-21-862a"}),
        ("como saco una identificacion de texas", {"tx-transp-521-101", "tx-gov-501-0165"}),
        ("me pueden quitar la patria potestad por estar en prision", {"tx-fam-161-001-q"}),
    ],
)
def test_a_spanish_question_retrieves_the_right_entry_with_a_spanish_summary(corpus, question, expected):
    result = corpus_search(query=question, language="es")
    assert expected & {hit.slug for hit in result.hits[:3]}
    assert not result.gated
    hit = next(h for h in result.hits if h.slug in expected)
    assert hit.summary == CorpusEntry.objects.get(slug=hit.slug).summary_es


def test_accents_do_not_matter_in_spanish(corpus):
    with_accents = corpus_search(query="identificación", language="es")
    without = corpus_search(query="identificacion", language="es")
    assert [h.slug for h in with_accents.hits] == [h.slug for h in without.hits]


@pytest.mark.parametrize("query", ["how do i bake banana bread", "asdfgh jkl", "who won the cowboys game"])
def test_an_unrelated_question_is_gated_with_a_handoff(corpus, query):
    result = corpus_search(query=query)
    assert result.gated is True
    assert result.confidence < result.floor
    assert result.handoff == HANDOFF_INSTRUCTION
    assert result.assertable_hits == ()


def test_a_question_about_another_state_is_gated(corpus):
    result = corpus_search(query="can i vote in florida with a felony")
    assert result.gated is True
    assert any(w.startswith("other_jurisdiction") for w in result.warnings)
    assert mentions_other_state("expuncion en nuevo méxico")
    assert not mentions_other_state("can i vote in texas")


def test_non_assertable_hits_are_flagged_and_never_count_as_evidence(corpus):
    CorpusEntry.objects.update(reviewed_at=None)
    result = corpus_search(query="can i vote im still on parole")
    assert result.hits and not any(hit.assertable for hit in result.hits)
    assert result.confidence == 0.0
    assert result.gated is True
    assert any(w.startswith("no_assertable_hits") for w in result.warnings)


def test_an_unverified_entry_is_returned_flagged(corpus):
    result = corpus_search(query="conditions a parole panel may impose", category="supervision", k=10)
    hit = next(h for h in result.hits if h.slug == "tx-gov-508-221")
    assert hit.assertable is False
    assert hit not in result.assertable_hits


def test_the_category_filter_keeps_only_that_category(corpus):
    result = corpus_search(query="can i get help", category="housing", k=10)
    assert result.hits
    assert {hit.category for hit in result.hits} == {"housing"}


def test_hits_carry_ranks_and_a_descending_fused_score(corpus):
    result = corpus_search(query="how do i get my record expunged", k=8)
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert len(result.hits) == 8
    assert all(hit.lexical_rank or hit.semantic_rank for hit in result.hits)


def test_results_are_deterministic(corpus):
    first = corpus_search(query="child support while in prison")
    second = corpus_search(query="child support while in prison")
    assert first == second


def test_entry_get_returns_evidence_or_none(corpus):
    hit = corpus_entry_get(slug="tx-elec-11-002", language="es")
    assert isinstance(hit, EvidenceHit)
    assert hit.citation.startswith("Tex. Elec. Code")
    assert "votar" in hit.summary
    assert corpus_entry_get(slug="no-such-entry") is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.score = 1.0  # type: ignore[misc]
