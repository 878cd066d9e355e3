"""`make test` holds the shipped message model and answerability gate to their blind-set floors.

The blind sets were written by authors who saw only LABELING.md (or only the corpus titles and
summaries) and frozen before tuning. These are regression floors (the first measurement less a
margin); `make validate` checks the issues' goals, which are not all met yet (see the model cards).
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from conversations.safety import data, evaluate
from corpus import answerability, gate_training


@pytest.fixture(scope="module")
def message_report() -> dict:
    from corpus.embeddings import embed_one

    data.verify_blind()
    judge = evaluate.Judge(embed=embed_one)
    messages = evaluate.message_metrics(judge.run_messages(data.read_messages(data.BLIND_MESSAGES)))
    turns = [o for c in data.read_conversations(data.BLIND_CONVERSATIONS) for o in judge.run_conversation(c)]
    return evaluate.headline_values(messages, evaluate.conversation_metrics(turns))


@pytest.mark.slow
def test_the_message_model_holds_its_blind_floors(message_report: dict) -> None:
    assert evaluate.check_floors(message_report, evaluate.REGRESSION_FLOORS) == []


@pytest.mark.slow
def test_the_rules_alone_would_miss_what_the_model_catches(message_report: dict) -> None:
    # The reason the model exists: on the blind split the rules alone found about a third of the crises.
    assert message_report["crisis_recall"] >= 0.95


@pytest.mark.slow
@pytest.mark.django_db
def test_the_answerability_gate_holds_its_blind_floors() -> None:
    gate_training.verify_blind()
    gate = answerability.gate()
    pairs = gate_training.observe(gate_training.read(gate_training.BLIND_FILE), gate_training.need_resolver())
    search = gate_training.report([wide for wide, _narrow in pairs], gate)
    workflow = gate_training.report(gate_training.workflow_view(pairs, gate), gate)
    assert gate_training.floor_misses(search, gate_training.FLOORS["regression"]) == []
    assert gate_training.floor_misses(workflow, gate_training.FLOORS["workflow_regression"]) == []


@pytest.mark.slow
@pytest.mark.django_db
def test_corpus_evaluate_blind_prints_the_table_with_intervals() -> None:
    out = StringIO()
    call_command("corpus", "evaluate", "--blind", "--floors", "regression", stdout=out)
    text = out.getvalue()
    assert (
        "blind set, corpus search (no need filter): 375 questions" in text
        and "95 % CI" in text
        and "answerable_blocked" in text
    )
