"""`manage.py ask`, the stable command of ARCHITECTURE.md: --json and --jsonl, on the real workflow."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from conversations.models import Turn
from conversations.workflow.intake_rules import detect_language

pytestmark = pytest.mark.django_db


def ask(*args: str) -> str:
    out = StringIO()
    call_command("ask", *args, stdout=out)
    return out.getvalue()


def test_the_done_when_question_returns_a_completed_turn_with_citations_houston_resources_and_nodes() -> None:
    turn = json.loads(ask("I just got out of TDCJ and need an ID in Houston", "--json"))
    assert turn["status"] == "completed" and turn["language"] == "en"
    assert turn["citations"] and all(c["url"].startswith("http") for c in turn["citations"])
    assert all(f"[{c['citation']}]" in turn["reply"] for c in turn["citations"])
    assert any(r.get("city") == "Houston" for r in turn["resources"])
    assert [n["name"] for n in turn["nodes"]] == ["intake", "retrieve", "match", "draft", "audit", "send"]


def test_the_same_in_spanish_replies_in_spanish() -> None:
    turn = json.loads(ask("Acabo de salir de TDCJ y necesito una identificación en Houston", "--json"))
    assert turn["status"] == "completed" and turn["language"] == "es"
    assert "Lugares que pueden ayudar" in turn["reply"] and "Here is" not in turn["reply"]


def test_a_crisis_message_is_escalated_with_988() -> None:
    turn = json.loads(ask("I want to kill myself", "--json"))
    assert turn["status"] == "escalated" and turn["crisis"] == "suicide_self_harm"
    assert "988" in turn["reply"]


def test_jsonl_answers_each_line_with_its_id_and_reports_a_bad_line_without_stopping(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(
        json.dumps({"id": "a", "text": "can i vote on parole", "channel": "web", "language": "en"})
        + "\n"
        + "{not json\n"
        + json.dumps({"id": "c", "text": "necesito comida en El Paso", "channel": "sms"})
        + "\n",
        encoding="utf-8",
    )
    lines = [json.loads(line) for line in ask("--jsonl", str(source)).splitlines()]
    assert [line["id"] for line in lines] == ["a", None, "c"]
    assert lines[0]["status"] == "completed" and lines[0]["citations"]
    assert lines[1]["error"]["line"] == 2
    assert lines[2]["language"] == "es" and Turn.objects.get(pk=lines[2]["turn_id"]).channel == "sms"
    assert Turn.objects.count() == 2  # the bad line wrote nothing


def test_no_message_and_an_oversized_one_are_clear_errors_that_write_nothing() -> None:
    with pytest.raises(CommandError, match="give a message"):
        ask()
    with pytest.raises(CommandError, match=r"2,000|2000"):
        ask("x" * 2001, "--json")
    assert Turn.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "hint", "expected"),
    [
        ("where can I sleep tonight in Austin", None, "en"),
        ("¿dónde puedo dormir esta noche?", None, "es"),
        ("necesito un job en Dallas, por favor ayúdame", None, "es"),  # Spanglish, mostly Spanish
        ("I need help con my ID card please", None, "en"),  # Spanglish, mostly English
        ("Houston", "es", "es"),  # nothing to go on: the conversation's language decides
        ("Houston", None, "en"),
    ],
)
def test_the_language_comes_from_the_message_itself(text: str, hint: str | None, expected: str) -> None:
    assert detect_language(text, hint) == expected


def test_an_sms_channel_crisis_without_a_phone_completes_and_records_that_nothing_was_sent() -> None:
    from conversations.models import OutboundMessage

    turn = json.loads(ask("I want to kill myself", "--channel", "sms", "--json"))
    assert turn["status"] == "escalated" and turn["crisis"] == "suicide_self_harm" and "988" in turn["reply"]
    message = OutboundMessage.objects.get(turn_id=turn["turn_id"])
    assert message.status == OutboundMessage.Status.FAILED and message.error_code == "no_phone"
    assert Turn.objects.get(pk=turn["turn_id"]).state["undeliverable"] == "no_phone"


def test_every_sms_channel_crisis_line_of_a_batch_is_escalated(tmp_path: Path) -> None:
    # Written for this test; indirect forms the old rules missed are included.
    texts = [
        "i been saving up my pills for when i cant take it no more",
        "my boyfriend took my id and wont let me leave the apartment",
        "mi amigo tomo muchas pastillas y no despierta",
        "the halfway house manager says if i dont sleep with him he'll write me up to my PO",
        "me sacaron del albergue y no tengo donde dormir hoy en la noche",
        "some guy from my old unit said he's gonna stab me when he sees me",
        "I want to kill myself",
    ]
    path = tmp_path / "crises.jsonl"
    path.write_text(
        "".join(json.dumps({"id": str(i), "text": t, "channel": "sms"}) + "\n" for i, t in enumerate(texts)),
        encoding="utf-8",
    )
    lines = [json.loads(line) for line in ask("--jsonl", str(path)).splitlines()]
    assert [line["id"] for line in lines] == [str(i) for i in range(len(texts))]
    assert all(line["status"] == "escalated" and line["crisis"] != "none" for line in lines), [
        (line["id"], line.get("status"), line.get("crisis")) for line in lines
    ]


def test_the_intake_node_records_which_source_decided() -> None:
    from conversations.models import NodeRun

    turn = json.loads(ask("where can i get food stamps in austin", "--json"))
    intake = NodeRun.objects.get(turn_id=turn["turn_id"], node="intake")
    assert intake.output["intake_source"] in {"model", "rules", "context"}
    assert intake.output["model"].startswith("mm-")


@pytest.mark.django_db
def test_ask_can_i_vote_on_parole_leads_with_the_answer_and_returns_the_caveat(capsys):
    from django.core.management import call_command as run

    run("ask", "can i vote if im on parole", "--json")
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "completed" and payload["audit"]["verdict"] == "pass"
    assert payload["reply"].startswith("Not yet:")
    assert "Note: A 2025 bill" in payload["reply"]
    voting = next(c for c in payload["citations"] if c["id"] == "tx-elec-11-002")
    assert voting["caveat"].startswith("A 2025 bill")


@pytest.mark.django_db
def test_a_spanish_turn_returns_spanish_cards_with_documents_and_hours(capsys):
    from django.core.management import call_command as run

    run("ask", "necesito sacar mi identificación en Houston", "--json", "--language", "es")
    payload = json.loads(capsys.readouterr().out)
    dps = [r for r in payload["resources"] if r["documents"]]
    assert dps, payload["resources"]
    assert "Prueba de identidad" in dps[0]["documents"]
    assert all(set(r) >= {"service", "alert", "documents", "attributes", "hours"} for r in payload["resources"])
    assert not any("Proof of" in doc for r in payload["resources"] for doc in r["documents"])
