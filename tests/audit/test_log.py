"""The audit log is append-only in code and in PostgreSQL, and the hash chain exposes tampering."""

import threading

import pytest
from django.db import DatabaseError, connection, connections, transaction

from audit.log import GENESIS_HASH, AppendOnlyViolation, AuditEvent
from audit.selectors import audit_chain_verify
from audit.services import audit_event_record


@pytest.fixture
def empty_log(db):
    """An empty log inside this test's transaction (rolled back after): other suites' session setup
    may have appended events (the directory load does), and these tests read the chain from its start."""
    _with_trigger_disabled("DELETE FROM audit_auditevent", [])


def _three_events():
    return [
        audit_event_record(action="turn.finished", actor="system", object_type="turn", object_id=f"t{i}", data={"n": i})
        for i in range(3)
    ]


@pytest.mark.django_db
def test_it_chains_each_event_to_the_previous_one(empty_log):
    a, b, c = _three_events()
    assert a.prev_hash == GENESIS_HASH
    assert b.prev_hash == a.hash and c.prev_hash == b.hash
    assert audit_chain_verify().ok
    assert audit_chain_verify().checked == 3


@pytest.mark.django_db
def test_its_hash_survives_a_database_round_trip():
    event = audit_event_record(
        action="audit.verdict",
        object_type="turn",
        object_id=42,
        data={"verdict": "soft_block", "rules": ["uncited_claim"], "ratio": 0.5, "nested": {"b": 1, "a": [1, 2]}},
    )
    stored = AuditEvent.objects.get(pk=event.pk)
    assert stored.compute_hash() == stored.hash == event.hash


@pytest.mark.django_db
def test_it_refuses_content_sized_data():
    with pytest.raises(ValueError, match="4 KB"):
        audit_event_record(action="x", data={"text": "a" * 5000})
    with pytest.raises(ValueError):
        audit_event_record(action="")


@pytest.mark.django_db
def test_the_database_refuses_a_raw_update():
    event = audit_event_record(action="sms.sent", object_type="outbound", object_id=1)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE audit_auditevent SET action = 'forged' WHERE id = %s", [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).action == "sms.sent"


@pytest.mark.django_db
def test_the_database_refuses_a_raw_delete():
    event = audit_event_record(action="sms.sent", object_type="outbound", object_id=1)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditevent WHERE id = %s", [event.pk])
    assert AuditEvent.objects.filter(pk=event.pk).exists()


@pytest.mark.django_db
def test_the_code_refuses_queryset_update_and_delete_and_resave():
    event = audit_event_record(action="outbound.approved", object_type="outbound", object_id=7)
    with pytest.raises(AppendOnlyViolation):
        AuditEvent.objects.filter(pk=event.pk).update(action="forged")
    with pytest.raises(AppendOnlyViolation):
        AuditEvent.objects.all().delete()
    with pytest.raises(AppendOnlyViolation):
        event.delete()
    event.action = "forged"
    with pytest.raises(AppendOnlyViolation):
        event.save()
    # bulk_update's own atomic block is marked for rollback by the refusal: give it a savepoint.
    with pytest.raises(AppendOnlyViolation), transaction.atomic():
        AuditEvent.objects.bulk_update([event], ["action"])
    assert AuditEvent.objects.get(pk=event.pk).action == "outbound.approved"


def _with_trigger_disabled(sql, params):
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_auditevent DISABLE TRIGGER audit_event_append_only")
        try:
            cursor.execute(sql, params)
        finally:
            cursor.execute("ALTER TABLE audit_auditevent ENABLE TRIGGER audit_event_append_only")


@pytest.mark.django_db
def test_verify_finds_the_first_altered_row(empty_log):
    _, middle, _ = _three_events()
    _with_trigger_disabled("UPDATE audit_auditevent SET object_id = 'other' WHERE id = %s", [middle.pk])
    report = audit_chain_verify()
    assert not report.ok
    assert report.first_broken_id == middle.pk
    assert report.checked == 1
    assert "altered" in report.reason


@pytest.mark.django_db
def test_verify_finds_a_row_rewritten_with_a_fresh_hash():
    # A forger who recomputes the row's own hash still breaks the next row's link.
    _, middle, last = _three_events()
    middle.object_id = "forged"
    new_hash = middle.compute_hash()
    _with_trigger_disabled(
        "UPDATE audit_auditevent SET object_id = 'forged', hash = %s WHERE id = %s", [new_hash, middle.pk]
    )
    report = audit_chain_verify()
    assert report.first_broken_id == last.pk
    assert "removed or reordered" in report.reason


@pytest.mark.django_db
def test_verify_finds_a_deleted_row():
    _, middle, last = _three_events()
    _with_trigger_disabled("DELETE FROM audit_auditevent WHERE id = %s", [middle.pk])
    report = audit_chain_verify()
    assert not report.ok
    assert report.first_broken_id == last.pk


@pytest.mark.django_db
def test_the_trigger_is_back_after_the_tamper_helper():
    event = audit_event_record(action="x")
    _with_trigger_disabled("SELECT 1", [])
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditevent WHERE id = %s", [event.pk])


@pytest.mark.django_db(transaction=True)
def test_concurrent_appenders_still_give_one_valid_chain():
    threads, per_thread, errors = 6, 15, []
    start = threading.Barrier(threads)
    before = AuditEvent.objects.count()  # events other suites' session setup may have written

    def append(worker):
        try:
            start.wait()
            for i in range(per_thread):
                audit_event_record(action="load.test", actor=f"worker:{worker}", object_id=i)
        except Exception as exc:  # noqa: BLE001 - surfaced through the list below
            errors.append(exc)
        finally:
            connections.close_all()  # each thread has its own connection; give it back

    workers = [threading.Thread(target=append, args=(w,)) for w in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert errors == []
    assert AuditEvent.objects.filter(action="load.test").count() == threads * per_thread
    report = audit_chain_verify()
    assert report.ok, report
    assert report.checked == before + threads * per_thread
    assert len(set(AuditEvent.objects.values_list("prev_hash", flat=True))) == before + threads * per_thread  # no fork
