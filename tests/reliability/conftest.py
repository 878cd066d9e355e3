"""Fixtures of the reliability and security suite: reuse the conversations, SMS and caseload fixtures.

The corpus and directory are loaded once per session (turns cite and match them); the SMS
fixtures give a fake Twilio on 127.0.0.1 and correctly signed webhook posts.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from tests.caseload.conftest import cast  # noqa: F401 - re-exported fixture
from tests.conversations.conftest import django_db_setup, fake_anthropic  # noqa: F401 - re-exported fixtures
from tests.conversations.sms.conftest import (  # noqa: F401 - re-exported fixtures
    dispatched,
    fake_twilio,
    post_sms,
    post_status,
    twilio_settings,
)


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def rows_containing(needle: str) -> dict[str, int]:
    """Every table (of the public schema) with a row whose text form contains `needle`."""
    found: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        for (table,) in cursor.fetchall():
            cursor.execute(f'SELECT count(*) FROM "{table}" AS t WHERE t::text ILIKE %s', [f"%{needle}%"])
            count = cursor.fetchone()[0]
            if count:
                found[table] = count
    return found
