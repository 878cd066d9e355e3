"""The audit chain head is anchored outside the database, signed, and checked by the next verify (#21 item 9);
TRUNCATE of the log is refused by PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from audit.log import AuditEvent
from audit.services import audit_event_record

pytestmark = pytest.mark.django_db


def _raw(sql: str, params: list[Any] | None = None) -> None:
    """Tamper as someone with database access would: the append-only triggers switched off."""
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_auditevent DISABLE TRIGGER USER")
        cursor.execute(sql, params or [])
        cursor.execute("ALTER TABLE audit_auditevent ENABLE TRIGGER USER")


def _verify(capsys: Any) -> str:
    call_command("audit", "verify")
    return capsys.readouterr().out


def test_verify_writes_a_signed_head_and_the_next_run_checks_it(settings, capsys) -> None:
    events = [audit_event_record(action="turn.finished", object_id=i) for i in range(3)]
    out = _verify(capsys)
    assert "no earlier anchor" in out and "audit anchor written" in out
    stored = json.loads(settings.AUDIT_ANCHOR_PATH.read_text())
    assert stored["event_id"] == events[-1].pk and stored["hash"] == events[-1].hash
    assert len(stored["signature"]) == 64 and settings.AUDIT_ANCHOR_KEY not in settings.AUDIT_ANCHOR_PATH.read_text()
    audit_event_record(action="turn.finished", object_id="later")
    out = _verify(capsys)
    assert "audit chain OK" in out and "no earlier anchor" not in out
    assert json.loads(settings.AUDIT_ANCHOR_PATH.read_text())["count"] == stored["count"] + 1


def test_a_consistently_rewritten_head_passes_the_chain_but_not_the_anchor(capsys) -> None:
    events = [audit_event_record(action="turn.finished", object_id=i) for i in range(2)]
    _verify(capsys)
    head = events[-1]
    head.actor = "user:999"
    forged = head.compute_hash()  # the last row: no successor's link breaks
    _raw("UPDATE audit_auditevent SET actor = 'user:999', hash = %s WHERE id = %s", [forged, head.pk])
    with pytest.raises(CommandError, match="no longer has the hash anchored") as exc:
        call_command("audit", "verify")
    assert exc.value.returncode == 1


def test_a_log_emptied_and_refilled_fails_the_anchor(capsys) -> None:
    audit_event_record(action="turn.finished", object_id="a")
    _verify(capsys)
    _raw("DELETE FROM audit_auditevent")
    audit_event_record(action="turn.finished", object_id="fresh start")
    with pytest.raises(CommandError, match="is gone"):
        call_command("audit", "verify")


def test_an_altered_or_foreign_anchor_is_refused(settings, capsys) -> None:
    audit_event_record(action="turn.finished", object_id="a")
    _verify(capsys)
    stored = json.loads(settings.AUDIT_ANCHOR_PATH.read_text())
    settings.AUDIT_ANCHOR_PATH.write_text(json.dumps({**stored, "count": stored["count"] + 5}))
    with pytest.raises(CommandError, match="valid signature"):
        call_command("audit", "verify")
    settings.AUDIT_ANCHOR_PATH.write_text(json.dumps(stored))
    settings.AUDIT_ANCHOR_KEY = "another-key-0123456789abcdef0123456789"
    with pytest.raises(CommandError, match="valid signature"):
        call_command("audit", "verify")
    settings.AUDIT_ANCHOR_PATH.write_text("not json")
    with pytest.raises(CommandError, match="unreadable"):
        call_command("audit", "verify")


def test_truncate_of_the_audit_log_is_refused() -> None:
    audit_event_record(action="turn.finished", object_id="kept")
    with (
        pytest.raises(DatabaseError, match="append-only: TRUNCATE refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE audit_auditevent")
    assert AuditEvent.objects.filter(object_id="kept").exists()
