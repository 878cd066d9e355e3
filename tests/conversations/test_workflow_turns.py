"""End-to-end turns in demo mode (no API key): citations, resources, language, crisis, hand-offs."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conversations import selectors, services
from conversations.models import Conversation, NodeRun, Turn

pytestmark = pytest.mark.django_db


def ask(
    text: str, *, language: str | None = None, conversation: Conversation | None = None, channel: str = "web"
) -> dict:
    if conversation is None:
        conversation, _ = services.conversation_create(channel=channel, language=language)
    turn, _ = services.turn_start(
        conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex, language=language
    )
    return selectors.turn_payload(services.turn_run(turn_id=turn.pk))


def test_an_id_question_in_houston_is_completed_with_citations_and_houston_resources() -> None:
    turn = ask("I just got out of TDCJ and need an ID in Houston")
    assert turn["status"] == "completed"
    assert turn["top_need"] == "id_documents"
    assert turn["region"] == "houston"
    assert turn["citations"], turn["reply"]
    assert all(c["url"].startswith("http") for c in turn["citations"])
    assert turn["resources"]
    assert any(r["region"] == "houston" for r in turn["resources"])
    assert [n["name"] for n in turn["nodes"]] == ["intake", "retrieve", "match", "draft", "audit", "send"]
    assert turn["audit"]["verdict"] == "pass"


def test_the_same_question_in_spanish_is_answered_in_spanish() -> None:
    turn = ask("Acabo de salir de TDCJ y necesito una identificación en Houston")
    assert turn["language"] == "es"
    assert turn["status"] == "completed"
    assert "Texas" in turn["reply"]
    assert "Lugares que pueden ayudar" in turn["reply"] or "no voy a adivinar" in turn["reply"]


def test_a_crisis_message_escalates_straight_to_988_without_retrieval() -> None:
    turn = ask("i been saving pills, whats the point anymore")
    assert turn["status"] == "escalated"
    assert turn["crisis"] == "suicide_self_harm"
    assert "988" in turn["reply"]
    assert [n["name"] for n in turn["nodes"]] == ["intake", "escalate"]
    assert turn["citations"] == []


def test_another_states_law_is_handed_off_never_answered() -> None:
    turn = ask("can I expunge my record in California")
    assert turn["status"] == "escalated"
    assert turn["handoff"]["category"] == "out_of_state"
    assert turn["citations"] == []


def test_a_question_about_ones_own_case_goes_to_legal_aid() -> None:
    turn = ask("should I take the plea deal they offered me")
    assert turn["status"] == "escalated"
    assert turn["handoff"]["category"] == "legal_aid"


def test_voting_on_parole_cites_the_election_code() -> None:
    turn = ask("can i vote im still on parole")
    assert turn["top_need"] == "voting"
    assert any("Elec. Code" in c["citation"] for c in turn["citations"]) or turn["retrieval"]["gated"]


def test_a_follow_up_is_rewritten_with_the_previous_question_and_keeps_the_original_words() -> None:
    first = ask("I need an ID in Houston")
    conversation = Conversation.objects.get(pk=first["conversation_id"])
    second = ask("what about in Dallas?", conversation=conversation)
    turn = Turn.objects.get(pk=second["turn_id"])
    assert turn.redacted_text == "what about in Dallas?"
    assert "ID" in turn.standalone_text
    assert second["top_need"] == "id_documents"
    assert second["region"] == "dallas_fort_worth"


def test_the_conversation_keeps_the_persons_language_until_they_switch() -> None:
    first = ask("Necesito trabajo en San Antonio, tengo antecedentes")
    conversation = Conversation.objects.get(pk=first["conversation_id"])
    assert conversation.language == "es"
    switched = ask("I need food stamps", conversation=conversation)
    assert switched["language"] == "en"


def test_a_normal_turn_stays_within_the_query_budget() -> None:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(
        conversation=conversation, text="where can i sleep tonight in austin", idempotency_key="k1"
    )
    with CaptureQueriesContext(connection) as queries:
        services.turn_run(turn_id=turn.pk)
    # One statement per node checkpoint, the lock, the searches and the final transaction (13 measured).
    assert len(queries) <= 16, len(queries)


def test_a_stale_runner_saves_nothing_and_continues_from_the_saved_step() -> None:
    from conversations.workflow import engine

    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(
        conversation=conversation, text="how do i get an id in houston", idempotency_key="stale"
    )
    first, stale = Turn.objects.get(pk=turn.pk), Turn.objects.get(pk=turn.pk)
    assert engine.turn_advance(first, finalize=services.turn_finalize) is True
    assert engine.turn_advance(stale, finalize=services.turn_finalize) is True  # its intake is discarded
    assert NodeRun.objects.filter(turn_id=turn.pk).count() == 1
    assert stale.steps == 1 and stale.current_node == first.current_node == "retrieve"
    assert stale.state == Turn.objects.get(pk=turn.pk).state


def test_every_node_run_is_recorded_with_its_projection_and_transition() -> None:
    turn = ask("how do i get food stamps in el paso")
    runs = list(NodeRun.objects.filter(turn_id=turn["turn_id"]).order_by("step"))
    assert [run.step for run in runs] == list(range(1, len(runs) + 1))
    assert runs[0].transition == "intake→retrieve"
    assert "evidence" not in runs[0].projection
    assert "text" not in next(run for run in runs if run.node == "audit").projection


def test_where_the_person_said_they_are_carries_to_the_next_question_until_they_name_another_place() -> None:
    first = ask("I need food in Houston")
    conversation = Conversation.objects.get(turns__pk=first["turn_id"])
    second = ask("where can I sleep tonight?", conversation=conversation)
    third = ask("I need a job in Dallas", conversation=conversation)
    fourth = ask("and a place to sleep?", conversation=conversation)
    assert first["region"] and second["region"] == first["region"]
    assert third["region"] not in ("", None, first["region"])
    assert fourth["region"] == third["region"]
    assert [t.seq for t in conversation.turns.order_by("seq")] == [1, 2, 3, 4]


def test_a_follow_up_in_the_other_language_is_answered_in_that_language() -> None:
    first = ask("I just got out of TDCJ and need an ID in Houston")
    conversation = Conversation.objects.get(turns__pk=first["turn_id"])
    second = ask("¿y eso cuánto cuesta?", conversation=conversation)
    turn = Turn.objects.get(pk=second["turn_id"])
    assert first["language"] == "en" and second["language"] == "es"
    assert turn.redacted_text == "¿y eso cuánto cuesta?" and turn.standalone_text != turn.redacted_text
    assert "Here is" not in second["reply"]
