"""Release plan fixtures: the real corpus and directory, loaded once per session."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    with django_db_blocker.unblock():
        call_command("corpus", "load", verbosity=0)
        call_command("resources", "load", verbosity=0)
