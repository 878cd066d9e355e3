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
