"""The caseload summarizer reads only: it runs inside a READ ONLY transaction and issues no write."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from caseload.summary import client_summary, summarize
from caseload.types import ClientSnapshot
from conversations.models import Turn
from tests.caseload.factories import OutboundFactory, TurnFactory
from tests.conversations.fakes import FakeAnthropic, ok

WRITES = ("insert", "update", "delete", "truncate", "alter", "create", "drop")


def _summarize_read_only(client: Any) -> tuple[Any, list[str]]:
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        with connection.cursor() as cursor:
            # PostgreSQL refuses any write from here on: a summarizer that tried would raise.
            cursor.execute("SET TRANSACTION READ ONLY")
        summary = client_summary(client=client)
    statements = [query["sql"].strip().lower() for query in queries.captured_queries]
    return summary, statements


@pytest.mark.django_db
def test_it_summarizes_deterministically_without_writing(cast: Any) -> None:
    TurnFactory(
        conversation=cast.conv_a,
        seq=2,
        redacted_text="I missed my appointment with my PO",
        crisis="none",
        top_need="supervision",
    )
    summary, statements = _summarize_read_only(cast.alice)
    assert summary.source == "deterministic"
    assert any("missed appointment" in bullet for bullet in summary.bullets)
    assert any("1 reply to approve" in bullet for bullet in summary.bullets)
    assert statements and not [sql for sql in statements if sql.startswith(WRITES)]


@pytest.mark.django_db
def test_it_summarizes_with_claude_without_writing_and_sends_no_name_or_notes(cast: Any, settings: Any) -> None:
    settings.ANTHROPIC_API_KEY = "sk-ant-test-not-a-real-key"
    settings.LLM_MAX_RETRIES = 0
    cast.alice.notes = "Staff-only note: sister's address"
    cast.alice.save()
    fake = FakeAnthropic()
    fake.on(
        "write_summary",
        ok("write_summary", {"bullets": ["Needs a state ID; asked twice.", "One reply waits for you."]}),
    )
    fake.install()
    try:
        summary, statements = _summarize_read_only(cast.alice)
    finally:
        from conversations import llm

        llm.set_http_client_factory(lambda: None)
    assert summary.source == "llm"
    assert summary.bullets == ("Needs a state ID; asked twice.", "One reply waits for you.")
    assert not [sql for sql in statements if sql.startswith(WRITES)]
    sent = str(fake.requests)
    assert "Aardvark" not in sent and "sister" not in sent  # neither the name nor staff notes leave
    assert "Alice asks where to get a state ID" in sent  # the redacted turn text is what it summarizes


@pytest.mark.django_db
def test_a_write_attempt_inside_the_summarizer_transaction_is_refused(cast: Any) -> None:
    """The guard itself can fail: a write in the same READ ONLY transaction raises."""
    from django.db.utils import InternalError

    with pytest.raises(InternalError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION READ ONLY")
        OutboundFactory(turn=cast.turn_a)


def test_the_summarizer_gets_plain_frozen_data_only() -> None:
    snapshot = ClientSnapshot(
        status="active",
        supervision_type="parole",
        release_date=None,
        days_since_release=None,
        mode_human=False,
        needs_human_reason="",
        pending_replies=0,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.pending_replies = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        summarize(object())  # type: ignore[arg-type]
    fields = {field.name for field in dataclasses.fields(ClientSnapshot)}
    assert not fields & {"name", "notes", "id", "client", "conversation", "sender"}
    assert Turn not in [type(value) for value in dataclasses.astuple(snapshot)]
