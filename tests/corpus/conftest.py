"""Corpus test fixtures: the project fixture is loaded once per session into the test database."""

from __future__ import annotations

import pytest

from corpus.models import CorpusEntry


@pytest.fixture(scope="session")
def _corpus_session(django_db_setup, django_db_blocker) -> None:
    """Load the real corpus once (embedding 124 entries takes seconds; reloads are no-ops)."""
    from corpus.services import corpus_load

    with django_db_blocker.unblock():
        corpus_load()


@pytest.fixture
def corpus(_corpus_session, db) -> None:
    """The loaded corpus, inside the test's rolled-back transaction (reloaded if a flush emptied it)."""
    if not CorpusEntry.objects.exists():
        from corpus.services import corpus_load

        corpus_load()


@pytest.fixture
def reviewer(django_user_model):
    return django_user_model.objects.create_user(
        username="reviewer", password="x" * 16, is_staff=True, is_superuser=True
    )
