"""A message carrying PII leaves no trace of it in any table or any log line after a full turn."""

from __future__ import annotations

import io
import logging
import uuid

import pytest
from django.db import connection

from conversations import services
from conversations.models import Contact

pytestmark = pytest.mark.django_db

SECRETS = ("123-45-6789", "123456789", "713-555-0199", "7135550199", "jdoe77@example.com", "01234567")
MESSAGE = "my ssn is 123-45-6789 tdcj# 01234567 email jdoe77@example.com call 713-555-0199 i need an ID in houston"


def rows_containing(needle: str) -> dict[str, int]:
    found: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        for (table,) in cursor.fetchall():
            cursor.execute(f'SELECT count(*) FROM "{table}" AS t WHERE t::text LIKE %s', [f"%{needle}%"])
            count = cursor.fetchone()[0]
            if count:
                found[table] = count
    return found


def test_an_ssn_and_other_pii_leave_no_trace_in_the_database_or_logs() -> None:
    handler = next(
        h for h in logging.getLogger().handlers if any(type(f).__name__ == "RedactPIIFilter" for f in h.filters)
    )
    stream = io.StringIO()
    previous = handler.setStream(stream)
    root_level = logging.getLogger().level
    logging.getLogger().setLevel(logging.DEBUG)
    try:
        _full_turn()
    finally:
        handler.setStream(previous)
        logging.getLogger().setLevel(root_level)
    for secret in SECRETS:
        assert rows_containing(secret) == {}, secret
    logged = stream.getvalue()
    assert "user wrote" in logged
    for secret in SECRETS:
        assert secret not in logged, secret


def _full_turn() -> None:
    conversation, _ = services.conversation_create(channel="web")
    turn, _ = services.turn_start(conversation=conversation, text=MESSAGE, idempotency_key=uuid.uuid4().hex)
    logging.getLogger("conversations").warning("user wrote %s", MESSAGE)  # even a careless log line is redacted
    services.turn_run(turn_id=turn.pk)
    turn.refresh_from_db()
    assert "[SSN]" in turn.redacted_text


def test_sms_numbers_are_stored_encrypted_and_found_by_hash() -> None:
    contact, created = services.contact_for_phone(phone="(713) 555-0199")
    again, created_again = services.contact_for_phone(phone="+1 713 555 0199")
    assert created and not created_again and contact.pk == again.pk
    assert "5550199" not in contact.phone_encrypted
    assert rows_containing("7135550199") == {}
    assert Contact.objects.get(pk=contact.pk).phone_last4 == "0199"
