"""Fixtures for the evaluation tests: the real corpus and directory, and one evaluation run per session."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.test.utils import override_settings

from conversations.evaluation.metrics import judge
from conversations.evaluation.report import build_report
from conversations.evaluation.runner import run_traces
from conversations.evaluation.traces import load_traces, suite_names


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """Load the real corpus and directory once per test session (they are what turns cite and match)."""
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)


@pytest.fixture(scope="session")
def evaluation(django_db_setup: None, django_db_blocker: Any) -> dict[str, Any]:
    """Every pinned trace through the real workflow once, in demo mode (no model key, deterministic).

    The runner rolls each trace back, so the session database is left as the fixture found it.
    """
    with django_db_blocker.unblock(), override_settings(ANTHROPIC_API_KEY=""):
        observations = run_traces(load_traces())
    return build_report([judge(obs) for obs in observations], mode="demo", suites=suite_names())
