"""Fixtures for the conversations tests: seeded corpus and directory, and the fake Anthropic API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.management import call_command

from conversations import llm
from tests.conversations.fakes import FakeAnthropic


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> None:
    """Load the real corpus and directory once per test session (they are what turns cite and match)."""
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)


@pytest.fixture
def fake_anthropic(settings: pytest.FixtureRequest) -> Iterator[FakeAnthropic]:
    """Turn the LLM path on with the real SDK client talking to a fake transport."""
    settings.ANTHROPIC_API_KEY = "sk-ant-test-not-a-real-key"
    settings.LLM_MAX_RETRIES = 0
    fake = FakeAnthropic()
    fake.install()
    yield fake
    llm.set_http_client_factory(lambda: None)
