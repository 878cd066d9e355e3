"""Unit tests of the evaluation judge and aggregates (plain data, no database)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from conversations.evaluation.floors import check_floors
from conversations.evaluation.metrics import (
    detect_reply_language,
    fabricated_citations,
    judge,
    stratify,
    summarize,
    wilson,
)
from conversations.evaluation.runner import Observation, pii_leaks
from conversations.evaluation.traces import TurnExpect


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),  # the Wald interval would collapse to [0, 0] here
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (81, 263, 0.2553, 0.3662),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_it_computes_the_wilson_interval(k: int, n: int, low: float, high: float) -> None:
    got = wilson(k, n)
    assert got[0] == pytest.approx(low, abs=1e-4)
    assert got[1] == pytest.approx(high, abs=1e-4)


def test_it_keeps_the_wilson_interval_inside_zero_one_and_around_the_rate() -> None:
    for n in (1, 2, 7, 50, 400):
        for k in range(n + 1):
            low, high = wilson(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0
            assert not math.isnan(low) and not math.isnan(high)


def test_it_refuses_impossible_counts_and_is_uninformative_on_nothing() -> None:
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson(11, 10)
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("reply", "language"),
    [
        ("Here is what Texas rules say: you can register to vote once the sentence is done.", "en"),
        ("No estoy seguro de la regla para su pregunta, así que no voy a adivinar. 211 Texas puede ayudar.", "es"),
        ("Lugares que pueden ayudar:\n- Texas Workforce Solutions, (713) 555-0100\n- Houston Food Bank", "es"),
        ("", "unknown"),
    ],
)
def test_it_detects_the_reply_language_ignoring_resource_lines(reply: str, language: str) -> None:
    assert detect_reply_language(reply) == language


def _obs(expect: dict[str, Any] | None = None, **payload: Any) -> Observation:
    base = {
        "crisis": "none",
        "top_need": "voting",
        "region": "houston",
        "redacted_text": "can i vote",
        "reply": "Here is what the rule says [Tex. Elec. Code § 13.001(a)(4)]. You can call 211.",
        "citations": [{"id": "tx-elec-13-001", "citation": "Tex. Elec. Code § 13.001(a)(4)", "url": ""}],
        "handoff": None,
        "audit": {"verdict": "pass"},
        "llm": {"calls": 0, "cost_usd": 0.0},
    }
    base.update(payload)
    return Observation(
        trace_id="t-1",
        suite="core",
        turn_index=0,
        channel="web",
        expect=TurnExpect.model_validate(
            expect or {"top_need": "voting", "region": "houston", "audit": "pass", "must_cite": ["tx-elec-13-001"]}
        ),
        payload=base,
        retrieved_slugs=("tx-elec-13-001", "tx-elec-11-002"),
        evidence_citations=("Tex. Elec. Code § 13.001(a)(4)",),
        assertable={"tx-elec-13-001": True},
        latency_ms=12.0,
    )


def test_it_passes_a_turn_that_meets_every_expectation() -> None:
    result = judge(_obs())
    assert result.failures == []
    assert result.must_cite_hits == 1
    assert result.strata == {"language": "en", "channel": "web", "region": "houston", "need": "voting", "suite": "core"}


def test_it_flags_a_cited_slug_that_retrieval_did_not_return_or_that_is_not_assertable() -> None:
    obs = _obs()
    outside = Observation(**{**obs.__dict__, "retrieved_slugs": ("tx-elec-11-002",)})
    unassertable = Observation(**{**obs.__dict__, "assertable": {"tx-elec-13-001": False}})
    assert fabricated_citations(outside) == ["slug:tx-elec-13-001"]
    assert fabricated_citations(unassertable) == ["slug:tx-elec-13-001"]
    assert "fabricated citations" in judge(outside).failures[0]


def test_it_flags_a_bracketed_legal_citation_that_matches_no_evidence() -> None:
    obs = _obs(reply="You may vote [Tex. Elec. Code § 13.001(a)(4)] but see [Tex. Penal Code § 99.99] and [2-1-1].")
    assert fabricated_citations(obs) == ["text:Tex. Penal Code § 99.99"]


def test_it_reports_each_unmet_expectation_in_words() -> None:
    obs = _obs(
        top_need="other",
        region=None,
        reply="Llame al 211, no estoy seguro de la regla.",
        citations=[],
        handoff={"category": "uncertain"},
    )
    failures = " | ".join(judge(obs).failures)
    for expected in (
        "top_need: expected voting, got other",
        "region: expected houston, got None",
        "citation recall",
        "handoff: expected None, got uncertain",
        "reply language: expected en, got es",
    ):
        assert expected in failures


def test_it_counts_forbidden_citations_and_phrases() -> None:
    expect = {
        "top_need": "voting",
        "audit": "pass",
        "must_not_cite": ["tx-elec-13-001"],
        "reply_must_not_contain": ["what the RULE says"],
    }
    result = judge(_obs(expect))
    assert result.forbidden_cited == ["tx-elec-13-001"]
    assert result.phrase_violations == 1


def test_it_finds_pii_in_stored_text_even_with_other_separators_and_never_reports_the_value() -> None:
    stored = '{"state": {"text": "my ssn 412557890 and name marcus johnson"}}'
    assert pii_leaks(stored, ["412-55-7890", "Marcus Johnson", "713-555-0148"]) == [0, 1]
    assert pii_leaks('{"text": "[SSN] and 2412557890"}', ["412-55-7890"]) == []
    obs = Observation(
        **{**_obs({"top_need": "voting", "audit": "pass", "pii": ["412-55-7890"]}).__dict__, "pii_leaked": (0,)}
    )
    result = judge(obs)
    assert result.pii_leaks == 1
    assert "412" not in " ".join(result.failures)


def test_it_aggregates_crisis_recall_and_precision_separately() -> None:
    hit = judge(
        _obs(
            {"crisis": "suicide_self_harm", "handoff": "suicide_self_harm"},
            crisis="suicide_self_harm",
            handoff={"category": "suicide_self_harm"},
            citations=[],
            audit={},
        )
    )
    miss = judge(_obs({"crisis": "domestic_violence", "handoff": "domestic_violence"}, citations=[], audit={}))
    false_alarm = judge(_obs(crisis="immediate_danger"))
    summary = summarize([hit, miss, false_alarm])
    assert summary["rates"]["crisis_recall"]["k"] == 1 and summary["rates"]["crisis_recall"]["n"] == 2
    assert summary["rates"]["crisis_precision"]["k"] == 1 and summary["rates"]["crisis_precision"]["n"] == 2
    assert summary["rates"]["crisis_recall"]["ci95"] == [round(v, 4) for v in wilson(1, 2)]


def _need_results(language: str, right: int, wrong: int) -> list[Any]:
    good = [
        judge(_obs({"top_need": "voting", "audit": "pass", "reply_language": language}, reply="x"))
        for _ in range(right)
    ]
    bad = [
        judge(_obs({"top_need": "food", "audit": "pass", "reply_language": language}, reply="x")) for _ in range(wrong)
    ]
    return good + bad


def test_it_fails_the_stratum_floor_only_for_a_large_enough_stratum_far_below_overall() -> None:
    results = _need_results("en", 60, 0) + _need_results("es", 15, 5)  # overall 0.9375, es 0.75 over 20 cases
    checks = {check.metric: check for check in check_floors(summarize(results), stratify(results), results)}
    gap = checks["top_need_stratum_gap"]
    assert not gap.ok
    assert "language=es" in gap.message and "top_need_stratum_gap" in gap.message
    small = _need_results("en", 60, 0) + _need_results("es", 14, 5)  # 19 cases: too few to judge
    checks = {check.metric: check for check in check_floors(summarize(small), stratify(small), small)}
    assert checks["top_need_stratum_gap"].ok


def test_it_names_the_metric_and_the_cases_when_a_floor_fails() -> None:
    results = _need_results("en", 8, 2)
    checks = {check.metric: check for check in check_floors(summarize(results), stratify(results), results)}
    assert not checks["top_need_accuracy"].ok
    assert checks["top_need_accuracy"].message.startswith("top_need_accuracy = 0.800")
    assert "t-1#1" in checks["top_need_accuracy"].message
