import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from audit.log import AuditEvent
from audit.services import audit_event_record


@pytest.mark.django_db
def test_audit_verify_reports_an_intact_chain(capsys):
    # Session fixtures elsewhere (corpus load) may have committed events before this test.
    before = AuditEvent.objects.count()
    for i in range(3):
        audit_event_record(action="turn.finished", object_id=i)
    call_command("audit", "verify")
    assert f"audit chain OK: {before + 3} events verified" in capsys.readouterr().out


@pytest.mark.django_db
def test_audit_verify_exits_1_and_names_the_tampered_event():
    events = [audit_event_record(action="turn.finished", object_id=i) for i in range(3)]
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_auditevent DISABLE TRIGGER audit_event_append_only")
        cursor.execute("UPDATE audit_auditevent SET actor = 'user:999' WHERE id = %s", [events[1].pk])
        cursor.execute("ALTER TABLE audit_auditevent ENABLE TRIGGER audit_event_append_only")
    with pytest.raises(CommandError) as exc:
        call_command("audit", "verify")
    assert exc.value.returncode == 1
    assert f"#{events[1].pk}" in str(exc.value)


def test_audit_evaluate_prints_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "report.json"
    call_command("audit", "evaluate", "--json", str(out))
    printed = capsys.readouterr().out
    assert "verdict accuracy" in printed
    data = json.loads(out.read_text())
    assert data["total"] >= 100
    assert data["verdict_accuracy"] >= 0.95
    assert data["rules"]["fabricated_citation"]["recall"] == 1.0


def test_audit_evaluate_fails_cleanly_on_a_bad_dataset(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    with pytest.raises(CommandError, match="malformed"):
        call_command("audit", "evaluate", "--dataset", str(bad))


@pytest.mark.django_db
def test_check_draft_reads_jsonl_and_blocks_the_parole_voting_claim_in_both_languages(tmp_path, capsys):
    from django.core.management import call_command as run

    run("corpus", "load", verbosity=0)
    source = tmp_path / "drafts.jsonl"
    source.write_text(
        "\n".join(
            json.dumps(line, ensure_ascii=False)
            for line in [
                {
                    "id": "en",
                    "draft": "Yes, you can vote while you are on parole in Texas [Tex. Elec. Code § 11.002(a)(4)].",
                    "evidence": ["tx-elec-11-002"],
                    "language": "en",
                },
                {
                    "id": "es",
                    "draft": "Sí, puede votar mientras está en libertad condicional [Tex. Elec. Code § 11.002(a)(4)].",
                    "evidence": ["tx-elec-11-002"],
                    "language": "es",
                },
                {
                    "id": "ok",
                    "draft": "Not yet: you cannot vote until your whole sentence is done, including parole [Tex. Elec. Code § 11.002(a)(4)].",
                    "evidence": ["tx-elec-11-002"],
                    "language": "en",
                },
                {
                    "id": "ghost",
                    "draft": "You can vote [Tex. Elec. Code § 11.002(a)(4)].",
                    "evidence": ["no-such-entry"],
                    "language": "en",
                },
            ]
        )
        + "\nnot json\n",
        encoding="utf-8",
    )
    call_command("audit", "check-draft", "--jsonl", str(source))
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_id = {row["id"]: row for row in rows}
    for key in ("en", "es"):
        assert by_id[key]["verdict"] == "soft_block"
        finding = by_id[key]["findings"][0]
        assert finding == {
            "rule": "contradicted_claim",
            "claim": finding["claim"],
            "entry": "tx-elec-11-002",
            "detail": finding["detail"],
        }
        assert "parole" in finding["claim"] or "libertad" in finding["claim"]
    assert by_id["ok"] == {"id": "ok", "verdict": "pass", "findings": []}
    assert by_id["ghost"]["verdict"] == "hard_block" and by_id["ghost"]["unknown_evidence"] == ["no-such-entry"]
    assert rows[-1]["id"] is None and rows[-1]["error"]["line"] == 5


def test_check_draft_reads_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr(
        "sys.stdin", io.StringIO('{"id": "x", "draft": "Call 211 Texas.", "evidence": [], "language": "en"}\n')
    )
    monkeypatch.setattr("audit.management.commands.audit.import_string", lambda path: lambda *, slugs, language: [])
    call_command("audit", "check-draft", "--jsonl", "-")
    assert json.loads(capsys.readouterr().out) == {"id": "x", "verdict": "pass", "findings": []}
