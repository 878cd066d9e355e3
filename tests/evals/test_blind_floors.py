"""`make test` holds the shipped message model and answerability gate to their blind-set floors.

Generations of blind sets, each written by authors who saw only LABELING.md (or only the corpus
titles and summaries) and frozen before tuning. The message model is reported on the thirteenth (blind13,
frozen after blind12's one reading and look, never tuned on); the gate on the fourth question set (blind4). The
earlier ones were read while tuning, so they are no longer blind. These are regression floors (a
measurement less a margin); `make validate` checks the issues' goals, which are not all met yet
(see the model cards).
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from conversations.safety import data, evaluate
from corpus import answerability, gate_training, wiring


def _message_report(name: str) -> dict:
    from corpus.embeddings import embed_one

    data.verify_blind()
    messages_file, conversations_file = data.BLIND_SETS[name]
    judge = evaluate.Judge(embed=embed_one)
    messages = evaluate.message_metrics(judge.run_messages(data.read_messages(messages_file)))
    turns = [o for c in data.read_conversations(conversations_file) for o in judge.run_conversation(c)]
    return evaluate.headline_values(messages, evaluate.conversation_metrics(turns))


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "blind",
        "blind2",
        "blind3",
        "blind4",
        "blind5",
        "blind6",
        "blind7",
        "blind8",
        "blind9",
        "blind10",
        "blind11",
        "blind12",
        "blind13",
    ],
)
def test_the_message_model_holds_its_blind_floors(name: str) -> None:
    report = _message_report(name)
    assert evaluate.check_floors(report, evaluate.REGRESSION_BY_SPLIT[name]) == []
    # The reason the model exists: the rules alone find well under half of these crises (blind4 reads 0.949 since
    # the sixth session's retrain; see REGRESSION_FLOORS_BLIND4).
    assert report["crisis_recall"] >= 0.94


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("name", ["blind", "blind2", "blind3", "blind4"])
def test_the_answerability_gate_holds_its_blind_floors(name: str) -> None:
    gate_training.verify_blind()
    gate = answerability.gate()
    pairs = gate_training.observe(gate_training.read(gate_training.BLIND_SETS[name]), wiring.need_resolver())
    search = gate_training.report([wide for wide, _narrow in pairs], gate)
    workflow = gate_training.report(gate_training.workflow_view(pairs, gate), gate)
    assert gate_training.floor_misses(search, gate_training.REGRESSION_FLOORS[name]["search"]) == []
    assert gate_training.floor_misses(workflow, gate_training.REGRESSION_FLOORS[name]["workflow"]) == []


@pytest.mark.slow
@pytest.mark.django_db
def test_corpus_evaluate_blind_prints_the_table_with_intervals() -> None:
    out = StringIO()
    call_command("corpus", "evaluate", "--blind", "--blind-set", "blind2", "--floors", "regression", stdout=out)
    text = out.getvalue()
    assert (
        "blind2 set, corpus search (no need filter): 300 questions" in text
        and "95 % CI" in text
        and "answerable_blocked" in text
    )
    # The whole workflow's view too: intake's hand-offs to a person count before the gate.
    assert "blind2 set, as the whole workflow decides (intake's hand-offs to a person first, then the gate)" in text


PENDING = data.DATA_DIR / "pending"


def test_the_pending_blind14_conversations_are_frozen_and_never_trained_on() -> None:
    """blind14's conversation half, frozen in the twelfth session before anything was tuned on it; its messages
    half was not delivered, so the pair is not yet a BLIND_SETS split. Until it is, nothing trains on it."""
    pinned = dict(
        reversed(line.split()) for line in (PENDING / "PENDING.sha256").read_text().splitlines() if line[:1] != "#"
    )
    path = PENDING / "blind14_conversations.jsonl"
    assert pinned == {path.name: data.file_sha256(path)}
    turns = [t for c in data.read_conversations(path) for t in c]
    assert len(turns) == 274
    data.assert_disjoint(data.read_messages(data.TRAIN) + data.read_messages(data.DEV), turns)


@pytest.mark.slow
def test_the_message_model_holds_its_floors_on_the_blind14_conversations() -> None:
    # Read once (twelfth session, mm-b4ee9e1a25a0 with that session's rules): per-turn need 249/274, region
    # 264/274, crisis recall 70/71, false crisis 2/203. Floors: the reading less a turn or three.
    from corpus.embeddings import embed_one

    judge = evaluate.Judge(embed=embed_one)
    conversations = data.read_conversations(PENDING / "blind14_conversations.jsonl")
    m = evaluate.conversation_metrics([o for c in conversations for o in judge.run_conversation(c)])
    assert m["need_accuracy"]["k"] >= 246
    assert m["region_accuracy"]["k"] >= 262
    assert m["crisis_recall"]["k"] >= 69
    assert m["false_crisis_rate"]["k"] <= 4
