"""The answerability gate and Spanish key terms: the shipped artifact, its features, its decisions."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from corpus import answerability, retrieval
from corpus.selectors import corpus_search
from corpus.translate import english_terms, expand


def test_the_shipped_gate_loads_with_its_features_and_a_dev_chosen_threshold() -> None:
    gate = answerability.gate()
    assert gate is not None and gate.version.startswith("ag-")
    payload = json.loads(answerability.ARTIFACT_PATH.read_text())
    assert payload["features"] == list(answerability.FEATURES)
    assert 0.05 < gate.threshold < 0.95
    assert payload["dev_figures"]["workflow"]["questions"] >= 180
    assert retrieval.confidence_floor() == gate.threshold


def test_an_artifact_for_other_features_is_refused() -> None:
    payload = json.loads(answerability.ARTIFACT_PATH.read_text())
    payload["features"] = payload["features"][:-1]
    with pytest.raises(ValueError, match="other features"):
        answerability.gate_from_json(payload)


def test_spanish_key_terms_reach_the_english_index() -> None:
    assert "parole" in english_terms("me puedo mudar de condado estando en libertad condicional?")
    assert "birth certificate" in english_terms("donde saco mi acta de nacimiento")
    assert "expunge" in english_terms("quiero BORRAR mis antecedentes")
    assert expand("where is the food bank") == "where is the food bank"


@pytest.mark.django_db
def test_the_houston_id_message_is_answered_not_gated(corpus) -> None:
    result = corpus_search(
        query="just got out last week, need to get my ID back, im in houston",
        category="id_documents",
        widen_if_gated=True,
    )
    assert not result.gated, result.confidence
    assert {"tx-gov-501-0165", "tx-transp-521-142", "tx-tac-25-181-28", "tx-transp-521-101"} & {
        h.slug for h in result.hits[:5]
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "question",
    ["can i vote in florida with a felony", "how do i apply for asylum", "should i take the plea deal they offered me"],
)
def test_questions_the_corpus_cannot_answer_are_gated(corpus, question: str) -> None:
    assert corpus_search(query=question).gated


@pytest.mark.django_db
def test_corpus_search_jsonl_reports_the_gates_probability_and_decision(corpus, tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "a", "text": "can i vote on parole"}) + "\n" + "{bad\n", encoding="utf-8")
    out = StringIO()
    call_command("corpus", "search", "--jsonl", str(path), stdout=out)
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["id"] == "a" and first["gate"]["decision"] in {"assert", "do_not_assert"}
    assert 0.0 <= first["gate"]["probability"] <= 1.0
    assert second["error"]["code"] == "bad_line"


def test_intakes_own_case_probability_is_a_gate_feature() -> None:
    slot = answerability.FEATURES.index("intake_own_case")
    given = answerability.features(
        text="will the judge grant mine", language="en", category=None, scored=[], other_state=False, own_case=0.8
    )
    missing = answerability.features(
        text="will the judge grant mine", language="en", category=None, scored=[], other_state=False
    )
    assert given[slot] == 0.8 and missing[slot] == 0.0
    # The shipped gate learned that a higher own-case probability means "do not assert".
    payload = json.loads(answerability.ARTIFACT_PATH.read_text())
    assert payload["features"][slot] == "intake_own_case"


@pytest.mark.django_db
def test_corpus_search_reads_intakes_own_case_when_the_caller_does_not_give_it(corpus, monkeypatch) -> None:
    from corpus import wiring

    seen: list[str] = []

    def resolver(text: str) -> float:
        seen.append(text)
        return 0.9

    monkeypatch.setattr(wiring, "own_case_resolver", lambda: resolver)
    asked = corpus_search(query="should i take the plea deal they offered me")
    assert seen == ["should i take the plea deal they offered me"]
    given = corpus_search(query="should i take the plea deal they offered me", own_case=0.9)
    assert seen == ["should i take the plea deal they offered me"]  # given: not resolved again
    assert asked.confidence == given.confidence
