"""Caveats reach a Spanish speaker in Spanish: web reply, SMS note and the turn JSON's citations."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from audit.claims import language_of
from conversations.workflow import templates
from corpus.models import CorpusEntry
from corpus.services import CorpusLoadError, corpus_fixture_read

VOTING_CAVEAT_ES = next(r["caveat_es"] for r in corpus_fixture_read() if r["slug"] == "tx-elec-11-002")


def ask(*args: str) -> dict:
    out = StringIO()
    call_command("ask", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_every_fixture_caveat_has_a_spanish_caveat_written_in_spanish():
    with_caveat = [r for r in corpus_fixture_read() if r.get("caveat")]
    assert len(with_caveat) >= 100
    for record in with_caveat:
        assert record["caveat_es"].strip() and record["caveat_es"] != record["caveat"], record["slug"]
        assert language_of(record["caveat_es"]) == "es" or len(record["caveat_es"].split()) < 8, record["slug"]


def test_the_loader_refuses_a_caveat_without_its_spanish(tmp_path):
    from corpus.services import FIXTURE_PATH

    data = json.loads(FIXTURE_PATH.read_text(encoding="utf-8"))
    del data["entries"][0]["caveat_es"]
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CorpusLoadError, match="caveat_es"):
        corpus_fixture_read(path=path)


@pytest.mark.django_db
def test_the_spanish_caveat_is_stored_on_the_entry():
    entry = CorpusEntry.objects.get(slug="tx-elec-11-002")
    assert entry.caveat_es == VOTING_CAVEAT_ES and entry.caveat.startswith("A 2025 bill")


@pytest.mark.django_db
def test_a_spanish_web_turn_shows_and_returns_the_spanish_caveat():
    turn = ask("¿puedo votar si estoy en libertad condicional?", "--language", "es")
    assert turn["status"] == "completed" and turn["language"] == "es"
    assert turn["reply"].startswith("Todavía no:")
    assert f"Nota: {VOTING_CAVEAT_ES}" in turn["reply"]
    assert "A 2025 bill" not in turn["reply"]
    voting = next(c for c in turn["citations"] if c["id"] == "tx-elec-11-002")
    assert voting["caveat"] == VOTING_CAVEAT_ES


@pytest.mark.django_db
def test_an_english_turn_keeps_the_english_caveat():
    turn = ask("can i vote if im on parole")
    voting = next(c for c in turn["citations"] if c["id"] == "tx-elec-11-002")
    assert voting["caveat"].startswith("A 2025 bill") and "Nota:" not in turn["reply"]


@pytest.mark.django_db
def test_a_spanish_sms_turn_shows_the_spanish_caveat_shortened():
    turn = ask("puedo votar si estoy en parole", "--language", "es", "--channel", "sms")
    note = next(line for line in turn["reply"].splitlines() if line.startswith("Nota:"))
    text = note.removeprefix("Nota: ")
    assert len(text) <= templates.SMS_NOTE_CHARS + 1
    assert turn["audit"]["verdict"] == "pass"
    assert VOTING_CAVEAT_ES.startswith(text.rstrip("…"))
    assert "Revise la ley vigente" not in note  # SMS shows the first sentence only
